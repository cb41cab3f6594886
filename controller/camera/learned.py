"""The learned second reader: a small neural network that classifies a die's top, warped to
a PATCH×PATCH patch, as none (no die face there), 1–6, or a drawing (not a pip face: the
devil, or anything else).

The network is 4 multilayer perceptrons (features → 64 ReLU → 8, softmax; their
probabilities averaged) run with numpy (matrix products: no new dependency; the installed
OpenCV 5 has no ``cv2.ml``, and ``cv2.dnn`` would need an ONNX writer).
It is trained by :mod:`.train` on rendered dice of
random styles (never the five named styles of :mod:`.render`) under varied light, glare,
shadow, blur, noise, perspective and JPEG. The weights, ``faces-mlp.npz`` (about 1.3 MB),
ship in the package and are checked against :data:`MODEL_SHA256` when loaded. A small
convolutional network (:mod:`.cnn`, trained by :mod:`.train_cnn` on the same renders;
``faces-cnn.npz``, checked against :data:`CNN_SHA256`) gives a second opinion
(:func:`classify`: where the two name the same class the surer counts, else their average).

:func:`second_read` reads only where the rule reader (:mod:`.reader`) answers ``None``:
every candidate square is classified (averaged over its 4 rotations). A number is answered
when its probability is at least :data:`THRESHOLD`, no other candidate says anything but
"none" with a probability of :data:`QUIET` or more, and the toy's calibrated examples (the
profile's HOG descriptors) put the patch beyond ``devil_threshold`` and nearer a number than
the devil. The network never answers the devil on its own (each toy's devil differs): when
it sees a drawing, the calibration decides, by the rules' own tests with the threshold
widened to :data:`DEVIL_REACH` times; when both networks see it, by distance alone.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import cv2
import numpy as np

from .cnn import FORMAT as CNN_FORMAT
from .cnn import Nets
from .highlight import centre_lost, face_beside_highlight
from .hog import hog
from .layout import _INNER, patch_light
from .profile import DEVIL, Profile

FORMAT = "diablotin-faces-mlp/1"
MODEL_PATH = Path(__file__).with_name("faces-mlp.npz")
MODEL_SHA256 = "bfa9a32d09eb21ec320ba4d46dfd701aeec2541856c851f94aaf255d5bc801b5"
"""The checksum of the shipped weights (``python -m controller.camera.train`` prints it)."""
CNN_PATH = Path(__file__).with_name("faces-cnn.npz")
CNN_SHA256 = "f97913cc02b98c2dac6f8e4d7dccd0351e07a797167b9cef840bffbfbdce7553"
"""The checksum of the convolutional network's shipped weights (``python -m
controller.camera.train_cnn`` prints it)."""
CLASSES: tuple[int | str, ...] = ("none", 1, 2, 3, 4, 5, 6, "drawing")
"""The network's outputs, in order: no die face here, a number, a drawing (no pip face)."""
THRESHOLD = 0.99
"""A number is answered at this probability or above (chosen on the tuning seeds)."""
QUIET = 0.5
"""Another candidate saying anything but none with this probability is a second opinion:
two places that say different things give no answer."""
DEVIL_REACH = 1.6
"""When the network sees a drawing at :data:`THRESHOLD`, the devil is answered if the
calibrated examples put it within this many ``devil_threshold`` of the devil (and clearly
nearer the devil than any number, its centre not lost in a highlight). 0: never."""
FEATURES = 900 + 256 + 144
"""HOG of the stretched lightness, the lightness 16×16, the white (saturated) share 12×12."""
_KEYS = {  # the arrays' shapes: M members, H hidden neurons (any)
    "mean": (FEATURES,),
    "scale": (FEATURES,),
    "w1": ("M", FEATURES, "H"),
    "b1": ("M", "H"),
    "w2": ("M", "H", len(CLASSES)),
    "b2": ("M", len(CLASSES)),
}


class ModelError(RuntimeError):
    """The weights file is missing, damaged, or not the one this code was made for."""


def features(patch: np.ndarray) -> np.ndarray:
    """The network's input for one die top (PATCH×PATCH RGB uint8): float32, FEATURES long."""
    light = cv2.cvtColor(patch, cv2.COLOR_RGB2LAB)[..., 0].astype(np.float32)
    lo, mid, hi = np.percentile(light[_INNER], (5, 50, 95))
    norm = np.clip((light - mid) / max(float(hi - lo), 20.0), -2.0, 2.0)
    small = cv2.resize(norm, (16, 16), interpolation=cv2.INTER_AREA)
    white = (patch.min(axis=2) >= 240).astype(np.float32)
    whites = cv2.resize(white, (12, 12), interpolation=cv2.INTER_AREA)
    parts = [hog(patch_light(patch)), small.ravel() / 2, whites.ravel()]
    return np.concatenate(parts).astype(np.float32)


def turned(patch: np.ndarray, k: int) -> np.ndarray:
    return np.ascontiguousarray(np.rot90(patch, k))


@dataclass(frozen=True)
class Model:
    """The networks' weights: ``members`` networks alike in shape, trained from different
    seeds, whose probabilities are averaged (an ensemble is surer where it should be and
    less sure where it should not). Inputs are standardised by ``mean`` and ``scale``."""

    mean: np.ndarray
    scale: np.ndarray
    w1: np.ndarray
    """members × FEATURES × hidden"""
    b1: np.ndarray
    w2: np.ndarray
    """members × hidden × len(CLASSES)"""
    b2: np.ndarray

    def probabilities(self, x: np.ndarray) -> np.ndarray:
        """Class probabilities (n×len(CLASSES)) of feature rows ``x`` (n×FEATURES): the
        members' softmax outputs, averaged."""
        xs = (x - self.mean) / self.scale
        total = np.zeros((len(x), len(CLASSES)))
        for w1, b1, w2, b2 in zip(self.w1, self.b1, self.w2, self.b2, strict=True):
            z = np.maximum(xs @ w1 + b1, 0.0) @ w2 + b2
            z -= z.max(axis=1, keepdims=True)
            e = np.exp(z)
            total += e / e.sum(axis=1, keepdims=True)
        return np.asarray(total / len(self.w1))

    def save(self, path: Path) -> None:
        arrays = {k: getattr(self, k).astype(np.float32) for k in _KEYS}
        with open(path, "wb") as out:  # np.savez_compressed would add ".npz" to other names
            np.savez_compressed(out, format=np.array(FORMAT), **arrays)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _check_file(path: Path, expected: str, trainer: str) -> None:
    """:class:`ModelError` unless ``path`` is a file whose checksum is ``expected`` (``""``
    skips it); ``trainer``: the module of :mod:`controller.camera` that makes it."""
    if not path.is_file():
        raise ModelError(f"{path}: no model file (python -m controller.camera.{trainer} makes it)")
    if expected and sha256(path) != expected:
        raise ModelError(f"{path}: not the model this reader was made for (checksum differs)")


@cache
def load_model(path: Path | None = None, checksum: str | None = None) -> Model:
    """The trained network; :class:`ModelError` if the file is missing, is not the expected
    one (``checksum``, default :data:`MODEL_SHA256`; ``""`` skips the check), or is not a
    ``diablotin-faces-mlp/1`` file of the right shapes. ``path``: default :data:`MODEL_PATH`."""
    path = MODEL_PATH if path is None else path
    _check_file(path, MODEL_SHA256 if checksum is None else checksum, "train")
    try:
        with np.load(path, allow_pickle=False) as data:
            if str(data["format"]) != FORMAT:
                raise ModelError(f"{path}: not a {FORMAT} file")
            arrays = {k: np.asarray(data[k], np.float32) for k in _KEYS}
    except (OSError, KeyError, ValueError) as exc:
        raise ModelError(f"{path}: not a {FORMAT} file ({exc})") from None
    sizes = {"M": arrays["w1"].shape[0], "H": arrays["w1"].shape[-1]} if arrays["w1"].ndim else {}
    for key, shape in _KEYS.items():
        want = tuple(sizes.get(n, 0) if isinstance(n, str) else n for n in shape)
        if arrays[key].shape != want:
            raise ModelError(f"{path}: {key} has shape {arrays[key].shape}, not {want}")
    return Model(**arrays)


@cache
def load_cnn(path: Path | None = None, checksum: str | None = None) -> Nets:
    """The convolutional network (:mod:`.cnn`); :class:`ModelError` as :func:`load_model`.
    ``path``: default :data:`CNN_PATH`; ``checksum``: default :data:`CNN_SHA256`."""
    path = CNN_PATH if path is None else path
    _check_file(path, CNN_SHA256 if checksum is None else checksum, "train_cnn")
    try:
        return Nets.load(path)
    except (OSError, KeyError, ValueError) as exc:
        raise ModelError(f"{path}: not a {CNN_FORMAT} file ({exc})") from None


@dataclass(frozen=True)
class Verdict:
    """The networks on one patch: the class (one of :data:`CLASSES`), its probability
    (averaged over the patch's 4 rotations; with two networks that agree, the surer one's)
    and ``agreed``: the less sure network's probability of that class (the one network's
    when there is one)."""

    label: int | str
    probability: float
    agreed: float = 0.0


def _turned_average(
    probabilities: Callable[[list[np.ndarray]], np.ndarray], patches: list[np.ndarray]
) -> np.ndarray:
    """Probabilities of each patch: as it lies, and for those not plainly "none" (below
    0.9) averaged over its 4 rotations."""
    first = probabilities(patches)
    for k, p in enumerate(first):
        if p[0] < 0.9:
            rest = probabilities([turned(patches[k], t) for t in range(1, 4)])
            first[k] = (p + rest.sum(axis=0)) / 4
    return first


def classify(model: Model, patches: list[np.ndarray], cnn: Nets | None = None) -> list[Verdict]:
    """The networks' verdict on each patch (:func:`_turned_average`). With the convolutional
    network ``cnn`` too: where both name the same class, the surer one's probabilities;
    where they differ, their average (which is never sure)."""
    if not patches:
        return []
    mlp = _turned_average(
        lambda ps: model.probabilities(np.stack([features(p) for p in ps])), patches
    )
    conv = None if cnn is None else _turned_average(cnn.patch_probabilities, patches)
    verdicts = []
    for k, p in enumerate(mlp):
        best, agreed = int(np.argmax(p)), float(p.max())
        if conv is not None:
            q = conv[k]
            if int(np.argmax(q)) == best:
                agreed = float(min(p[best], q[best]))
                p = p if p[best] >= q[best] else q
            else:
                p = (p + q) / 2
                best = int(np.argmax(p))
                agreed = float(min(mlp[k][best], q[best]))
        verdicts.append(Verdict(CLASSES[best], float(p[best]), agreed))
    return verdicts


def second_read(
    model: Model, patches: list[np.ndarray], profile: Profile, cnn: Nets | None = None
) -> tuple[int, int | str | None, float, str]:
    """The networks' read of a frame's candidate squares (their patches) where the rule
    reader read none: the index of the patch read, the face (a number, the devil only when
    the calibration agrees, or ``None``), its probability, and why it is ``None``.
    ``cnn``: the convolutional network, a second opinion (:func:`classify`); when both
    networks see a drawing at :data:`THRESHOLD`, the calibration need only put the patch
    within :data:`DEVIL_REACH` of the devil and nearer it than any number."""
    verdicts = classify(model, patches, cnn)
    said = [(k, v) for k, v in enumerate(verdicts) if v.label != "none" and v.probability >= QUIET]
    if not said:
        return -1, None, 0.0, "the network sees no die face"
    if len({v.label for _, v in said}) > 1:
        return -1, None, 0.0, "the network sees different faces"
    k, best = max(said, key=lambda item: item[1].probability)
    if best.label == "drawing":
        if DEVIL_REACH and best.probability >= THRESHOLD:
            d_devil, d_number = profile.devil_distances(hog(patch_light(patches[k])))
            within = d_devil <= DEVIL_REACH * profile.devil_threshold
            near = within and d_devil < 0.85 * d_number
            if near and not centre_lost(patches[k], profile.pip_area):
                return k, DEVIL, best.probability, ""
            both = cnn is not None and best.agreed >= THRESHOLD
            if both and within and d_devil < d_number:
                return k, DEVIL, best.probability, ""
        return k, None, 0.0, "the network sees a drawing, the calibration no devil"
    if best.probability < THRESHOLD:
        return k, None, best.probability, f"the network is unsure ({best.label}?)"
    beside = face_beside_highlight(patches[k]) if profile.pip_polarity != "dark" else None
    if beside and beside != best.label:  # the highlight taken for a pip, or hiding one?
        return k, None, 0.0, f"the network sees {best.label}, the pips beside a highlight {beside}"
    d_devil, d_number = profile.devil_distances(hog(patch_light(patches[k])))
    if d_devil <= profile.devil_threshold or d_devil <= d_number:
        return k, None, 0.0, "the network sees a number, the calibration the devil"
    return k, best.label, best.probability, ""


__all__ = [
    "CLASSES",
    "CNN_PATH",
    "MODEL_PATH",
    "Model",
    "ModelError",
    "Verdict",
    "classify",
    "features",
    "load_cnn",
    "load_model",
    "second_read",
]
