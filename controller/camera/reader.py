"""The face reader: an RGB image in, ``(face, confidence)`` out (classic OpenCV pipeline).

1. **Find the die.** Each pixel's distance to the profile's die colour (chromaticity, and
   brightness as a log ratio so uneven light counts for little); the close pixels, pips filled
   in by a morphological close, form blobs; the die is the blob of the calibrated size that is
   square (its area fills its rotated bounding box).
2. **Square it up.** The blob's rotated rectangle is warped to a 48×48 patch.
3. **Read it.** Each patch pixel gets a "pip-ness" from 0 (die colour, measured on this patch)
   to 1 (the profile's pip colour). Pips are counted (blobs of the calibrated pip size), and
   the 24×24 pip-ness map is compared with the calibration images' maps (in 4 rotations):
   the closest face and the margin to the next one give the confidence. A number is answered
   only when the pip count agrees with it; a devil only when the devil's drawing is clearly
   closer than every number's, so a devil is not read as a number nor a number as a devil.

Read time is about 10–20 ms for 640×480 on one core here (``diablotin bench camera``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from .profile import DEVIL, FACES, Profile

PATCH = 48
GRID = 24
_yy, _xx = np.mgrid[0:PATCH, 0:PATCH]
_INSIDE = (_yy - (PATCH - 1) / 2) ** 2 + (_xx - (PATCH - 1) / 2) ** 2 < (0.54 * PATCH) ** 2
"""The patch without its corners (the corner pips of a 4, 5 or 6 lie inside)."""
WORK_SCALE = 0.5
"""Detection runs on the frame scaled by this (320×240 for 640×480)."""


@dataclass(frozen=True)
class Read:
    """What the reader saw: ``face`` (1–6, ``"devil"`` or ``None``) and ``confidence`` 0–1.

    ``box``: the die's rotated rectangle in frame pixels ``((cx, cy), (w, h), angle)``;
    ``reason``: why the face is ``None``.
    """

    face: int | str | None
    confidence: float
    box: tuple[tuple[float, float], tuple[float, float], float] | None = None
    reason: str = ""
    pips: int = -1

    def as_json(self) -> dict[str, Any]:
        return {"face": self.face, "confidence": round(self.confidence, 3)}


def colour_features(rgb: np.ndarray) -> np.ndarray:
    """Per pixel (H, W, 3) float32: chromaticity r, g (×100) and log brightness (×40)."""
    f = rgb.astype(np.float32)
    s = f.sum(axis=2) + 24.0
    out = np.empty(f.shape, np.float32)
    out[..., 0] = f[..., 0] / s * 100
    out[..., 1] = f[..., 1] / s * 100
    out[..., 2] = np.log(s) * 40
    return out


def colour_distance(features: np.ndarray, ref: np.ndarray, brightness_weight: float) -> np.ndarray:
    d = features - ref.astype(np.float32)
    d[..., 2] *= brightness_weight
    return np.sqrt((d * d).sum(axis=2))


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


def find_die(
    rgb: np.ndarray, profile: Profile, changed: np.ndarray | None = None
) -> tuple[tuple[tuple[float, float], tuple[float, float], float] | None, str]:
    """The die's rotated rectangle in ``rgb`` (full-size pixels), or ``(None, reason)``.

    ``changed``: an optional mask (full size) of where the frame changed since before the
    press; only a die overlapping it counts (dice popped earlier lie still).
    """
    small = cv2.resize(rgb, None, fx=WORK_SCALE, fy=WORK_SCALE, interpolation=cv2.INTER_AREA)
    feats = colour_features(cv2.GaussianBlur(small, (3, 3), 0))
    dist = colour_distance(feats, np.array(profile.die_colour), profile.brightness_weight)
    side = profile.die_side * WORK_SCALE
    k = max(3, int(side * 0.3) | 1)
    close = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    expected = side * side
    best: tuple[float, Any] | None = None
    # several thresholds: under uneven light the die stands out from its surroundings at one
    for threshold in np.geomspace(3.0, profile.die_threshold, 7):
        mask = (dist < threshold).astype(np.uint8) * 255
        mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, close)
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        for contour in contours:
            area = cv2.contourArea(contour)
            if not 0.55 * expected < area < 1.7 * expected:
                continue
            rect = cv2.minAreaRect(contour)
            (w, h) = rect[1]
            if w <= 0 or h <= 0 or max(w, h) / min(w, h) > 1.3:
                continue
            fill = area / (w * h)
            if fill < 0.8:
                continue
            if changed is not None and not _overlaps(rect, changed):
                continue
            score = fill - abs(area / expected - 1) * 0.3
            if best is None or score > best[0]:
                best = (score, rect)
    if best is None:
        return None, "no die seen"
    (cx, cy), (w, h), angle = best[1]
    return ((cx / WORK_SCALE, cy / WORK_SCALE), (w / WORK_SCALE, h / WORK_SCALE), angle), ""


def _overlaps(rect: Any, changed: np.ndarray) -> bool:
    """Whether at least 30 % of the blob ``rect`` (work scale) lies where the frame changed."""
    (cx, cy), (w, h), angle = rect
    s = WORK_SCALE
    box = cv2.boxPoints(((cx / s, cy / s), (w / s, h / s), angle))
    region = np.zeros(changed.shape[:2], np.uint8)
    cv2.fillPoly(region, [box.astype(np.int32)], 255)
    inside = region > 0
    area = max(1, int(np.count_nonzero(inside)))
    return bool(int(np.count_nonzero(changed[inside])) >= 0.3 * area)


def square_patch(
    rgb: np.ndarray, box: tuple[tuple[float, float], tuple[float, float], float]
) -> np.ndarray:
    """The die's top warped to PATCH×PATCH (slightly inside its edges)."""
    (cx, cy), (w, h), angle = box
    side = (w + h) / 2 * 0.92
    m = cv2.getRotationMatrix2D((cx, cy), angle, PATCH / side)
    m[0, 2] += PATCH / 2 - cx
    m[1, 2] += PATCH / 2 - cy
    return cv2.warpAffine(
        rgb, m, (PATCH, PATCH), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE
    )


def pipness(patch: np.ndarray, profile: Profile) -> np.ndarray:
    """PATCH×PATCH float32 0..1: how far each pixel is from this die's colour towards the
    profile's pip colour (the die colour is measured on the patch: light varies)."""
    feats = colour_features(patch)
    die_here = np.median(feats.reshape(-1, 3), axis=0)
    axis = np.array(profile.pip_colour, np.float32) - np.array(profile.die_colour, np.float32)
    axis[2] *= profile.brightness_weight
    d = feats - die_here
    d[..., 2] *= profile.brightness_weight
    t = (d @ axis) / float(axis @ axis)
    t[~_INSIDE] = 0  # the die's rounded corners, where the table may show
    return np.clip(t, 0, 1).astype(np.float32)


def count_pips(t: np.ndarray, profile: Profile) -> int:
    """Blobs of pip size in the pip-ness map (-1: a blob that is no pip, e.g. a drawing)."""
    binary = (t > 0.5).astype(np.uint8)
    n, _, stats, _ = cv2.connectedComponentsWithStats(binary, connectivity=8)
    area = profile.pip_area * (PATCH / profile.die_side) ** 2 / 0.92**2
    count = 0
    for i in range(1, n):
        a = stats[i, cv2.CC_STAT_AREA]
        if a < 0.25 * area:
            continue  # speck
        if a > 2.2 * area:
            return -1
        bw, bh = stats[i, cv2.CC_STAT_WIDTH], stats[i, cv2.CC_STAT_HEIGHT]
        if max(bw, bh) > 2.0 * min(bw, bh) + 1:
            return -1
        count += 1
    return count


def feature(t: np.ndarray) -> np.ndarray:
    """The 24×24 pip-ness map, zero-mean unit-norm (for correlation)."""
    v = cv2.resize(t, (GRID, GRID), interpolation=cv2.INTER_AREA).astype(np.float32).ravel()
    v = v - v.mean()
    n = float(np.linalg.norm(v))
    return v / n if n > 1e-6 else v


def rotations(t: np.ndarray) -> list[np.ndarray]:
    return [np.rot90(t, k).copy() for k in range(4)]


def classify(t: np.ndarray, pips: int, profile: Profile) -> tuple[int | str | None, float, str]:
    """Face, confidence and (for None) the reason, from the pip-ness map and the pip count."""
    v = feature(t)
    scores = profile.template_matrix() @ v
    labels = profile.template_labels()
    best: dict[int | str, float] = {}
    for label, score in zip(labels, scores, strict=True):
        if score > best.get(label, -2.0):
            best[label] = float(score)
    ranked = sorted(best.items(), key=lambda kv: -kv[1])
    (face, s1), (_, s2) = ranked[0], ranked[1]
    margin = s1 - s2
    confidence = float(np.clip(min(margin / 0.25, 1.0) * min(max(s1 - 0.3, 0) / 0.5, 1.0), 0, 1))
    # two independent cues agreeing (the drawing, and the pip count or no pips at all)
    # make a read surer than the drawing alone
    if face == DEVIL:
        if 1 <= pips <= 6 and best.get(pips, -1) > s1 - 0.05:
            return None, 0.0, "looks like pips and like the devil"
        if pips in (-1, 0):
            confidence = 0.5 + 0.5 * confidence
        return face, confidence, ""
    if pips != face:
        return None, 0.0, f"{pips} pips counted, the drawing looks like {face}"
    return face, 0.5 + 0.5 * confidence, ""


def read_face(image: np.ndarray, profile: Profile, changed: np.ndarray | None = None) -> Read:
    """Read the die in ``image`` (RGB or grey, 8/16-bit; ``ValueError`` for a non-image).

    Returns ``Read(None, 0, reason=...)`` when no die is seen, and ``face=None`` (with the
    confidence it had) when the read is below ``profile.answer_threshold``.
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
    box, reason = find_die(rgb, profile, changed)
    if box is None:
        return Read(None, 0.0, reason=reason)
    t = pipness(square_patch(rgb, box), profile)
    pips = count_pips(t, profile)
    face, confidence, why = classify(t, pips, profile)
    full_box = (
        (box[0][0] / scale, box[0][1] / scale),
        (box[1][0] / scale, box[1][1] / scale),
        box[2],
    )
    if face is not None and confidence < profile.answer_threshold:
        return Read(None, confidence, full_box, f"unsure ({face}?)", pips)
    return Read(face, confidence, full_box, why, pips)


__all__ = ["FACES", "Read", "read_face"]
