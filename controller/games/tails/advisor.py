"""The advisor: where to put the card just drawn. Pure functions, shown on request.

The value of a position for a side is its total minus the other sides' totals,
open tails counting their length so far (the provisional points the board
shows). :func:`advise` ranks every legal (cell, rotation) for a drawn kind by
that value after the placement; with ``lookahead`` it also plays the next
placement: its card is unknown (each kind weighted by the cards still in
stock), and its player picks the cell, then the rotation, best for their own
side. :func:`advise_cell` ranks cells before the draw (the rule sheet has the
cell named before the card is turned), by the expected best value over kinds.
:func:`advise_rollouts` looks to the end of the game: Monte Carlo playouts of the best
greedy candidates within a time budget (docs/strategy.md has it measured).

Speed: placing a card only changes tails whose open end is in that cell, so a
candidate costs a few table lookups (see ``_Position.totals_after``).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..base import Refused
from .board import TAIL_END, Board
from .cards import KIND_INDEX, KINDS, LINKS, code_of, rotations
from .rules import TailsRules, TailsState, pending
from .scoring import follow

_RULES = TailsRules()


@dataclass(frozen=True)
class Suggestion:
    """One ranked option. ``kind``/``rotation`` are None for a cell chosen before the draw."""

    cell: str
    kind: str | None
    rotation: int | None
    value: float
    """Own total minus the others' after the placement (expected, with chance involved)."""
    gain: float
    """``value`` minus the same measure now."""

    def action(self) -> dict[str, object]:
        """The placement action (only when the kind is known)."""
        if self.kind is None or self.rotation is None:
            raise ValueError("a cell suggestion made before the draw has no action")
        return {"type": "place", "cell": self.cell, "kind": self.kind, "rotation": self.rotation}

    def as_dict(self) -> dict[str, object]:
        return {
            "cell": self.cell,
            "kind": self.kind,
            "rotation": self.rotation,
            "value": round(self.value, 3),
            "gain": round(self.gain, 3),
        }


class _Position:
    """Every tail's standing on one board, and where each empty cell's exits lead."""

    def __init__(self, board: Board, cards: Sequence[int], players: int) -> None:
        self.board = board
        self.cards = cards
        self.side_of = board.devil_side[players]
        self.points: list[int] = []
        self.entries: dict[int, list[tuple[int, int, int]]] = {}
        """Empty cell → (devil, point it enters at, length so far) of tails ending there."""
        self.chain: dict[int, tuple[int, int, bool]] = {}
        totals = [0] * len(board.sides[players])
        for devil, body in enumerate(board.body):
            length, flat, is_open = follow(board.neighbour, cards, body)
            if is_open:
                self.entries.setdefault(flat // 6, []).append((devil, flat % 6, length))
            points = length if is_open or board.end_kind[flat] == TAIL_END else 0
            self.points.append(points)
            totals[self.side_of[devil]] += points
        self.totals = totals

    def _exit(self, flat: int) -> tuple[int, int, bool]:
        """Leaving an empty cell at ``flat``: (passes, end flat, is_open) beyond it."""
        known = self.chain.get(flat)
        if known is not None:
            return known
        start = self.board.neighbour[flat]
        result = (0, flat, False) if start < 0 else follow(self.board.neighbour, self.cards, start)
        self.chain[flat] = result
        if result[2]:  # the walk back from that empty cell ends here, just as long
            self.chain[result[1]] = (result[0], flat, True)
        return result

    def totals_after(self, cell: int, code: int) -> list[int]:
        """Side totals once card ``code`` is on the empty ``cell``."""
        entering = self.entries.get(cell)
        if not entering:
            return self.totals
        totals = list(self.totals)
        link = LINKS[code]
        base = cell * 6
        for devil, point, length in entering:
            current = point
            while True:
                length += 1
                passes, flat, is_open = self._exit(base + link[current])
                length += passes
                if is_open and flat // 6 == cell:  # the tail comes back into this cell
                    current = flat - base
                    continue
                break
            points = length if is_open or self.board.end_kind[flat] == TAIL_END else 0
            totals[self.side_of[devil]] += points - self.points[devil]
        return totals


def _value(totals: Sequence[int], side: int) -> int:
    return 2 * totals[side] - sum(totals)


def _chances(stock: Sequence[int]) -> list[tuple[int, float]]:
    """(kind index, probability) of the next card, by cards left in stock."""
    left = sum(stock)
    return [(k, n / left) for k, n in enumerate(stock) if n > 0]


def _reply_value(state: TailsState, me: int) -> float:
    """My expected value after the next placement (its player plays for their side)."""
    position = _Position(state.board, state.cards, state.players)
    due = pending(state)
    if due is None or not due.legal:
        return float(_value(position.totals, me))
    mover = due.side
    chances = _chances(state.stock)
    best_mover, best_mine = float("-inf"), 0.0
    for cell in due.legal:
        if cell not in position.entries:  # nothing changes on this cell, whatever the card
            mover_value, my_value = (
                float(_value(position.totals, mover)),
                float(_value(position.totals, me)),
            )
        else:
            mover_value = my_value = 0.0
            for k, chance in chances:
                options = [
                    position.totals_after(cell, code_of(KINDS[k], r)) for r in rotations(KINDS[k])
                ]
                chosen = max(options, key=lambda totals: _value(totals, mover))
                mover_value += chance * _value(chosen, mover)
                my_value += chance * _value(chosen, me)
        if mover_value > best_mover:
            best_mover, best_mine = mover_value, my_value
    return best_mine


def advise(
    state: TailsState, kind: str, *, lookahead: bool = False, top: int | None = 3
) -> list[Suggestion]:
    """The best placements of a drawn ``kind`` for the player to move, best first.

    Empty when the game is over or the player must pass. Raises Refused for an
    unknown kind or one with no cards left. ``top=None`` returns every option.
    """
    if kind not in KIND_INDEX:
        raise Refused(
            "unknown card kind {kind!r}: one of {kinds}",
            "bad-kind",
            kind=kind,
            kinds=", ".join(KINDS),
        )
    due = pending(state)
    if due is None or not due.legal:
        return []
    if state.stock[KIND_INDEX[kind]] == 0:
        raise Refused("no {kind} cards left", "no-stock", kind=kind)
    board, me = state.board, due.side
    position = _Position(board, state.cards, state.players)
    now = _value(position.totals, me)
    ranked: list[tuple[float, int, int]] = []
    for cell in due.legal:
        for rotation in rotations(kind):
            if lookahead:
                action = {
                    "type": "place",
                    "cell": board.cell_ids[cell],
                    "kind": kind,
                    "rotation": rotation,
                }
                value = _reply_value(_RULES.apply(state, action), me)
            else:
                value = float(_value(position.totals_after(cell, code_of(kind, rotation)), me))
            ranked.append((value, cell, rotation))
    ranked.sort(key=lambda item: (-item[0], item[1], item[2]))
    return [
        Suggestion(board.cell_ids[cell], kind, rotation, value, value - now)
        for value, cell, rotation in ranked[:top]
    ]


def advise_cell(state: TailsState, *, top: int | None = 3) -> list[Suggestion]:
    """The best cells to name before the card is drawn: expected value of the best
    rotation, each kind weighted by the cards left. Empty when there is nothing to choose."""
    due = pending(state)
    if due is None or not due.legal:
        return []
    board, me = state.board, due.side
    position = _Position(board, state.cards, state.players)
    now = _value(position.totals, me)
    chances = _chances(state.stock)
    ranked: list[tuple[float, int]] = []
    for cell in due.legal:
        expected = 0.0
        for k, chance in chances:
            expected += chance * max(
                _value(position.totals_after(cell, code_of(KINDS[k], r)), me)
                for r in rotations(KINDS[k])
            )
        ranked.append((expected, cell))
    ranked.sort(key=lambda item: (-item[0], item[1]))
    return [
        Suggestion(board.cell_ids[cell], None, None, value, value - now)
        for value, cell in ranked[:top]
    ]


def _final_value(state: TailsState, side: int) -> int:
    return _value(_Position(state.board, state.cards, state.players).totals, side)


def playout(state: TailsState, draws: Sequence[int], side: int) -> int:
    """Play the game out, every player greedy (:func:`advise`, best first), the cards turned
    in the order of ``draws`` (kind indices; a kind out of stock is skipped). Returns
    ``side``'s final measure (own total minus the others')."""
    position = 0
    while True:
        due = pending(state)
        if due is None:
            return _final_value(state, side)
        if not due.legal:
            state = _RULES.apply(state, {"type": "pass"})
            continue
        while state.stock[draws[position]] == 0:
            position += 1
        kind = KINDS[draws[position]]
        position += 1
        state = _RULES.apply(state, advise(state, kind, top=1)[0].action())


def advise_rollouts(
    state: TailsState,
    kind: str,
    rng: random.Random,
    *,
    budget_s: float = 0.2,
    rollouts: int | None = None,
    candidates: int = 6,
    top: int | None = 3,
    pause: Callable[[], None] | None = None,
) -> list[Suggestion]:
    """The best placements of a drawn ``kind``, by Monte Carlo: the ``candidates`` best
    greedy placements are each played out to the end (:func:`playout`) on the same
    shuffled card orders (common random numbers), round after round until ``budget_s``
    seconds have passed (at least one round) or, when given, ``rollouts`` rounds.
    ``pause()`` is called before each playout (a few ms apart); the time it takes is
    not counted in ``budget_s`` (the server lets the referee's requests go first).

    ``value`` is the mean final measure (own total minus the others'); ``gain`` against
    now. Refuses an unknown kind or one out of stock like :func:`advise`.
    """
    greedy = advise(state, kind, top=None)
    if len(greedy) <= 1 or state.finished:
        return greedy[:top]
    shortlist = greedy[:candidates]
    afters = [_RULES.apply(state, option.action()) for option in shortlist]
    side = pending(state).side  # type: ignore[union-attr]  # not over: greedy is not empty
    now = greedy[0].value - greedy[0].gain
    totals = [0.0] * len(shortlist)
    cards = [k for k, count in enumerate(afters[0].stock) for _ in range(count)]
    deadline = time.perf_counter() + budget_s
    done = 0
    while done < (rollouts or 1) or (rollouts is None and time.perf_counter() < deadline):
        rng.shuffle(cards)
        for i, after in enumerate(afters):
            if pause is not None:
                paused = time.perf_counter()
                pause()
                deadline += time.perf_counter() - paused
            totals[i] += playout(after, cards, side)
        done += 1
    ranked = sorted(range(len(shortlist)), key=lambda i: (-totals[i], greedy.index(shortlist[i])))
    return [
        Suggestion(
            shortlist[i].cell, kind, shortlist[i].rotation, totals[i] / done, totals[i] / done - now
        )
        for i in ranked[:top]
    ]
