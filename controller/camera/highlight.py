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

from .layout import _INNER, COVER, PATCH, layout_face, pip_response

WHITE = 248
"""A pixel whose every channel is at least this is saturated (nothing under it shows)."""
NEAR_WHITE = 235
"""Light pips whose every peak is at least this are white: under light brighter on one side
some are clipped to white and others not, and that is no highlight among them (a plain
ebony face read nothing when one pip of several was saturated)."""
LOST = 0.15
"""A grid place is lost to a highlight when this much of a pip's disc there is white: a pip
under its core is white but for a faint ring (three frames read a 5 as 4, a 3 as 2 at 0.5)."""
NEAR_WHITE_SHARE = 0.05
"""A grid place is under a highlight when this share of the ring twice a pip's radius
around it is white (then a faint pip there counts): a dark pip under the highlight's core
is a grey ring with a light middle, and the white around it may be small (an ivory 3 whose
centre pip was ringed by 0.097 of white, under the tenth once needed, was read as 2)."""
FAINT = 0.1
"""A faint pip at an empty place of the grid: a response this fraction of the pips'."""
FAINT_ON_WHITE = 0.05
"""The same on a face clipped white all over, whose white has no noise: an ivory 5's centre
pip, bleached under a lamp but for a ring at 0.08 of the pips' response, was read as 4."""
LIGHTER = 15.0
"""A spot beside light pips is a highlight when its core is this much lighter (CIE L*, 0–255
scale) than the lightest of them."""
WHITE_LIGHT = 250
"""A highlight's core over a coloured pip: white's lightness (8-bit L), a channel short."""


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
    """Whether a highlight covers the face's centre, where a 1's pip would be: the centre
    white (:func:`centre_white`) and the white fading out into the face (:func:`_fades`: a
    white drawing clipped by the light is no highlight). A face like the devil under one is
    not answered: a held-out azure 1 whose pip was lost in a highlight was read as the
    devil (seed 97)."""
    saturated = _white(patch)
    return _centre_white(saturated, pip_area) and _fades(patch, saturated)


def centre_white(patch: np.ndarray, pip_area: float, at: tuple[float, float] = (0.0, 0.0)) -> bool:
    """Whether the face's centre is white: half of a pip's disc there (``pip_area``: a
    fraction of the die's top; ``at``: the centre, die sides from the patch's, such as the
    middle of the pips counted), the white lying within the face (not reaching its rim: a
    face all clipped by bright light shows nothing to tell). A 3's or a 5's centre pip may
    lie there, lost in a highlight or merged with one (held-out seed 275: two ruby 5s read
    as 4s; tuning seed 213: a ruby 3 as a 2). White here is also any pixel of white's
    lightness (:data:`WHITE_LIGHT`): over a coloured pip a highlight stays a channel short
    of white (a yellow pip's blue: tuning seed 219's azure 1, read as the devil)."""
    return _centre_white(_white(patch), pip_area, at)


def _white(patch: np.ndarray) -> np.ndarray:
    """The inner part's white pixels (every channel at :data:`WHITE`, or white's lightness)."""
    light = cv2.cvtColor(patch, cv2.COLOR_RGB2LAB)[..., 0]
    return np.asarray(((patch.min(axis=2) >= WHITE) | (light >= WHITE_LIGHT)) & _INNER)


def _centre_white(
    saturated: np.ndarray, pip_area: float, at: tuple[float, float] = (0.0, 0.0)
) -> bool:
    rim = _INNER & ~cv2.erode(_INNER.astype(np.uint8), np.ones((5, 5), np.uint8)).astype(bool)
    if saturated[rim].any():
        return False
    radius = math.sqrt(pip_area / math.pi) * PATCH / COVER
    cx, cy = (PATCH / 2 - 0.5 + a * PATCH / COVER for a in at)
    yy, xx = np.mgrid[0:PATCH, 0:PATCH]
    disc = (xx - cx) ** 2 + (yy - cy) ** 2 <= radius * radius
    return bool(disc.any()) and float(saturated[disc].mean()) >= 0.5


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
    (spaced as the pips are) under the highlight (:data:`NEAR_WHITE_SHARE` of the ring
    twice a pip's radius around it white, or a sixth of its own disc: a dark pip under a
    small highlight is white only at its middle; anywhere if ``saturated`` is None), alone
    or together, where a pip may hide: white in a sixth of a pip's disc, or a faint pip
    showing there (``resp``: the black-hat or top-hat response; :data:`FAINT`, or
    :data:`FAINT_ON_WHITE` of its peak on a face white all over) that was not counted."""
    pip_px = float(np.median([np.count_nonzero(labels == i) for i in pips]))
    radius = max(2.0, math.sqrt(pip_px / math.pi))
    faint = FAINT_ON_WHITE if saturated is None else FAINT
    covered = []
    for place, d2 in empty_places(centres, radius):
        disc = d2 <= radius * radius
        near = d2 <= 4 * radius * radius
        # under the highlight: white in part of a pip's disc (a grey pip may be lost in
        # it), or a faint pip still showing (a part of it, darker or lighter than around)
        lost = saturated is not None and float(saturated[disc].mean()) >= LOST
        if (
            saturated is not None
            and not lost
            and not float(saturated[near].mean()) >= NEAR_WHITE_SHARE
        ):
            continue  # no highlight there (a small one white only on the place: it is)
        if lost or float(resp[disc].max()) >= max(8.0, faint * float(resp.max())):
            covered.append(place)
    return faces_with_hidden(centres, covered, 3)


def empty_places(centres: np.ndarray, radius: float) -> list[tuple[np.ndarray, np.ndarray]]:
    """The empty places of the 3×3 grid that the pip ``centres`` (die sides from the patch's
    centre) lie on, spaced as they are, each with every patch pixel's squared distance from
    it (patch pixels); only places where a pip's disc of ``radius`` lies on the patch (off
    the die's top no pip of this die can be)."""
    middle = centres.mean(axis=0)
    reach = np.abs(centres - middle).max(axis=1)
    outer = reach[reach > 0.1]
    step = float(np.median(outer)) if len(outer) else 0.25
    yy, xx = np.mgrid[0:PATCH, 0:PATCH]
    out = []
    for gx, gy in itertools.product((-1, 0, 1), repeat=2):
        place = middle + np.array((gx, gy), np.float32) * step
        if len(centres) and float(np.hypot(*(centres - place).T).min()) < 0.5 * step:
            continue  # a pip is there
        px, py = place * PATCH / COVER + PATCH / 2
        d2 = (xx - px) ** 2 + (yy - py) ** 2
        if (d2 <= radius * radius).any():
            out.append((place, d2))
    return out


def faces_with_hidden(centres: np.ndarray, places: list[np.ndarray], most: int) -> list[int]:
    """The die faces that the pip ``centres`` make with pips hidden at some of ``places``
    (at most ``most`` of them at once)."""
    faces = []
    for k in range(1, min(most, len(places)) + 1):
        for hidden in itertools.combinations(places, k):
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


def spot_beside_pips(
    rgb: np.ndarray,
    centre: tuple[float, float],
    side: float,
    reach: float,
    pips: tuple[tuple[float, float], ...],
    pip_area: float,
) -> bool:
    """Whether a spot lies within ``reach`` pixels of ``centre`` (a square of ``side``
    pixels put on the pips at ``pips``, frame pixels) that is none of those pips: white
    (every channel at least :data:`WHITE`), or with light pips as light as they are and
    lighter than any of them at its core (a highlight adds light: on a red die it stays
    pink, and two pips merged with it are no pips; the light squares of a check cloth are
    no lighter than the pips). Each spot over half a pip (not the specks of a clipped
    table's noisy edge) and under a quarter of a face (a face or a table the light clipped
    white shows no highlight to tell); white ones compact (not a strip of that edge); over a
    quarter of a pip in all.
    ``pip_area``: a pip's share of the die's top."""
    cx, cy = centre
    x0, y0 = max(0, int(cx - reach)), max(0, int(cy - reach))
    x1, y1 = min(rgb.shape[1], int(cx + reach) + 1), min(rgb.shape[0], int(cy + reach) + 1)
    if x1 <= x0 or y1 <= y0:
        return False
    crop = rgb[y0:y1, x0:x1]
    yy, xx = np.mgrid[y0:y1, x0:x1]
    pip = pip_area * side * side
    radius = math.sqrt(pip / math.pi)
    white = _spots(crop.min(axis=2) >= WHITE, pip, side, compact=True)
    light = cv2.cvtColor(crop, cv2.COLOR_RGB2LAB)[..., 0].astype(np.float32)
    inside = (xx - cx) ** 2 + (yy - cy) ** 2 <= (0.4 * side) ** 2
    face = float(np.median(light[inside]))
    at_pips = [_peak(light, px - x0, py - y0) for px, py in pips]
    if at_pips and min(at_pips) > face + 30:  # light pips: as light as they are, too
        level = face + 0.8 * (min(at_pips) - face)
        bright = _spots(light >= level, pip, side, compact=False)
        white |= _lighter_than(bright, light, max(at_pips) + LIGHTER)
    labels = cv2.connectedComponents(white.astype(np.uint8))[1]
    for px, py in pips:  # a pip it counted (white or as light as itself) is no spot
        mine = labels[(xx - px) ** 2 + (yy - py) ** 2 <= (0.5 * radius) ** 2]
        for i in np.unique(mine[mine > 0]):
            part = labels == i
            if np.hypot(xx[part].mean() - px, yy[part].mean() - py) <= 1.5 * radius:
                white &= ~part  # the pip itself, not merged with anything
    near = (xx - cx) ** 2 + (yy - cy) ** 2 <= reach * reach
    return bool(np.count_nonzero(white & near) > 0.25 * pip)


def _spots(mask: np.ndarray, pip: float, side: float, compact: bool) -> np.ndarray:
    """The parts of ``mask`` over half a pip (``pip`` pixels) and under a quarter of a face
    (``side`` pixels), and when ``compact`` filling 40 % of their box, at most 2.5:1."""
    _, labels, stats, _ = cv2.connectedComponentsWithStats(mask.astype(np.uint8))
    area = stats[:, cv2.CC_STAT_AREA].astype(np.float64)
    w, h = stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT]
    keep = (area >= 0.5 * pip) & (area < 0.25 * side * side)
    if compact:
        keep &= (area >= 0.4 * w * h) & (np.maximum(w, h) <= 2.5 * np.minimum(w, h))
    keep[0] = False
    return np.asarray(keep[labels], bool)


def _lighter_than(spots: np.ndarray, light: np.ndarray, level: float) -> np.ndarray:
    """The parts of ``spots`` whose lightest pixel is above ``level``."""
    count, labels = cv2.connectedComponents(spots.astype(np.uint8))
    peaks = np.zeros(count, np.float32)
    np.maximum.at(peaks, labels.ravel().astype(np.intp), light.ravel())
    keep = peaks > level
    keep[0] = False
    return np.asarray(keep[labels], bool)


def _peak(light: np.ndarray, x: float, y: float) -> float:
    """The lightest pixel within 2 pixels of (x, y) in ``light`` (crop coordinates)."""
    ix, iy = round(x), round(y)
    part = light[max(0, iy - 2) : iy + 3, max(0, ix - 2) : ix + 3]
    return float(part.max()) if part.size else 0.0


def face_beside_highlight(patch: np.ndarray) -> int | None:
    """Where one blob lighter than the face on a die's top (``patch``) is far lighter than
    the others at its core (:data:`LIGHTER`, CIE L*), a highlight among light pips: the face
    the other blobs make (0 for none); ``None`` where there is no such blob. A count other
    than that face may have taken the highlight for a pip (a pink highlight on a red 2's
    centre was read as a 3 by the networks). Blobs: the top-hat response of the lightness
    over 0.45 of its peak, 5 pixels or more."""
    light = cv2.cvtColor(patch, cv2.COLOR_RGB2LAB)[..., 0].astype(np.float32)
    resp = pip_response(light, dark=False)
    count, labels, stats, centres = cv2.connectedComponentsWithStats(
        (resp > max(0.45 * float(resp.max()), 12)).astype(np.uint8)
    )
    blobs = [i for i in range(1, count) if stats[i, cv2.CC_STAT_AREA] >= 5]
    peaks = {i: float(light[labels == i].max()) for i in blobs}
    if len(blobs) < 2:
        return None
    ranked = sorted(blobs, key=peaks.__getitem__)
    if peaks[ranked[-1]] < peaks[ranked[-2]] + LIGHTER:
        return None
    others = (centres[ranked[:-1]] - PATCH / 2) * COVER / PATCH
    return layout_face(others.astype(np.float32))[0]
