"""A die on its edge, or a die lying flat that only looks like one (issue 22, point 7): a
die on its edge shows a second face beside the one read; a flat die cut by a shadow's edge
shows a part of itself shaped like a die on its edge. Geometry on the boxes found, and the
pip blobs about them; :mod:`.reader` decides with it. Pure: no I/O."""

from __future__ import annotations

import math
from collections.abc import Sequence

import cv2
import numpy as np

from .layout import _INNER, COVER, PATCH, pip_response
from .pipgrid import pip_blobs
from .pips import Pips, light_of
from .profile import DEVIL, Profile, pip_darks
from .read import Box
from .shadow import Edge

ON_EDGE_REACH = 2.2
"""A die on its edge's rectangle, widened across to this many times its width, holds the
centre of a square read on its other face (the rectangle found may be one face alone)."""


def inside_any(box: Box, outlines: list[Box], widen: float = 1.0) -> bool:
    """Whether the centre of ``box`` lies within one of the rectangles ``outlines``, each
    widened across (its short sides kept) ``widen`` times."""
    for (cx, cy), (w, h), angle in outlines:
        wider = ((cx, cy), (w * widen, h) if w < h else (w, h * widen), angle)
        if cv2.pointPolygonTest(cv2.boxPoints(wider).astype(np.float32), box[0], False) >= 0:
            return True
    return False


BESIDE = (0.62, 1.05)
"""Pips this far from a read square's centre across one of its edges (die sides; and within
half a side along it) belong to a second face beside it: a die on its edge."""


def second_face_beside(
    box: Box,
    light: np.ndarray,
    scale: float,
    profile: Profile,
    changed: np.ndarray | None,
    edges: Sequence[Edge] = (),
) -> bool:
    """Whether pip-like blobs (:func:`.pipgrid.pip_blobs`, the calibrated pip, at least 0.3
    as strong as the strongest within the square ``box``) lie just beyond one of its
    edges, where a die on its edge shows its other face; a die lying flat has the table
    there. ``light``: the frame's lightness at ``scale``; ``changed``: only blobs where
    the frame changed count (an old die touching the new one is no second face);
    ``edges``: shadow edges, along which the light's step makes blobs of its own (a blob
    within a pip's radius of one is no pip)."""
    (cx, cy), (w, h), angle = box
    side = (w + h) / 2 * scale
    t = math.radians(angle)
    polarities = pip_darks(profile.pip_polarity)
    mask = None
    if changed is not None:
        mask = cv2.resize(changed, light.shape[::-1], interpolation=cv2.INTER_NEAREST)
    # only about the square (1.5 sides, and room for the black-hat's own reach)
    reach = 1.5 * side + 4 * math.sqrt(profile.pip_area) * profile.die_side * scale
    x0, y0 = max(0, int(cx * scale - reach)), max(0, int(cy * scale - reach))
    x1, y1 = int(cx * scale + reach) + 1, int(cy * scale + reach) + 1
    for dark in polarities:
        blobs = pip_blobs(light[y0:y1, x0:x1], profile.die_side * scale, profile.pip_area, dark)
        if not len(blobs):
            continue
        blobs[:, 0] += x0
        blobs[:, 1] += y0
        dx, dy = blobs[:, 0] - cx * scale, blobs[:, 1] - cy * scale
        u = (dx * math.cos(t) + dy * math.sin(t)) / side
        v = (-dx * math.sin(t) + dy * math.cos(t)) / side
        near, far = np.minimum(np.abs(u), np.abs(v)), np.maximum(np.abs(u), np.abs(v))
        inside = far < 0.45
        if not inside.any():
            continue
        strong = blobs[:, 2] >= 0.3 * float(blobs[inside, 2].max())
        beside = strong & (near < 0.5) & (far > BESIDE[0]) & (far < BESIDE[1])
        if mask is not None:
            on = mask[blobs[:, 1].astype(int), blobs[:, 0].astype(int)] > 0
            beside &= on
        radius = math.sqrt(profile.pip_area / math.pi) * profile.die_side  # frame pixels
        for line in edges:
            beside &= [line.distance(x / scale, y / scale) >= radius for x, y, _ in blobs]
        # which edge each lies beyond: a second face shows beyond one edge only (blobs
        # beyond several are the table's own pattern, a check cloth's squares)
        edge = np.where(np.abs(u) > np.abs(v), np.sign(u) * 1, np.sign(v) * 2)[beside]
        if len(set(edge.tolist())) == 1:
            return True
    return False


LENS_DEG = 66.0
"""The box's lens's field of view across the frame (degrees): the Pi Camera Module 3's,
straight down over the frame's centre (docs/camera.md, *Mounting*; ``[camera] lens_deg``)."""


def focal_length(lens_deg: float, width: int) -> float:
    """The focal length (pixels) of a lens seeing ``lens_deg`` degrees across ``width``
    pixels."""
    return width / 2 / math.tan(math.radians(lens_deg) / 2)


LENS_F = focal_length(LENS_DEG, 640)
""":data:`LENS_DEG` in pixels of a 640-wide frame: 493 (320 / tan 33°)."""
SEEN_SIDE = 0.08
"""A die whose side faces would show less than this (die sides) is seen from above."""
TOP_SIZE = (0.8, 1.25)
"""A top seen at an angle is this many calibrated sides across, both ways (a die on its
edge shows its top foreshortened). Was 0.92-1.09 while only the geometry stood between a
die on its edge and a wrong read; the read is now judged too (:func:`flat_top`)."""
TOP_SQUARE = 1.1
"""...and square within 10 % (a die's top is a true square through the lens)."""
TOP_FILL = 0.96
"""...and the outline and the outline moved by ``-d`` both cover this much of it: the
sweep runs along the outline, within about 6° (an outline of a die on its edge fits the
lens's geometry only by chance, in length and in direction)."""


def tops_seen_at_an_angle(
    rects: Sequence[Box], shape: tuple[int, int], side: float | None, lens_deg: float = LENS_DEG
) -> list[Box]:
    """The top of a die lying flat inside each outline of ``rects`` (frame pixels), where
    the lens sees it at an angle. Off the frame's centre the lens sees the die's top (a
    true square: the lens looks straight down) and, between it and the centre, the side
    faces that face the lens: the outline is the top swept towards the centre by
    ``d = -(c - centre) × side / f`` (its bottom, seen; ``f``: the focal length of a lens
    of ``lens_deg`` across the frame), so the top is what the outline and the outline
    moved by ``-d`` both cover. Only tops of the die's size (:data:`TOP_SIZE`), square
    (:data:`TOP_SQUARE`) and filled (:data:`TOP_FILL`), off an outline whose side faces
    would show at least :data:`SEEN_SIDE`. ``side``: the calibrated die side; without it,
    none."""
    if not side:
        return []
    h, w = shape
    f = focal_length(lens_deg, w)
    tops: list[Box] = []
    for (cx, cy), size, angle in rects:
        d = -np.array([cx - w / 2, cy - h / 2]) * side / f
        if float(np.hypot(*d)) < SEEN_SIDE * side:
            continue
        moved = ((cx - float(d[0]), cy - float(d[1])), size, angle)
        found, region = cv2.rotatedRectangleIntersection(((cx, cy), size, angle), moved)
        if found == cv2.INTERSECT_NONE or region is None or len(region) < 3:
            continue
        region = region.astype(np.float32)
        (tx, ty), (tw, th), ta = cv2.minAreaRect(region)
        if not TOP_SIZE[0] * side < min(tw, th) <= max(tw, th) < TOP_SIZE[1] * side:
            continue  # a die on its edge: its top is foreshortened, the square is not its size
        if max(tw, th) > TOP_SQUARE * min(tw, th):
            continue
        if cv2.contourArea(region) < TOP_FILL * tw * th:
            continue  # the sweep is not along the outline: a side face of a die on its edge?
        tops.append(((tx, ty), (tw, th), ta))
    return tops


FLAT_DIE = (0.85, 1.2)
"""A square outline this many calibrated die sides across is a die lying flat (a die on its
edge is 1.25-1.75 sides long: :data:`LEANING`)."""


def part_of_a_flat_die(rect: Box, squares: list[Box], side: float | None) -> bool:
    """Whether the die-on-its-edge shaped ``rect`` lies within one of the die-sized
    ``squares`` (grown by 10 %): it is then the lit or the shaded part of a die lying flat
    that a shadow's edge crosses, not a die on its edge, whose outline is longer than a
    die. ``side``: the calibrated die side (frame pixels); without it, never."""
    if not side:
        return False
    corners = cv2.boxPoints(rect)
    for (cx, cy), (w, h), angle in squares:
        if max(w, h) > 1.1 * min(w, h) or not FLAT_DIE[0] * side < (w + h) / 2 < FLAT_DIE[1] * side:
            continue
        grown = cv2.boxPoints(((cx, cy), (w * 1.1, h * 1.1), angle)).astype(np.float32)
        if all(cv2.pointPolygonTest(grown, (float(x), float(y)), False) >= 0 for x, y in corners):
            return True
    return False


ONE_SHADE = 0.2
"""A number read on a top seen at an angle must show one face: its lightness, pips left
out, steps by less than this share across any line parallel to a side. A die on its edge
whose outline fits the lens's geometry by chance gives a "top" across the seam of its two
faces, one shaded: 0.27-0.37 over the 1,500 dice on their edge; flat dice seen through the
lens, 0.13 at most (docs/camera.md)."""


def shade_step(patch: np.ndarray, pips: Pips) -> float:
    """The largest step in lightness across a line parallel to a side of ``patch`` (a top as
    :func:`.reader.square_patch` warps it; ``pips``: the pips read on it, left out), as a
    share of the face's median lightness: the medians of each side's lines, split anywhere
    from a sixth to five sixths of the way across."""
    light = light_of(patch)
    keep = _INNER.astype(np.uint8)
    if len(pips.centres):
        radius = pips.radius + 2
        for x, y in pips.centres * PATCH / COVER + PATCH / 2:
            cv2.circle(keep, (round(float(x)), round(float(y))), round(radius), 0, -1)
    face = float(np.median(light[keep > 0])) if keep.any() else 0.0
    worst = 0.0
    for lines, kept in ((light, keep), (light.T, keep.T)):
        levels = np.array(
            [np.median(v[k > 0]) for v, k in zip(lines, kept, strict=True) if (k > 0).sum() >= 6]
        )
        n = len(levels)
        for cut in range(max(1, n // 6), n - max(1, n // 6)):
            step = abs(float(np.median(levels[:cut]) - np.median(levels[cut:])))
            worst = max(worst, step)
    return worst / max(face, 1.0)


def pip_roundness(patch: np.ndarray, pips: Pips) -> float:
    """The median over ``pips`` of each pip's minor/major axis ratio on ``patch`` (its blob
    above half its peak in the pip response, by its second moments; 1: round). A face
    parallel to the frame shows round pips; a face tilted by ``t`` shows them ``cos t``
    round (a die on its edge: 0.6-0.8). 1.0 when there are no pips."""
    if not len(pips.centres):
        return 1.0
    light = light_of(patch)
    spots = [
        (round(float(x)), round(float(y))) for x, y in pips.centres * PATCH / COVER + PATCH / 2
    ]
    spots = [(min(max(x, 0), PATCH - 1), min(max(y, 0), PATCH - 1)) for x, y in spots]
    responses = [pip_response(light, dark) for dark in (True, False)]
    resp = max(responses, key=lambda r: sum(float(r[y, x]) for x, y in spots))
    ratios = []
    reach = round(pips.radius * 2) + 2
    for x, y in spots:
        x0, y0 = max(0, x - reach), max(0, y - reach)
        window = resp[y0 : y + reach + 1, x0 : x + reach + 1]
        peak = float(window.max())
        if peak <= 0:
            continue
        _, labels = cv2.connectedComponents((window > peak / 2).astype(np.uint8))
        blob = labels == labels[y - y0, x - x0]
        if not labels[y - y0, x - x0]:
            continue
        m = cv2.moments(blob.astype(np.uint8), binaryImage=True)
        if m["m00"] < 4:
            continue
        a, b, c = m["mu20"] / m["m00"], m["mu02"] / m["m00"], m["mu11"] / m["m00"]
        spread = math.sqrt(max(0.0, (a - b) ** 2 / 4 + c * c))
        major, minor = (a + b) / 2 + spread, max(0.0, (a + b) / 2 - spread)
        ratios.append(math.sqrt(minor / major) if major > 0 else 1.0)
    return float(np.median(ratios)) if ratios else 1.0


ROUND_PIPS = 0.9
"""How round (:func:`pip_roundness`) the pips of a face seen from above are at least: a face
tilted by ``t`` shows them ``cos t`` round. Numbers read through a top on lens renders:
0.934 at the least; dice on their edge, evenly lit (no seam of shade shows), answered
through a top: 0.63-0.85. Used on tops seen at an angle, squares put on groups of pips and
outlines that are not square (:func:`seen_at_a_slant`)."""


def flat_top(patch: np.ndarray, face: int | str | None, pips: Pips) -> bool:
    """Whether ``patch``, a top seen at an angle read as ``face``, is the flat top of a die:
    one face's shade (:func:`shade_step` under :data:`ONE_SHADE`) with round pips (at least
    :data:`ROUND_PIPS`). Always for the devil, whose drawing is neither."""
    if face == DEVIL:
        return True
    return shade_step(patch, pips) < ONE_SHADE and round_pips(patch, pips)


def round_pips(patch: np.ndarray, pips: Pips) -> bool:
    """Whether the ``pips`` on ``patch`` are round as a face seen from above shows them
    (:func:`pip_roundness` at least :data:`ROUND_PIPS`)."""
    return pip_roundness(patch, pips) >= ROUND_PIPS


SLANT = 1.15
"""An outline this many times as long as wide is not a face seen from above if its pips are
not round either (:func:`seen_at_a_slant`)."""


def seen_at_a_slant(box: Box, patch: np.ndarray, face: int | str, pips: Pips) -> bool:
    """Whether ``box`` (a read's outline, its top warped to ``patch``, read as ``face`` with
    ``pips``; none when the networks read it) is a number seen at a slant: a die on its edge
    whose other face is lost against the table shows one face foreshortened, its outline not
    square and its pips not round (:func:`round_pips`); the devil, whose drawing has no pips
    to judge, on any outline not square."""
    (_, (w, h), _) = box
    return max(w, h) > SLANT * min(w, h) and (face == DEVIL or not round_pips(patch, pips))
