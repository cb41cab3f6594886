"""Train the learned second reader (:mod:`.learned`): ``python -m controller.camera.train``.

The training data are renders (:mod:`.render`) of dice of **random styles** (die colour,
pip colour and size, translucency, the devil drawn as a head, a trident or a random doodle),
never the five named styles (``ivory``, ``ebony``, ``slate``: the threshold is chosen on
them; ``azure``, ``ruby``: held out), and never a die whose colour is near azure's or ruby's.
Each frame is one die on a random table, put through one of: nothing more, a light
condition of :func:`.render.condition`, a varied highlight (one or two soft white spots of
any size and strength), a varied shadow edge, brightness, extra blur or noise, a slight
perspective, and JPEG (quality 35–95). The reader's own die finder
(:func:`.reader.square_candidates`) gives the squares: one on the die is labelled with its
face ("drawing" for a devil), one well off it "none"; a square put on the die by hand
(a little off, as the finder's are) is added too.

Every frame is drawn from ``Random(f"{seed}:{index}")``, so the data do not depend on how
the work is split over processes, and the network (:class:`.learned.Model`, trained with numpy by
:func:`fit`) starts from ``numpy.random.default_rng(seed)``: the same command makes the same
file (with one BLAS thread, ``OPENBLAS_NUM_THREADS=1``: sums in another order differ in the
last bits).

    OPENBLAS_NUM_THREADS=1 nice -n 19 python -m controller.camera.train --frames 8000 --seed 2211
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from multiprocessing import Pool
from pathlib import Path

import cv2
import numpy as np

from .layout import square_patch
from .learned import CLASSES, MODEL_PATH, THRESHOLD, Model, features, sha256
from .read import Box
from .reader import square_candidates
from .render import (
    CONDITIONS,
    DEVIL,
    FACES,
    STYLES,
    DieStyle,
    condition,
    jpeg_roundtrip,
    random_scene,
    render,
)

HIDDEN = 64
"""Neurons in the network's hidden layer."""
KEEP_AWAY = ("azure", "ruby")
"""Held-out styles: no training die has a colour within :data:`NEAR` of theirs."""
NEAR = 80.0
"""RGB distance."""


def _luma(rgb: tuple[int, int, int]) -> float:
    return 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2]


def random_style(rng: random.Random) -> DieStyle:
    """A die style unlike the named ones: any die colour (not near a held-out style's),
    pips contrasting with it, any pip size, sometimes translucent; its devil a head, a
    trident or a doodle."""
    while True:
        die = (rng.randrange(256), rng.randrange(256), rng.randrange(256))
        if all(math.dist(die, STYLES[name].die) > NEAR for name in KEEP_AWAY):
            break
    while True:
        pips = (rng.randrange(256), rng.randrange(256), rng.randrange(256))
        if abs(_luma(pips) - _luma(die)) > 55:
            break
    devil = rng.choice(("head", "trident", f"doodle:{rng.getrandbits(31)}"))
    ink = rng.choice((pips, (20, 20, 20), (235, 235, 230), (200, 30, 30)))
    if abs(_luma(ink) - _luma(die)) < 40:
        ink = pips
    alpha = 1.0 if rng.random() < 0.7 else rng.uniform(0.82, 0.95)
    return DieStyle("random", die, pips, rng.uniform(0.065, 0.11), devil, ink, alpha)


def _glare(
    frame: np.ndarray, centre: tuple[float, float], side: float, rng: random.Random
) -> np.ndarray:
    """One or two soft white spots on the die's top, of any size and strength."""
    f = frame.astype(np.float32)
    h, w = frame.shape[:2]
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    for _ in range(1 if rng.random() < 0.8 else 2):
        rx = side * rng.uniform(0.05, 0.22)
        ry = rx * rng.uniform(0.6, 1.0)
        turn = rng.uniform(0, math.pi)
        ang, dist = rng.uniform(0, 2 * math.pi), rng.uniform(0, 0.38) * side
        cx, cy = centre[0] + dist * math.cos(ang), centre[1] + dist * math.sin(ang)
        u = (x - cx) * math.cos(turn) + (y - cy) * math.sin(turn)
        v = -(x - cx) * math.sin(turn) + (y - cy) * math.cos(turn)
        spot = np.exp(-(u * u) / (2 * rx * rx) - (v * v) / (2 * ry * ry))
        f += (rng.uniform(120, 330) * spot)[:, :, None]
    return np.clip(f, 0, 255).astype(np.uint8)


def _shadow(
    frame: np.ndarray, centre: tuple[float, float], side: float, rng: random.Random
) -> np.ndarray:
    theta = rng.uniform(0, 2 * math.pi)
    h, w = frame.shape[:2]
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    off = rng.uniform(-0.4, 0.4) * side
    d = (x - centre[0]) * math.cos(theta) + (y - centre[1]) * math.sin(theta)
    shade = np.clip((d - off) / rng.uniform(1.5, 8.0) + 0.5, 0, 1)
    out = frame.astype(np.float32) * (1 - rng.uniform(0.3, 0.7) * shade)[:, :, None]
    return np.clip(out, 0, 255).astype(np.uint8)


def _perspective(
    frame: np.ndarray, centre: tuple[float, float], rng: random.Random
) -> tuple[np.ndarray, tuple[float, float]]:
    h, w = frame.shape[:2]
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    dst = src + np.array(
        [[rng.uniform(-1, 1) * 0.025 * w, rng.uniform(-1, 1) * 0.025 * h] for _ in range(4)],
        np.float32,
    )
    m = cv2.getPerspectiveTransform(src, dst)
    out = cv2.warpPerspective(frame, m, (w, h), borderMode=cv2.BORDER_REFLECT)
    moved = cv2.perspectiveTransform(np.array([[centre]], np.float32), m)[0, 0]
    return out, (float(moved[0]), float(moved[1]))


def frame_patches(seed: int, index: int) -> list[tuple[np.ndarray, int]]:
    """The labelled patches of one training frame: (PATCH×PATCH RGB top, each in a random
    quarter turn; class index)."""
    rng = random.Random(f"{seed}:{index}")
    style = random_style(rng)
    face = rng.choice(FACES)
    scene = random_scene(rng)
    frame = render(style, face, rng, scene=scene)
    centre, side = scene.centre, float(scene.side)
    kind = rng.random()
    if kind < 0.3:
        frame = condition(frame, rng.choice(CONDITIONS), scene, rng)
    elif kind < 0.55:
        frame = _glare(frame, centre, side, rng)
    elif kind < 0.65:
        frame = _shadow(frame, centre, side, rng)
    elif kind < 0.75:
        f = frame.astype(np.float32) * rng.uniform(0.45, 1.7)
        frame = np.clip(f, 0, 255).astype(np.uint8)
    if rng.random() < 0.15:
        frame = cv2.GaussianBlur(frame, (0, 0), rng.uniform(0.6, 1.6))
    if rng.random() < 0.15:
        noise = np.random.default_rng(rng.getrandbits(32)).normal(
            0, rng.uniform(3, 10), frame.shape
        )
        frame = np.clip(frame + noise, 0, 255).astype(np.uint8)
    if rng.random() < 0.25:
        frame, centre = _perspective(frame, centre, rng)
    frame = jpeg_roundtrip(frame, rng.randint(35, 95))
    label = CLASSES.index("drawing" if face == DEVIL else face)
    samples: list[tuple[np.ndarray, int]] = []

    def add(box: Box, cls: int) -> None:
        patch = square_patch(frame, box)
        samples.append((np.ascontiguousarray(np.rot90(patch, rng.randrange(4))), cls))

    negatives = []
    for box in square_candidates(frame, side * rng.uniform(0.9, 1.1)):
        d = math.hypot(box[0][0] - centre[0], box[0][1] - centre[1]) / side
        r = (box[1][0] + box[1][1]) / 2 / side
        if d < 0.12 and 0.85 < r < 1.18:
            add(box, label)
        elif d > 0.35 or not 0.7 < r < 1.45:
            negatives.append(box)
    for box in rng.sample(negatives, min(2, len(negatives))):
        add(box, 0)
    jitter = side * 0.06
    cx, cy = centre[0] + rng.uniform(-jitter, jitter), centre[1] + rng.uniform(-jitter, jitter)
    s = side * rng.uniform(0.9, 1.1)
    add(((cx, cy), (s, s), -scene.angle + rng.uniform(-5, 5)), label)
    if rng.random() < 0.5:
        ang, dist = rng.uniform(0, 2 * math.pi), rng.uniform(0.4, 0.75) * side
        add(((cx + dist * math.cos(ang), cy + dist * math.sin(ang)), (s, s), rng.uniform(0, 90)), 0)
    return samples


def frame_samples(seed: int, index: int) -> list[tuple[np.ndarray, int]]:
    """The labelled samples of one training frame: (features, class index)."""
    return [(features(patch), cls) for patch, cls in frame_patches(seed, index)]


def _chunk(args: tuple[int, range]) -> list[tuple[np.ndarray, int]]:
    cv2.setNumThreads(1)
    seed, indices = args
    return [s for i in indices for s in frame_patches(seed, i)]


def patch_dataset(seed: int, frames: int, workers: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """The training patches of ``frames`` frames: n×PATCH×PATCH×3 uint8, and class indices."""
    step = 50
    jobs = [(seed, range(a, min(a + step, frames))) for a in range(0, frames, step)]
    if workers > 1:
        with Pool(workers) as pool:
            parts = pool.map(_chunk, jobs)
    else:
        parts = [_chunk(j) for j in jobs]
    samples = [s for part in parts for s in part]
    return np.stack([p for p, _ in samples]), np.array([c for _, c in samples], np.int32)


def dataset(seed: int, frames: int, workers: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """The training samples of ``frames`` frames: features (n×FEATURES) and class indices."""
    patches, y = patch_dataset(seed, frames, workers)
    return np.stack([features(p) for p in patches]).astype(np.float32), y


def fit(x: np.ndarray, y: np.ndarray, seed: int, epochs: int, hidden: int = HIDDEN) -> Model:
    """One network (features → ``hidden`` ReLU → classes, softmax), trained by Adam on the
    cross-entropy (classes weighted to count alike, a little weight decay), minibatches of
    256 drawn from ``numpy.random.default_rng(seed)``."""
    rng = np.random.default_rng(seed)
    mean = x.mean(axis=0, dtype=np.float64).astype(np.float32)
    scale = (x.std(axis=0, dtype=np.float64) + 1e-3).astype(np.float32)
    xs = ((x - mean) / scale).astype(np.float32)
    n, d = xs.shape
    k = len(CLASSES)
    counts = np.bincount(y, minlength=k).astype(np.float32)
    weight = (n / (k * np.maximum(counts, 1)))[y].astype(np.float32)
    params = [
        rng.normal(0, math.sqrt(2 / d), (d, hidden)).astype(np.float32),
        np.zeros(hidden, np.float32),
        rng.normal(0, math.sqrt(1 / hidden), (hidden, k)).astype(np.float32),
        np.zeros(k, np.float32),
    ]
    moments = [np.zeros_like(p) for p in params]
    squares = [np.zeros_like(p) for p in params]
    rate, decay, step = 1e-3, 1e-4, 0
    for _ in range(epochs):
        order = rng.permutation(n)
        for a in range(0, n, 256):
            idx = order[a : a + 256]
            xb, yb, wb = xs[idx], y[idx], weight[idx]
            w1, b1, w2, b2 = params
            h = np.maximum(xb @ w1 + b1, 0)
            z = h @ w2 + b2
            z -= z.max(axis=1, keepdims=True)
            p = np.exp(z)
            p /= p.sum(axis=1, keepdims=True)
            p[np.arange(len(yb)), yb] -= 1
            gz = p * (wb / len(yb))[:, None]
            gh = (gz @ w2.T) * (h > 0)
            grads = [xb.T @ gh + decay * w1, gh.sum(0), h.T @ gz + decay * w2, gz.sum(0)]
            step += 1
            for i, g in enumerate(grads):
                moments[i] = 0.9 * moments[i] + 0.1 * g
                squares[i] = 0.999 * squares[i] + 0.001 * g * g
                m_hat = moments[i] / (1 - 0.9**step)
                v_hat = squares[i] / (1 - 0.999**step)
                params[i] -= (rate * m_hat / (np.sqrt(v_hat) + 1e-8)).astype(np.float32)
    w1, b1, w2, b2 = params
    return Model(mean, scale, w1[None], b1[None], w2[None], b2[None])


def fit_ensemble(
    x: np.ndarray, y: np.ndarray, seed: int, epochs: int, hidden: int = HIDDEN, members: int = 4
) -> Model:
    """``members`` networks (:func:`fit`, seeds ``seed`` … ``seed + members - 1``) in one
    :class:`.learned.Model`, their probabilities averaged."""
    nets = [fit(x, y, seed + k, epochs, hidden) for k in range(members)]
    stack = {k: np.concatenate([getattr(n, k) for n in nets]) for k in ("w1", "b1", "w2", "b2")}
    return Model(nets[0].mean, nets[0].scale, **stack)


def training_arguments(
    p: argparse.ArgumentParser, frames: int, epochs: int, hidden: int, members: int
) -> None:
    """The options both trainers take (this one and :mod:`.train_cnn`), with their defaults."""
    p.add_argument("--frames", type=int, default=frames, help="rendered training frames")
    p.add_argument("--seed", type=int, default=2211)
    p.add_argument("--epochs", type=int, default=epochs, help="passes over the samples")
    p.add_argument("--hidden", type=int, default=hidden, help="neurons in the hidden layer")
    p.add_argument("--members", type=int, default=members, help="networks in the ensemble")
    p.add_argument("--workers", type=int, default=2, help="processes rendering the frames")
    p.add_argument("--cache", default=None, help="keep the samples in this .npz (re-training)")


def held_back(y: np.ndarray) -> np.ndarray:
    """Every tenth sample: checked, not trained on."""
    return np.arange(len(y)) % 10 == 9


def say_samples(y: np.ndarray, frames: int, started: float) -> None:
    """Print how many samples of each class ``frames`` rendered frames gave."""
    counts = np.bincount(y, minlength=len(CLASSES)).tolist()
    print(
        f"{len(y)} samples from {frames} frames: {dict(zip(CLASSES, counts, strict=True))} "
        f"({time.perf_counter() - started:.0f} s)",
        flush=True,
    )


def say_trained(probs: np.ndarray, y: np.ndarray, output: Path, started: float) -> None:
    """Print how the trained networks did on the held-back samples (``probs``, their true
    classes ``y``) and the weights file written."""
    right = float((probs.argmax(axis=1) == y).mean())
    sure = probs.max(axis=1) >= THRESHOLD
    wrong_sure = int((sure & (probs.argmax(axis=1) != y)).sum())
    print(
        f"trained in {time.perf_counter() - started:.0f} s; right on the tenth held back "
        f"{right:.2%}; {int(sure.sum())} of {len(y)} at p >= {THRESHOLD}, "
        f"{wrong_sure} of them wrong; {output}: {output.stat().st_size} bytes, "
        f"sha256 {sha256(output)}"
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m controller.camera.train", description=__doc__)
    training_arguments(p, frames=8000, epochs=30, hidden=HIDDEN, members=4)
    p.add_argument("-o", "--output", default=str(MODEL_PATH))
    args = p.parse_args(argv)
    started = time.perf_counter()
    cache = Path(args.cache) if args.cache else None
    if cache and cache.exists():
        data = np.load(cache)
        x, y = data["x"], data["y"]
    else:
        x, y = dataset(args.seed, args.frames, args.workers)
        if cache:
            np.savez_compressed(cache, x=x, y=y)
    say_samples(y, args.frames, started)
    check = held_back(y)
    model = fit_ensemble(x[~check], y[~check], args.seed, args.epochs, args.hidden, args.members)
    model.save(Path(args.output))
    say_trained(model.probabilities(x[check]), y[check], Path(args.output), started)
    return 0


if __name__ == "__main__":
    sys.exit(main())
