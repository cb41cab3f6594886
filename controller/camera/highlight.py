"""A white highlight on a die's top (a glossy die under a lamp): where it may hide a pip or
pass for one (issue 22, point 6). When unsure, no face: a 5 must never be read as a 4.

With dark pips a highlight cannot pass for a pip; it may hide one where it is white over a
pip's place (:func:`glare_hides`), and a pip it touches is paler than the others
(:func:`highlight_zone`: where). With light pips any highlight may pass for a pip or hide
one: no face. (Judging light pips by where the highlight lies read a held-out azure 5 as 4:
the highlight set the level pips are found at, and a pip far from it was lost.)
"""

from __future__ import annotations

import itertools
import math

import cv2
import numpy as np

from .layout import _INNER, COVER, PATCH, layout_face

WHITE = 248
"""A pixel whose every channel is at least this is saturated (nothing under it shows)."""
NEAR_WHITE = 235
"""Light pips whose every peak is at least this are white: under light brighter on one side
some are clipped to white and others not, and that is no highlight among them (a plain
ebony face read nothing when one pip of several was saturated)."""
LOST = 0.15
"""A grid place is lost to a highlight when this much of a pip's disc there is white: a pip
under its core is white but for a faint ring (three frames read a 5 as 4, a 3 as 2 at 0.5)."""


def highlight_zone(patch: np.ndarray, labels: np.ndarray, pips: list[int]) -> np.ndarray | None:
    """Where a highlight lies on a face, grown by a pip's radius (a pip touching it is paler
    than the others, or lost in it): saturated pixels, those of the pips left out when every
    pip is white (white pips, not a highlight); ``None`` when there is none."""
    saturated = (patch.min(axis=2) >= WHITE) & _INNER
    on_pips = np.isin(labels, pips)
    if all(bool(saturated[labels == i].any()) for i in pips):
        grown = cv2.dilate(on_pips.astype(np.uint8), np.ones((5, 5), np.uint8))
        saturated &= ~grown.astype(bool)
    if int(np.count_nonzero(saturated)) < 3:
        return None
    pip_px = float(np.median([np.count_nonzero(labels == i) for i in pips]))
    r = max(2, round(math.sqrt(pip_px / math.pi)))
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
    return cv2.dilate(saturated.astype(np.uint8), kernel).astype(bool)


def glare_hides(
    patch: np.ndarray,
    labels: np.ndarray,
    pips: list[int],
    dark: bool,
    centres: np.ndarray,
    resp: np.ndarray,
) -> bool:
    """Whether a white highlight on the face may hide pips or pass for one (a 5 read as 4,
    a 6 as 4, a 4 as 5): then the count cannot be trusted. Only where it matters: a
    highlight on a face with dark pips is harmless unless it covers a pip's place in the 3×3
    grid where one or more hidden pips would make another die face (the centre of a 4 or a
    2, ...); with light pips, any highlight is (it may pass for a pip anywhere)."""
    saturated = (patch.min(axis=2) >= 248) & _INNER
    if int(np.count_nonzero(saturated)) > 0.5 * int(np.count_nonzero(_INNER)):
        # white all over (bright light, or a highlight as big as the face): only a faint
        # pip showing where one would make another face is a sign of one hidden
        return bool(hidden_faces(None, labels, pips, centres, resp))
    if not dark:
        peaks = [float(patch.min(axis=2)[labels == i].max()) for i in pips]
        if min(peaks) >= NEAR_WHITE:  # white pips, the brightest clipped by the light
            on_pips = np.isin(labels, pips).astype(np.uint8)
            saturated &= ~cv2.dilate(on_pips, np.ones((5, 5), np.uint8)).astype(bool)
        elif max(peaks) >= WHITE:
            return True  # one pip whiter than the others: a highlight among them
    if not saturated.any():
        return False
    if not dark:  # a white highlight may pass for a light pip anywhere: any is too much
        pip_px = float(np.median([np.count_nonzero(labels == i) for i in pips]))
        return int(np.count_nonzero(saturated)) >= max(3.0, 0.25 * pip_px)
    return bool(hidden_faces(saturated, labels, pips, centres, resp))


def centre_lost(patch: np.ndarray, pip_area: float) -> bool:
    """Whether a highlight covers the face's centre, where a 1's pip would be: half of a
    pip's disc there white (``pip_area``: a fraction of the die's top), the white lying
    within the face (not reaching its rim: a face all clipped by bright light is no
    highlight) and fading out into it (:func:`_fades`: a white drawing clipped by the light
    is no highlight). A face like the devil under one is not answered: a held-out azure 1
    whose pip was lost in a highlight was read as the devil (seed 97)."""
    saturated = (patch.min(axis=2) >= WHITE) & _INNER
    rim = _INNER & ~cv2.erode(_INNER.astype(np.uint8), np.ones((5, 5), np.uint8)).astype(bool)
    if saturated[rim].any():
        return False
    radius = math.sqrt(pip_area / math.pi) * PATCH / COVER
    yy, xx = np.mgrid[0:PATCH, 0:PATCH]
    disc = (xx - PATCH / 2 + 0.5) ** 2 + (yy - PATCH / 2 + 0.5) ** 2 <= radius * radius
    return float(saturated[disc].mean()) >= 0.5 and _fades(patch, saturated)


def _fades(patch: np.ndarray, saturated: np.ndarray) -> bool:
    """Whether the white fades out into the face (a highlight), rather than ending sharply
    (a white drawing clipped by bright light): 1 to 3 pixels beyond it, the light is still
    more than half-way from the face's to white. A face nearly white itself: it may."""
    light = cv2.cvtColor(patch, cv2.COLOR_RGB2LAB)[..., 0].astype(np.float32)
    sat = saturated.astype(np.uint8)
    ring = cv2.dilate(sat, np.ones((7, 7), np.uint8)).astype(bool)
    ring &= ~cv2.dilate(sat, np.ones((3, 3), np.uint8)).astype(bool)
    away = _INNER & ~cv2.dilate(sat, np.ones((11, 11), np.uint8)).astype(bool)
    if not ring.any() or not away.any():
        return True
    face = float(np.median(light[away]))
    return face > 215 or float(np.median(light[ring])) > face + 0.5 * (255 - face)


def hidden_faces(
    saturated: np.ndarray | None,
    labels: np.ndarray,
    pips: list[int],
    centres: np.ndarray,
    resp: np.ndarray,
) -> list[int]:
    """The die faces that pips hidden under the ``saturated`` pixels would make with the
    pips ``centres`` (die sides from the patch's centre): each empty place of the 3×3 grid
    (spaced as the pips are) near the highlight (anywhere if ``saturated`` is None), alone
    or together, where a pip may hide:
    white in a sixth of a pip's disc, or a faint pip showing there (``resp``: the
    black-hat or top-hat response) that was not counted."""
    pip_px = float(np.median([np.count_nonzero(labels == i) for i in pips]))
    radius = max(2.0, math.sqrt(pip_px / math.pi))
    middle = centres.mean(axis=0)
    reach = np.abs(centres - middle).max(axis=1)
    outer = reach[reach > 0.1]
    step = float(np.median(outer)) if len(outer) else 0.25
    yy, xx = np.mgrid[0:PATCH, 0:PATCH]
    covered = []
    for gx, gy in itertools.product((-1, 0, 1), repeat=2):
        place = middle + np.array((gx, gy), np.float32) * step
        if len(centres) and float(np.hypot(*(centres - place).T).min()) < 0.5 * step:
            continue  # a pip is there
        px, py = place * PATCH / COVER + PATCH / 2
        d2 = (xx - px) ** 2 + (yy - py) ** 2
        disc = d2 <= radius * radius
        near = d2 <= 4 * radius * radius
        if not disc.any():
            continue  # off the die's top: no pip of this die there
        if saturated is not None and not float(saturated[near].mean()) >= 0.1:
            continue  # no highlight there
        # under the highlight: white in part of a pip's disc (a grey pip may be lost in
        # it), or a faint pip still showing (a part of it, darker or lighter than around)
        lost = saturated is not None and float(saturated[disc].mean()) >= LOST
        if lost or float(resp[disc].max()) >= max(8.0, 0.1 * float(resp.max())):
            covered.append(place)
    faces = []
    for k in range(1, min(3, len(covered)) + 1):
        for hidden in itertools.combinations(covered, k):
            face, _ = layout_face(np.vstack([centres, np.array(hidden, np.float32)]))
            if face:
                faces.append(face)
    return faces


SOFT = 0.6
"""A blob whose edge, for its contrast, is less than this steep as the sharpest blob's is
soft: a highlight's gentle slope, not a pip's edge."""
MERGED = 0.75
"""A blob less than this steep as the sharpest, or far bigger than a pip, may be a pip and
a highlight merged: its pip-sized sharp part at a higher level is kept, the rest is the
highlight."""


def soft_highlight(
    patch: np.ndarray, light: np.ndarray, resp: np.ndarray, pip_area: float
) -> tuple[np.ndarray, np.ndarray] | None:
    """A soft white highlight among light pips (a glossy die under a lamp): the blobs of the
    top-hat ``resp`` (at a quarter of its peak) whose edge is soft (:data:`SOFT`) or that
    are far bigger than a pip (``pip_area``: a fraction of the die's top; a pip merged with
    the highlight is lost with it), and the saturated pixels off the sharp blobs. Returns
    the highlight's core and the zone where a pip may hide under it (the core and every
    saturated pixel, grown by a pip's radius: a pip lost with the core lay mostly inside
    it). A highlight on a pip leaves no soft blob: the zone is then the saturated pixels
    grown. ``None`` when no blob is soft and nothing is saturated, or every blob is soft."""
    peak = float(resp.max())
    low = (resp > max(0.25 * peak, 12)).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(low, connectivity=8)
    blobs = [i for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] >= 5]
    if len(blobs) < 2:
        return None
    face = float(np.median(light[_INNER]))
    grad = gradient(light)
    steep = {i: steepness(grad, light, labels == i, face, stats[i]) for i in blobs}
    sharpest = max(steep.values())
    size = pip_area * (PATCH / COVER) ** 2
    soft = [
        i for i in blobs if steep[i] < MERGED * sharpest or stats[i, cv2.CC_STAT_AREA] > 1.6 * size
    ]
    if len(soft) == len(blobs):
        return None
    saturated = (patch.min(axis=2) >= WHITE) & _INNER
    core = np.isin(labels, soft)
    for i in soft:  # a pip merged with the highlight: its sharp disc at a higher level stays
        part = ((resp > 0.6 * float(resp[labels == i].max())) & (labels == i)).astype(np.uint8)
        m, parts, pstats, _ = cv2.connectedComponentsWithStats(part, connectivity=8)
        for j in range(1, m):
            disc = parts == j
            w, h, a = (
                pstats[j, k] for k in (cv2.CC_STAT_WIDTH, cv2.CC_STAT_HEIGHT, cv2.CC_STAT_AREA)
            )
            roundish = max(w, h) <= 1.8 * min(w, h) + 1 and a >= 0.45 * w * h
            if (
                roundish
                and 0.4 * size <= a <= 1.6 * size
                and steepness(grad, light, disc, face, pstats[j]) >= SOFT * sharpest
            ):
                core &= ~cv2.dilate(disc.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
    sharp = cv2.dilate((np.isin(labels, blobs) & ~core).astype(np.uint8), np.ones((5, 5), np.uint8))
    core |= saturated & ~sharp.astype(bool)
    pips = [i for i in blobs if i not in soft]
    if all(bool(saturated[labels == i].any()) for i in pips):
        saturated &= ~sharp.astype(bool)  # white pips, all clipped: no highlight on them
    if not soft and int(np.count_nonzero(saturated)) < 3:
        return None
    r = max(2, round(math.sqrt(size / math.pi)))
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
    return core, cv2.dilate((core | saturated).astype(np.uint8), kernel).astype(bool)


def gradient(light: np.ndarray) -> np.ndarray:
    """The size of ``light``'s gradient at each pixel (3×3 Sobel), for :func:`steepness`."""
    return np.hypot(
        cv2.Sobel(light, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(light, cv2.CV_32F, 0, 1, ksize=3)
    )


def steepness(
    grad: np.ndarray,
    light: np.ndarray,
    blob: np.ndarray,
    face: float,
    box: np.ndarray | None = None,
) -> float:
    """How sharp a blob's edge is for its contrast: the steepest gradients (90th
    percentile of ``grad``, :func:`gradient` of ``light``) about it over its peak's
    difference from the ``face`` lightness. A pip's edge is sharp, a highlight's slope
    gentle. ``box``: the blob's x, y, width, height (``connectedComponentsWithStats``), so
    that only the pixels about it are looked at."""
    if box is not None:
        x, y, w, h = (int(v) for v in box[:4])
        near = slice(max(y - 2, 0), y + h + 2), slice(max(x - 2, 0), x + w + 2)
        grad, light, blob = grad[near], light[near], blob[near]
    ring = cv2.dilate(blob.astype(np.uint8), np.ones((5, 5), np.uint8)).astype(bool)
    contrast = abs(float(light[blob].max()) - face) + 1.0
    return percentile_90(grad[ring]) / contrast


def percentile_90(values: np.ndarray) -> float:
    """``np.percentile(values, 90)`` of finite float32 ``values`` (1-D, not empty), bit for bit
    (NumPy's linear method, interpolated in float32), without its overhead: 2 µs, not 20."""
    n = values.size
    at = (n - 1) * 0.9
    if at >= n - 1:
        return float(values.max())
    low = math.floor(at)
    part = np.partition(values, (low, low + 1))
    a, b = part[low], part[low + 1]
    t = at - low
    return float(b - (b - a) * (1 - t)) if t >= 0.5 else float(a + (b - a) * t)
