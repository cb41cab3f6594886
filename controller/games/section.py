"""A config file's section, declared as data: its keys, their TOML types, defaults and bounds.

A game kind declares its own section (``GameKind.config``, e.g. ``[sauteur]``) with these
types, and :mod:`controller.config` declares the box's own sections (``[box]``, ``[server]``,
...) the same way; the config loader checks every section with one policy: a table, known
keys only, each value of its declared type (a TOML boolean is never a number), then each
key's ``check``. A refused value is named ``file: section.key: reason``.

Pure data and small checks: nothing here reads a file.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from controller.games.base import Said

Check = Callable[[object], Said | None]
"""Why a key's value (already of its declared type) is refused, or ``None`` if it is fine."""


@dataclass(frozen=True)
class Key:
    """One key of a section. ``types``: the TOML types accepted (``(int, float)`` for a
    number); ``default``: its value when the file leaves it out (copied, never shared);
    ``check``: its bounds; ``path``: a path, ``~`` expanded and relative to the config
    file's folder (the check then sees it resolved); ``legacy``: read from old files, never
    written out."""

    name: str
    types: tuple[type, ...]
    default: object
    check: Check | None = None
    path: bool = False
    legacy: bool = False

    def type_names(self) -> str:
        """The accepted types in words: ``int``, ``int or float``."""
        return " or ".join(kind.__name__ for kind in self.types)


@dataclass(frozen=True)
class Section:
    """A section ``[name]``: its keys, and ``make``, called with every key's value (the
    file's, else the default) by keyword, which builds the section's value the program
    reads (a dataclass of the game package, e.g.
    :class:`controller.games.sauteur.config.SauteurSection`)."""

    name: str
    make: Callable[..., object]
    keys: tuple[Key, ...]

    def key(self, name: str) -> Key | None:
        return next((key for key in self.keys if key.name == name), None)

    def defaults(self) -> dict[str, object]:
        """Every key's default value (fresh copies)."""
        return {key.name: copy.deepcopy(key.default) for key in self.keys}

    def default(self) -> object:
        """The section's value when the file has no such section."""
        return self.make(**self.defaults())


def between(low: float, high: float, reason: Said | None = None) -> Check:
    """A number from ``low`` to ``high`` (both included); else ``reason`` (by default
    "must be between {low} and {high}")."""

    def check(value: object) -> Said | None:
        if isinstance(value, int | float) and low <= value <= high:
            return None
        return reason or Said("must be between {low} and {high}", low=low, high=high)

    return check


def one_of(allowed: Sequence[str], reason: Said | None = None) -> Check:
    """One of the words ``allowed``; else ``reason`` (by default "'x' is not one of a, b")."""

    def check(value: object) -> Said | None:
        if value in allowed:
            return None
        names = ", ".join(allowed)
        return reason or Said("{value!r} is not one of {names}", value=value, names=names)

    return check


def strings(value: object) -> Said | None:
    """A list of strings."""
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return None
    return Said("must be a list of strings")
