"""Export files (``diablotin-game/1``): checked and normalised before anything is stored.

Every text passes the free-text policy; values are plain JSON, finite numbers, nested at most
``MAX_DEPTH`` deep; at most ``MAX_ENTRIES`` entries. The rules are not consulted here.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any, NoReturn, TypedDict

from ..games.base import Said, said_of
from ..text import NAME_MAX, NOTE_MAX, TITLE_MAX, TextRefused, clean_text
from .errors import BadExport

EXPORT_FORMAT = "diablotin-game/1"
MAX_EXPORT_BYTES = 1024 * 1024
"""The largest export file read (as the API's largest request body)."""
MAX_ENTRIES = 20_000
"""The most entries an imported game may have (a long Diable sauteur game has ~1,000)."""
MAX_DEPTH = 8
"""How deeply an imported game's options or actions may nest lists and objects."""
VALUE_MAX = NOTE_MAX
"""The longest string in an imported game's options or actions (characters)."""


class ExportedEntry(TypedDict):
    """One entry of an export: its number, time (s since 1970), undo marker, action."""

    seq: int
    at: float
    undo: bool
    action: dict[str, object]


class GameExport(TypedDict):
    """A game as :meth:`~controller.journal.Journal.export` writes it (``diablotin-game/1``)."""

    format: str
    kind: str
    title: str
    options: dict[str, object]
    created: float
    finished: float | None
    abandoned: float | None
    seats: list[dict[str, object]] | None
    entries: list[ExportedEntry]


def parse_export(raw: bytes) -> dict[str, Any]:
    """An export file's bytes as checked export data (see :func:`check_export`).

    Raises :class:`BadExport` with a one-line reason: too large, not UTF-8, not JSON,
    nested too deeply, a number JSON cannot hold (NaN, infinity, 5000 digits), or any
    problem :func:`check_export` finds."""
    if len(raw) > MAX_EXPORT_BYTES:
        raise BadExport(
            Said(
                "the file is larger than {limit} bytes",
                limit=MAX_EXPORT_BYTES,
            )
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadExport(
            Said("the file is not UTF-8 text (byte {start})", start=exc.start)
        ) from None
    try:
        data = json.loads(text, parse_constant=_refuse_constant)
    except RecursionError:
        raise BadExport(Said("the file is nested too deeply to be an export")) from None
    except json.JSONDecodeError as exc:
        raise BadExport(
            Said("the file is not JSON ({msg}, line {lineno})", msg=exc.msg, lineno=exc.lineno)
        ) from None
    except ValueError as exc:  # NaN/Infinity, an integer of thousands of digits
        raise BadExport(
            Said("the file holds a number JSON cannot carry ({exc})", exc=said_of(exc))
        ) from None
    return check_export(data)


def _refuse_constant(name: str) -> NoReturn:
    raise ValueError(Said("{name} is not a finite number", name=name))


def check_export(data: object) -> dict[str, Any]:
    """The export ``data`` checked and normalised; raises :class:`BadExport` naming the
    first thing wrong. Every text (title, and each string in the options and actions)
    passes :func:`controller.text.clean_text`; values are plain JSON, finite numbers,
    at most ``MAX_DEPTH`` deep; at most ``MAX_ENTRIES`` entries. The rules are not
    consulted: replaying is the caller's check."""
    if not isinstance(data, Mapping):
        raise BadExport(Said("an export file is a JSON object"))
    if data.get("format") != EXPORT_FORMAT:
        shown = data.get("format")
        shown = shown if isinstance(shown, str | int | None) and len(str(shown)) < 40 else "?"
        raise BadExport(
            Said(
                "format must be {form!r}, got {shown!r}",
                form=EXPORT_FORMAT,
                shown=shown,
            )
        )
    kind = _text(data.get("kind"), "kind", 32)
    title = _text(data.get("title", ""), "title", TITLE_MAX, allow_empty=True)
    options = data.get("options")
    if not isinstance(options, Mapping):
        raise BadExport(Said("options must be an object"))
    _plain_json(options, "options")
    created = _number(data.get("created", 0.0), "created")
    finished = data.get("finished")
    finished = None if finished is None else _number(finished, "finished")
    abandoned = data.get("abandoned")
    abandoned = None if abandoned is None else _number(abandoned, "abandoned")
    seats = _seats(data.get("seats"))
    entries = data.get("entries")
    if not isinstance(entries, list):
        raise BadExport(Said("entries must be a list"))
    if len(entries) > MAX_ENTRIES:
        raise BadExport(
            Said(
                "a game has at most {limit} entries, this one {count}",
                limit=MAX_ENTRIES,
                count=len(entries),
            )
        )
    checked = []
    for i, e in enumerate(entries, 1):
        if not isinstance(e, Mapping) or not isinstance(e.get("action"), Mapping):
            raise BadExport(Said("entry {i}: needs an 'action' object", i=i))
        undo = e.get("undo", False)
        if not isinstance(undo, bool):
            raise BadExport(Said("entry {i}: undo must be true or false", i=i))
        action = e["action"]
        _plain_json(action, f"entry {i}: action")
        if not undo and not isinstance(action.get("type"), str):
            raise BadExport(Said("entry {i}: an action needs a 'type'", i=i))
        at = _number(e.get("at", 0.0), f"entry {i}: at")
        checked.append({"at": at, "undo": undo, "action": dict(action)})
    return {
        "format": EXPORT_FORMAT,
        "kind": kind,
        "title": title,
        "options": dict(options),
        "created": created,
        "finished": finished,
        "abandoned": abandoned,
        "seats": seats,
        "entries": checked,
    }


def _seats(value: object) -> list[dict[str, str | None]] | None:
    """An export's seats, checked: names by the free-text policy; a roster player's id is
    dropped (the importing box has its own roster), the name kept."""
    if value is None:
        return None
    if not isinstance(value, list) or len(value) > 8:
        raise BadExport(Said("seats must be a list of at most 8 seats"))
    seats = []
    for i, seat in enumerate(value, 1):
        if not isinstance(seat, Mapping):
            raise BadExport(Said("seat {i}: must be an object", i=i))
        name, mark, computer = seat.get("name"), seat.get("mark"), seat.get("computer")
        seats.append(
            {
                "key": _text(seat.get("key"), f"seat {i}: key", 32),
                "name": None if name is None else _text(name, f"seat {i}: name", NAME_MAX),
                "mark": None if mark is None else _text(mark, f"seat {i}: mark", 8),
                "player": None,
                "computer": None
                if computer is None
                else _text(computer, f"seat {i}: computer", 16),
            }
        )
    return seats


def _text(value: object, field: str, max_len: int, allow_empty: bool = False) -> str:
    try:
        return clean_text(value, field=field, max_len=max_len, allow_empty=allow_empty)
    except TextRefused as exc:
        raise BadExport(said_of(exc)) from None


def _number(value: object, field: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise BadExport(Said("{field} must be a number (seconds since 1970)", field=field))
    if not math.isfinite(value) or abs(value) > 1e12:
        raise BadExport(Said("{field} is not a finite number of seconds", field=field))
    return float(value)


def _plain_json(value: object, where: str) -> None:
    """Refuse anything but JSON values (finite numbers, clean strings of at most
    ``VALUE_MAX`` characters) nested at most ``MAX_DEPTH`` deep. Iterative: a hostile
    nesting cannot exhaust the stack."""
    stack: list[tuple[object, str, int]] = [(value, where, 1)]
    while stack:
        item, path, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise BadExport(
                Said("{where} is nested more than {limit} deep", where=where, limit=MAX_DEPTH)
            )
        if isinstance(item, str):
            _text(item, path, VALUE_MAX, allow_empty=True)
        elif isinstance(item, bool) or item is None or isinstance(item, int):
            pass
        elif isinstance(item, float):
            if not math.isfinite(item):
                raise BadExport(Said("{path} is not a finite number", path=path))
        elif isinstance(item, Mapping):
            for key, sub in item.items():
                _text(key, f"{path} key", VALUE_MAX)
                stack.append((sub, f"{path}.{key}"[:80], depth + 1))
        elif isinstance(item, list):
            stack.extend((sub, f"{path}[{n}]"[:80], depth + 1) for n, sub in enumerate(item))
        else:
            raise BadExport(
                Said(
                    "{path} holds a value that is not JSON ({kind})",
                    path=path,
                    kind=type(item).__name__,
                )
            )
