"""The tail-tile game (Auf Teufel komm raus! / Le Diable par la queue).

Board geometry is data (``board.json``, see :mod:`.board`); the rules are in
:mod:`.rules`, scoring in :mod:`.scoring`, the advisor in :mod:`.advisor`, the
record scorer behind ``diablotin tails score`` in :mod:`.record`.
"""

from typing import Any

from controller.games.registry import GameKind, Message

from .advisor import Suggestion, advise, advise_cell, advise_rollouts, playout
from .board import Board, BoardError, layout, load_board
from .cards import KINDS, PAIRS, SYMMETRIC
from .config import SECTION
from .notation import NotationError, format_move, parse_move
from .record import RecordError, score_record
from .rules import (
    Pending,
    TailsRules,
    TailsState,
    cell_refusals,
    game_view,
    legal_cells,
    pending,
)
from .scenario import crash_script, rules_examples
from .scoring import Tail, score, trace, trace_all
from .stats import STATS
from .strings import STRINGS
from .voice import VOICE


def _options(section: Any) -> dict[str, object]:
    """The config's ``[tails]`` section (a board file) as setup options."""
    if section is None or not section.board:
        return {}
    return {"board": section.board}


KIND = GameKind(
    name="tails",
    title=Message("Devil by the Tail"),
    rules=TailsRules,
    options=_options,
    config=SECTION,
    strings=STRINGS,
    voice=VOICE,
    web="controller.web.kinds.tails",
    rules_page=True,
    page="tails",
    cli="controller.tails_cli:CLI",
    seat_keys=lambda options: [str(seat) for seat in range(int(options.get("players", 2)))],
    stats=STATS,
    crash_script=crash_script,
    rules_examples=rules_examples,
    walk=lambda players: {"players": players},
)

__all__ = [
    "KIND",
    "KINDS",
    "PAIRS",
    "SYMMETRIC",
    "Board",
    "BoardError",
    "NotationError",
    "Pending",
    "RecordError",
    "Suggestion",
    "Tail",
    "TailsRules",
    "TailsState",
    "advise",
    "advise_cell",
    "advise_rollouts",
    "cell_refusals",
    "format_move",
    "game_view",
    "layout",
    "legal_cells",
    "load_board",
    "parse_move",
    "pending",
    "playout",
    "score",
    "score_record",
    "trace",
    "trace_all",
]
