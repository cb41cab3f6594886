"""Step 2 of the face reader (:mod:`.reader`): the pips on a die's top, warped to a
PATCH×PATCH patch, and the face their layout makes. Pips are blobs darker (or lighter) than
their surroundings (a black-hat / top-hat), of one size and one colour, round, alike in the
plain lightness too, where a real die face puts them (:func:`.layout.layout_face`); a white
highlight is judged by where it lies (:mod:`.highlight`). Unsure: no face.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from .highlight import (
    NEAR_WHITE,
    SOFT,
    WHITE,
    glare_hides,
    gradient,
    hidden_faces,
    highlight_zone,
    percentile_90,
    soft_highlight,
    steepness,
)
from .layout import _INNER, COVER, PATCH, layout_face, pip_response

FLAT_WINDOW = 17
"""The median window (patch pixels, a third of the patch) that evens the light on a face."""


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

    @property
    def radius(self) -> float:
        """A pip's radius in patch pixels: the disc of the pips' median area (one pip or more)."""
        return math.sqrt(float(np.median(self.areas)) / math.pi) * PATCH / COVER


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
    resp = pip_response(light, dark)
    op = cv2.MORPH_BLACKHAT if dark else cv2.MORPH_TOPHAT
    peak = float(resp.max())
    spread = float(np.percentile(light[_INNER], 95) - np.percentile(light[_INNER], 5))
    if peak < 18 or peak < 0.25 * spread:
        return NO_PIPS
    counted = _levels(patch, lab, resp, dark, pip_area, pale)
    if not dark and pip_area and counted.face and len(counted.centres) > 1:
        pip_area = max(pip_area, float(np.median(counted.areas)))  # this die's own pips
    if not dark and pip_area:
        # light pips beside a soft highlight: count them with the highlight left out; a
        # face counted without that (its glow pales a pip beside it: a 3 read as 2) stands
        # only if the count beside the highlight finds it too
        size = 2 * round(math.sqrt(pip_area / math.pi) * PATCH / COVER) + 3
        tight = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))
        narrow = cv2.morphologyEx(light, op, tight, borderType=cv2.BORDER_REPLICATE)
        narrow[~_INNER] = 0
        soft = soft_highlight(patch, light, narrow, pip_area)
        if soft is not None:
            core, zone = soft
            clean = narrow.copy()
            clean[core] = 0
            beside = NO_PIPS
            if float(clean.max()) >= 18:
                beside = _levels(patch, lab, clean, dark, pip_area, pale, (core, zone))
            if beside.face:
                return beside
            if counted.face and not counted.hidden and core.any():  # a highlight off the pips
                return Pips(counted.centres, counted.areas, 0, 1.0, hidden=True)
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
    # the halo brightens pips beyond the zone: those within a pip's radius of it are judged
    # by their shape and edge only
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
    grad = gradient(light)
    edges = {i: steepness(grad, light, labels == i, face_light, stats[i]) for i in keep}
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


def round_and_alike(stats: np.ndarray, keep: list[int], pip_area: float | None) -> bool:
    """Whether the blobs ``keep`` (rows of ``cv2.connectedComponentsWithStats``' ``stats``)
    may be a face's pips by their shapes: at most 6, round, alike in size, and (with
    ``pip_area``, a fraction of the die's top) of about the calibrated size."""
    areas = np.array([stats[i, cv2.CC_STAT_AREA] for i in keep], np.float32)
    if len(keep) > 6 or areas.max() > 2.2 * areas.min():
        return False
    for i in keep:
        w, h = stats[i, cv2.CC_STAT_WIDTH], stats[i, cv2.CC_STAT_HEIGHT]
        if max(w, h) > 1.8 * min(w, h) + 1 or stats[i, cv2.CC_STAT_AREA] < 0.45 * w * h:
            return False  # not round: a drawing, a smear
    median = float(np.median(areas)) * (COVER / PATCH) ** 2
    return not pip_area or 0.4 * pip_area < median < 2.5 * pip_area


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
    if not round_and_alike(stats, keep, pip_area):
        return False
    areas = np.array([stats[i, cv2.CC_STAT_AREA] for i in keep], np.float32)
    if not 0.004 < float(np.median(areas)) * (COVER / PATCH) ** 2 < 0.1:
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
    grad = gradient(light)
    face = float(np.median(light[_INNER]))
    steep = []
    for i in pips:
        blob = labels == i
        ring = cv2.dilate(blob.astype(np.uint8), np.ones((5, 5), np.uint8)).astype(bool)
        contrast = abs(float(light[blob].mean()) - face) + 1.0
        steep.append(percentile_90(grad[ring]) / contrast)
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
