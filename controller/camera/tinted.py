"""Pips under a highlight on a die whose pips and face differ in colour, not only in light.

A highlight adds white light: each channel of a pixel gains the same amount, then clips at
255. A pixel of the face under it is ``min(255, face + h)`` in every channel, a pixel of a
pip ``min(255, pip + h)``, for some ``h >= 0``. Where at least one channel is unclipped the
two explanations fit differently (on an azure die with yellow pips the blue channel says
"face" where red says "pip"), so each pixel is told face from pip by which colour explains
it, whatever light the highlight adds; only where every channel clips (the highlight's
core, a few pixels across) is it unknown. A grey die's pips differ from its face only in
light, which the highlight's own light cannot be told from: none is read here.

:func:`tinted_pips` reads a top that way, for the reader to use when the usual count
(:mod:`.pips`, on the lightness) found no face beside a highlight.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from .highlight import empty_places, faces_with_hidden
from .layout import _INNER, COVER, PATCH, layout_face
from .pips import NO_PIPS, Pips, round_and_alike

CLIPPED = 250
"""A channel at least this bright is clipped: it says only that the light reached it."""
TINT = 40.0
"""Pips and face must differ by this much once their common grey is taken away (RGB
levels): their difference is a colour, not only light."""
RINGED = 0.6
"""A part of the core this much ringed by pip pixels is a highlight on a pip."""
UNKNOWN_PLACE = 0.5
"""A place of the grid whose pip disc is this much unknown (every channel clipped) may hide
a pip: the face is not answered if one there would make another face."""


def _colours(f: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The face's colour and the pips' (RGB) on ``f`` (a float patch), judged by their tint
    (each pixel less its grey, which the highlight's light does not change) on the pixels
    where no channel clips: the face's is the commonest, the pips' the farthest tenth from
    it. None when they differ too little in tint (:data:`TINT`)."""
    usable = _INNER & (f.max(axis=2) < CLIPPED)
    if np.count_nonzero(usable) < 0.2 * np.count_nonzero(_INNER):
        return None
    tint = f - f.mean(axis=2, keepdims=True)
    face_tint = np.median(tint[usable], axis=0)
    far = np.linalg.norm(tint - face_tint, axis=2)
    pip_like = usable & (far >= max(TINT / 2, float(np.percentile(far[usable], 90))))
    if not pip_like.any():
        return None
    if float(np.linalg.norm(np.median(tint[pip_like], axis=0) - face_tint)) < TINT:
        return None
    face_like = usable & (far < TINT / 4)
    if np.count_nonzero(face_like) < np.count_nonzero(pip_like):
        return None  # no face of one tint
    return np.median(f[face_like], axis=0), np.median(f[pip_like], axis=0)


def _misfit(f: np.ndarray, colour: np.ndarray) -> np.ndarray:
    """How badly ``colour`` with light added or taken away (the same in every channel)
    explains each pixel of ``f``: the light is the unclipped channels' mean difference,
    the colour then clipped at 255 as the camera clips it."""
    unclipped = f < CLIPPED
    excess = np.where(unclipped, f - colour, 0.0).sum(axis=2)
    added = excess / np.maximum(unclipped.sum(axis=2), 1)
    predicted = np.clip(colour + added[..., None], 0.0, 255.0)
    return np.asarray(np.linalg.norm(f - predicted, axis=2), np.float32)


def tinted_pips(patch: np.ndarray, pip_area: float | None) -> Pips:
    """The pips of a top under a highlight (RGB ``patch``, PATCH×PATCH), told from the face by
    colour (module docstring), and the face they make; ``NO_PIPS`` when the patch has no
    highlight's core, its pips and face differ only in light, or the pips are not a die
    face's; ``face`` 0 when a pip may hide under the core (where every channel clips, over
    :data:`UNKNOWN_PLACE` of a place whose pip would make another face).
    ``pip_area``: the calibrated pip size (fraction of the top), a check on the blobs."""
    core = (patch.min(axis=2) >= CLIPPED) & _INNER
    if not core.any():
        return NO_PIPS
    f = patch.astype(np.float32)
    colours = _colours(f)
    if colours is None:
        return NO_PIPS
    face_fit, pip_fit = _misfit(f, colours[0]), _misfit(f, colours[1])
    pip = ((pip_fit < face_fit) & _INNER & ~core).astype(np.uint8)
    pip = cv2.morphologyEx(pip, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
    pip = _fill_ringed(pip, core)
    n, _, stats, cents = cv2.connectedComponentsWithStats(pip, connectivity=8)
    blobs = [i for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] >= 6]
    if not 2 <= len(blobs) <= 6:  # a lone blob is too weak a cue to be a 1 here
        return NO_PIPS
    areas = np.array([stats[i, cv2.CC_STAT_AREA] for i in blobs], np.float32)
    centres = ((cents[blobs] - PATCH / 2) * COVER / PATCH).astype(np.float32)
    fractions = areas * (COVER / PATCH) ** 2
    if not round_and_alike(stats, blobs, pip_area):
        return Pips(centres, fractions, 0, 1.0)
    face, error = layout_face(centres)
    if face and _may_hide(core, centres, float(np.median(areas))):
        return Pips(centres, fractions, 0, 1.0, hidden=True)
    return Pips(centres, fractions, face, error)


def _fill_ringed(pip: np.ndarray, core: np.ndarray) -> np.ndarray:
    """``pip`` (a 0/1 mask) with each part of the ``core`` that pip pixels ring (over
    :data:`RINGED` of the pixels just around it) counted as pip: a highlight on a pip."""
    n, parts = cv2.connectedComponents(core.astype(np.uint8))
    out = pip.copy()
    for k in range(1, n):
        part = (parts == k).astype(np.uint8)
        ring = cv2.dilate(part, np.ones((3, 3), np.uint8)).astype(bool) & (part == 0) & _INNER
        if ring.any() and float(pip[ring].mean()) >= RINGED:
            out[part > 0] = 1
    return out


def _may_hide(core: np.ndarray, centres: np.ndarray, pip_px: float) -> bool:
    """Whether a pip may lie unseen under the ``core`` at an empty place of the 3×3 grid
    (spaced as the ``centres`` are) where it would make another die face with them."""
    radius = max(2.0, math.sqrt(pip_px / math.pi))
    unseen = [
        place
        for place, d2 in empty_places(centres, radius)
        if float(core[d2 <= radius * radius].mean()) >= UNKNOWN_PLACE
    ]
    return bool(faces_with_hidden(centres, unseen, len(unseen)))


__all__ = ["tinted_pips"]
