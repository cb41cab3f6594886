"""Scoring a written game record (what ``diablotin tails score FILE`` reads).

A record is text: the first line ``players: 2`` (or 3, 4), then one placement
per line in the notation ``14n:E2``, or ``pass`` for a skipped placement.
Blank lines and ``#`` comments (to the end of a line) are ignored. The record
is checked against the rules as it is read; the first illegal line stops it.
"""

from __future__ import annotations

import re

from ..base import Refused, Said, said_of
from .notation import NotationError, parse_move
from .rules import TailsRules, TailsState, game_view

_PLAYERS = re.compile(r"^players\s*:\s*(\S+)$", re.IGNORECASE)


class RecordError(ValueError):
    """A record that cannot be scored: ``line`` (1-based) and ``reason``."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(Said("line {line}: {reason}", line=line, reason=reason))
        self.line = line
        self.reason = reason


def read_record(text: str, board: str | None = None) -> TailsState:
    """Replay a record through the rules; raises RecordError at the first bad line."""
    rules = TailsRules()
    state: TailsState | None = None
    last_line = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        last_line = number
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if state is None:
            state = _start(rules, line, number, board)
            continue
        try:
            state = rules.apply(state, parse_move(line))
        except (NotationError, Refused) as error:
            raise RecordError(number, said_of(error)) from None
    if state is None:
        raise RecordError(
            max(last_line, 1), Said("empty record: the first line must be 'players: N'")
        )
    return state


def _start(rules: TailsRules, line: str, number: int, board: str | None) -> TailsState:
    match = _PLAYERS.match(line)
    if match is None:
        raise RecordError(
            number, Said("expected 'players: 2', '3' or '4' first, not {line!r}", line=line)
        )
    if not match.group(1).isdigit():
        raise RecordError(
            number, Said("players must be 2, 3 or 4, not {players!r}", players=match.group(1))
        )
    options: dict[str, object] = {"players": int(match.group(1))}
    if board is not None:
        options["board"] = board
    try:
        return rules.setup(options)
    except Refused as error:
        raise RecordError(number, said_of(error)) from None


def score_record(text: str, board: str | None = None) -> dict[str, object]:
    """Score a record: ``{"devils": {"A": {"length", "end", "points"}, ...},
    "totals": [per side, in the board's side order], "finished": bool}``.

    ``end`` is ``"tail"``, ``"body"`` or ``"open"``; open tails (an unfinished
    record) count their length so far. Raises RecordError (line, reason).
    """
    view = game_view(read_record(text, board))
    return {
        "devils": {
            devil["name"]: {
                "length": devil["length"],
                "end": devil["end"],
                "points": devil["points"],
            }
            for devil in view["devils"]
        },
        "totals": view["totals"],
        "finished": view["finished"],
    }
