"""Every game kind the box knows, each declared once by its own package.

A game package exports ``KIND``, a :class:`GameKind`: its name, its rules, its options
(built from its config section and checked by the engine's own option parser when the
config loads), its display name as a translatable message, and its optional hooks. The
service, the API and its OpenAPI document, the home page's form, history, export and
import and the reliability suite all read :func:`kinds` / :func:`get`; adding a game is
a package with a ``KIND`` and one line in :data:`BUILT_IN` (or :func:`register` from a
plug-in or a test).

Pure: importing this module imports no game; :func:`kinds` imports the built-in ones.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from controller.games.base import Refused, Rules

BUILT_IN = ("controller.games.sauteur", "controller.games.teufel", "controller.games.tails")
"""The packages whose ``KIND`` is registered on first use, in the order menus show them."""


@dataclass(frozen=True)
class Message:
    """A sentence to show people: ``msgid`` is the English text (the gettext key);
    ``{names}`` in it are filled from the caller's parameters at the edge, in the
    viewer's language."""

    msgid: str

    def english(self, **params: Any) -> str:
        return self.msgid.format(**params)


def _no_options(section: Any) -> dict[str, Any]:
    return {}


def _no_seats(options: Mapping[str, Any]) -> list[str]:
    return []


@dataclass(frozen=True)
class GameKind:
    """One game kind, as the rest of the box sees it.

    ``rules``: makes the engine (imported lazily, so an absent optional game costs
    nothing). ``options``: the default setup options from the game's config section
    (``Config.<name>``, ``None`` when the config has none). ``title``: the display name;
    ``default_title(options)`` names a new game whose title was left empty.
    ``web``: the module of dashboard helpers (odds, extras, layout; see
    :mod:`controller.web.kinds`), or ``None``. ``rules_page``: the players' rules
    ``web/rules/<name>.<lang>.md`` are served at ``/rules/<name>``. ``computer``: the game
    has a computer player. ``page``: the game page's
    template and script (``games/<page>.html``/``.js``); ``"generic"`` draws the state
    as JSON with an action form.
    """

    name: str
    title: Message
    rules: Callable[[], Rules[Any]]
    options: Callable[[Any], dict[str, Any]] = _no_options
    default_title: Callable[[Mapping[str, Any]], str] | None = None
    web: str | None = None
    rules_page: bool = False
    computer: bool = False
    page: str = "generic"
    box_player: str | None = None
    """``"module:Class"`` of the component that plays this game on the box's toy (the
    service makes one, and attaches this kind's tables to it); ``None``: a board game
    whose moves the referee enters."""
    at_start: Callable[[Mapping[str, Any]], dict[str, Any]] | None = None
    """What a new game adds to the config's options (e.g. Teufel's seated players), so
    that :meth:`check_options` can check the config's part alone."""
    seat_keys: Callable[[Mapping[str, Any]], list[str]] = _no_seats
    """The engine's names for a game's seats, in order, from its options (``p1``/``p2``,
    Teufel's colours, the tail-tile game's ``0``..``n-1``): what a seat's player
    (:mod:`controller.players`) stands for."""
    cli: str | None = None
    """``"module:NAME"`` of this kind's part of the ``diablotin`` command (a
    :class:`controller.commands.base.KindCli`: its terminal game for ``play``, its
    simulator for ``sim``, its own commands); ``None``: none."""

    def check_options(self, options: Mapping[str, Any]) -> None:
        """Raise :class:`Refused` when the engine's own option parser refuses ``options``
        (the config's defaults, completed as a new game would complete them)."""
        full = dict(options) if self.at_start is None else self.at_start(options) | dict(options)
        self.rules().setup(full)

    def new_title(self, options: Mapping[str, Any]) -> str:
        """The English title of a new game whose title was left empty."""
        if self.default_title is not None:
            return self.default_title(options)
        return self.title.english()


_KINDS: dict[str, GameKind] = {}
_loaded = False


def register(kind: GameKind) -> GameKind:
    """Add ``kind`` (or replace the one of the same name); returns it."""
    _KINDS[kind.name] = kind
    return kind


def unregister(name: str) -> None:
    """Forget ``name`` (tests that registered a game of their own)."""
    _KINDS.pop(name, None)


def _load_built_in() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    for package in BUILT_IN:
        try:
            module = importlib.import_module(package)
        except ModuleNotFoundError:
            continue  # an optional game left out of this install
        _KINDS.setdefault(module.KIND.name, module.KIND)


def kinds() -> tuple[GameKind, ...]:
    """Every registered game kind: the built-in ones first, in :data:`BUILT_IN` order."""
    _load_built_in()
    return tuple(_KINDS.values())


def names() -> tuple[str, ...]:
    return tuple(kind.name for kind in kinds())


def get(name: str) -> GameKind:
    """The game kind called ``name``; :class:`Refused` ``bad-game`` for another."""
    _load_built_in()
    kind = _KINDS.get(name)
    if kind is None:
        raise Refused(
            "unknown game {name!r}: choose one of {names}",
            "bad-game",
            name=name,
            names=", ".join(names()),
        )
    return kind
