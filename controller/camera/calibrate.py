"""Calibration: a profile from photos of the devil die and of at least one number face.

``DIR/devil`` (required: 3 to 6 photos of the devil die) and any of ``DIR/1 … DIR/6`` (at
least one: ordinary pips are counted by their layout, so each number face need not be
taught; more faces give a surer size and pip colour). ``DIR/none`` is allowed and ignored.
Each photo shows one die from above, anywhere, any rotation. The number photos give the
die's size and its pips' size and shade; the devil photos give the devil's drawing (HOG
descriptors in 4 rotations) and how far from them a devil may still be.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from ..sentences import Said
from .hog import hog, rotations
from .layout import COVER, PATCH, patch_light, square_patch
from .pips import Pips, find_pips
from .profile import DEVIL, FACE_NAMES, Profile, pip_darks
from .reader import as_rgb, square_candidates

IMAGE_EXTS = (".jpg", ".jpeg", ".png")
NUMBER_NAMES = tuple(n for n in FACE_NAMES if n != DEVIL)
DEFAULT_DEVIL_THRESHOLD = 0.6


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
    """The photos per face (the devil and the number faces given); :class:`CalibrationError`
    for a wrong layout, no devil photos, or no number photos."""
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
        if folder.is_dir():
            files = sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_EXTS)
            if files:
                out[name] = files
    if DEVIL not in out:
        raise CalibrationError(
            Said(
                "{root}: no photos of the devil (folder devil/): "
                "the reader learns the devil from 3 to 6 photos of it",
                root=root,
            )
        )
    if not any(name in out for name in NUMBER_NAMES):
        raise CalibrationError(
            Said(
                "{root}: no photos of a number face (folders 1 to 6): "
                "at least one is needed, for the die's size and its pips",
                root=root,
            )
        )
    return out


def _number_die(img: np.ndarray, face: int) -> tuple[float, bool, Pips, np.ndarray] | None:
    """The die showing ``face`` in a photo: its side (pixels), whether its pips are dark,
    the pips, and its top (patch); None when no square there has that face's pips."""
    for box in square_candidates(img):
        patch = square_patch(img, box)
        for dark in (True, False):
            pips = find_pips(patch, dark)
            if pips.face == face:
                return (box[1][0] + box[1][1]) / 2, dark, pips, patch
    return None


def _devil_die(img: np.ndarray, side: float, polarity: str) -> np.ndarray | None:
    """The devil's top in a photo: of the squares about the die's size (0.6–1.7 times:
    an outline may take in the die's rim or shadow) with no pip layout, the nearest in
    size; None when there is none."""
    darks = pip_darks(polarity)
    best: tuple[float, np.ndarray] | None = None
    for box in square_candidates(img, side):
        off = abs(float(np.log((box[1][0] + box[1][1]) / 2 / side)))
        if off > np.log(1.7) or (best is not None and off >= best[0]):
            continue
        patch = square_patch(img, box)
        if not any(find_pips(patch, dark).face for dark in darks):
            best = (off, patch)
    return None if best is None else best[1]


def drawn_number(face: int, die: np.ndarray, pip: np.ndarray, pip_area: float) -> np.ndarray:
    """A number face drawn in patch space (RGB PATCH×PATCH) in the die's and pips' colours:
    the reader's examples of faces no photo showed."""
    from .layout import LAYOUTS

    img = np.empty((PATCH, PATCH, 3), np.uint8)
    img[:] = die
    side = PATCH / COVER
    radius = max(1.5, float(np.sqrt(pip_area / np.pi)) * side)
    for x, y in LAYOUTS[face][0] * 0.25:
        centre = (PATCH / 2 + x * side, PATCH / 2 + y * side)
        cv2.circle(
            img,
            (round(centre[0] * 16), round(centre[1] * 16)),
            round(radius * 16),
            tuple(int(v) for v in pip),
            -1,
            cv2.LINE_AA,
            4,
        )
    return img


def _descriptors(patch: np.ndarray) -> list[list[float]]:
    return [hog(r).tolist() for r in rotations(patch_light(patch))]


def calibrate(root: Path, log: Callable[[str], None] | None = None) -> Profile:
    """Build a profile from ``root``; :class:`CalibrationError` (saying why) if it cannot."""
    files = scan_folder(root)
    images: dict[str, list[np.ndarray]] = {}
    for name, paths in files.items():
        for path in paths:
            try:
                images.setdefault(name, []).append(as_rgb(load_image(path)))
            except ValueError as exc:
                raise CalibrationError(
                    Said("{path}: cannot read it: {exc}", path=path, exc=exc)
                ) from None
    numbers: list[tuple[str, float, bool, Pips, np.ndarray]] = []
    number_photos = 0
    for name in NUMBER_NAMES:
        for img in images.get(name, []):
            number_photos += 1
            found = _number_die(img, int(name))
            if found is not None:
                numbers.append((name, *found))
    if len(numbers) < max(1, number_photos // 2):
        raise CalibrationError(
            Said(
                "{root}: the pips were counted right on only {count} of {total} number "
                "photos (one die, seen from above, in focus)",
                root=root,
                count=len(numbers),
                total=number_photos,
            )
        )
    side = float(np.median([n[1] for n in numbers]))
    darks = [n[2] for n in numbers]
    polarity = "dark" if all(darks) else "light" if not any(darks) else "either"
    pip_area = float(np.median([float(np.median(n[3].areas)) for n in numbers]))
    devils = [
        p for p in (_devil_die(img, side, polarity) for img in images[DEVIL]) if p is not None
    ]
    if len(devils) < max(1, (len(images[DEVIL]) + 1) // 2):
        raise CalibrationError(
            Said(
                "{root}: the devil die was found in only {count} of {total} photos "
                "(one die, seen from above, about the size of the number dice)",
                root=root,
                count=len(devils),
                total=len(images[DEVIL]),
            )
        )
    devil = [v for p in devils for v in _descriptors(p)]
    number_vectors = [v for n in numbers for v in _descriptors(n[4])]
    pixels = np.concatenate([n[4].reshape(-1, 3) for n in numbers]).astype(np.float32)
    die_colour = np.median(pixels, axis=0)
    shade = pixels.sum(axis=1)
    pip_end = (
        shade <= np.percentile(shade, 3)
        if polarity != "light"
        else shade >= np.percentile(shade, 97)
    )
    pip_colour = np.median(pixels[pip_end], axis=0)
    for face in range(1, 7):
        drawn = drawn_number(face, die_colour, pip_colour, pip_area)
        number_vectors += _descriptors(drawn)
    # no nearer the devil than any number photo is: those are known not to be it
    nearest_number = _distance_to(np.array(number_vectors[: 4 * len(numbers)]), devil)
    threshold = min(devil_threshold(devil, len(devils)), 0.9 * nearest_number)
    return Profile(
        die_side=side,
        pip_area=pip_area,
        pip_polarity=polarity,
        devil=devil,
        numbers=number_vectors,
        devil_threshold=threshold,
        faces_seen=[*sorted({n[0] for n in numbers}), DEVIL],
        created=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        images=sum(len(v) for v in images.values()),
    )


def _distance_to(vectors: np.ndarray, devil: list[list[float]]) -> float:
    """The smallest distance from any of ``vectors`` to the devil examples (unit vectors)."""
    if not len(vectors):
        return 2.0
    sims = vectors @ np.array(devil, np.float32).T
    return float(np.sqrt(max(0.0, 2 - 2 * float(sims.max()))))


def devil_threshold(devil: list[list[float]], photos: int) -> float:
    """How far from the devil examples a devil may be: 1.5× the farthest any devil photo
    lies from the other devil photos (leave one out), within 0.3–0.65; 0.6 with one photo."""
    if photos < 2:
        return DEFAULT_DEVIL_THRESHOLD
    m = np.array(devil, np.float32).reshape(photos, 4, -1)
    worst = 0.0
    for i in range(photos):
        others = np.delete(m, i, axis=0).reshape(-1, m.shape[2])
        nearest = float((others @ m[i, 0]).max())
        worst = max(worst, float(np.sqrt(max(0.0, 2 - 2 * nearest))))
    return float(np.clip(worst * 1.5, 0.3, 0.65))
