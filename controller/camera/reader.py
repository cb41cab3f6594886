"""The face reader: an RGB image in, ``(face, confidence)`` out (classic OpenCV, no learning).

1. **Find the die by its shape.** On the frame at half size, the lightness is evened out
   (CLAHE) and thresholded against its neighbourhood (adaptive thresholds, both ways: a die
   lighter or darker than the table), and so are the two colour channels (a coloured die on a
   table of the same lightness). Every outline that is square (its sides within 25 %), fills
   its rotated rectangle, and is a die's size (the calibrated side is a preference, not a
   gate) is a candidate. A shadow's straight edge across the table is lifted first
   (:mod:`.shadow`), and when nothing reads the candidates are read again on the lifted frame.
   When still nothing reads, a die-sized square is put on each group of pip-like blobs
   (:mod:`.pipgrid`: a die whose outline is lost, white on white in bright light); such a
   square must count exactly its group's pips, with nothing else on the face.
2. **Count the pips by their layout.** Each candidate's top is warped to a 48×48 patch. Pips
   are blobs darker (or lighter) than their surroundings (a black-hat / top-hat, so a shadow
   across the die does not matter), of one size and one colour. A number is answered only
   when the blobs sit where a real die face puts them (1–6, in a 3×3 grid, any rotation).
   No face found: counted again with the face's light evened out (a shadow's edge). With
   dark pips a white highlight makes the count untrusted only where a pip hidden in it would
   make another face; with light pips any highlight does (:mod:`.highlight`).
3. **The devil** has no pip layout; its drawing is compared (HOG, gradient histograms: light,
   colour and contrast do not change them; 4 rotations of each example) with the calibration
   photos of the devil and with number faces. It is answered only when it is close to the
   devil examples and clearly closer to them than to any number; a patch with a pip layout is
   never the devil, and a patch like the devil is never a number. Unsure: ``None``.

Several candidates that read differently (two dice, and no frame difference to say which one
is new) give ``None``. Read time: about 5–15 ms for 640×480 on one core here
(``diablotin bench camera``).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from dataclasses import dataclass

import cv2
import numpy as np

from .highlight import (
    NEAR_WHITE,
    SOFT,
    WHITE,
    centre_lost,
    glare_hides,
    hidden_faces,
    highlight_zone,
    soft_highlight,
    steepness,
)
from .hog import hog
from .layout import _INNER, COVER, LAYOUT_TOL, PATCH, layout_face
from .pipgrid import pip_blobs, pip_boxes
from .profile import DEVIL, FACES, Profile
from .read import Box, Read
from .shadow import Edge, lift, shadow_edges, shadow_free

WORK_SCALE = 0.5
"""Die finding runs on the frame scaled by this (320×240 for 640×480)."""
MIN_SIDE, MAX_SIDE = 28.0, 240.0
"""Die sides (pixels of a 640-wide frame) looked for when no size is calibrated."""
FLAT_WINDOW = 17
"""The median window (patch pixels, a third of the patch) that evens the light on a face."""

_CLAHE = cv2.createCLAHE(clipLimit=2.0, tileGridSize=(6, 6))


def as_rgb(image: np.ndarray) -> np.ndarray:
    """An 8-bit RGB image from RGB/RGBA/grey, 8- or 16-bit; ``ValueError`` otherwise."""
    if not isinstance(image, np.ndarray) or image.size == 0:
        raise ValueError("not an image (empty)")
    if image.dtype == np.uint16:
        image = (image >> 8).astype(np.uint8)
    elif image.dtype != np.uint8:
        raise ValueError(f"unsupported pixel type {image.dtype}: 8- or 16-bit images")
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2RGB)
    if image.ndim == 3 and image.shape[2] == 3:
        return image
    if image.ndim == 3 and image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_RGBA2RGB)
    raise ValueError(f"unsupported image shape {image.shape}")


# -- 1. candidates: square outlines of a die's size ---------------------------------------


def square_candidates(
    rgb: np.ndarray,
    side_hint: float | None = None,
    within: np.ndarray | None = None,
    edges: list[Edge] | None = None,
) -> list[Box]:
    """Rotated rectangles (frame pixels) of the square outlines of a die's size in ``rgb``,
    best first (squarest, fullest, nearest the hint). Similar outlines are merged.
    ``within``: a 0/255 mask (frame size); outlines are cut to it (a die touching others
    that lay there before). ``edges``: shadow edges to lift (default: those found)."""
    small = cv2.resize(rgb, None, fx=WORK_SCALE, fy=WORK_SCALE, interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(cv2.GaussianBlur(small, (3, 3), 0), cv2.COLOR_RGB2LAB)
    lo, hi = MIN_SIDE * WORK_SCALE, MAX_SIDE * WORK_SCALE
    if side_hint:
        lo, hi = max(lo, side_hint * 0.45 * WORK_SCALE), min(hi, side_hint * 2.0 * WORK_SCALE)
    blocks = _neighbourhoods(side_hint)
    masks = _masks(lab, blocks, edges)
    found: list[tuple[float, Box]] = []
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
    if within is not None:
        cut = cv2.resize(within, (small.shape[1], small.shape[0]), interpolation=cv2.INTER_NEAREST)
        masks = [cv2.bitwise_and(m, cut) for m in masks] + masks
    for mask in masks:
        # pips are holes: fill them, so that opening (which cuts thin lines and specks of
        # the table away) cannot break the thin rim between a pip and the die's edge
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        mask = cv2.drawContours(np.zeros_like(mask), contours, -1, 255, -1)
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, kernel)
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        for contour in contours:
            area = cv2.contourArea(contour)
            if not lo * lo * 0.8 < area < hi * hi:
                continue
            (cx, cy), (w, h), angle = cv2.minAreaRect(contour)
            if min(w, h) < lo or max(w, h) > hi or max(w, h) > 1.25 * min(w, h):
                continue
            fill = area / (w * h)
            hull = cv2.contourArea(cv2.convexHull(contour))
            if fill < 0.8 or area < 0.93 * hull:
                continue
            side = (w + h) / 2 / WORK_SCALE
            score = fill - (max(w, h) / min(w, h) - 1)
            if side_hint:
                score -= 0.8 * abs(math.log(side / side_hint))
            s = 1 / WORK_SCALE
            found.append((score, ((cx * s, cy * s), (w * s, h * s), angle)))
    found.sort(key=lambda item: -item[0])
    kept: list[Box] = []
    for _, box in found:
        (cx, cy), (w, _h), _a = box
        near = [k for k in kept if math.hypot(k[0][0] - cx, k[0][1] - cy) < 0.25 * w]
        if len(near) < 2:  # at most two outlines per place (the best two)
            kept.append(box)
    return kept[:40]


# -- 2. the top of a candidate, and its pips ---------------------------------------------


def _masks(lab: np.ndarray, blocks: tuple[int, int], edges: list[Edge] | None) -> list[np.ndarray]:
    """The thresholded masks a die's outline is looked for in (``lab``: the frame at
    WORK_SCALE): see :func:`square_candidates`."""
    light = lab[..., 0]
    channels: list[tuple[np.ndarray, tuple[int, ...], tuple[int, ...]]] = [
        (_CLAHE.apply(light), (7, 20), blocks),
        (shadow_free(light, blocks[0]), (10,), blocks[:1]),
        (lab[..., 1], (4,), blocks[:1]),
        (lab[..., 2], (4,), blocks[:1]),
    ]
    if edges is None:
        edges = shadow_edges(light, blocks[0], WORK_SCALE)
    channels += [(lift(light, e, WORK_SCALE, blocks[0] / 2), (7,), blocks[:1]) for e in edges]
    masks = []
    for channel, offsets, sizes in channels:
        for c, block in itertools.product(offsets, sizes):
            for kind, offset in ((cv2.THRESH_BINARY, -c), (cv2.THRESH_BINARY_INV, c)):
                # lighter than its surroundings by c, or darker by c
                masks.append(
                    cv2.adaptiveThreshold(
                        channel, 255, cv2.ADAPTIVE_THRESH_MEAN_C, kind, block, offset
                    )
                )
    # and the regions that edges enclose (a die against a table of its own shade)
    outline = cv2.Canny(light, 12, 36)
    masks.append(cv2.bitwise_not(cv2.dilate(outline, np.ones((3, 3), np.uint8))))
    return masks


def _neighbourhoods(side_hint: float | None) -> tuple[int, int]:
    """The adaptive thresholds' two neighbourhoods (pixels at WORK_SCALE): about twice and
    four times the die (a die filling its neighbourhood is no contrast)."""
    if not side_hint:
        return 61, 121
    return int(side_hint * WORK_SCALE * 2.2) | 1, int(side_hint * WORK_SCALE * 4) | 1


def square_patch(rgb: np.ndarray, box: Box) -> np.ndarray:
    """The die's top warped to PATCH×PATCH (``COVER`` of its side)."""
    (cx, cy), (w, h), angle = box
    side = (w + h) / 2 * COVER
    m = cv2.getRotationMatrix2D((cx, cy), angle, PATCH / side)
    m[0, 2] += PATCH / 2 - cx
    m[1, 2] += PATCH / 2 - cy
    return cv2.warpAffine(
        rgb, m, (PATCH, PATCH), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE
    )


def patch_light(patch: np.ndarray) -> np.ndarray:
    """The patch's lightness (Lab L), stretched to 0–255 (light and contrast normalised)."""
    light = cv2.cvtColor(patch, cv2.COLOR_RGB2LAB)[..., 0].astype(np.float32)
    lo, hi = np.percentile(light[_INNER], (2, 98))
    return np.clip((light - lo) * (255 / max(hi - lo, 8.0)), 0, 255).astype(np.uint8)


@dataclass(frozen=True)
class Pips:
    """Pip blobs on a patch: centres (die sides from the centre), areas (fraction of the
    die's top) and the face their layout is (0: no die face's layout)."""

    centres: np.ndarray
    areas: np.ndarray
    face: int
    error: float
    hidden: bool = False
    """A die face's layout, untrusted: a highlight may hide a pip or pass for one."""


NO_PIPS = Pips(np.zeros((0, 2), np.float32), np.zeros(0, np.float32), 0, 1.0)


def find_pips(
    patch: np.ndarray,
    dark: bool,
    pip_area: float | None = None,
    flat: bool = False,
    pale: bool = False,
) -> Pips:
    """The pips on ``patch`` (darker than the face if ``dark``, else lighter) and the face
    their layout makes (``face`` 0 when it is no die face or the blobs are no pips).
    ``flat``: even out the light over the face first (:func:`flat_light`: a shadow's edge).
    ``pale``: the pips are known to be dark (calibrated so): one under a white highlight
    is paler than the others and is judged by its shape and size alone. Not with pips that
    may be either: the dark face between light pips and a highlight would pass for one."""
    lab = cv2.cvtColor(patch, cv2.COLOR_RGB2LAB).astype(np.float32)
    if flat:
        lab[..., 0] = flat_light(lab[..., 0])
    light = lab[..., 0]
    k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (17, 17))
    op = cv2.MORPH_BLACKHAT if dark else cv2.MORPH_TOPHAT
    resp = cv2.morphologyEx(light, op, k, borderType=cv2.BORDER_REPLICATE)
    resp[~_INNER] = 0
    peak = float(resp.max())
    spread = float(np.percentile(light[_INNER], 95) - np.percentile(light[_INNER], 5))
    if peak < 18 or peak < 0.25 * spread:
        return NO_PIPS
    counted = _levels(patch, lab, resp, dark, pip_area, pale)
    if not dark and pip_area and (counted.hidden or not counted.face):
        # light pips beside a soft highlight: count them with the highlight left out
        size = 2 * round(math.sqrt(pip_area / math.pi) * PATCH / COVER) + 3
        tight = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))
        narrow = cv2.morphologyEx(light, op, tight, borderType=cv2.BORDER_REPLICATE)
        narrow[~_INNER] = 0
        soft = soft_highlight(patch, light, narrow, pip_area)
        if soft is not None:
            core, zone = soft
            clean = narrow.copy()
            clean[core] = 0
            if float(clean.max()) >= 18:
                beside = _levels(patch, lab, clean, dark, pip_area, pale, (core, zone))
                if beside.face:
                    return beside
    return counted


def _levels(
    patch: np.ndarray,
    lab: np.ndarray,
    resp: np.ndarray,
    dark: bool,
    pip_area: float | None,
    pale: bool,
    soft: tuple[np.ndarray, np.ndarray] | None = None,
) -> Pips:
    """The pips of :func:`find_pips` at three levels of the response ``resp``: big pips
    close together merge at a low level, a higher one parts them, and a face found at one
    level must not be another face at the next one. ``soft``: a soft highlight left out
    (see :func:`_blobs`)."""
    found = []
    for level in (0.45, 0.65, 0.8):
        found.append(_blobs(patch, lab, resp, level, dark, pip_area, pale, soft))
        if found[-1].hidden:  # a higher level's smaller blobs must not overrule it
            return found[-1]
        if found[-1].face and _fainter_pips(resp, found[-1], pip_area):
            return Pips(found[-1].centres, found[-1].areas, 0, 1.0)
        if found[-1].face:
            if level < 0.8:
                again = _blobs(patch, lab, resp, level + 0.15, dark, pip_area, pale, soft)
                if again.face and again.face != found[-1].face:
                    return Pips(again.centres, again.areas, 0, 1.0)  # two readings: unsure
                if soft is not None and again.hidden:
                    return again
            return found[-1]
    return found[0]


def flat_light(light: np.ndarray) -> np.ndarray:
    """The patch's lightness (float32, 0–255) with the light over the face evened out: each
    pixel divided by the median around it (a median keeps a shadow's sharp edge and ignores
    pips, which fill far less than half of its window), times the face's median. A shadow
    across the face, or a lamp to one side, no longer makes one half look like a pip."""
    grey = np.clip(light, 0, 255).astype(np.uint8)
    around = cv2.medianBlur(grey, FLAT_WINDOW).astype(np.float32)
    level = float(np.median(around[_INNER]))
    return np.asarray(np.clip(light * (level / np.maximum(around, 8.0)), 0, 255), np.float32)


def _fainter_pips(resp: np.ndarray, pips: Pips, pip_area: float | None) -> bool:
    """Whether more pip-sized blobs show at a low level than were counted: a brighter
    thing (a highlight) set the level above the real pips, which must not be missed."""
    low = (resp > max(0.2 * float(resp.max()), 10)).astype(np.uint8)
    _, _, stats, _ = cv2.connectedComponentsWithStats(low, connectivity=8)
    size = (pip_area or float(np.median(pips.areas))) * (PATCH / COVER) ** 2
    alike = [a for a in stats[1:, cv2.CC_STAT_AREA] if 0.4 * size <= a <= 2.5 * size]
    return len(alike) > len(pips.centres)


def _blobs(
    patch: np.ndarray,
    lab: np.ndarray,
    resp: np.ndarray,
    level: float,
    dark: bool,
    pip_area: float | None,
    pale: bool = False,
    soft: tuple[np.ndarray, np.ndarray] | None = None,
) -> Pips:
    """The blobs above ``level`` × the peak response, checked as pips (see find_pips).
    ``soft``: light pips beside a soft highlight (:func:`.highlight.soft_highlight`): its
    core (left out of ``resp``) and the zone where a pip may hide under it
    (:func:`_beside_highlight`)."""
    light = lab[..., 0]
    peak = float(resp.max())
    binary = (resp > max(peak * level, 12)).astype(np.uint8)
    n, labels, stats, cents = cv2.connectedComponentsWithStats(binary, connectivity=8)
    scale = COVER / PATCH
    keep = []
    for i in range(1, n):
        a = stats[i, cv2.CC_STAT_AREA]
        if a < 5:
            continue
        keep.append(i)
    if not keep:
        return NO_PIPS
    areas = np.array([stats[i, cv2.CC_STAT_AREA] for i in keep], np.float32)
    # specks far smaller than a pip are noise (the calibrated pip size when known: a big
    # highlight must not make real pips look like specks); the rest must all be pips
    speck = 0.25 * pip_area * (PATCH / COVER) ** 2 if pip_area else 0.3 * float(areas.max())
    keep = [i for i, a in zip(keep, areas, strict=True) if a >= speck]
    if not keep:
        return NO_PIPS
    areas = np.array([stats[i, cv2.CC_STAT_AREA] for i in keep], np.float32)
    centres = (cents[keep] - PATCH / 2) * scale
    area_frac = areas * scale * scale
    zone = highlight_zone(patch, labels, keep) if dark and pale and soft is None else None
    sure = keep if zone is None else [i for i in keep if not zone[labels == i].any()]
    if soft is not None:
        return _beside_highlight(
            patch, lab, labels, stats, keep, centres, area_frac, pip_area, soft, resp
        )
    if zone is not None:  # a dark pip under a highlight: its shade is not the others'
        if sure and not _pip_like(lab, labels, stats, sure, dark, pip_area, zone):
            return Pips(centres, area_frac, 0, 1.0)
        if not _pip_shaped(stats, keep, pip_area or float(np.median(area_frac))):
            return Pips(centres, area_frac, 0, 1.0)
    elif not _pip_like(lab, labels, stats, keep, dark, pip_area):
        return Pips(centres, area_frac, 0, 1.0)
    face, error = layout_face(centres)
    if face and glare_hides(patch, labels, keep, dark, centres, resp):
        return Pips(centres, area_frac, 0, 1.0, hidden=True)
    if face and (
        _soft_blob(light, labels, sure) or (face == 1 and _more_than_one_blob(labels, keep, resp))
    ):
        return Pips(centres, area_frac, 0, 1.0)
    return Pips(centres, area_frac, face, error)


def _beside_highlight(
    patch: np.ndarray,
    lab: np.ndarray,
    labels: np.ndarray,
    stats: np.ndarray,
    keep: list[int],
    centres: np.ndarray,
    areas: np.ndarray,
    pip_area: float | None,
    soft: tuple[np.ndarray, np.ndarray],
    resp: np.ndarray,
) -> Pips:
    """Light pips beside a soft highlight (``soft``: its core, left out of ``resp``, and
    the zone where a pip may hide under it). The pips well clear of the zone get every
    check (the highlight's halo left out of the plain lightness); those in it or near it
    are brighter than the others and may be cut by the core: they are checked by their
    shape and size, and must have a pip's sharp edge. A face is answered only when no pip
    hidden in the zone, nor a faint one beside it, would make another face, and none of
    the pips clear of it is clipped to white while others are not (a highlight among
    them); never a 1 (one blob beside a highlight is too little to go on)."""
    core, zone = soft
    light = lab[..., 0]
    patch_min = patch.min(axis=2)
    # the halo brightens pips well beyond the zone: those within a pip's diameter and a
    # half of it are judged by their shape and edge only
    r = math.sqrt(float(np.median(areas)) / math.pi) * PATCH / COVER
    reach = 2 * round(r) + 1
    lit = cv2.dilate(zone.astype(np.uint8), np.ones((reach, reach), np.uint8)).astype(bool)
    sure = [i for i in keep if not lit[labels == i].any()]
    halo = cv2.dilate(core.astype(np.uint8), np.ones((7, 7), np.uint8)).astype(bool)
    halo &= ~np.isin(labels, keep)
    if not sure or not _pip_like(lab, labels, stats, sure, False, pip_area, halo):
        return Pips(centres, areas, 0, 1.0)
    peaks = [float(patch_min[labels == i].max()) for i in sure]
    if max(peaks) >= WHITE and min(peaks) < NEAR_WHITE:
        return Pips(centres, areas, 0, 1.0, hidden=True)  # one clear pip whiter: a highlight
    if not _pip_shaped(stats, keep, pip_area or float(np.median(areas))):
        return Pips(centres, areas, 0, 1.0)
    face_light = float(np.median(light[_INNER & ~halo]))
    edges = {i: steepness(light, labels == i, face_light) for i in keep}
    if min(edges.values()) < SOFT * max(edges[i] for i in sure):
        return Pips(centres, areas, 0, 1.0)  # a soft blob left: part of the highlight
    face, error = layout_face(centres)
    if face and hidden_faces(zone, labels, keep, centres, resp):
        return Pips(centres, areas, 0, 1.0, hidden=True)
    if face == 1:
        return Pips(centres, areas, 0, 1.0)
    return Pips(centres, areas, face, error)


def _more_than_one_blob(labels: np.ndarray, pip: list[int], resp: np.ndarray) -> bool:
    """Whether a face read as 1 shows more than its pip: a response above a third of the
    pip's elsewhere on it (a drawing's lines: a devil's trident, whose junction passed for a
    1 on a held-out render crossed by a shadow, had a drawing around its "pip")."""
    around = cv2.dilate(np.isin(labels, pip).astype(np.uint8), np.ones((9, 9), np.uint8))
    return bool(float(resp[(around == 0) & _INNER].max(initial=0.0)) > float(resp.max()) / 3)


def _pip_shaped(stats: np.ndarray, blobs: list[int], pip_area: float) -> bool:
    """Whether every blob is roundish and at most a pip's size (``pip_area``: a fraction of
    the die's top), its shade aside: a pip under a highlight is paler than the others, and
    may show only in part (down to half of it, a quarter of its area)."""
    size = pip_area * (PATCH / COVER) ** 2
    for i in blobs:
        w, h, a = (stats[i, k] for k in (cv2.CC_STAT_WIDTH, cv2.CC_STAT_HEIGHT, cv2.CC_STAT_AREA))
        if max(w, h) > 2.2 * min(w, h) + 1 or a < 0.45 * w * h or not 0.25 * size < a < 2.5 * size:
            return False
    return True


def _pip_like(
    lab: np.ndarray,
    labels: np.ndarray,
    stats: np.ndarray,
    keep: list[int],
    dark: bool,
    pip_area: float | None,
    away: np.ndarray | None = None,
) -> bool:
    """Whether the blobs ``keep`` are all pips: at most 6, round, alike in size (and of the
    calibrated size), of one colour, and still alike in the plain lightness (``away``:
    pixels left out of that, a highlight)."""
    areas = np.array([stats[i, cv2.CC_STAT_AREA] for i in keep], np.float32)
    if len(keep) > 6 or areas.max() > 2.2 * areas.min():
        return False
    for i in keep:
        w, h = stats[i, cv2.CC_STAT_WIDTH], stats[i, cv2.CC_STAT_HEIGHT]
        if max(w, h) > 1.8 * min(w, h) + 1 or stats[i, cv2.CC_STAT_AREA] < 0.45 * w * h:
            return False  # not round: a drawing, a smear
    median = float(np.median(areas)) * (COVER / PATCH) ** 2
    if not 0.004 < median < 0.1:
        return False
    if pip_area and not 0.4 * pip_area < median < 2.5 * pip_area:
        return False
    colours = np.array([lab[labels == i].mean(axis=0) for i in keep])
    if len(keep) > 1 and float(np.max(np.ptp(colours, axis=0))) > 40:
        return False  # pips of one toy share one colour
    light = lab[..., 0]
    if away is not None:
        light = light.copy()
        light[away] = float(np.median(light[_INNER]))
    return _raw_sizes_agree(light, labels, keep, dark)


def _soft_blob(light: np.ndarray, labels: np.ndarray, pips: list[int]) -> bool:
    """Whether one blob fades out far more gently than the others (a highlight's soft
    edge, not a pip's sharp one): its steepest edge, for its contrast, under half theirs."""
    if len(pips) < 2:
        return False
    gx = cv2.Sobel(light, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(light, cv2.CV_32F, 0, 1, ksize=3)
    grad = np.hypot(gx, gy)
    face = float(np.median(light[_INNER]))
    steep = []
    for i in pips:
        blob = labels == i
        ring = cv2.dilate(blob.astype(np.uint8), np.ones((5, 5), np.uint8)).astype(bool)
        contrast = abs(float(light[blob].mean()) - face) + 1.0
        steep.append(float(np.percentile(grad[ring], 90)) / contrast)
    return min(steep) < 0.5 * float(np.median(steep))


def _raw_sizes_agree(light: np.ndarray, labels: np.ndarray, pips: list[int], dark: bool) -> bool:
    """Whether the blobs are still alike in size in the plain lightness (halfway between the
    face and the pips): the top-hat clips a big highlight to a pip's size, this does not."""
    face = float(np.median(light[_INNER]))
    level = float(np.median([light[labels == i].mean() for i in pips]))
    mid = (face + level) / 2
    raw = ((light < mid) if dark else (light > mid)).astype(np.uint8)
    _, comps = cv2.connectedComponents(raw)
    owner = {}
    for i in pips:
        ids = comps[labels == i]
        ids = ids[ids > 0]
        if ids.size == 0:
            return False
        owner[i] = int(np.bincount(ids).argmax())
    shared = np.bincount(list(owner.values()))
    sizes = []
    for i, comp in owner.items():
        # big pips close together may merge here: share the component between them
        size = int(np.count_nonzero(comps == comp)) / int(shared[comp])
        if size > 3 * int(np.count_nonzero(labels == i)) and size > 0.1 * PATCH * PATCH:
            return False  # a big shape (a drawing, a highlight) the top-hat cut to a pip
        sizes.append(size)
    return max(sizes) <= 2.5 * min(sizes)


def light_of(patch: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(patch, cv2.COLOR_RGB2LAB)[..., 0].astype(np.float32)


def _flatness(light: np.ndarray, blob: np.ndarray) -> float:
    """The share of a blob within 25 % of its peak contrast to its rim (1: flat)."""
    rim = cv2.dilate(blob.astype(np.uint8), np.ones((5, 5), np.uint8)).astype(bool) & ~blob
    base = float(np.median(light[rim])) if rim.any() else float(light.min())
    values = np.abs(light[blob] - base)
    return float(np.mean(values >= 0.75 * values.max())) if values.size else 0.0


# -- 3. one candidate's read ------------------------------------------------------------


@dataclass(frozen=True)
class Candidate:
    box: Box
    face: int | str | None
    confidence: float
    pips: Pips
    why: str = ""


def read_patch(patch: np.ndarray, profile: Profile) -> tuple[int | str | None, float, Pips, str]:
    """Face, confidence, the pips, and why it is None, for one die's top."""
    polarities = {"dark": (True,), "light": (False,)}.get(profile.pip_polarity, (True, False))
    pale = profile.pip_polarity == "dark"  # known dark pips: one under a highlight is paler
    found = [find_pips(patch, dark, profile.pip_area or None, False, pale) for dark in polarities]
    unlit = not bool(((patch.min(axis=2) >= 248) & _INNER).any())  # evening out a highlight
    if unlit and not any(p.face for p in found):  # a shadow across the face? even its light
        found += [
            find_pips(patch, dark, profile.pip_area or None, True, pale) for dark in polarities
        ]
    numbers = {p.face for p in found if p.face}
    pips = next((p for p in found if p.face), found[0])
    d_devil, d_number = profile.devil_distances(hog(patch_light(patch)))
    devilish = d_devil <= profile.devil_threshold and d_devil < 0.85 * d_number
    if len(numbers) > 1:
        return None, 0.0, pips, "two pip layouts"
    if numbers:
        if devilish:
            return None, 0.0, pips, "pips, and like the devil"
        conf = 0.75 + 0.25 * max(0.0, 1 - pips.error / LAYOUT_TOL)
        return pips.face, conf, pips, ""
    if devilish and centre_lost(patch, profile.pip_area):
        return None, 0.0, pips, "like the devil, under a highlight (a 1's pip may be lost in it)"
    if devilish:
        margin = 1 - d_devil / max(d_number, 1e-6)
        closeness = 1 - d_devil / max(profile.devil_threshold, 1e-6)
        conf = float(np.clip(0.55 + 1.5 * margin * (0.3 + closeness), 0, 1))
        return DEVIL, conf, pips, ""
    return None, 0.0, pips, "no die face's pip layout, not like the devil"


def find_die(
    rgb: np.ndarray, profile: Profile, changed: np.ndarray | None = None
) -> tuple[list[Candidate], str]:
    """The readable dice in ``rgb``: candidates that read, one per place, best first; and
    the reason when there is none. ``changed`` (a 0/255 mask of where the frame changed
    since before the press) keeps only candidates that lie mostly where it changed. When
    none reads and a shadow's edge crosses the frame, they are read again with its shade
    lifted (:func:`.shadow.lift`: a die half in shadow)."""
    hint = profile.die_side or None
    small = cv2.resize(rgb, None, fx=WORK_SCALE, fy=WORK_SCALE, interpolation=cv2.INTER_AREA)
    light = cv2.cvtColor(cv2.GaussianBlur(small, (3, 3), 0), cv2.COLOR_RGB2LAB)[..., 0]
    window = _neighbourhoods(hint)[0]
    edges = shadow_edges(light, window, WORK_SCALE)
    boxes = square_candidates(rgb, hint, changed, edges)
    if changed is not None:
        boxes = [b for b in boxes if _overlaps(b, changed)]
    lifted: list[np.ndarray] = []  # the frame with each edge's shade lifted, made once

    def views() -> Iterator[np.ndarray]:
        yield rgb
        for k, edge in enumerate(edges):
            if k == len(lifted):
                lifted.append(lift(rgb, edge, 1.0, window / WORK_SCALE / 2))
            yield lifted[k]

    reads, why = _read_views(views(), boxes, profile) if boxes else ([], "no die seen")
    if not reads and hint:  # no outline read: a die whose outline is lost, by its pips?
        groups = _pip_groups(light, profile, changed, boxes)
        if groups:
            boxes, sizes = [b for b, _ in groups], [n for _, n in groups]
            reads, _ = _read_views(views(), boxes, profile, sizes)
    return reads, "" if reads else why


def _read_views(
    views: Iterator[np.ndarray],
    boxes: list[Box],
    profile: Profile,
    groups: list[int] | None = None,
) -> tuple[list[Candidate], str]:
    """:func:`_read_boxes` on the frame, and when none reads, on the frame with each shadow
    edge's shade lifted in turn (``views``: those frames); and why none read on the frame."""
    why = ""
    for n, view in enumerate(views):
        reads, because = _read_boxes(view, boxes, profile, groups)
        why = because if n == 0 else why
        if reads:
            return reads, ""
    return [], why


def _pip_groups(
    light: np.ndarray, profile: Profile, changed: np.ndarray | None, outlines: list[Box]
) -> list[tuple[Box, int]]:
    """Die-sized squares on groups of pip-like blobs (:mod:`.pipgrid`), where no die-sized
    outline lies (there the outline was read already), each with its group's size."""
    side = profile.die_side * WORK_SCALE
    found = []
    for dark in {"dark": (True,), "light": (False,)}.get(profile.pip_polarity, (True, False)):
        blobs = pip_blobs(light, side, profile.pip_area, dark)
        if changed is not None:
            small = cv2.resize(changed, light.shape[::-1], interpolation=cv2.INTER_NEAREST)
            blobs = np.array([b for b in blobs if small[int(b[1]), int(b[0])]], np.float32)
        found += pip_boxes(blobs.reshape(-1, 3), side, WORK_SCALE)
    return [
        (box, n)
        for box, n in found
        if not any(_same_place(box, o) and 0.8 < o[1][0] / box[1][0] < 1.25 for o in outlines)
    ]


def _read_boxes(
    rgb: np.ndarray, boxes: list[Box], profile: Profile, groups: list[int] | None = None
) -> tuple[list[Candidate], str]:
    """The candidates in ``boxes`` that read (a face or the devil), and why none did.
    ``groups``: boxes put on groups of pips (:mod:`.pipgrid`), the group's size each; such a
    box must read as a number of exactly that many pips, spaced as a die's pips are."""
    hint = profile.die_side or None
    reads: list[Candidate] = []
    for k, box in enumerate(boxes):
        patch = square_patch(rgb, box)
        face, conf, pips, why = read_patch(patch, profile)
        size = (box[1][0] + box[1][1]) / 2 / hint if hint else 1.0
        if face == 1 and not 0.6 < size < 1.6:  # one blob is the weakest cue: the die's size too
            face, conf, why = None, 0.0, "one blob, on a square not a die's size"
        if groups and face is not None and not _group_agrees(patch, pips, face, groups[k]):
            face, conf, why = None, 0.0, "pips found in the frame and on the die disagree"
        reads.append(Candidate(box, face, conf, pips, why))
    answered = [r for r in reads if r.face is not None]
    if not answered:
        return [], next((r.why for r in reads if r.why), "not sure")
    return answered, ""


def _group_agrees(patch: np.ndarray, pips: Pips, face: int | str, group: int) -> bool:
    """Whether a square put on a group of ``group`` pips reads as that many pips, as far
    apart as a die's (a quarter of its side; at least 0.17: a 3's end and middle pips, half
    as far, must not pass for a 2's when the third is missed), with nothing else on the
    face: no response, darker or lighter, above a third of the pips' away from them (a
    devil's eyes are round and dark; its drawing is not bare)."""
    if face == DEVIL or face != group or len(pips.centres) != group:
        return False
    rel = pips.centres - pips.centres.mean(axis=0)
    if float(np.median(np.abs(rel).max(axis=1))) < 0.17:
        return False
    radius = math.sqrt(float(np.median(pips.areas)) / math.pi) * PATCH / COVER
    flat = flat_light(light_of(patch))
    level = float(np.median(flat[_INNER]))
    off = cv2.medianBlur(np.clip(np.abs(flat - level), 0, 255).astype(np.uint8), 3)
    on_pips = np.zeros(off.shape, np.uint8)
    spots = [(round(x), round(y)) for x, y in pips.centres * PATCH / COVER + PATCH / 2]
    for spot in spots:
        cv2.circle(on_pips, spot, round(radius + 2), 1, -1)
    contrast = float(np.median([off[y, x] for x, y in spots]))
    return bool(float(off[(on_pips == 0) & _INNER].max(initial=0.0)) < contrast / 3)


def _overlaps(box: Box, changed: np.ndarray) -> bool:
    """Whether at least 40 % of the rectangle ``box`` (frame pixels) lies where it changed."""
    region = np.zeros(changed.shape[:2], np.uint8)
    cv2.fillPoly(region, [cv2.boxPoints(box).astype(np.int32)], 255)
    inside = region > 0
    area = max(1, int(np.count_nonzero(inside)))
    return bool(int(np.count_nonzero(changed[inside])) >= 0.4 * area)


def too_much_moved(changed: np.ndarray, profile: Profile) -> bool:
    """Whether something far bigger than a die changed (a hand in the frame)."""
    side = profile.die_side or 90.0
    n, _, stats, _ = cv2.connectedComponentsWithStats((changed > 0).astype(np.uint8))
    return bool(n > 1 and int(stats[1:, cv2.CC_STAT_AREA].max()) > 4 * side * side)


def _same_place(a: Box, b: Box) -> bool:
    return math.hypot(a[0][0] - b[0][0], a[0][1] - b[0][1]) < 0.5 * (a[1][0] + b[1][0]) / 2


def read_face(image: np.ndarray, profile: Profile, changed: np.ndarray | None = None) -> Read:
    """Read the die in ``image`` (RGB or grey, 8/16-bit; ``ValueError`` for a non-image).

    ``changed``: where the frame differs from before the press (the new die is there);
    something much bigger than a die changing (a hand) gives no read. Returns
    ``Read(None, 0, reason=...)`` when no die is read or two dice read differently, and
    ``face=None`` (with the confidence it had) below ``profile.answer_threshold``.
    """
    rgb = as_rgb(image)
    if rgb.shape[0] < 32 or rgb.shape[1] < 32:
        return Read(None, 0.0, reason="image too small")
    scale = 1.0
    if max(rgb.shape[:2]) > 1000:  # a big photo: read it at about 640 wide
        scale = 640 / rgb.shape[1]
        rgb = cv2.resize(rgb, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        if changed is not None:
            changed = cv2.resize(
                changed, (rgb.shape[1], rgb.shape[0]), interpolation=cv2.INTER_NEAREST
            )
    if changed is not None and too_much_moved(changed, profile):
        return Read(None, 0.0, reason="something big moves in view (a hand?)")
    reads, why = find_die(rgb, profile, changed)
    if not reads:
        return Read(None, 0.0, reason=why)
    best = reads[0]
    for other in reads[1:]:
        if other.face != best.face:
            where = "here" if _same_place(other.box, best.box) else "elsewhere"
            return Read(
                None, 0.0, _unscale(best.box, scale), f"{best.face} and {other.face} {where}"
            )
    best = max(reads, key=lambda r: r.confidence)
    box = _unscale(best.box, scale)
    pips = _pip_points(best, scale)
    if best.confidence < profile.answer_threshold:
        return Read(None, best.confidence, box, f"unsure ({best.face}?)", pips)
    return Read(best.face, best.confidence, box, "", pips)


def _unscale(box: Box, scale: float) -> Box:
    (cx, cy), (w, h), a = box
    return ((cx / scale, cy / scale), (w / scale, h / scale), a)


def _pip_points(read: Candidate, scale: float) -> tuple[tuple[float, float], ...]:
    """The pip centres in frame pixels (inverse of :func:`square_patch`)."""
    if read.face == DEVIL or not len(read.pips.centres):
        return ()
    (cx, cy), (w, h), angle = read.box
    side = (w + h) / 2
    t = math.radians(angle)
    out = []
    for x, y in read.pips.centres:
        # square_patch rotates the frame by -angle about the centre; undo it
        fx = cx + side * (x * math.cos(t) + y * math.sin(t))
        fy = cy + side * (-x * math.sin(t) + y * math.cos(t))
        out.append((fx / scale, fy / scale))
    return tuple(out)


__all__ = ["COVER", "FACES", "PATCH", "Read", "layout_face", "read_face"]
