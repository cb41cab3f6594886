"""What the product knows about the face-down cards, and exact odds.

The product is told every flip, exchange and shuffle, never what a peek saw.
From that it keeps the exact probability of every face-down card's face:

* A card flipped face up is **known**.
* A face-down card never seen is **fresh**: all fresh cards are alike, so a
  fresh card is any of the cards not yet accounted for, equally likely.
* A **shuffle** turns cards face down and lays them on new squares. Which
  square holds which card is forgotten, but not which cards went in: if the
  face-up blue D was shuffled onto c3 and e5 with a fresh card, the blue D is
  on c3 or e5 (one chance in two each), nowhere else. Such a set of squares is
  a *group*; its *tracked* cards are the ones whose face is known.
* An **exchange** moves a card with its uncertainty (a face-down card stays
  exactly as unknown as it was, only on another square).

When a shuffle takes only part of a group, the product cannot tell which
tracked cards it took, and a devil or tower flipped inside a group may be the
tracked one or a fresh one. It then keeps every possibility (a *hypothesis*:
which tracked cards lie in which group) with its exact probability. Should
more than :data:`MAX_HYPOTHESES` possibilities pile up, it forgets the oldest
groups (their cards become fresh again) until few enough remain: odds stay
exact for what is remembered, and a flip is never refused for being
impossible after a forgotten shuffle.

Under one hypothesis, a fresh slot holds each card of the fresh multiset
(the cards not face up and not tracked) equally likely, and the cards of a
group are in random order on its squares. The flip of a card is taken as
uninformative about where the cards lie (the product cannot know why a
player chose that square).
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from math import comb, gcd, lcm

MAX_HYPOTHESES = 64
"""How many possibilities the product keeps before forgetting old shuffles."""

Contents = tuple[tuple[str, ...], ...]
"""The tracked cards of each group (sorted), aligned with ``Knowledge.groups``."""


class Impossible(ValueError):
    """A flip that cannot be true given what has been seen."""


@dataclass(frozen=True, slots=True)
class Knowledge:
    """The product's knowledge of the face-down cards (immutable)."""

    unknown: tuple[tuple[str, int], ...]
    """Every card not face up (on the board, or picked up face down by a shuffler),
    as sorted (card, count) pairs."""
    groups: tuple[frozenset[int], ...]
    """Squares of each shuffle group still tracked, oldest first."""
    hypotheses: tuple[tuple[Contents, int], ...]
    """Each possible placement of tracked cards with its weight: a positive integer,
    the weights having no common factor; a probability is a weight over their sum."""


def initial(cards: Counter[str]) -> Knowledge:
    """Nothing seen yet: every card is face down and fresh."""
    return Knowledge(_items(cards), (), (((), 1),))


def unknown_cards(knowledge: Knowledge) -> Counter[str]:
    """The multiset of cards not face up."""
    return Counter(dict(knowledge.unknown))


def chances(knowledge: Knowledge, squares: Iterable[int]) -> dict[int, dict[str, Fraction]]:
    """For each face-down square given, the exact probability of each face.

    Only cards with a non-zero chance appear. The caller passes face-down
    squares only (any other square would be read as a fresh card).
    """
    unknown = unknown_cards(knowledge)
    fresh_total = sum(unknown.values())
    sizes = [len(group) for group in knowledge.groups]
    # Under hypothesis h the fresh cards are unknown - tracked_h, n_h of them. With P the
    # lcm of the n_h, every chance is an integer over W * P (fresh squares) or
    # W * P * |group| (group squares), W the sum of the weights.
    tracked = [
        (contents, weight, _tracked_total(contents)) for contents, weight in knowledge.hypotheses
    ]
    pools = {fresh_total - sum(total.values()) for _, _, total in tracked}
    common = lcm(*(n for n in pools if n)) if any(pools) else 1
    outside_scale = 0
    outside: Counter[str] = Counter()  # minus the tracked cards, weighted by share
    scales = [0] * len(sizes)
    inside: list[Counter[str]] = [Counter() for _ in sizes]
    for contents, weight, total in tracked:
        pool = fresh_total - sum(total.values())
        share = weight * (common // pool) if pool else 0
        outside_scale += share
        for card, count in total.items():
            outside[card] -= share * count
        for index, size in enumerate(sizes):
            scales[index] += share * (size - len(contents[index]))
            if not contents[index]:
                continue
            # the fresh slots of a group are size - len(tracked): correct for the tracked part
            for card, count in total.items():
                inside[index][card] += share * len(contents[index]) * count
            for card in contents[index]:
                inside[index][card] += weight * common
    for index, size in enumerate(sizes):
        for card, count in outside.items():
            inside[index][card] += size * count
    weights = sum(weight for _, weight in knowledge.hypotheses)
    fresh = _finish(outside, outside_scale, unknown, weights * common)
    per_group = [
        _finish(inside[i], scales[i], unknown, weights * common * sizes[i])
        for i in range(len(sizes))
    ]
    where = _group_index(knowledge)
    result: dict[int, dict[str, Fraction]] = {}
    for square in squares:
        group_index = where.get(square)
        result[square] = dict(fresh if group_index is None else per_group[group_index])
    return result


def possible(knowledge: Knowledge, square: int) -> set[str]:
    """Every face the face-down card on ``square`` could show."""
    unknown = unknown_cards(knowledge)
    index = _group_index(knowledge).get(square)
    faces: set[str] = set()
    for contents, _weight in knowledge.hypotheses:
        if index is not None:
            faces.update(contents[index])
            if len(knowledge.groups[index]) == len(contents[index]):
                continue
        total = _tracked_total(contents)
        faces.update(card for card, count in unknown.items() if count > total[card])
    return faces


def groups_with(knowledge: Knowledge, card: str) -> list[frozenset[int]]:
    """The tracked groups that may hold ``card`` (for explaining a refusal)."""
    found = set()
    for contents, _ in knowledge.hypotheses:
        for index, tracked in enumerate(contents):
            if card in tracked:
                found.add(index)
    return [knowledge.groups[index] for index in sorted(found)]


def reveal(knowledge: Knowledge, square: int, card: str, limit: int = MAX_HYPOTHESES) -> Knowledge:
    """The knowledge after the card on ``square`` was flipped and shows ``card``.

    Raises :class:`Impossible` if ``card`` cannot be there.
    """
    unknown = unknown_cards(knowledge)
    if not knowledge.groups:  # every face-down card is fresh: nothing to weigh
        if not unknown[card]:
            raise Impossible(f"{card} cannot be on square {square}")
        unknown[card] -= 1
        return Knowledge(_items(unknown), (), knowledge.hypotheses)
    index = _group_index(knowledge).get(square)
    fresh_total = sum(unknown.values())
    outcomes: list[tuple[Contents, int, int, int]] = []  # contents, weight, chance num, den
    for contents, weight in knowledge.hypotheses:
        total = _tracked_total(contents)
        pool = fresh_total - sum(total.values())
        fresh_of_card = unknown[card] - total[card]
        if index is None:
            if fresh_of_card:
                outcomes.append((contents, weight, fresh_of_card, pool))
            continue
        tracked = contents[index]
        size = len(knowledge.groups[index])
        if card in tracked:
            rest = list(tracked)
            rest.remove(card)
            changed = (*contents[:index], tuple(rest), *contents[index + 1 :])
            outcomes.append((changed, weight, tracked.count(card), size))
        slots = size - len(tracked)
        if slots and fresh_of_card:
            outcomes.append((contents, weight, slots * fresh_of_card, size * pool))
    if not outcomes:
        raise Impossible(f"{card} cannot be on square {square}")
    unknown[card] -= 1
    groups = tuple(group - {square} for group in knowledge.groups)
    return _tidy(unknown, groups, _weigh(outcomes), limit)


def swap(knowledge: Knowledge, a: int, b: int) -> Knowledge:
    """The knowledge after the cards on ``a`` and ``b`` changed places."""
    groups = tuple(_relabel(group, a, b) for group in knowledge.groups)
    return Knowledge(knowledge.unknown, groups, knowledge.hypotheses)


def shuffle(
    knowledge: Knowledge,
    taken_face_down: Iterable[int],
    taken_face_up: Iterable[str],
    laid: Iterable[int],
    limit: int = MAX_HYPOTHESES,
) -> Knowledge:
    """The knowledge after a shuffle.

    ``taken_face_down`` are the squares the face-down cards were picked from,
    ``taken_face_up`` the faces of the face-up cards picked, ``laid`` the
    squares all of them were laid on, face down, in an unknown order.
    """
    down = frozenset(taken_face_down)
    up = list(taken_face_up)
    laid_on = frozenset(laid)
    if len(laid_on) != len(down) + len(up):
        raise ValueError("a shuffle lays exactly the cards it took")
    picked = {
        index: len(group & down) for index, group in enumerate(knowledge.groups) if group & down
    }
    outcomes: list[tuple[Contents, int, int, int]] = []
    for contents, weight in knowledge.hypotheses:
        options = [
            _draws(contents[index], len(knowledge.groups[index]), count)
            for index, count in picked.items()
        ]
        for combination in itertools.product(*options):
            changed = list(contents)
            moved = list(up)
            numerator = denominator = 1
            for index, (rest, taken, ways, out_of) in zip(picked, combination, strict=True):
                changed[index] = rest
                moved.extend(taken)
                numerator *= ways
                denominator *= out_of
            changed.append(tuple(sorted(moved)))
            outcomes.append((tuple(changed), weight, numerator, denominator))
    unknown = unknown_cards(knowledge)
    unknown.update(up)
    groups = (*(group - down for group in knowledge.groups), laid_on)
    return _tidy(unknown, groups, _weigh(outcomes), limit)


def _draws(
    tracked: tuple[str, ...], size: int, count: int
) -> list[tuple[tuple[str, ...], tuple[str, ...], int, int]]:
    """Ways to pick ``count`` of a group's ``size`` cards blindly.

    Each way is (tracked cards left, tracked cards taken, number of ways, out of).
    """
    if count == size:
        return [((), tracked, 1, 1)]
    kinds = sorted(Counter(tracked).items())
    fresh_slots = size - len(tracked)
    ways = []
    for takes in itertools.product(*(range(min(n, count) + 1) for _, n in kinds)):
        fresh_taken = count - sum(takes)
        if not 0 <= fresh_taken <= fresh_slots:
            continue
        number = comb(fresh_slots, fresh_taken)
        taken: list[str] = []
        rest: list[str] = []
        for (card, n), take in zip(kinds, takes, strict=True):
            number *= comb(n, take)
            taken.extend([card] * take)
            rest.extend([card] * (n - take))
        ways.append((tuple(rest), tuple(taken), number, comb(size, count)))
    return ways


def _weigh(outcomes: list[tuple[Contents, int, int, int]]) -> dict[Contents, int]:
    """New integer weights: weight × num/den for each outcome, over a common denominator."""
    common = lcm(*(den for _, _, _, den in outcomes))
    weights: dict[Contents, int] = {}
    for contents, weight, num, den in outcomes:
        weights[contents] = weights.get(contents, 0) + weight * num * (common // den)
    return weights


def _tidy(
    unknown: Counter[str],
    groups: tuple[frozenset[int], ...],
    hypotheses: dict[Contents, int],
    limit: int,
) -> Knowledge:
    """Drop groups that track nothing, merge equal hypotheses, forget if too many."""
    while True:
        keep = [
            index
            for index, group in enumerate(groups)
            if group and any(contents[index] for contents in hypotheses)
        ]
        if len(hypotheses) > limit and keep:
            keep = keep[1:]  # forget the oldest group still tracked
        if len(keep) != len(groups):
            merged: dict[Contents, int] = {}
            for contents, weight in hypotheses.items():
                key = tuple(contents[index] for index in keep)
                merged[key] = merged.get(key, 0) + weight
            hypotheses = merged
            groups = tuple(groups[index] for index in keep)
        if len(hypotheses) <= limit or not groups:
            break
    divisor = gcd(*hypotheses.values())
    ordered = tuple(
        sorted((contents, weight // divisor) for contents, weight in hypotheses.items())
    )
    return Knowledge(_items(+unknown), groups, ordered)


def _finish(
    corrections: Counter[str], scale: int, unknown: Counter[str], denominator: int
) -> dict[str, Fraction]:
    """(scale × unknown + corrections) / denominator, keeping the non-zero chances."""
    result = {}
    for card, count in unknown.items():
        numerator = scale * count + corrections[card]
        if numerator:
            result[card] = Fraction(numerator, denominator)
    return result


def _tracked_total(contents: Contents) -> Counter[str]:
    total: Counter[str] = Counter()
    for tracked in contents:
        total.update(tracked)
    return total


def _group_index(knowledge: Knowledge) -> dict[int, int]:
    return {square: index for index, group in enumerate(knowledge.groups) for square in group}


def _relabel(group: frozenset[int], a: int, b: int) -> frozenset[int]:
    if (a in group) == (b in group):
        return group
    return group ^ {a, b}


def _items(cards: Counter[str]) -> tuple[tuple[str, int], ...]:
    return tuple(sorted((card, count) for card, count in cards.items() if count))
