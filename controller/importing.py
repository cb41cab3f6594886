"""Reading, checking and storing exported games (``diablotin replay``, ``POST /api/import``).

An import is all or nothing: the file is checked (:func:`controller.journal.check_export`),
then replayed in full by the rules, and only then stored, game and entries in one SQLite
transaction. Every problem is a :class:`~controller.games.base.Refused` with a ``bad-``
code and a one-line reason; nothing is stored for it.
"""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path
from typing import Any

from .config import Config
from .games import registry
from .games.base import Refused, Rules, said_of
from .journal import MAX_EXPORT_BYTES, BadExport, Entry, Journal, effective_actions, parse_export

RULES_FAILURES = (ValueError, TypeError, KeyError, IndexError, AttributeError, RecursionError)
"""What a rules engine may raise on data it was never meant to see (a refusal is the rule;
these are turned into one so a hostile file cannot reach the referee as a 500)."""


def read_export(path: str | Path) -> dict[str, Any]:
    """The checked export in the file at ``path``; raises :class:`Refused` (``bad-export``)
    for a missing file, a folder, a pipe or a device, an unreadable or too large file, or a
    bad export."""
    path = Path(path)
    try:
        if path.is_dir():
            raise Refused("is a folder, not an export file", "bad-export")
        # O_NONBLOCK: opening a pipe with no writer would wait for one forever
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        with os.fdopen(fd, "rb") as file:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise Refused(
                    "is not a regular file (a pipe or a device): give an export file",
                    "bad-export",
                )
            os.set_blocking(fd, True)
            raw = file.read(MAX_EXPORT_BYTES + 1)
    except FileNotFoundError:
        raise Refused("no such file", "bad-export") from None
    except OSError as exc:
        raise Refused(
            "cannot be read ({strerror})", "bad-export", strerror=exc.strerror or exc
        ) from None
    return check(raw)


def check(raw: object) -> dict[str, Any]:
    """Export bytes (a file) or already-parsed JSON (an API body), checked; raises
    :class:`Refused` (``bad-export``)."""
    from .journal import check_export

    try:
        return parse_export(raw) if isinstance(raw, bytes) else check_export(raw)
    except BadExport as exc:
        raise Refused(said_of(exc), "bad-export") from None


def replay_export(data: dict[str, Any], config: Config) -> tuple[Rules[object], object]:
    """Replay a checked export with its rules; returns ``(rules, final state)``. Raises
    :class:`Refused`: ``bad-game`` for an unknown game, ``bad-export`` naming the options or
    the action the rules refuse."""
    rules = registry.get(data["kind"]).rules()
    try:
        state = rules.setup(data["options"])
    except Refused as refusal:
        raise Refused("options: {reason}", "bad-export", reason=said_of(refusal)) from None
    except RULES_FAILURES as exc:
        raise Refused(
            "options cannot be set up ({name})", "bad-export", name=type(exc).__name__
        ) from None
    entries = [Entry(i, 0.0, e["undo"], e["action"]) for i, e in enumerate(data["entries"], 1)]
    for number, action in enumerate(effective_actions(entries), 1):
        try:
            state = rules.apply(state, action)
        except Refused as refusal:
            raise Refused(
                "action {number}: {reason}", "bad-export", number=number, reason=said_of(refusal)
            ) from None
        except RULES_FAILURES as exc:
            raise Refused(
                "action {number}: cannot be applied ({name})",
                "bad-export",
                number=number,
                name=type(exc).__name__,
            ) from None
    return rules, state


def store(journal: Journal, data: dict[str, Any], config: Config) -> int:
    """Replay the checked export ``data``, then store it (one transaction); returns the new
    game's id. Its finished flag is the replay's, not the file's. Raises :class:`Refused`
    or :class:`~controller.journal.DiskFull`; nothing is stored then."""
    rules, state = replay_export(data, config)
    finished = rules.is_over(state)
    data = dict(data, finished=(data["finished"] or time.time()) if finished else None)
    try:
        return journal.import_game(data)
    except BadExport as exc:
        raise Refused(said_of(exc), "bad-export") from None
