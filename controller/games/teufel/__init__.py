"""Teufel, Teufel / Diable, diable: rules engine, reach and exact odds.

The box does not sense this board: a referee enters what happens, the engine
keeps the state, refuses illegal entries with a reason and says what is
legal next. Rules as implemented: docs/rules-teufel.md.

Setup options: ``players`` (colours in seat order, clockwise, 2–6),
``colours`` (six names, default yellow green blue purple white black),
``vines`` (six card-free squares, default b2 f2 d1 d7 b6 f6), ``first``
(who places first and plays first, default the first player), ``position``
(optional: start from a game already under way).

Actions (JSON objects; any but ``reveal`` may carry ``"player": colour``,
checked against whoever must decide):

=================  ==========================  =============================================
type               fields                      when
=================  ==========================  =============================================
place_sled         square                      setup, in seat order from ``first``
step               to                          turn start or mid-move: one orthogonal step
end_move                                       mid-move on a free square
pass_over / flip                               devil-holder on a face-down card
reveal             card                        chance: "blue-D", "devil" or "tower"
take_devil_from    from                        no devil on the face: whose to take
give_up_letters    letters (list)              devil, devil: the two letters lost
peek               square                      on a tower (once)
return_devil                                   on a tower, holding a devil
done                                           leave the tower
exchange           a, b                        turn start: swap two cards
pick_up            square                      shuffle (holding a devil): 2–4 cards
lay_down           squares (list)              shuffle: lay them all face down
flip_card          square                      turn of a player who left: flip two
pass                                           turn start, only if nothing else is legal
=================  ==========================  =============================================

Public helpers besides :class:`TeufelRules` (all pure, all in the view too):
:func:`reachable` (squares the mover can reach, ``free``/``flip``/``stop``),
:func:`blocked_steps` (neighbours the mover may not enter, with reasons),
:func:`unavailable` (answers to the pending decision not possible now, with
reasons), :func:`legal_types`, :func:`odds` / :func:`exact_odds` (per
face-down card: chance of a devil, a tower, one of a player's missing letters).
"""

from collections.abc import Mapping
from typing import Any

from controller.games.registry import GameKind, Message

from .actions import legal_types, unavailable
from .cards import DEFAULT_COLOURS
from .config import SECTION
from .rules import TeufelRules
from .scenario import crash_script, rules_examples
from .stats import STATS
from .strings import STRINGS
from .view import blocked_steps, exact_odds, odds, reachable
from .voice import VOICE


def _options(section: Any) -> dict[str, Any]:
    """The config's ``[teufel]`` section (the board's colours and vines) as setup options."""
    if section is None:
        return {}
    return {"colours": section.colours, "vines": section.vines}


def _seated(options: Mapping[str, Any]) -> dict[str, Any]:
    """A new game seats players: the first two of the board's colours, to check the rest."""
    colours = options.get("colours") or DEFAULT_COLOURS
    return {"players": list(colours[:2])}


KIND = GameKind(
    name="teufel",
    title=Message("Devils, Devils"),
    rules=TeufelRules,
    options=_options,
    config=SECTION,
    strings=STRINGS,
    voice=VOICE,
    at_start=_seated,
    seat_keys=lambda options: [str(colour) for colour in options.get("players", [])],
    web="controller.web.kinds.teufel",
    rules_page=True,
    page="teufel",
    stats=STATS,
    crash_script=crash_script,
    rules_examples=rules_examples,
)

__all__ = [
    "KIND",
    "TeufelRules",
    "blocked_steps",
    "exact_odds",
    "legal_types",
    "odds",
    "reachable",
    "unavailable",
]
