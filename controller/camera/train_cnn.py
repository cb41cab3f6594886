"""Train the convolutional network of the learned second reader (:mod:`.cnn`):
``python -m controller.camera.train_cnn``.

The training patches are those of :mod:`.train` (the same renders of random styles, the
same light, glare, shadow, blur, noise, perspective and JPEG; :func:`.train.patch_dataset`),
each also turned and mirrored at random every pass. The networks are trained with numpy
(backpropagation through im2col, Adam), from ``numpy.random.default_rng(seed + k)``: the
same command makes the same file (with one BLAS thread, ``OPENBLAS_NUM_THREADS=1``).

    OPENBLAS_NUM_THREADS=1 nice -n 19 python -m controller.camera.train_cnn --frames 16000
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

from .cnn import CHANNELS, HIDDEN, LAYERS, SIDE, Net, Nets, im2col, inputs, pool
from .learned import CLASSES
from .train import held_back, patch_dataset, say_samples, say_trained, training_arguments

BATCH = 128


def _init(rng: np.random.Generator, layers: tuple[int, ...], hidden: int) -> list[np.ndarray]:
    params: list[np.ndarray] = []
    c = CHANNELS
    for f in layers:
        params += [rng.normal(0, math.sqrt(2 / (9 * c)), (9 * c, f)), np.zeros(f)]
        c = f
    flat = (SIDE >> len(layers)) ** 2 * c
    params += [rng.normal(0, math.sqrt(2 / flat), (flat, hidden)), np.zeros(hidden)]
    params += [rng.normal(0, math.sqrt(1 / hidden), (hidden, len(CLASSES))), np.zeros(len(CLASSES))]
    return [p.astype(np.float32) for p in params]


def _net(params: list[np.ndarray], layers: int) -> Net:
    convs = tuple((params[2 * i], params[2 * i + 1]) for i in range(layers))
    return Net(convs, *params[2 * layers :])


def _gradients(
    params: list[np.ndarray], layers: int, x: np.ndarray, y: np.ndarray, weight: np.ndarray
) -> list[np.ndarray]:
    """The gradients of the weighted cross-entropy (mean over the batch) for ``params``."""
    saved = []
    for i in range(layers):
        n, h, w, _ = x.shape
        cols = im2col(x)
        act = np.maximum(cols @ params[2 * i] + params[2 * i + 1], 0.0).reshape(n, h, w, -1)
        pooled = pool(act)
        saved.append((x.shape, cols, act, pooled))
        x = pooled
    w1, b1, w2, b2 = params[2 * layers :]
    flat = x.reshape(len(x), -1)
    hid = np.maximum(flat @ w1 + b1, 0.0)
    z = hid @ w2 + b2
    z -= z.max(axis=1, keepdims=True)
    p = np.exp(z)
    p /= p.sum(axis=1, keepdims=True)
    p[np.arange(len(y)), y] -= 1
    gz = p * (weight / len(y))[:, None]
    ghid = (gz @ w2.T) * (hid > 0)
    grads = [flat.T @ ghid, ghid.sum(0), hid.T @ gz, gz.sum(0)]
    g = (ghid @ w1.T).reshape(x.shape)
    conv_grads: list[np.ndarray] = []
    for i in reversed(range(layers)):
        shape, cols, act, pooled = saved[i]
        n, h, w, c = shape
        up = np.repeat(np.repeat(pooled, 2, axis=1), 2, axis=2)
        gup = np.repeat(np.repeat(g, 2, axis=1), 2, axis=2)
        gact = (gup * ((act == up) & (act > 0))).reshape(n * h * w, -1)
        conv_grads = [cols.T @ gact, gact.sum(0), *conv_grads]
        if i:
            gcols = (gact @ params[2 * i].T).reshape(n, h, w, c, 3, 3)
            gx = np.zeros((n, h + 2, w + 2, c), gcols.dtype)
            for a in range(3):
                for b in range(3):
                    gx[:, a : a + h, b : b + w] += gcols[..., a, b]
            g = gx[:, 1:-1, 1:-1]
    return conv_grads + grads


def _augment(x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Each input turned by a random quarter turn, and mirrored at random (a die face and
    its mirror image have the same pips; a drawing mirrored is still a drawing)."""
    turns, flips = rng.integers(0, 4, len(x)), rng.integers(0, 2, len(x))
    out = np.empty_like(x)
    for k in range(len(x)):
        t = np.rot90(x[k], turns[k])
        out[k] = t[:, ::-1] if flips[k] else t
    return out


def fit(
    x: np.ndarray,
    y: np.ndarray,
    seed: int,
    epochs: int,
    layers: tuple[int, ...] = LAYERS,
    hidden: int = HIDDEN,
    log: bool = False,
) -> Net:
    """One network trained by Adam on inputs ``x`` (n×SIDE×SIDE×CHANNELS) and classes
    ``y``: classes weighted to count alike, a little weight decay, the rate 1e-3 then 3e-4 for the
    last third of the passes; minibatches of :data:`BATCH` from ``default_rng(seed)``."""
    rng = np.random.default_rng(seed)
    params = _init(rng, layers, hidden)
    n, k = len(y), len(CLASSES)
    counts = np.bincount(y, minlength=k).astype(np.float32)
    weight = (n / (k * np.maximum(counts, 1)))[y].astype(np.float32)
    moments = [np.zeros_like(p) for p in params]
    squares = [np.zeros_like(p) for p in params]
    decay, step = 1e-4, 0
    for epoch in range(epochs):
        started = time.perf_counter()
        rate = 1e-3 if epoch < epochs * 2 // 3 else 3e-4
        order = rng.permutation(n)
        for a in range(0, n, BATCH):
            idx = order[a : a + BATCH]
            grads = _gradients(params, len(layers), _augment(x[idx], rng), y[idx], weight[idx])
            step += 1
            for i, g in enumerate(grads):
                if g.ndim == 2:
                    g = g + decay * params[i]
                moments[i] = 0.9 * moments[i] + 0.1 * g
                squares[i] = 0.999 * squares[i] + 0.001 * g * g
                m_hat = moments[i] / (1 - 0.9**step)
                v_hat = squares[i] / (1 - 0.999**step)
                params[i] = params[i] - (rate * m_hat / (np.sqrt(v_hat) + 1e-8)).astype(np.float32)
        if log:
            print(f"  pass {epoch + 1}: {time.perf_counter() - started:.0f} s", flush=True)
    return _net(params, len(layers))


def probabilities(nets: list[Net], x: np.ndarray, batch: int = 512) -> np.ndarray:
    """The nets' probabilities averaged, in batches."""
    out = np.zeros((len(x), len(CLASSES)))
    for net in nets:
        for a in range(0, len(x), batch):
            out[a : a + batch] += net.probabilities(x[a : a + batch])
    return out / len(nets)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m controller.camera.train_cnn", description=__doc__)
    training_arguments(p, frames=16000, epochs=12, hidden=HIDDEN, members=1)
    p.add_argument("--layers", default=",".join(map(str, LAYERS)), help="filters per convolution")
    p.add_argument("-o", "--output", required=True)
    args = p.parse_args(argv)
    started = time.perf_counter()
    cache = Path(args.cache) if args.cache else None
    if cache and cache.exists():
        with np.load(cache) as data:
            patches, y = data["p"], data["y"]
    else:
        patches, y = patch_dataset(args.seed, args.frames, args.workers)
        if cache:
            np.savez(cache, p=patches, y=y)
    x = np.stack([inputs(q) for q in patches])
    say_samples(y, args.frames, started)
    check = held_back(y)
    layers = tuple(int(f) for f in args.layers.split(","))
    nets = [
        fit(x[~check], y[~check], args.seed + k, args.epochs, layers, args.hidden, log=True)
        for k in range(args.members)
    ]
    Nets(tuple(nets)).save(Path(args.output))
    say_trained(probabilities(nets, x[check]), y[check], Path(args.output), started)
    return 0


if __name__ == "__main__":
    sys.exit(main())
