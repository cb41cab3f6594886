"""Finding a die by its pips when its outline is lost (issue 22, point 1).

A white die on a white table under bright light, or a die crossed by a shadow's edge on a
check cloth, may show no square outline at all; its pips still show. :func:`pip_boxes`
finds pip-sized round blobs (darker or lighter than around them: a black-hat / top-hat on
the frame at half size), gathers those lying within a die of one another, and puts a
die-sized square (the calibrated side) on each group: centred on the group's mean (every
face's layout is symmetric about the die's centre) and turned as the group's pips line up
(mod 45°: both turns are tried, since a 2's or a 3's pips lie on the diagonal). Each square
is then read like any other candidate; the reader also checks that it counts exactly the
group's pips (:func:`group_size`).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from .layout import layout_face, square_patch
from .pips import find_pips
from .profile import Profile, pip_darks
from .read import Box

SPREAD_OF_OUTLINE = 0.65
"""A top put on pips (:func:`square_on_pips`) whose pips span less than this share of their
outline's shorter side, twice over, is part of a face (a 5's corner and centre are no 2)."""
TOP_OF_OUTLINE = 0.8
"""Such a top is at least this share of the outline's shorter side (a die at a slant shows
a side face a fifth of its side wide at most; a die's outer pips may lie nearer its edges
than a quarter of its side)."""
LEVELS = (12, 20, 32, 50)
"""Black-hat / top-hat levels blobs are looked for at (big pips close together merge at a
low level; a higher one parts them)."""
REACH = 0.5
"""A group is the blobs within this many die sides of its centre (a face's pips lie within
0.42 of it)."""
ALONE = 0.9
"""No other blob may lie within this many die sides of a group's centre: a group must be all
of a face's pips (the rest of a face lies within 0.75 of a group of some of its pips)."""
FAINT = 0.35
"""A blob near a group whose contrast is under this share of the group's strongest pip is no
pip of that die (a shadow's notch at the die's corner); a pip in shade keeps 0.45 of it."""
MAX_BLOBS = 40
"""Groups are looked for about pairs of the strongest this many blobs only (a check cloth
shows hundreds; a die's pips are among the strongest); every blob counts in a group."""


def pip_blobs(light: np.ndarray, side: float, pip_area: float, dark: bool) -> np.ndarray:
    """The round blobs of a pip's size darker (``dark``) or lighter than around them: rows
    of x, y (pixels of ``light``) and how much darker or lighter (0-255). ``light``: a grey
    frame; ``side``: the die's side and ``pip_area`` a pip's share of the die's top, both
    calibrated (pixels of ``light``)."""
    area = pip_area * side * side
    radius = math.sqrt(area / math.pi)
    k = 2 * round(2.2 * radius) + 1
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    op = cv2.MORPH_BLACKHAT if dark else cv2.MORPH_TOPHAT
    resp = cv2.morphologyEx(light, op, kernel)
    found: list[tuple[float, float, float]] = []
    cells: dict[tuple[int, int], list[tuple[float, float]]] = {}  # found, by radius-wide cell
    for level in LEVELS:
        binary = (resp > level).astype(np.uint8)
        _, _, stats, cents = cv2.connectedComponentsWithStats(binary)
        w, h, a = (
            stats[1:, s].astype(np.float32)
            for s in (cv2.CC_STAT_WIDTH, cv2.CC_STAT_HEIGHT, cv2.CC_STAT_AREA)
        )
        pip_sized = (a >= 0.35 * area) & (a <= 2.2 * area)
        # round: not a check's square, nor a line
        round_ = (np.maximum(w, h) <= 1.6 * np.minimum(w, h) + 1) & (a >= 0.5 * w * h)
        round_ &= a <= 0.9 * w * h + 2
        for i in np.flatnonzero(pip_sized & round_) + 1:
            x, y = (float(v) for v in cents[i])
            cx, cy = int(x // radius), int(y // radius)
            near = (
                q
                for dx in (-1, 0, 1)
                for dy in (-1, 0, 1)
                for q in cells.get((cx + dx, cy + dy), ())
            )
            if all(math.hypot(x - qx, y - qy) > radius for qx, qy in near):
                found.append((x, y, float(resp[round(y), round(x)])))
                cells.setdefault((cx, cy), []).append((x, y))
    return np.array(found, np.float32).reshape(-1, 3)


def _members(
    blobs: np.ndarray, strength: np.ndarray, centre: np.ndarray, side: float
) -> np.ndarray:
    """Which blobs are the group about ``centre``: within :data:`REACH` of it, and not
    :data:`FAINT` beside its strongest (a check cloth's faint corners among a die's pips)."""
    inside = np.hypot(*(blobs - centre).T) <= REACH * side
    if not inside.any():
        return inside
    return inside & (strength >= FAINT * float(strength[inside].max()))


def _first_members(
    blobs: np.ndarray, strength: np.ndarray, centres: np.ndarray, side: float
) -> np.ndarray:
    """:func:`_members` about each of ``centres`` at once: one row per centre."""
    inside = np.hypot(
        blobs[None, :, 0] - centres[:, None, 0], blobs[None, :, 1] - centres[:, None, 1]
    )
    inside = inside <= REACH * side
    strongest = np.where(inside, strength[None, :], -np.inf).max(axis=1).astype(np.float64)
    return inside & (strength[None, :] >= (FAINT * strongest).astype(np.float32)[:, None])


def pip_boxes(blobs: np.ndarray, side: float, scale: float) -> list[tuple[Box, int]]:
    """Die-sized squares (frame pixels: ``blobs``, from :func:`pip_blobs`, and ``side`` are
    in pixels of a frame scaled by ``scale``) on groups of 2 to 6 blobs, each with its
    group's size."""
    if len(blobs) < 2:
        return []
    strongest = blobs[np.argsort(-blobs[:, 2])[:MAX_BLOBS], :2]  # a check cloth shows many
    blobs, strength = blobs[:, :2], blobs[:, 2]
    seeds = [
        (p + q) / 2
        for i, p in enumerate(strongest)
        for q in strongest[i + 1 :]
        if 0.3 * side <= float(np.hypot(*(p - q))) <= 0.85 * side
    ]
    if not seeds:
        return []
    out: list[tuple[Box, int]] = []
    seen: list[np.ndarray] = []
    started: set[bytes] = set()  # the first groups settled from: the same settles the same
    firsts = _first_members(blobs, strength, np.array(seeds), side)
    for seed, inside in zip(seeds, firsts, strict=True):
        if inside.tobytes() in started:
            continue  # settled before: kept then (and now too near it), or not kept
        started.add(inside.tobytes())
        centre = seed
        for _ in range(3):  # settle on the group's mean
            if not inside.any():
                break
            centre = blobs[inside].mean(axis=0)
            inside = _members(blobs, strength, centre, side)
        group = blobs[inside]
        if not 2 <= len(group) <= 6 or any(np.hypot(*(centre - s)) < 0.1 * side for s in seen):
            continue
        near = (np.hypot(*(blobs - centre).T) <= ALONE * side) & ~inside
        if (strength[near] >= FAINT * float(strength[inside].max())).any():
            continue  # part of a face (a 4's two left pips make no 2), or another die's pips
        seen.append(centre)
        turn = _grid_turn(group)
        cx, cy = (float(v) / scale for v in centre)
        for angle in (turn, turn + 45.0):
            if _layout(group - centre, side, angle) == len(group):
                out.append((((cx, cy), (side / scale, side / scale), angle), len(group)))
    return out[:8]


def square_on_pips(box: Box, centres: np.ndarray) -> Box | None:
    """The top a die face's grid puts on pips found in ``box`` (``centres``: 2 to 6 pips, in
    sides of ``box`` from its centre, as :class:`.pips.Pips` holds them), in frame pixels: a
    die seen at a slant, whose outline takes in a side face and whose top lies to one side
    of it. Centred on the pips' middle, turned as ``box``, twice their spread along its
    sides (a face's outer pips lie a quarter of its side from its middle) and at least
    :data:`TOP_OF_OUTLINE` of the outline's shorter side. None for fewer than 2 or more than
    6 pips, or pips spread over less than :data:`SPREAD_OF_OUTLINE` of it (part of a face)."""
    if not 2 <= len(centres) <= 6:
        return None
    (cx, cy), (w, h), angle = box
    side = (w + h) / 2
    spread = 2 * float(np.ptp(centres, axis=0).max()) * side
    if spread < SPREAD_OF_OUTLINE * min(w, h):
        return None
    x, y = (float(v) for v in centres.mean(axis=0))
    t = math.radians(angle)
    middle = (
        cx + side * (x * math.cos(t) - y * math.sin(t)),
        cy + side * (x * math.sin(t) + y * math.cos(t)),
    )
    top = max(spread, TOP_OF_OUTLINE * min(w, h))
    return (middle, (top, top), angle)


def tops_on_pips(
    rgb: np.ndarray, boxes: list[Box], profile: Profile, off_centre: float
) -> list[tuple[Box, int]]:
    """Tops put (:func:`square_on_pips`) on the pips found in outlines ``boxes`` (frame
    pixels) whose pips make no face or lie further than ``off_centre`` (die sides) from the
    outline's centre, each with their count: the top must read as that many pips."""
    out = []
    for box in boxes:
        patch = square_patch(rgb, box)
        for dark in pip_darks(profile.pip_polarity):
            pips = find_pips(patch, dark, profile.pip_area or None)
            centred = pips.face and float(np.hypot(*pips.centres.mean(axis=0))) <= off_centre
            top = None if centred else square_on_pips(box, pips.centres)
            if top is not None:
                out.append((top, len(pips.centres)))
    return out


THIRD_PIP = 0.5
"""A spot in line with a 2's pips, as far again from one of them, that stands out from the
table or face around it by at least this share of the weaker of the two pips' contrast is a
third pip (:func:`third_in_line`)."""


def pip_contrast(rgb: np.ndarray, point: tuple[float, float], radius: float) -> float:
    """How much lighter the ring around ``point`` (``radius`` to 2 ``radius``, frame pixels)
    is than the disc of half ``radius`` at its centre, in Lab lightness levels of ``rgb``: a
    dark pip's is positive, a light pip's negative, a bare table's about 0; nan when the
    ring leaves the frame."""
    x, y = point
    r = math.ceil(2 * radius)
    x0, y0, x1, y1 = int(x) - r, int(y) - r, int(x) + r + 2, int(y) + r + 2
    if x0 < 0 or y0 < 0 or x1 > rgb.shape[1] or y1 > rgb.shape[0]:
        return math.nan
    crop = cv2.cvtColor(rgb[y0:y1, x0:x1], cv2.COLOR_RGB2LAB)[..., 0].astype(np.float32)
    yy, xx = np.mgrid[y0:y1, x0:x1]
    d2 = (xx - x) ** 2 + (yy - y) ** 2
    core = crop[d2 <= (radius / 2) ** 2]
    ring = crop[(d2 >= radius**2) & (d2 <= 4 * radius**2)]
    return float(np.median(ring) - np.median(core)) if core.size else math.nan


def third_in_line(
    rgb: np.ndarray, pips: tuple[tuple[float, float], ...], areas: np.ndarray, box: Box
) -> bool:
    """Whether the two pips ``pips`` of a 2 read on ``box`` (frame pixels; ``areas``: the
    pips' areas, shares of the box's side squared) have a third in line beyond either of
    them, as far again: a 3 whose end pip was lost, since a 3's middle and end pips lie on
    a diagonal as a 2's do, half as far apart (a top put beside a slate 3 held only those
    two: docs/camera.md). A real 2's such places lie off the die, on the bare table. Never
    for anything but two pips."""
    if len(pips) != 2:
        return False
    radius = math.sqrt(float(np.median(areas)) / math.pi) * (box[1][0] + box[1][1]) / 2
    p, q = np.array(pips[0]), np.array(pips[1])
    own = [pip_contrast(rgb, (float(a[0]), float(a[1])), radius) for a in (p, q)]
    if any(math.isnan(c) for c in own):  # a pip at the frame's edge: nothing to compare
        return False
    sign = 1.0 if own[0] + own[1] >= 0 else -1.0  # dark pips or light ones
    weaker = min(sign * c for c in own)
    if not weaker > 0:
        return False
    beyond = (2 * p - q, 2 * q - p)
    return any(
        sign * pip_contrast(rgb, (float(m[0]), float(m[1])), radius) >= THIRD_PIP * weaker
        for m in beyond
    )


def _layout(rel: np.ndarray, side: float, angle: float) -> int:
    """The die face (0: none) the pips ``rel`` (pixels from the group's centre) make on a
    square of ``side`` turned by ``angle`` degrees, as :func:`.reader.square_patch` turns."""
    t = math.radians(angle)
    turned = rel @ np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
    return layout_face((turned / side).astype(np.float32))[0]


def _grid_turn(group: np.ndarray) -> float:
    """How the pips' grid is turned (degrees, mod 45): the lines between nearest pips run
    along the die's sides or its diagonals, all alike modulo 45°."""
    angles = []
    for i, p in enumerate(group):
        others = np.delete(group, i, axis=0)
        q = others[np.hypot(*(others - p).T).argmin()]
        angles.append(math.atan2(float(q[1] - p[1]), float(q[0] - p[0])))
    a = np.array(angles) * 8
    mean = math.atan2(float(np.sin(a).mean()), float(np.cos(a).mean())) / 8
    return math.degrees(mean)


__all__ = [
    "pip_blobs",
    "pip_boxes",
    "pip_contrast",
    "square_on_pips",
    "third_in_line",
    "tops_on_pips",
]
