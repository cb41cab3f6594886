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

    def distance(self, x: float, y: float) -> float:
        """How far the point (x, y) lies from the edge's line (frame pixels, unsigned)."""
        (x1, y1), (x2, y2) = self.a, self.b
        length = max(math.hypot(x2 - x1, y2 - y1), 1e-6)
        return abs((x - x1) * (y1 - y2) + (y - y1) * (x2 - x1)) / length


def _across(shape: tuple[int, int], edge: Edge, scale: float) -> np.ndarray:
    """Each pixel's signed distance from the edge (pixels of this image, ``+`` the shaded
    side)."""
    (x1, y1), (x2, y2) = (np.array(edge.a) * scale), (np.array(edge.b) * scale)
    length = max(math.hypot(x2 - x1, y2 - y1), 1e-6)
    xx = np.arange(shape[1], dtype=np.float32)[None, :]
    yy = np.arange(shape[0], dtype=np.float32)[:, None]
    return ((xx - x1) * (y1 - y2) + (yy - y1) * (x2 - x1)) / length * edge.shaded


def _sides(grey: np.ndarray, edge: Edge, scale: float, band: float) -> tuple[float, float]:
    """The median light of ``grey`` (a frame scaled by ``scale``) on the lit and on the
    shaded side of ``edge``, sampled along its length out to ``band`` pixels from it (the
    table there: a die is a minority); 0 when a side has too few pixels in the image."""
    one, two = _side_lights(grey, [edge], scale, band)[0]
    return float(one), float(two)


def _side_lights(grey: np.ndarray, edges: list[Edge], scale: float, band: float) -> np.ndarray:
    """:func:`_sides` of each of ``edges`` at once: rows of (lit, shaded) medians. An RGB
    ``grey`` is taken as the mean of its channels."""
    a = np.array([e.a for e in edges], np.float64) * scale
    b = np.array([e.b for e in edges], np.float64) * scale
    length = np.maximum(np.hypot(*(b - a).T), 1e-6)
    normal = np.stack([a[:, 1] - b[:, 1], b[:, 0] - a[:, 0]], axis=1) / length[:, None]
    normal *= np.array([e.shaded for e in edges], np.float64)[:, None]
    t = np.linspace(0, 1, 48)[None, :, None, None]
    d = np.linspace(3, max(band, 4), 8)[None, None, :, None]
    base = a[:, None, None, :] + t * (b - a)[:, None, None, :]
    out = np.zeros((len(edges), 2))
    few = np.zeros(len(edges), bool)
    for k, sign in enumerate((-1, 1)):
        pts = (base + sign * d * normal[:, None, None, :]).reshape(len(edges), -1, 2)
        pts = pts.round().astype(int)
        inside = (pts[..., 0] >= 0) & (pts[..., 0] < grey.shape[1])
        inside &= (pts[..., 1] >= 0) & (pts[..., 1] < grey.shape[0])
        at = grey[pts[..., 1].clip(0, grey.shape[0] - 1), pts[..., 0].clip(0, grey.shape[1] - 1)]
        values = np.where(inside, at if grey.ndim == 2 else at.mean(axis=-1), np.inf)
        values = np.sort(values, axis=1)
        count = inside.sum(axis=1)
        rows = np.arange(len(edges))
        low, high = values[rows, np.maximum(count - 1, 0) // 2], values[rows, count // 2]
        out[:, k] = (low + high) / 2
        few |= count < 50
    out[few] = 0.0  # a side with too few pixels: neither is measured
    return out


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
    found = [
        Edge((x1 / scale, y1 / scale), (x2 / scale, y2 / scale), 1) for x1, y1, x2, y2 in segs[:60]
    ]
    for edge, (one, two) in zip(found, _side_lights(light, found, scale, window / 2), strict=True):
        one, two = float(one), float(two)
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
    pixels each side), the edge itself smoothed (a thin seam would cut the die in two).
    Each side is one gain (a table lookup); only the ramp between them is multiplied out."""
    lit, shade = _sides(image, edge, scale, band)
    if shade <= 0:
        return image
    across = _across(image.shape[:2], edge, scale)
    ramp = np.clip(across / 3 + 0.5, 0, 1)
    step = lit / max(shade, 4.0) - 1
    full = np.arange(256, dtype=np.float64) * (1 + step)  # the ramp's gain where it is 1
    table = np.clip(full, 0, 255).astype(np.uint8)
    shaded = (ramp >= 1).astype(np.uint8)
    lifted = cv2.copyTo(cv2.LUT(image, table), shaded, image.copy())
    between = (ramp > 0) & (ramp < 1)
    gain = 1 + step * ramp[between]
    ramped = image[between].astype(np.float32) * (gain if image.ndim == 2 else gain[:, None])
    lifted[between] = np.clip(ramped, 0, 255).astype(np.uint8)
    return _smooth_seam(lifted, np.abs(across) < SEAM)


def _per_pixel(mask: np.ndarray, image: np.ndarray) -> np.ndarray:
    """``mask`` (rows x columns) shaped to broadcast over ``image``'s channels."""
    return mask if image.ndim == 2 else mask[:, :, None]


def _smooth_seam(image: np.ndarray, seam: np.ndarray, rows: int = 16) -> np.ndarray:
    """``image`` with the pixels where ``seam`` is set replaced by the 5×5 median of
    ``image`` about them, as ``cv2.medianBlur(image, 5)`` gives it: the median is taken
    only over bands of ``rows`` rows around the seam's pixels, not the whole frame."""
    out = image.copy()
    height, width = seam.shape
    for top in range(0, height, rows):
        cols = np.flatnonzero(seam[top : top + rows].any(axis=0))
        if not len(cols):
            continue
        y0, y1 = max(top - 2, 0), min(top + rows + 2, height)
        x0, x1 = max(int(cols[0]) - 2, 0), min(int(cols[-1]) + 3, width)
        median = cv2.medianBlur(np.ascontiguousarray(image[y0:y1, x0:x1]), 5)
        inner = seam[top : top + rows, x0:x1]
        window = median[top - y0 : top - y0 + inner.shape[0]]
        np.copyto(out[top : top + rows, x0:x1], window, where=_per_pixel(inner, window))
    return out


def shadow_free(light: np.ndarray, window: int) -> np.ndarray:
    """``light`` (uint8) divided by the median lightness of a ``window``-wide square around
    each pixel (about twice a die: the die is a minority in it, and a median keeps a shadow's
    edge sharp where a blur would smear it), scaled to 128 for the table."""
    small = cv2.resize(light, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    around = cv2.medianBlur(small, max(3, (window // 2) | 1))
    around = cv2.resize(around, (light.shape[1], light.shape[0]), interpolation=cv2.INTER_NEAREST)
    ratio = light.astype(np.float32) * 128 / np.maximum(around.astype(np.float32), 8.0)
    return np.clip(ratio, 0, 255).astype(np.uint8)
