"""Rules of the tail-tile game for 2, 3 and 4 players (see docs/rules-tails.md).

Seats are numbered from 0 in playing order; seat 0 starts. Sides are the
board's devil groups for the player count: 2 players, seat ``s`` is side
``s``; 4 players, seats 0 & 2 are side 0 and seats 1 & 3 side 1 (partners
opposite); 3 players, seat ``s`` is side ``s``.

2 and 4 players: the first turn places 1 card on a chosen cell; every later
turn places 2, the first on the twin of the most recently placed card's cell
(forced) unless that twin is filled (then chosen), the second chosen.
3 players: 1 chosen card per turn, outside the sector of the most recently
placed card when possible. A chosen cell may not hold an opponent's devil body
(exception rule). A chosen placement with no legal cell is a ``pass``.

Actions: ``{"type": "place", "cell": "14n", "kind": "E", "rotation": 2}``
(``rotation`` 0–2, optional and normalised to 0 for A/B/C) and
``{"type": "pass"}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from ..base import Action, Refused, Viewer, refusal_by_applying, said_of
from ..shape import action_type
from .board import Board, BoardError, load_board
from .cards import KIND_INDEX, KINDS, SYMMETRIC, code_of, kind_of, rotation_of, rotations
from .notation import format_move
from .scoring import side_totals, trace_all

DEFAULT_STOCK = 8
"""Cards of each kind in the box."""

_OPTIONS = {"players", "board", "stock"}
_PLACE_FIELDS = {"type", "cell", "kind", "rotation"}


@dataclass(frozen=True, slots=True)
class TailsState:
    """A game in progress. Immutable; ``apply`` returns a new one."""

    board: Board
    players: int
    stock: tuple[int, ...]
    """Cards left per kind, in KINDS order."""
    cards: tuple[int, ...]
    """Per cell: −1 empty, else the card's code (kind index × 3 + rotation)."""
    placed: tuple[int, ...]
    """Cells in the order their cards were placed."""
    moves: tuple[str, ...]
    """Every accepted action in notation (``14n:E2``, ``pass``)."""
    turn: int
    """1-based turn number."""
    seat: int
    """Seat to move (0-based)."""
    step: int
    """Placements (or passes) already made in this turn."""

    @property
    def finished(self) -> bool:
        return -1 not in self.cards


@dataclass(frozen=True, slots=True)
class Pending:
    """The placement the rules expect next."""

    seat: int
    side: int
    placement: int
    """1 or 2: which placement of the turn."""
    of: int
    """Placements in this turn (1 or 2)."""
    forced: int | None
    """The cell the twin rule forces, or None for a chosen placement."""
    excluded_sector: int | None
    """3 players: the sector a chosen cell must avoid (None when nothing is excluded)."""
    legal: tuple[int, ...]
    """Cells the placement may go on; empty means the player must pass."""


def side_of_seat(players: int, seat: int) -> int:
    """Side index of a seat: partners opposite with 4 players."""
    return seat % 2 if players == 4 else seat


def seats_of_side(players: int, side: int) -> list[int]:
    return [seat for seat in range(players) if side_of_seat(players, seat) == side]


def placements_in_turn(state: TailsState) -> int:
    """1 for the first turn and for every 3-player turn, else 2."""
    return 1 if state.players == 3 or state.turn == 1 else 2


def pending(state: TailsState) -> Pending | None:
    """What the next placement is (None once the game is over)."""
    if state.finished:
        return None
    board, cards, players = state.board, state.cards, state.players
    side = side_of_seat(players, state.seat)
    last = state.placed[-1] if state.placed else None
    per_turn = placements_in_turn(state)
    if players != 3 and state.step == 0 and state.turn > 1 and last is not None:
        twin = board.twin[last]
        if cards[twin] < 0:
            return Pending(state.seat, side, 1, per_turn, twin, None, (twin,))
    forbidden = board.forbidden[players][side]
    legal = [c for c in range(board.cell_count) if cards[c] < 0 and c not in forbidden]
    excluded = None
    if players == 3 and last is not None:
        outside = [c for c in legal if board.sector[c] != board.sector[last]]
        if outside:
            legal = outside
            excluded = board.sector[last]
    return Pending(state.seat, side, state.step + 1, per_turn, None, excluded, tuple(legal))


def _why_not(state: TailsState, due: Pending, cell: int) -> Refused:
    board = state.board
    cell_id = board.cell_ids[cell]
    if due.forced is not None:
        return Refused("the twin rule forces {cell}", "twin-rule", cell=board.cell_ids[due.forced])
    if state.cards[cell] >= 0:
        return Refused("cell {cell_id} is taken", "cell-taken", cell_id=cell_id)
    if cell in board.forbidden[state.players][due.side]:
        owner = board.devil_side[state.players]
        devil = next(d for d in board.body_devils_in(cell) if owner[d] != due.side)
        return Refused(
            "exception rule: {cell_id} borders devil {devil}'s body, an opponent's",
            "exception-rule",
            cell_id=cell_id,
            devil=board.devils[devil],
        )
    return Refused(
        "sector rule: choose a cell outside sector {excluded_sector}",
        "sector-rule",
        excluded_sector=due.excluded_sector,
    )


def legal_cells(state: TailsState) -> list[str]:
    """Cell ids the pending placement may go on (empty: pass, or the game is over)."""
    due = pending(state)
    return [] if due is None else [state.board.cell_ids[c] for c in due.legal]


def refused_cells(state: TailsState) -> dict[str, Refused]:
    """For every cell the pending placement may not use, the refusal it would get."""
    due = pending(state)
    if due is None:
        return {}
    board = state.board
    return {
        board.cell_ids[c]: _why_not(state, due, c)
        for c in range(board.cell_count)
        if c not in due.legal
    }


def cell_refusals(state: TailsState) -> dict[str, str]:
    """For every cell the pending placement may not use, the reason (for the phone)."""
    return {cell: refusal.reason for cell, refusal in refused_cells(state).items()}


class TailsRules:
    """The tail-tile game's rules engine (``controller.games.base.Rules``)."""

    name = "tails"

    def setup(self, options: Mapping[str, object]) -> TailsState:
        """Options: ``players`` 2/3/4 (default 2), ``board`` (name or path, default the
        packaged board), ``stock`` (cards per kind: one int, or ``{"A": 8, ...}``; default 8).
        Raises Refused on bad options or an unusable board."""
        if not isinstance(options, Mapping):
            raise Refused("options must be a JSON object", "bad-options")
        unknown = set(options) - _OPTIONS
        if unknown:
            raise Refused(
                "unknown option(s): {unknown}",
                "bad-options",
                unknown=", ".join(sorted(map(str, unknown))),
            )
        ref = options.get("board")
        if ref is not None and not isinstance(ref, str):
            raise Refused("board must be a board name or a file path", "bad-options")
        try:
            board = load_board(ref)
        except BoardError as error:
            raise Refused(said_of(error), "bad-board") from None
        players = options.get("players", 2)
        if type(players) is not int or players not in board.player_counts:
            counts = ", ".join(map(str, board.player_counts))
            raise Refused(
                "players must be one of {counts}, not {players!r}",
                "bad-options",
                counts=counts,
                players=players,
            )
        stock = _read_stock(options.get("stock", DEFAULT_STOCK))
        if sum(stock) < board.cell_count:
            raise Refused(
                "{total_stock} cards cannot fill {cell_count} cells",
                "bad-options",
                total_stock=sum(stock),
                cell_count=board.cell_count,
            )
        return TailsState(
            board=board,
            players=players,
            stock=stock,
            cards=(-1,) * board.cell_count,
            placed=(),
            moves=(),
            turn=1,
            seat=0,
            step=0,
        )

    def apply(self, state: TailsState, action: Action) -> TailsState:
        """The state after ``action``; raises Refused (reason, code) and changes nothing."""
        kind = action_type(action, ("place", "pass"))
        due = pending(state)
        if due is None:
            raise Refused("the game is over", "game-over")
        if kind == "pass":
            if set(action) != {"type"}:
                raise Refused("a pass has no other fields", "bad-action")
            if due.legal:
                example = state.board.cell_ids[due.legal[0]]
                raise Refused(
                    "cannot pass: {n_legal} cell(s) are legal, e.g. {example}",
                    "must-place",
                    n_legal=len(due.legal),
                    example=example,
                )
            return _advance(state, state.cards, state.stock, state.placed, "pass")
        cell, card_kind, rotation = _read_place(state.board, action)
        k = KIND_INDEX[card_kind]
        if state.stock[k] == 0:
            raise Refused("no {card_kind} cards left", "no-stock", card_kind=card_kind)
        if cell not in due.legal:
            raise _why_not(state, due, cell)
        cards = list(state.cards)
        cards[cell] = code_of(card_kind, rotation)
        stock = list(state.stock)
        stock[k] -= 1
        move = format_move(
            {
                "type": "place",
                "cell": state.board.cell_ids[cell],
                "kind": card_kind,
                "rotation": rotation,
            }
        )
        return _advance(state, tuple(cards), tuple(stock), (*state.placed, cell), move)

    def legal_actions(self, state: TailsState) -> list[dict[str, object]]:
        """Every placement (cell × kind in stock × distinct rotation), or a lone pass."""
        due = pending(state)
        if due is None:
            return []
        if not due.legal:
            return [{"type": "pass"}]
        kinds = [kind for kind in KINDS if state.stock[KIND_INDEX[kind]] > 0]
        return [
            {"type": "place", "cell": state.board.cell_ids[cell], "kind": kind, "rotation": r}
            for cell in due.legal
            for kind in kinds
            for r in rotations(kind)
        ]

    def legal_cells(self, state: TailsState) -> list[str]:
        return legal_cells(state)

    def is_over(self, state: TailsState) -> bool:
        return state.finished

    def view(self, state: TailsState, viewer: Viewer) -> dict[str, object]:
        """Everything on the table is public: the same picture for every viewer."""
        return game_view(state) | {"to_act": self.to_act(state)}

    def to_act(self, state: TailsState) -> int | None:
        """The seat that places (or passes) next; ``None`` once the game is over."""
        due = pending(state)
        return None if due is None else due.seat

    def refusal(self, state: TailsState, action: Action) -> Refused | None:
        return refusal_by_applying(self, state, action)


def _read_stock(value: object) -> tuple[int, ...]:
    def count(kind: str, n: object) -> int:
        if type(n) is not int or n < 0:
            raise Refused(
                "stock of {kind} must be a whole number ≥ 0, not {n!r}",
                "bad-options",
                kind=kind,
                n=n,
            )
        return n

    if isinstance(value, Mapping):
        unknown = set(value) - set(KINDS)
        if unknown:
            raise Refused(
                "stock: unknown kind(s) {unknown}", "bad-options", unknown=sorted(map(str, unknown))
            )
        return tuple(count(kind, value.get(kind, DEFAULT_STOCK)) for kind in KINDS)
    return tuple(count(kind, value) for kind in KINDS)


def _read_place(board: Board, action: Mapping[str, object]) -> tuple[int, str, int]:
    extra = set(action) - _PLACE_FIELDS
    if extra:
        raise Refused("unexpected field(s) {extra}", "bad-action", extra=sorted(map(str, extra)))
    cell_id = action.get("cell")
    if not isinstance(cell_id, str) or cell_id not in board.index:
        raise Refused("unknown cell {cell_id!r}", "bad-cell", cell_id=cell_id)
    kind = action.get("kind")
    if not isinstance(kind, str) or kind not in KIND_INDEX:
        raise Refused(
            "unknown card kind {kind!r}: one of {kinds}",
            "bad-kind",
            kind=kind,
            kinds=", ".join(KINDS),
        )
    rotation = action.get("rotation")
    if rotation is None and kind in SYMMETRIC:
        rotation = 0
    if type(rotation) is not int or not 0 <= rotation <= 2:
        raise Refused(
            "rotation must be 0, 1 or 2, not {rotation!r}", "bad-rotation", rotation=rotation
        )
    return board.index[cell_id], kind, 0 if kind in SYMMETRIC else rotation


def _advance(
    state: TailsState,
    cards: tuple[int, ...],
    stock: tuple[int, ...],
    placed: tuple[int, ...],
    move: str,
) -> TailsState:
    step, turn, seat = state.step + 1, state.turn, state.seat
    if step == placements_in_turn(state):
        step, turn, seat = 0, turn + 1, (seat + 1) % state.players
    return replace(
        state,
        cards=cards,
        stock=stock,
        placed=placed,
        moves=(*state.moves, move),
        turn=turn,
        seat=seat,
        step=step,
    )


def game_view(state: TailsState) -> dict[str, Any]:
    """JSON-ready picture of the game (see docs/rules-tails.md for every field)."""
    board, players = state.board, state.players
    ids = board.cell_ids
    tails = trace_all(board, state.cards)
    points = [tail.points for tail in tails]
    secured = [0 if tail.provisional else tail.points for tail in tails]
    totals = side_totals(board, players, points)
    sides = [
        {
            "side": side,
            "label": board.side_label(players, side),
            "devils": [board.devils[d] for d in group],
            "seats": seats_of_side(players, side),
        }
        for side, group in enumerate(board.sides[players])
    ]
    due = pending(state)
    pending_view = None
    if due is not None:
        pending_view = {
            "seat": due.seat,
            "side": due.side,
            "placement": due.placement,
            "of": due.of,
            "mode": "chosen" if due.forced is None else "forced",
            "cell": None if due.forced is None else ids[due.forced],
            "excluded_sector": due.excluded_sector,
            "legal_cells": [ids[c] for c in due.legal],
            "must_pass": not due.legal,
        }
    winners: list[int] = []
    if state.finished:
        best = max(totals)
        winners = [side for side, total in enumerate(totals) if total == best]
    return {
        "game": "tails",
        "board": board.name,
        "players": players,
        "sides": sides,
        "turn": state.turn,
        "to_move": None if due is None else {"seat": due.seat, "side": due.side},
        "pending": pending_view,
        "placed": [
            {
                "order": order,
                "cell": ids[cell],
                "kind": kind_of(state.cards[cell]),
                "rotation": rotation_of(state.cards[cell]),
            }
            for order, cell in enumerate(state.placed, start=1)
        ],
        "moves": list(state.moves),
        "devils": [
            {
                "name": board.devils[tail.devil],
                "side": board.devil_side[players][tail.devil],
                "length": tail.length,
                "end": tail.end,
                "end_devil": None if tail.end_devil < 0 else board.devils[tail.end_devil],
                "points": tail.points,
                "provisional": tail.provisional,
                "cells": [ids[cell] for cell in tail.cells],
                "segments": [[ids[cell], p_in, p_out] for cell, p_in, p_out in tail.segments],
            }
            for tail in tails
        ],
        "totals": totals,
        "secured_totals": side_totals(board, players, secured),
        "stock": {kind: state.stock[i] for i, kind in enumerate(KINDS)},
        "finished": state.finished,
        "winners": winners,
        "winning_seats": [seat for side in winners for seat in seats_of_side(players, side)],
    }
