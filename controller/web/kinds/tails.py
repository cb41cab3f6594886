"""Dashboard helpers for the tail-tile game: the advisor, the board's geometry, refusals.

- ``odds(state, args)`` answers ``GET /api/games/<id>/odds``: with ``kind=E`` the best
  placements of the card just drawn (``lookahead=1`` also plays the next placement,
  ``lookahead=end`` plays the game out, Monte Carlo),
  without a kind the best cells to name before the draw;
- ``layout(state)`` answers ``GET /api/games/<id>/layout``: the board's static geometry,
  fetched once by the page (it is not part of the view);
- ``extras(state, referee)`` gives the referee, with every payload, the engine's reason
  for each cell the pending placement may not use.
"""

from __future__ import annotations

import random
from collections.abc import Mapping

from controller.games.base import Refused
from controller.games.tails import (
    TailsState,
    advise,
    advise_cell,
    advise_rollouts,
    pending,
)
from controller.games.tails import layout as board_layout
from controller.games.tails.rules import refused_cells
from controller.web.costly import yield_to_referee

LEGAL_IN_EXTRAS = False
"""The page reads what is legal from the view itself: no long ``legal`` list per frame."""

ODDS_PARAMETERS = ("kind", "lookahead")
"""The query parameters ``odds`` accepts."""

LAYOUT_DIGITS = 4
"""Coordinates in the layout are rounded to this many decimals (unit: a cell's side)."""

ADVICE_COUNT = 3
"""Suggestions returned, best first."""

END_BUDGET_S = 0.5
"""Seconds the Monte Carlo advisor (``lookahead=end``) thinks on a request."""


ODDS = (
    "the advisor (query `kind=A..G` for the card drawn, `lookahead=1`; "
    "no kind: cells before the draw)"
)
"""What ``GET /api/games/<id>/odds`` says for this game (the OpenAPI summary)."""


def odds(state: TailsState, args: Mapping[str, str]) -> dict[str, object]:
    """The advisor for the player to move.

    ``args``: ``kind`` (A–G, the card just drawn; absent: rank cells before the draw) and
    ``lookahead`` (only with a kind: ``0``, ``1`` the next placement too, ``end`` Monte
    Carlo playouts to the end for :data:`END_BUDGET_S`). Returns ``mode`` (``"placement"``
    or ``"cell"``), ``kind``, ``lookahead``, ``to_end``, ``to_move`` (``{seat, side}`` or null),
    ``must_pass``, ``finished`` and ``suggestions`` (``cell, kind, rotation, value, gain``,
    best first; empty when the player must pass or the game is over). Raises
    :class:`Refused` (code ``bad-query``, ``bad-kind`` or ``no-stock``) for bad parameters.
    """
    unknown = sorted(set(args) - set(ODDS_PARAMETERS))
    if unknown:
        raise Refused(
            "unknown parameter(s) {unknown}: use kind and lookahead",
            "bad-query",
            unknown=", ".join(unknown),
        )
    kind = args.get("kind")
    lookahead_arg = args.get("lookahead", "0")
    if lookahead_arg not in ("0", "1", "end"):
        raise Refused(
            "lookahead must be 0, 1 or end, not {lookahead_arg!r}",
            "bad-query",
            lookahead_arg=lookahead_arg,
        )
    if kind is None and lookahead_arg != "0":
        raise Refused("lookahead needs the kind of the card drawn", "bad-query")
    if kind is None:
        suggestions = advise_cell(state, top=ADVICE_COUNT)
    elif lookahead_arg == "end":
        rng = random.Random("|".join(state.moves))  # the same answer for the same position
        suggestions = advise_rollouts(
            state, kind, rng, budget_s=END_BUDGET_S, top=ADVICE_COUNT, pause=yield_to_referee
        )
    else:
        suggestions = advise(state, kind, lookahead=lookahead_arg == "1", top=ADVICE_COUNT)
    due = pending(state)
    return {
        "game": "tails",
        "mode": "cell" if kind is None else "placement",
        "kind": kind,
        "lookahead": lookahead_arg != "0",
        "to_end": lookahead_arg == "end",
        "to_move": None if due is None else {"seat": due.seat, "side": due.side},
        "must_pass": due is not None and not due.legal,
        "finished": due is None,
        "suggestions": [suggestion.as_dict() for suggestion in suggestions],
    }


def layout(state: TailsState) -> dict[str, object]:
    """The game's board geometry (:func:`controller.games.tails.layout`), coordinates
    rounded to :data:`LAYOUT_DIGITS` decimals to keep it small (≈ 15 kB)."""
    rounded = _round(board_layout(state.board))
    assert isinstance(rounded, dict)  # a dict stays a dict
    return rounded


def extras(state: TailsState, referee: bool) -> dict[str, object]:
    """For the referee, ``refusals``: cell id → the engine's reason it may not take the
    pending placement (empty once the game is over). Nothing for spectators."""
    if not referee:
        return {}
    refused = refused_cells(state)
    return {
        "refusals": {cell: refusal.reason for cell, refusal in refused.items()},
        "refusals_said": {
            cell: {"template": refusal.template, "params": refusal.params}
            for cell, refusal in refused.items()
        },
    }


def _round(value: object) -> object:
    if isinstance(value, float):
        return round(value, LAYOUT_DIGITS)
    if isinstance(value, dict):
        return {key: _round(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_round(item) for item in value]
    return value
