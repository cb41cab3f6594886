"""Where a die's outline is looked for, besides the thresholded masks of
:func:`.reader._masks`: the regions of one colour (a die's face between a check cloth's
squares, whose edges cut every threshold's outline), and the specks no outline can come
from. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

SPREADS = (8, 14)
"""A pixel is in a region of one colour where its 3×3 spreads (max - min) of L*, a* and b*,
summed, are under one of these."""
INSET = 1.75
"""How far (pixels of the image given, each side) a region of one colour stops inside the
die's edge: the blur before Lab and the 3×3 spread each take about a pixel. An outline
found on such a region is grown by twice this, so it ranks as the die's own does."""


def one_colour(lab: np.ndarray) -> list[np.ndarray]:
    """0/255 masks of the regions of one colour of ``lab`` (uint8 Lab), one per spread of
    :data:`SPREADS`."""
    kernel = np.ones((3, 3), np.uint8)
    spread = sum(
        cv2.morphologyEx(lab[..., c], cv2.MORPH_GRADIENT, kernel).astype(np.int16) for c in range(3)
    )
    return [np.where(spread < limit, 255, 0).astype(np.uint8) for limit in SPREADS]


def without_specks(contours: Sequence[np.ndarray], min_box: float) -> list[np.ndarray]:
    """The ``contours`` (of ``cv2.findContours``) whose bounding box is at least ``min_box``
    pixels: the rest cannot hold an outline of that area, nor grow into one (filling holes
    and opening keep each region within its own box). A textured table leaves thousands,
    and going through each was half the time of :func:`.reader.outlines`; the outlines found are
    the same, in the same order."""
    if not contours:
        return []
    points = np.concatenate(contours).reshape(-1, 2)
    sizes = np.fromiter(map(len, contours), np.intp, len(contours))
    starts = np.concatenate([[0], np.cumsum(sizes[:-1])])
    low, high = np.minimum.reduceat(points, starts), np.maximum.reduceat(points, starts)
    box = (high - low + 1).prod(axis=1)
    return [contours[k] for k in np.flatnonzero(box >= min_box)]
