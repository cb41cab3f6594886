"""The 7 kinds of triangular card and how a rotation moves their pieces.

A card joins its 6 points (2 per edge, numbered clockwise, edge 0 first) in 3
pairs. Rotation ``k`` puts canonical point ``p`` on the cell's point
``(p + 2k) % 6``. Kinds A, B, C look the same under rotation; their rotation
is always normalised to 0.

A placed card is stored as one small integer, its *code*:
``kind_index * 3 + rotation``; ``LINKS[code][p]`` is the point joined to ``p``.
"""

from __future__ import annotations

KINDS = ("A", "B", "C", "D", "E", "F", "G")
"""Kind letters, in stock and code order."""

PAIRS: dict[str, tuple[tuple[int, int], ...]] = {
    "A": ((0, 1), (2, 3), (4, 5)),
    "B": ((1, 2), (3, 4), (5, 0)),
    "C": ((0, 3), (1, 4), (2, 5)),
    "D": ((0, 1), (2, 4), (3, 5)),
    "E": ((0, 1), (2, 5), (3, 4)),
    "F": ((0, 2), (1, 4), (3, 5)),
    "G": ((0, 2), (1, 5), (3, 4)),
}
"""Canonical pairings of points 0–5 (the spec's table)."""

SYMMETRIC = frozenset({"A", "B", "C"})
"""Kinds whose rotations all look the same."""

KIND_INDEX = {kind: index for index, kind in enumerate(KINDS)}


def rotations(kind: str) -> tuple[int, ...]:
    """The distinct rotations of ``kind``: ``(0,)`` for A/B/C, else ``(0, 1, 2)``."""
    return (0,) if kind in SYMMETRIC else (0, 1, 2)


def normalise_rotation(kind: str, rotation: int) -> int:
    """The rotation stored for ``kind`` placed at ``rotation`` (0 for A/B/C)."""
    return 0 if kind in SYMMETRIC else rotation


def rotated_pairs(kind: str, rotation: int) -> tuple[tuple[int, int], ...]:
    """The cell points joined by ``kind`` at ``rotation``, each pair sorted, pairs sorted."""
    shift = 2 * rotation
    moved = [((a + shift) % 6, (b + shift) % 6) for a, b in PAIRS[kind]]
    return tuple(sorted((min(a, b), max(a, b)) for a, b in moved))


def _link(kind: str, rotation: int) -> tuple[int, ...]:
    partner = [0] * 6
    for a, b in rotated_pairs(kind, rotation):
        partner[a] = b
        partner[b] = a
    return tuple(partner)


def code_of(kind: str, rotation: int) -> int:
    """The stored code of a card (rotation normalised)."""
    return KIND_INDEX[kind] * 3 + normalise_rotation(kind, rotation)


def kind_of(code: int) -> str:
    return KINDS[code // 3]


def rotation_of(code: int) -> int:
    return code % 3


LINKS: tuple[tuple[int, ...], ...] = tuple(
    _link(kind, rotation) for kind in KINDS for rotation in (0, 1, 2)
)
"""``LINKS[code][p]``: the point joined to point ``p`` by the card with ``code``."""

PLACEMENTS: tuple[tuple[str, int], ...] = tuple(
    (kind, rotation) for kind in KINDS for rotation in rotations(kind)
)
"""Every distinct (kind, rotation): 3 + 4 × 3 = 15, one per pairing of 6 points."""
