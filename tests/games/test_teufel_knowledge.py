"""Exact odds: the knowledge model against brute force on small decks.

The brute force follows every physical possibility (every order of the
deal, every order of every shuffle) and conditions on each flip; the
knowledge model must give the very same probabilities, as fractions.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from fractions import Fraction

import pytest

from controller.games.teufel import knowledge as kn

World = tuple[str | None, ...]


class BruteForce:
    """Every arrangement of the cards on the squares, with its probability."""

    def __init__(self, deck: Counter[str], squares: int) -> None:
        cards = list(deck.elements())
        arrangements = set(itertools.permutations(cards))
        empty = (None,) * (squares - len(cards))
        share = Fraction(1, len(arrangements))
        self.worlds: dict[World, Fraction] = {(*a, *empty): share for a in arrangements}
        self.face_up: dict[int, str] = {}

    def any_world(self) -> World:
        return next(iter(self.worlds))

    def occupied(self) -> list[int]:
        """Squares with a card (the same in every world)."""
        return [s for s, card in enumerate(self.any_world()) if card is not None]

    def face_down(self) -> list[int]:
        return [s for s in self.occupied() if s not in self.face_up]

    def chances(self, square: int) -> dict[str, Fraction]:
        out: dict[str, Fraction] = {}
        for world, weight in self.worlds.items():
            card = world[square]
            assert card is not None
            out[card] = out.get(card, Fraction(0)) + weight
        return out

    def reveal(self, square: int, card: str) -> None:
        kept = {w: p for w, p in self.worlds.items() if w[square] == card}
        total = sum(kept.values())
        self.worlds = {w: p / total for w, p in kept.items()}
        self.face_up[square] = card

    def swap(self, a: int, b: int) -> None:
        swapped: dict[World, Fraction] = {}
        for world, weight in self.worlds.items():
            cells = list(world)
            cells[a], cells[b] = cells[b], cells[a]
            swapped[tuple(cells)] = swapped.get(tuple(cells), Fraction(0)) + weight
        self.worlds = swapped
        up_a, up_b = self.face_up.pop(a, None), self.face_up.pop(b, None)
        if up_a is not None:
            self.face_up[b] = up_a
        if up_b is not None:
            self.face_up[a] = up_b

    def shuffle(self, taken: list[int], laid: list[int]) -> None:
        shuffled: dict[World, Fraction] = {}
        orders = list(itertools.permutations(range(len(taken))))
        for world, weight in self.worlds.items():
            cards = [world[s] for s in taken]
            for order in orders:
                cells = list(world)
                for s in taken:
                    cells[s] = None
                for target, pick in zip(laid, order, strict=True):
                    cells[target] = cards[pick]
                key = tuple(cells)
                shuffled[key] = shuffled.get(key, Fraction(0)) + weight / len(orders)
        self.worlds = shuffled
        for s in taken:
            self.face_up.pop(s, None)


DECKS = [
    Counter({"blue-A": 1, "blue-B": 1, "red-A": 1, "devil": 2, "tower": 1}),
    Counter({"devil": 3, "tower": 2, "blue-A": 1}),
    Counter({"x": 1, "y": 1, "z": 1, "devil": 1, "tower": 1}),
]


def _run(seed: int, limit: int = 10_000) -> int:
    """Play a random sequence of flips, swaps and shuffles, comparing at every step;
    return the most hypotheses the model needed."""
    rng = random.Random(seed)
    deck = DECKS[seed % len(DECKS)]
    squares = sum(deck.values()) + 3
    brute = BruteForce(deck, squares)
    model = kn.initial(deck)
    most = 1
    for _ in range(14):
        down = brute.face_down()
        occupied = brute.occupied()
        want = {s: brute.chances(s) for s in down}
        assert kn.chances(model, down) == want
        assert {s: kn.possible(model, s) for s in down} == {s: set(want[s]) for s in down}
        assert kn.unknown_cards(model) == Counter(
            card for s, card in enumerate(brute.any_world()) if card and s not in brute.face_up
        )
        most = max(most, len(model.hypotheses))
        roll = rng.random()
        if down and roll < 0.4:
            square = rng.choice(down)
            for card in sorted(set(deck) - set(want[square])):
                with pytest.raises(kn.Impossible):
                    kn.reveal(model, square, card, limit)
            cards, weights = zip(*sorted(want[square].items()), strict=True)
            card = rng.choices(cards, weights=[float(w) for w in weights])[0]
            brute.reveal(square, card)
            model = kn.reveal(model, square, card, limit)
        elif roll < 0.65:
            a, b = rng.sample(occupied, 2)
            brute.swap(a, b)
            model = kn.swap(model, a, b)
        else:
            taken = rng.sample(occupied, rng.choice([2, 2, 3]))
            free = [s for s in range(squares) if s not in occupied or s in taken]
            laid = rng.sample(free, len(taken))
            up = [brute.face_up[s] for s in taken if s in brute.face_up]
            model = kn.shuffle(model, [s for s in taken if s not in brute.face_up], up, laid, limit)
            brute.shuffle(taken, laid)
    return most


@pytest.mark.parametrize("block", range(8))
def test_odds_equal_brute_force(block: int) -> None:
    most = [_run(seed) for seed in range(block * 25, block * 25 + 25)]
    assert max(most) > 1  # some sequences needed several hypotheses


def test_partial_shuffle_keeps_several_hypotheses() -> None:
    """Half a group shuffled away: the tracked devil may have gone either way."""
    deck = Counter({"devil": 1, "a": 1, "b": 1, "c": 1})
    model = kn.initial(deck)
    model = kn.reveal(model, 0, "devil")
    model = kn.shuffle(model, [1], ["devil"], [0, 4])  # devil and fresh card onto 0 and 4
    assert kn.chances(model, [0])[0]["devil"] == Fraction(1, 2)
    model = kn.shuffle(model, [4, 2], [], [5, 6])  # half of that group goes to 5, 6
    assert len(model.hypotheses) == 2
    odds = kn.chances(model, [0, 5, 6, 3])
    assert odds[0]["devil"] == Fraction(1, 2)
    assert odds[5]["devil"] == odds[6]["devil"] == Fraction(1, 4)
    assert "devil" not in odds[3]


def test_forgetting_keeps_flips_possible() -> None:
    """Over the limit the oldest group is forgotten: its card may be anywhere again."""
    deck = Counter({"devil": 1, "a": 1, "b": 1, "c": 1})
    model = kn.reveal(kn.initial(deck), 0, "devil")
    model = kn.shuffle(model, [1], ["devil"], [0, 4])
    with pytest.raises(kn.Impossible):
        kn.reveal(model, 2, "devil")
    forgotten = kn.shuffle(model, [4, 2], [], [5, 6], limit=1)
    assert forgotten.groups == ()
    assert kn.chances(forgotten, [3])[3]["devil"] == Fraction(1, 4)
    assert kn.possible(forgotten, 3) == {"devil", "a", "b", "c"}
