"""A small convolutional network for the learned second reader (:mod:`.learned`): it
classifies a die's top, warped to a PATCH×PATCH patch, as none, 1–6 or a drawing, as the
multilayer perceptrons do, but from the pixels themselves.

Its input (:func:`inputs`) is the patch at SIDE×SIDE in two channels: the lightness,
normalised by its median and spread (as :func:`.learned.features` does), and the share of
saturated (white) pixels. Three 3×3 convolutions (each ReLU, then a 2×2 max-pool), one
hidden layer, softmax: :data:`LAYERS`. It runs with numpy (im2col and matrix products). The
weights are trained by :mod:`.train_cnn` and checked by their SHA-256 when loaded.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from .layout import _INNER

FORMAT = "diablotin-faces-cnn/1"
SIDE = 32
"""The network's input is SIDE×SIDE pixels."""
CHANNELS = 2
"""The normalised lightness and the white (saturated) share."""
LAYERS = (16, 32, 32)
"""Filters of the three 3×3 convolutions (default; the weights file says its own)."""
HIDDEN = 64
"""Neurons of the hidden layer after the convolutions."""


def inputs(patch: np.ndarray) -> np.ndarray:
    """The network's input for one die top (PATCH×PATCH RGB uint8): SIDE×SIDE×CHANNELS
    float32, the lightness at about -1..1 and the white share at 0..1."""
    light = cv2.cvtColor(patch, cv2.COLOR_RGB2LAB)[..., 0].astype(np.float32)
    lo, mid, hi = np.percentile(light[_INNER], (5, 50, 95))
    norm = np.clip((light - mid) / max(float(hi - lo), 20.0), -2.0, 2.0) / 2
    white = (patch.min(axis=2) >= 240).astype(np.float32)
    both = np.dstack([norm, white]).astype(np.float32)
    return np.asarray(cv2.resize(both, (SIDE, SIDE), interpolation=cv2.INTER_AREA), np.float32)


def im2col(x: np.ndarray) -> np.ndarray:
    """n×H×W×C → (n·H·W)×(C·9): each pixel's 3×3 neighbourhood (zero padded)."""
    n, h, w, c = x.shape
    padded = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    windows = np.lib.stride_tricks.sliding_window_view(padded, (3, 3), axis=(1, 2))
    return windows.reshape(n * h * w, c * 9)


def pool(x: np.ndarray) -> np.ndarray:
    """2×2 max-pool of n×H×W×C (H, W even)."""
    n, h, w, c = x.shape
    return np.asarray(x.reshape(n, h // 2, 2, w // 2, 2, c).max(axis=(2, 4)))


@dataclass(frozen=True)
class Net:
    """The weights: ``convs`` (kernel (C·9)×F, bias F) for each convolution, then the hidden
    layer (``w1``, ``b1``) and the output (``w2``, ``b2``, len(CLASSES) wide)."""

    convs: tuple[tuple[np.ndarray, np.ndarray], ...]
    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray

    def logits(self, x: np.ndarray) -> np.ndarray:
        """The output before softmax for inputs ``x`` (n×SIDE×SIDE×CHANNELS)."""
        for kernel, bias in self.convs:
            n, h, w, _ = x.shape
            y = np.maximum(im2col(x) @ kernel + bias, 0.0)
            x = pool(y.reshape(n, h, w, -1))
        hidden = np.maximum(x.reshape(len(x), -1) @ self.w1 + self.b1, 0.0)
        return np.asarray(hidden @ self.w2 + self.b2)

    def probabilities(self, x: np.ndarray) -> np.ndarray:
        """Class probabilities (softmax), n×len(CLASSES)."""
        z = self.logits(x)
        z = z - z.max(axis=1, keepdims=True)
        e = np.exp(z)
        return np.asarray(e / e.sum(axis=1, keepdims=True))

    def arrays(self) -> dict[str, np.ndarray]:
        out = {f"k{i}": k for i, (k, _) in enumerate(self.convs)}
        out |= {f"c{i}": b for i, (_, b) in enumerate(self.convs)}
        return out | {"w1": self.w1, "b1": self.b1, "w2": self.w2, "b2": self.b2}

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray]) -> Net:
        """The net of :meth:`arrays`' output; ``KeyError``/``ValueError`` when they do not
        make one (shapes that do not chain)."""
        convs, c = [], CHANNELS
        for i in range(sum(1 for k in arrays if k.startswith("k"))):
            kernel, bias = arrays[f"k{i}"], arrays[f"c{i}"]
            if kernel.ndim != 2 or kernel.shape[0] != c * 9 or bias.shape != kernel.shape[1:]:
                raise ValueError(f"convolution {i} has shape {kernel.shape}")
            convs.append((kernel, bias))
            c = kernel.shape[1]
        flat = (SIDE >> len(convs)) ** 2 * c
        w1, b1, w2, b2 = (arrays[k] for k in ("w1", "b1", "w2", "b2"))
        if w1.shape[0] != flat or b1.shape != w1.shape[1:] or w2.shape[0] != w1.shape[1]:
            raise ValueError(f"hidden layer has shape {w1.shape}")
        if b2.shape != w2.shape[1:]:
            raise ValueError(f"output has shape {w2.shape}")
        return cls(tuple(convs), w1, b1, w2, b2)


@dataclass(frozen=True)
class Nets:
    """Networks alike in purpose, trained from different seeds: their probabilities are
    averaged (an ensemble is surer where it should be, less where it should not)."""

    nets: tuple[Net, ...]

    def patch_probabilities(self, patches: list[np.ndarray]) -> np.ndarray:
        """Class probabilities (n×len(CLASSES)) of die tops (PATCH×PATCH RGB)."""
        x = np.stack([inputs(p) for p in patches])
        return np.asarray(sum(net.probabilities(x) for net in self.nets) / len(self.nets))

    def save(self, path: Path) -> None:
        """One ``.npz``: float32 arrays named ``m<k>_<name>`` for the k-th net."""
        arrays = {
            f"m{k}_{name}": a.astype(np.float32)
            for k, net in enumerate(self.nets)
            for name, a in net.arrays().items()
        }
        with open(path, "wb") as out:  # np.savez_compressed would add ".npz" to other names
            np.savez_compressed(out, allow_pickle=False, format=np.array(FORMAT), **arrays)

    @classmethod
    def load(cls, path: Path) -> Nets:
        """The nets in ``path``; ``OSError``, ``KeyError`` or ``ValueError`` when it is not a
        :data:`FORMAT` file of shapes that chain."""
        with np.load(path, allow_pickle=False) as data:
            if str(data["format"]) != FORMAT:
                raise ValueError(f"not a {FORMAT} file")
            arrays = {k: np.asarray(data[k], np.float32) for k in data.files if k != "format"}
        members = sorted({k.split("_", 1)[0] for k in arrays}, key=lambda m: int(m[1:]))
        if not members:
            raise ValueError("no network in it")
        return cls(
            tuple(
                Net.from_arrays(
                    {k.split("_", 1)[1]: a for k, a in arrays.items() if k.startswith(f"{m}_")}
                )
                for m in members
            )
        )


__all__ = ["CHANNELS", "FORMAT", "LAYERS", "SIDE", "Net", "Nets", "im2col", "inputs", "pool"]
