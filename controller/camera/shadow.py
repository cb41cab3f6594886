"""A shadow's edge across the table: found, and its shade taken away (issue 22, point 6).

A die crossed by a shadow's sharp edge looks like two shapes (its lit half and its shaded
half), and its pips like two sets. :func:`shadow_edges` finds straight edges far longer than
a die whose two sides differ in light by more than a third; :func:`lift` multiplies the
shaded side by that ratio, so the die is one shape again. :func:`shadow_free` evens out the
light everywhere (a median about twice a die wide).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

MIN_RATIO = 1.35
"""Two sides of an edge differing less than this in light are no shadow's edge."""
SEAM = 3.0
"""Half the width (pixels of the image lifted) smoothed along the edge itself."""


@dataclass(frozen=True)
class Edge:
    """A straight shadow edge: two points on it (pixels of a 640-wide frame) and which side
    is shaded (``+1``: the left of the way from ``a`` to ``b``)."""

    a: tuple[float, float]
    b: tuple[float, float]
    shaded: int


def _across(shape: tuple[int, int], edge: Edge, scale: float) -> np.ndarray:
    """Each pixel's signed distance from the edge (pixels of this image, ``+`` the shaded
    side)."""
    (x1, y1), (x2, y2) = (np.array(edge.a) * scale), (np.array(edge.b) * scale)
    length = max(math.hypot(x2 - x1, y2 - y1), 1e-6)
    yy, xx = np.mgrid[0 : shape[0], 0 : shape[1]].astype(np.float32)
    return ((xx - x1) * (y1 - y2) + (yy - y1) * (x2 - x1)) / length * edge.shaded


def _sides(grey: np.ndarray, edge: Edge, scale: float, band: float) -> tuple[float, float]:
    """The median light of ``grey`` (a frame scaled by ``scale``) on the lit and on the
    shaded side of ``edge``, sampled along its length out to ``band`` pixels from it (the
    table there: a die is a minority); 0 when a side has too few pixels in the image."""
    (x1, y1), (x2, y2) = np.array(edge.a) * scale, np.array(edge.b) * scale
    length = max(math.hypot(x2 - x1, y2 - y1), 1e-6)
    normal = np.array([y1 - y2, x2 - x1]) / length * edge.shaded
    t = np.linspace(0, 1, 48)[:, None, None]
    d = np.linspace(3, max(band, 4), 8)[None, :, None]
    base = np.array([x1, y1]) + t * np.array([x2 - x1, y2 - y1])
    out = []
    for sign in (-1, 1):
        pts = (base + sign * d * normal).reshape(-1, 2).round().astype(int)
        inside = (pts[:, 0] >= 0) & (pts[:, 0] < grey.shape[1])
        inside &= (pts[:, 1] >= 0) & (pts[:, 1] < grey.shape[0])
        if np.count_nonzero(inside) < 50:
            return 0.0, 0.0
        out.append(float(np.median(grey[pts[inside, 1], pts[inside, 0]])))
    return out[0], out[1]


def shadow_edges(light: np.ndarray, window: int, scale: float) -> list[Edge]:
    """At most two straight edges in ``light`` (uint8, a frame scaled by ``scale``) at least
    1.2 ``window`` long (about two die sides, pixels of ``light``), whose sides differ in
    light by more than :data:`MIN_RATIO`, longest first."""
    lines = cv2.HoughLinesP(
        cv2.Canny(light, 20, 50),
        1,
        np.pi / 360,  # half degrees, and gaps of 8: a long edge's stepped pixels at 1 and 4
        int(window * 0.8),  # fell in several lines of the transform, each in short pieces
        minLineLength=window * 1.2,
        maxLineGap=8,
    )
    if lines is None:
        return []
    segs = sorted(
        lines.reshape(-1, 4).tolist(), key=lambda s: -math.hypot(s[2] - s[0], s[3] - s[1])
    )
    out: list[Edge] = []
    for x1, y1, x2, y2 in segs[:60]:
        edge = Edge((x1 / scale, y1 / scale), (x2 / scale, y2 / scale), 1)
        one, two = _sides(light, edge, scale, window / 2)
        if min(one, two) <= 0 or max(one, two) < MIN_RATIO * max(min(one, two), 4.0):
            continue
        out.append(edge if one > two else Edge(edge.a, edge.b, -1))
        if len(out) == 2:
            break
    return out


def seam(shape: tuple[int, int], edge: Edge, margin: float) -> np.ndarray:
    """Where :func:`lift` joined the two sides of ``edge`` in an image of ``shape`` (a
    640-wide frame): 255 within ``margin`` pixels of the edge, else 0 (uint8)."""
    return (np.abs(_across(shape, edge, 1.0)) < margin).astype(np.uint8) * 255


def lift(image: np.ndarray, edge: Edge, scale: float, band: float) -> np.ndarray:
    """``image`` (uint8, grey or RGB, a frame scaled by ``scale``) with the shaded side of
    ``edge`` multiplied by the ratio of the two sides' light (measured on it, ``band``
    pixels each side), the edge itself smoothed (a thin seam would cut the die in two)."""
    grey = image if image.ndim == 2 else image.mean(axis=2)
    lit, shade = _sides(grey, edge, scale, band)
    across = _across(image.shape[:2], edge, scale)
    if shade <= 0:
        return image
    gain = 1 + (lit / max(shade, 4.0) - 1) * np.clip(across / 3 + 0.5, 0, 1)
    out = image.astype(np.float32) * (gain if image.ndim == 2 else gain[:, :, None])
    lifted = np.clip(out, 0, 255).astype(np.uint8)
    seam = np.abs(across) < SEAM
    lifted[seam] = cv2.medianBlur(lifted, 5)[seam]
    return lifted


def shadow_free(light: np.ndarray, window: int) -> np.ndarray:
    """``light`` (uint8) divided by the median lightness of a ``window``-wide square around
    each pixel (about twice a die: the die is a minority in it, and a median keeps a shadow's
    edge sharp where a blur would smear it), scaled to 128 for the table."""
    small = cv2.resize(light, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    around = cv2.medianBlur(small, max(3, (window // 2) | 1))
    around = cv2.resize(around, (light.shape[1], light.shape[0]), interpolation=cv2.INTER_NEAREST)
    ratio = light.astype(np.float32) * 128 / np.maximum(around.astype(np.float32), 8.0)
    return np.clip(ratio, 0, 255).astype(np.uint8)
