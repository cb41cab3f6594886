"""What the devil's face looks like to the reader: HOG descriptors (histograms of oriented
gradients) of a die's square patch, and its four rotations (calibration compares them)."""

from __future__ import annotations

import cv2
import numpy as np

HOG_CELL, HOG_BINS = 8, 9
"""Cell side (pixels) and unsigned orientation bins."""


def hog(patch_l: np.ndarray) -> np.ndarray:
    """The HOG descriptor (histograms of oriented gradients: 8×8-pixel cells, 9 unsigned
    orientations, 2×2-cell blocks normalised L2-Hys) of a PATCH×PATCH grey patch; unit
    length, float32 (900 numbers for 48×48)."""
    g = patch_l.astype(np.float32)
    gx = cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=1)
    gy = cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=1)
    mag, ang = cv2.cartToPolar(gx, gy)
    ang = np.mod(ang, np.pi) * (HOG_BINS / np.pi)
    b0 = np.floor(ang).astype(np.int32) % HOG_BINS
    frac = ang - np.floor(ang)
    side = patch_l.shape[0]  # PATCH
    cells = side // HOG_CELL
    cy = np.arange(side) // HOG_CELL
    index = (cy[:, None] * cells + cy[None, :]) * HOG_BINS
    hist = np.bincount((index + b0).ravel(), (mag * (1 - frac)).ravel(), cells * cells * HOG_BINS)
    hist += np.bincount(
        (index + (b0 + 1) % HOG_BINS).ravel(), (mag * frac).ravel(), cells * cells * HOG_BINS
    )
    h = hist.reshape(cells, cells, HOG_BINS)
    blocks = np.concatenate([h[:-1, :-1], h[1:, :-1], h[:-1, 1:], h[1:, 1:]], axis=2).reshape(
        -1, 4 * HOG_BINS
    )
    blocks /= np.linalg.norm(blocks, axis=1, keepdims=True) + 1e-3
    np.minimum(blocks, 0.2, out=blocks)
    blocks /= np.linalg.norm(blocks, axis=1, keepdims=True) + 1e-3
    v = blocks.ravel().astype(np.float32)
    return v / max(float(np.linalg.norm(v)), 1e-6)


def rotations(patch: np.ndarray) -> list[np.ndarray]:
    """``patch`` turned by 0, 90, 180 and 270 degrees."""
    return [np.ascontiguousarray(np.rot90(patch, k)) for k in range(4)]
