"""Where a die face's pips lie: the patch a die's top is read on, the layouts of 1–6 and
:func:`layout_face`, which says which face (if any) a set of pip centres makes."""

from __future__ import annotations

import cv2
import numpy as np

from .read import Box

PATCH = 48
"""A die's top is read warped to PATCH×PATCH pixels."""
COVER = 0.9
"""The patch covers this much of the die's side (its rounded edges stay out)."""
_yy, _xx = (np.mgrid[0:PATCH, 0:PATCH] + 0.5) / PATCH - 0.5
_INNER = (np.abs(_yy) < 0.43) & (np.abs(_xx) < 0.43)
"""The patch's inner part (its rim may show the table)."""
LAYOUT_TOL = 0.085
"""How far (die sides) a pip may lie from its place in a die face's layout."""


def _layouts() -> dict[int, list[np.ndarray]]:
    """Pip centres of each face (die sides from the centre, spacing 1), every orientation."""
    d = [(-1, -1), (1, 1)]
    a = [(-1, 1), (1, -1)]
    six_v = [(x, y) for x in (-1, 1) for y in (-1, 0, 1)]
    six_h = [(y, x) for x, y in six_v]
    corners = d + a
    out = {
        1: [[(0, 0)]],
        2: [d, a],
        3: [[*d, (0, 0)], [*a, (0, 0)]],
        4: [corners],
        5: [[*corners, (0, 0)]],
        6: [six_v, six_h],
    }
    return {n: [np.array(v, np.float32) for v in vs] for n, vs in out.items()}


LAYOUTS = _layouts()


def layout_face(centres: np.ndarray) -> tuple[int, float]:
    """The face (1–6) whose layout the pip ``centres`` make (die sides from the patch's
    centre, the patch square with the die), and the worst misplacement (die sides); ``(0,
    err)`` when they make none. Every face's layout is symmetric about the die's centre, so
    the centre is the pips' mean (a patch made too big by a shadow does not matter)."""
    n = len(centres)
    if n == 0 or n > 6:
        return 0, 1.0
    centre = centres.mean(axis=0)
    if float(np.hypot(*centre)) > 0.16:
        return 0, 1.0
    if n == 1:
        err = float(np.hypot(*centre))
        return (1, err) if err < LAYOUT_TOL * 1.3 else (0, err)
    rel = centres - centre
    reach = np.abs(rel).max(axis=1)
    outer = reach[reach > 0.1]
    if len(outer) == 0:
        return 0, 1.0
    guess = float(np.median(outer))
    best = 1.0
    for layout in LAYOUTS[n]:
        d = np.hypot(*(layout[:, None, :] * guess - rel[None, :, :]).transpose(2, 0, 1))
        nearest = d.argmin(axis=1)
        if len(set(nearest.tolist())) < n:
            continue
        # the spacing across and along may differ a little (a 6's columns)
        matched = rel[nearest]
        scale = []
        for axis in (0, 1):
            weight = float((layout[:, axis] ** 2).sum())
            scale.append(
                float((layout[:, axis] * matched[:, axis]).sum()) / weight if weight else guess
            )
        sx, sy = scale
        if not (min(sx, sy) > 0.13 and max(sx, sy) < 0.38 and max(sx, sy) < 1.45 * min(sx, sy)):
            continue
        err = float(np.hypot(*(layout * (sx, sy) - matched).T).max())
        best = min(best, err)
    return (n, best) if best < LAYOUT_TOL else (0, best)


__all__ = [
    "COVER",
    "DRAWING",
    "LAYOUTS",
    "LAYOUT_TOL",
    "PATCH",
    "drawn_on",
    "layout_face",
    "pip_response",
]


DRAWING = 24.0
"""The least spread (Lab lightness levels, 2nd to 98th percentile over the face's inner
part) of a top with the devil drawn on it: the devil is a drawing, and a bare square of
table, stretched to full contrast by :func:`patch_light`, is noise that may come close to
it (a red plank, 9-12 levels, read as the devil). Renders of the devil spread 49 levels
at least (brightness x 0.5, tuning seed 215; docs/camera.md)."""


def drawn_on(patch: np.ndarray) -> bool:
    """Whether anything is drawn on ``patch`` (a die's top, RGB): its lightness spreads over
    :data:`DRAWING` levels at least."""
    light = cv2.cvtColor(patch, cv2.COLOR_RGB2LAB)[..., 0]
    lo, hi = np.percentile(light[_INNER], (2, 98))
    return float(hi - lo) >= DRAWING


def patch_light(patch: np.ndarray) -> np.ndarray:
    """The patch's lightness (Lab L), stretched to 0–255 (light and contrast normalised)."""
    light = cv2.cvtColor(patch, cv2.COLOR_RGB2LAB)[..., 0].astype(np.float32)
    lo, hi = np.percentile(light[_INNER], (2, 98))
    return np.clip((light - lo) * (255 / max(hi - lo, 8.0)), 0, 255).astype(np.uint8)


def pip_response(light: np.ndarray, dark: bool) -> np.ndarray:
    """Where pips stand out on a die's top: the black-hat (``dark`` pips) or top-hat of its
    lightness ``light`` (float32, PATCH square) over a disc a third of the patch wide, 0 off
    the inner part (a shadow across the face or a lamp to one side does not matter)."""
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (17, 17))
    op = cv2.MORPH_BLACKHAT if dark else cv2.MORPH_TOPHAT
    resp = cv2.morphologyEx(light, op, kernel, borderType=cv2.BORDER_REPLICATE)
    resp[~_INNER] = 0
    return np.asarray(resp, np.float32)


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
