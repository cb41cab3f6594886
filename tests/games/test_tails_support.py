"""Helpers shared by the tail-tile tests (no tests here)."""

from __future__ import annotations

import dataclasses
import random

from controller.games.tails import KINDS, TailsRules, TailsState, legal_cells
from controller.games.tails.cards import KIND_INDEX, code_of, rotations

RULES = TailsRules()


def random_action(rng: random.Random, state: TailsState) -> dict[str, object]:
    """A legal action: a random legal cell, a kind drawn from the stock, a random rotation."""
    cells = legal_cells(state)
    if not cells:
        return {"type": "pass"}
    kinds = [kind for kind in KINDS if state.stock[KIND_INDEX[kind]] > 0]
    kind = rng.choices(kinds, [state.stock[KIND_INDEX[kind]] for kind in kinds])[0]
    return {
        "type": "place",
        "cell": rng.choice(cells),
        "kind": kind,
        "rotation": rng.choice(rotations(kind)),
    }


def random_game(
    rng: random.Random, players: int, placements: int | None = None, **options: object
) -> TailsState:
    """Play random legal actions until the end (or until ``placements`` cards are down)."""
    state = RULES.setup({"players": players, **options})
    while not state.finished and (placements is None or len(state.placed) < placements):
        state = RULES.apply(state, random_action(rng, state))
    return state


def with_cards(state: TailsState, placements: list[tuple[str, str, int]]) -> TailsState:
    """``state`` with extra cards put straight on the board (positions for scoring tests)."""
    cards = list(state.cards)
    stock = list(state.stock)
    for cell_id, kind, rotation in placements:
        cards[state.board.index[cell_id]] = code_of(kind, rotation)
        stock[KIND_INDEX[kind]] -= 1
    return dataclasses.replace(state, cards=tuple(cards), stock=tuple(stock))


def fill_except(
    state: TailsState, empty: set[str], last: str | None = None, kind: str = "A"
) -> TailsState:
    """``state`` with every cell except ``empty`` covered by ``kind`` cards, ``last`` (if
    given) being the most recently placed one. Stock is not touched."""
    board = state.board
    cards = tuple(-1 if cell_id in empty else code_of(kind, 0) for cell_id in board.cell_ids)
    filled = [c for c, code in enumerate(cards) if code >= 0]
    if last is not None:
        filled.remove(board.index[last])
        filled.append(board.index[last])
    return dataclasses.replace(state, cards=cards, placed=tuple(filled))
