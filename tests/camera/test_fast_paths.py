"""The reader's fast paths give what the plain ways gave, exactly (issue 22: the read time).

Each fast path is checked against the plain way it replaced, written out here as the
reference: dropping a textured table's specks before tracing outlines, the shadow edges'
two sides measured for all edges at once, and groups of pips settled once per first group.
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2")

from controller.camera import pipgrid, reader, regions  # noqa: E402
from controller.camera.highlight import gradient, percentile_90, steepness  # noqa: E402
from controller.camera.render import (  # noqa: E402
    STYLES,
    condition,
    jpeg_roundtrip,
    random_scene,
    render,
)
from controller.camera.shadow import SEAM, Edge, _side_lights, lift  # noqa: E402


def _frames(n: int, light: str, seed: int) -> list[np.ndarray]:
    rng = random.Random(seed)
    out = []
    for k in range(n):
        scene = random_scene(rng)
        frame = render(STYLES["slate"], 1 + k % 6, rng, scene=scene)
        out.append(jpeg_roundtrip(condition(frame, light, scene, rng), 80))
    return out


@pytest.mark.parametrize("light", ["glare", "shadow"])
def test_dropping_specks_first_finds_the_same_outlines(monkeypatch, light):
    frames = _frames(8, light, 7)
    fast = [reader.outlines(f, 85.0) for f in frames]
    monkeypatch.setattr(reader, "without_specks", lambda contours, _min_box: list(contours))
    plain = [reader.outlines(f, 85.0) for f in frames]
    assert fast == plain
    assert any(boxes for boxes, _ in fast)  # the frames have outlines to find


def test_specks_are_the_contours_whose_box_is_small():
    mask = np.zeros((60, 80), np.uint8)
    mask[5:8, 5:7] = 255  # 2 x 3: a speck
    mask[20:40, 30:50] = 255  # 20 x 20
    mask[50, 10:70] = 255  # a line, 60 x 1
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    kept = regions.without_specks(contours, 50)
    boxes = sorted(cv2.boundingRect(c)[2:] for c in kept)
    assert boxes == [(20, 20), (60, 1)]
    assert regions.without_specks((), 50) == []


def _sides_one_by_one(grey: np.ndarray, edge: Edge, scale: float, band: float):
    """The measure as it was: one edge at a time, ``np.median`` of each side."""
    (x1, y1), (x2, y2) = np.array(edge.a) * scale, np.array(edge.b) * scale
    length = max(math.hypot(x2 - x1, y2 - y1), 1e-6)
    normal = np.array([y1 - y2, x2 - x1]) / length * edge.shaded
    t = np.linspace(0, 1, 48)[:, None, None]
    d = np.linspace(3, max(band, 4), 8)[None, :, None]
    base = np.array([x1, y1]) + t * np.array([x2 - x1, y2 - y1])
    out = []
    for sign in (-1, 1):
        pts = (base + sign * d * normal).reshape(-1, 2).round().astype(int)
        inside = (pts[:, 0] >= 0) & (pts[:, 0] < grey.shape[1])
        inside &= (pts[:, 1] >= 0) & (pts[:, 1] < grey.shape[0])
        if np.count_nonzero(inside) < 50:
            return 0.0, 0.0
        out.append(float(np.median(grey[pts[inside, 1], pts[inside, 0]])))
    return out[0], out[1]


def test_both_sides_of_every_edge_at_once_are_each_edges_medians():
    rng = np.random.default_rng(3)
    grey = rng.integers(0, 256, (240, 320)).astype(np.uint8)
    edges = []
    for _ in range(60):  # some cross the frame, some leave it, some lie outside it
        a = tuple(float(v) for v in rng.uniform(-200, 800, 2))
        b = tuple(float(v) for v in rng.uniform(-200, 800, 2))
        edges.append(Edge(a, b, int(rng.choice([-1, 1]))))
    together = _side_lights(grey, edges, 0.5, 20.0)
    one_by_one = [_sides_one_by_one(grey, e, 0.5, 20.0) for e in edges]
    assert together.tolist() == [list(p) for p in one_by_one]
    assert any(p == (0.0, 0.0) for p in one_by_one) and any(p[0] > 0 for p in one_by_one)


def _pip_boxes_every_seed(blobs: np.ndarray, side: float, scale: float):
    """The grouping as it was: every seed settled, none skipped."""
    if len(blobs) < 2:
        return []
    strongest = blobs[np.argsort(-blobs[:, 2])[: pipgrid.MAX_BLOBS], :2]
    blobs, strength = blobs[:, :2], blobs[:, 2]
    seeds = [
        (p + q) / 2
        for i, p in enumerate(strongest)
        for q in strongest[i + 1 :]
        if 0.3 * side <= float(np.hypot(*(p - q))) <= 0.85 * side
    ]
    out, seen = [], []
    for seed in seeds:
        centre = seed
        for _ in range(3):
            inside = pipgrid._members(blobs, strength, centre, side)
            if not inside.any():
                break
            centre = blobs[inside].mean(axis=0)
        inside = pipgrid._members(blobs, strength, centre, side)
        group = blobs[inside]
        if not 2 <= len(group) <= 6 or any(np.hypot(*(centre - s)) < 0.1 * side for s in seen):
            continue
        near = (np.hypot(*(blobs - centre).T) <= pipgrid.ALONE * side) & ~inside
        if (strength[near] >= pipgrid.FAINT * float(strength[inside].max())).any():
            continue
        seen.append(centre)
        turn = pipgrid._grid_turn(group)
        cx, cy = (float(v) / scale for v in centre)
        for angle in (turn, turn + 45.0):
            if pipgrid._layout(group - centre, side, angle) == len(group):
                out.append((((cx, cy), (side / scale, side / scale), angle), len(group)))
    return out[:8]


@pytest.mark.parametrize("light", ["shadow", "glare", "brightness x1.6"])
def test_groups_of_pips_settled_once_are_those_settled_from_every_seed(light):
    groups = 0
    for frame in _frames(10, light, 11):
        small = cv2.resize(frame, None, fx=reader.WORK_SCALE, fy=reader.WORK_SCALE)
        grey = cv2.cvtColor(small, cv2.COLOR_RGB2GRAY)
        side = 85.0 * reader.WORK_SCALE
        for dark in (True, False):
            blobs = pipgrid.pip_blobs(grey, side, 0.03, dark)
            fast = pipgrid.pip_boxes(blobs, side, reader.WORK_SCALE)
            assert fast == _pip_boxes_every_seed(blobs, side, reader.WORK_SCALE)
            groups += len(fast)
    assert groups > 0


def _lift_plain(image: np.ndarray, edge: Edge, scale: float, band: float) -> np.ndarray:
    """The lift as it was: the gain multiplied out over the whole frame, then the whole
    frame's 5×5 median put on the seam."""
    grey = image if image.ndim == 2 else image.mean(axis=2)
    lit, shade = _sides_one_by_one(grey, edge, scale, band)
    if shade <= 0:
        return image
    (x1, y1), (x2, y2) = (np.array(edge.a) * scale), (np.array(edge.b) * scale)
    length = max(math.hypot(x2 - x1, y2 - y1), 1e-6)
    yy, xx = np.mgrid[0 : image.shape[0], 0 : image.shape[1]].astype(np.float32)
    across = ((xx - x1) * (y1 - y2) + (yy - y1) * (x2 - x1)) / length * edge.shaded
    gain = 1 + (lit / max(shade, 4.0) - 1) * np.clip(across / 3 + 0.5, 0, 1)
    out = image.astype(np.float32) * (gain if image.ndim == 2 else gain[:, :, None])
    lifted = np.clip(out, 0, 255).astype(np.uint8)
    seam = np.abs(across) < SEAM
    lifted[seam] = cv2.medianBlur(lifted, 5)[seam]
    return lifted


@pytest.mark.parametrize("grey", [False, True])
def test_a_lift_by_table_lookup_is_the_lift_multiplied_out(grey):
    rng = random.Random(5)
    checked = 0
    for frame in _frames(6, "shadow", 13):
        image = cv2.cvtColor(frame, cv2.COLOR_RGB2GRAY) if grey else frame
        for _ in range(4):  # steep, shallow, through a corner, along a side
            a = (rng.uniform(-50, 690), rng.uniform(-50, 530))
            b = (rng.uniform(-50, 690), rng.uniform(-50, 530))
            edge = Edge(a, b, rng.choice([-1, 1]))
            want = _lift_plain(image, edge, 1.0, 30.0)
            assert np.array_equal(lift(image, edge, 1.0, 30.0), want)
            checked += not np.array_equal(want, image)
    for edge in (Edge((0, 10), (639, 10), 1), Edge((320, 0), (320, 479), -1)):
        assert np.array_equal(lift(frame, edge, 1.0, 30.0), _lift_plain(frame, edge, 1.0, 30.0))
    assert checked > 10


def test_the_90th_percentile_is_numpys_bit_for_bit():
    rng = np.random.default_rng(0)
    for k in range(3000):
        n = int(rng.integers(1, 400))
        if k % 3 == 0:
            values = rng.random(n, dtype=np.float32) * 300
        elif k % 3 == 1:  # ties
            values = rng.integers(0, 6, n).astype(np.float32) * np.float32(1.7)
        else:  # gradients' sizes, as the reader measures them
            x, y = (rng.normal(size=n).astype(np.float32) * 50 for _ in range(2))
            values = np.hypot(x, y)
        assert percentile_90(values) == float(np.percentile(values, 90)), (k, values)


def test_a_blobs_edge_measured_about_its_box_is_measured_as_over_the_whole_patch():
    rng = np.random.default_rng(4)
    checked = 0
    for _ in range(200):
        light = rng.integers(0, 256, (48, 48)).astype(np.float32)
        light = cv2.GaussianBlur(light, (5, 5), 0)
        blobs = cv2.GaussianBlur(rng.random((48, 48)).astype(np.float32), (7, 7), 0) > 0.55
        n, labels, stats, _ = cv2.connectedComponentsWithStats(
            blobs.astype(np.uint8), connectivity=8
        )
        grad = gradient(light)
        for i in range(1, n):  # some touch the patch's edges
            blob = labels == i
            whole = steepness(grad, light, blob, 120.0)
            assert steepness(grad, light, blob, 120.0, stats[i]) == whole
            checked += 1
    assert checked > 200
