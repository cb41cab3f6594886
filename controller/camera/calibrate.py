"""Calibration: a profile from a folder of photos of each face (``diablotin faces calibrate``).

``DIR/1 … DIR/6`` and ``DIR/devil`` (``DIR/none`` is allowed and ignored) each hold a few
JPEG/PNG photos of one die showing that face. The die colour is the colour of the one
square blob found in every photo (k-means colour clusters, the squarest blob of a die's
size); the pip colour is what lies on the number faces away from the die colour.
"""

from __future__ import annotations

import time
from pathlib import Path

import cv2
import numpy as np

from ..games.base import Said
from .profile import DEVIL, FACE_NAMES, Profile, face_from_name
from .reader import (
    colour_distance,
    colour_features,
    count_pips,
    feature,
    find_die,
    pipness,
    rotations,
    square_patch,
)

IMAGE_EXTS = (".jpg", ".jpeg", ".png")
_yy, _xx = np.mgrid[0:48, 0:48]
_CENTRE = (_yy - 23.5) ** 2 + (_xx - 23.5) ** 2 < 21.0**2
"""The patch inside its rounded corners (where the background may show)."""


class CalibrationError(ValueError):
    """A calibration folder that cannot be used (layout, a missing face, a bad image)."""


def load_image(path: Path) -> np.ndarray:
    """An RGB uint8 image from a file; :class:`ValueError` saying why it cannot be read."""
    path = Path(path)
    if path.is_dir():
        raise ValueError(Said("is a folder, not an image"))
    try:
        data = np.fromfile(str(path), np.uint8)
    except OSError as exc:
        raise ValueError(exc.strerror or str(exc)) from None
    if data.size == 0:
        raise ValueError(Said("empty file"))
    image = cv2.imdecode(data, cv2.IMREAD_UNCHANGED)
    if image is None:
        raise ValueError(Said("not a JPEG or PNG image (or damaged)"))
    if image.ndim == 3 and image.shape[2] == 3:
        image = cv2.cvtColor(image, cv2.COLOR_BGR2RGB)
    elif image.ndim == 3 and image.shape[2] == 4:
        image = cv2.cvtColor(image, cv2.COLOR_BGRA2RGBA)
    return image


def scan_folder(root: Path) -> dict[str, list[Path]]:
    """The photos per face; :class:`CalibrationError` for a wrong layout or a missing face."""
    root = Path(root)
    if not root.is_dir():
        raise CalibrationError(
            Said(
                "{root}: not a folder (want subfolders {names})",
                root=root,
                names=", ".join(FACE_NAMES),
            )
        )
    allowed = {*FACE_NAMES, "none"}
    stray = sorted(p.name for p in root.iterdir() if p.is_dir() and p.name not in allowed)
    if stray:
        raise CalibrationError(
            Said(
                "{root}: unknown subfolder(s) {names}: only {known} and none",
                root=root,
                names=", ".join(stray),
                known=", ".join(FACE_NAMES),
            )
        )
    out: dict[str, list[Path]] = {}
    for name in FACE_NAMES:
        folder = root / name
        if not folder.is_dir():
            raise CalibrationError(
                Said(
                    "{root}: face {name} is missing (no folder {found}/)",
                    root=root,
                    name=name,
                    found=folder.name,
                )
            )
        files = sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_EXTS)
        if not files:
            raise CalibrationError(
                Said("{folder}: no JPEG/PNG photos of face {name}", folder=folder, name=name)
            )
        out[name] = files
    return out


def _die_colour_candidate(rgb: np.ndarray) -> np.ndarray | None:
    """The colour (features) of the squarest die-sized blob of one k-means colour cluster."""
    small = cv2.resize(rgb, (160, 120), interpolation=cv2.INTER_AREA)
    feats = colour_features(cv2.GaussianBlur(small, (3, 3), 0)).reshape(-1, 3)
    weighted = feats * np.array([1, 1, 0.35], np.float32)
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.5)
    cv2.setRNGSeed(1)
    _, labels, _ = cv2.kmeans(weighted, 5, None, criteria, 2, cv2.KMEANS_PP_CENTERS)
    labels = labels.reshape(120, 160)
    best: tuple[float, np.ndarray] | None = None
    for k in range(5):
        mask = (labels == k).astype(np.uint8) * 255
        mask = cv2.morphologyEx(
            mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (7, 7))
        )
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        for contour in contours:
            area = cv2.contourArea(contour)
            if not 60 < area < 3000:
                continue
            (_, (w, h), _) = cv2.minAreaRect(contour)
            if min(w, h) <= 0 or max(w, h) / min(w, h) > 1.3:
                continue
            fill = area / (w * h)
            if fill > 0.8 and (best is None or fill > best[0]):
                inside = np.zeros_like(mask)
                cv2.drawContours(inside, [contour], -1, 255, -1)
                sel = (inside > 0) & (labels == k)
                best = (fill, np.median(feats.reshape(120, 160, 3)[sel], axis=0))
    return None if best is None else best[1]


def calibrate(root: Path, log=None) -> Profile:  # type: ignore[no-untyped-def]
    """Build a profile from ``root``; :class:`CalibrationError` if it cannot."""
    files = scan_folder(root)
    images: dict[str, list[np.ndarray]] = {}
    from .reader import as_rgb

    for name, paths in files.items():
        for path in paths:
            try:
                images.setdefault(name, []).append(as_rgb(load_image(path)))
            except ValueError as exc:
                raise CalibrationError(
                    Said("{path}: cannot read it: {exc}", path=path, exc=exc)
                ) from None
    every = [img for imgs in images.values() for img in imgs]
    candidates = [c for c in (_die_colour_candidate(img) for img in every) if c is not None]
    if len(candidates) < len(every) // 2:
        raise CalibrationError(
            Said("{root}: no die found in most photos (one die, seen from above)", root=root)
        )
    cand = np.array(candidates)
    die = np.median(cand, axis=0)
    spread = colour_distance(cand[None, :, :], die, 0.7)[0]
    threshold = float(max(25.0, np.percentile(spread, 80) * 3))
    # provisional profile to find the die; pip colour and sizes come next
    prof = Profile(list(map(float, die)), list(map(float, die)), 90.0, 60.0, threshold, {})
    sides: list[float] = []
    far_feats: list[np.ndarray] = []
    found: dict[str, list[tuple[np.ndarray, tuple]]] = {}  # type: ignore[type-arg]
    for side_guess in (90.0, 60.0, 130.0):
        prof.die_side = side_guess
        sides.clear()
        for imgs in images.values():
            for img in imgs:
                box, _ = find_die(img, prof)
                if box is not None:
                    sides.append((box[1][0] + box[1][1]) / 2)
        if len(sides) >= len(every) * 0.7:
            break
    if len(sides) < len(every) * 0.5:
        raise CalibrationError(
            Said(
                "{root}: the die was found in only {count} of {total} photos",
                root=root,
                count=len(sides),
                total=len(every),
            )
        )
    prof.die_side = float(np.median(sides))
    for name, imgs in images.items():
        for img in imgs:
            box, _ = find_die(img, prof)
            if box is None:
                continue
            patch = square_patch(img, box)
            found.setdefault(name, []).append((patch, box))
            if name != DEVIL:
                feats = colour_features(patch)
                d = colour_distance(feats, np.median(feats.reshape(-1, 3), axis=0), 0.7)
                far = (d > max(threshold / 3, np.percentile(d, 50) * 4)) & _CENTRE
                if np.count_nonzero(far) >= 4:
                    far_feats.append(np.median(feats[far], axis=0))
    missing = [n for n in FACE_NAMES if n not in found]
    if missing:
        raise CalibrationError(
            Said(
                "{root}: the die was not found in any photo of face(s) {names}",
                root=root,
                names=", ".join(missing),
            )
        )
    if not far_feats:
        raise CalibrationError(Said("{root}: no pips seen on the number faces", root=root))
    prof.pip_colour = list(map(float, np.median(np.array(far_feats), axis=0)))
    scale = (prof.die_side * 0.92 / 48) ** 2
    for _ in range(2):  # refine the pip area with the pip-ness map
        areas = []
        for name, items in found.items():
            if name == DEVIL:
                continue
            for patch, _ in items:
                t = pipness(patch, prof)
                areas.append(float(np.count_nonzero(t > 0.5)) / int(name))
        prof.pip_area = float(np.median(areas)) * scale
    templates: dict[str, list[list[float]]] = {}
    for name, items in found.items():
        for patch, _ in items:
            t = pipness(patch, prof)
            if name != DEVIL and count_pips(t, prof) != face_from_name(name):
                continue  # a photo the reader would not count right teaches nothing
            templates.setdefault(name, []).extend(feature(r).tolist() for r in rotations(t))
    missing = [n for n in FACE_NAMES if n not in templates]
    if missing:
        raise CalibrationError(
            Said(
                "{root}: the pips could not be counted on any photo of face(s) {names}",
                root=root,
                names=", ".join(missing),
            )
        )
    prof.templates = templates
    prof.images = len(every)
    prof.created = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    return prof
