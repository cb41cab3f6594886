"""The learned second reader (issue 22, point 4): its weights ship in the package and are
checked, its training is reproducible, it answers only where it is sure, never the devil on
its own, and it reads a die under glare that the rules left to the referee. Coverage is
measured by ``diablotin faces evaluate --learned on`` (docs/camera.md)."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from controller.camera import learned
from controller.camera import reader as reader_module
from controller.camera.cnn import Nets, inputs
from controller.camera.learned import (
    CLASSES,
    CNN_PATH,
    CNN_SHA256,
    MODEL_PATH,
    MODEL_SHA256,
    THRESHOLD,
    Model,
    ModelError,
    load_cnn,
    load_model,
    second_read,
    sha256,
)
from controller.camera.reader import read_face, square_patch
from controller.camera.render import STYLES, condition, jpeg_roundtrip, random_scene, render
from controller.camera.train import dataset, fit_ensemble, patch_dataset
from controller.camera.train_cnn import _gradients, _init, _net
from controller.camera.train_cnn import fit as fit_cnn
from tests.camera.conftest import evaluated_frame


def test_the_shipped_weights_load_and_are_the_recorded_ones():
    assert MODEL_PATH.stat().st_size < 2_000_000
    assert sha256(MODEL_PATH) == MODEL_SHA256
    model = load_model()
    x = np.zeros((2, learned.FEATURES), np.float32)
    p = model.probabilities(x)
    assert p.shape == (2, len(CLASSES)) and np.allclose(p.sum(axis=1), 1)


def test_the_convolutional_network_ships_checked_and_both_weigh_under_2_mb(tmp_path):
    assert sha256(CNN_PATH) == CNN_SHA256
    assert MODEL_PATH.stat().st_size + CNN_PATH.stat().st_size < 2_000_000
    p = load_cnn().patch_probabilities([np.zeros((48, 48, 3), np.uint8)] * 2)
    assert p.shape == (2, len(CLASSES)) and np.allclose(p.sum(axis=1), 1)
    changed = tmp_path / "changed.npz"
    data = bytearray(CNN_PATH.read_bytes())
    data[len(data) // 2] ^= 0xFF
    changed.write_bytes(bytes(data))
    with pytest.raises(ModelError, match="checksum"):
        load_cnn(changed)
    with pytest.raises(ModelError, match="not a diablotin-faces-cnn/1"):
        load_cnn(MODEL_PATH, "")  # the perceptrons' file is no convolutional network


def test_the_cnn_gradients_are_those_of_its_loss():
    """Backpropagation through im2col and the pools, against finite differences."""
    rng = np.random.default_rng(3)
    params = [p.astype(np.float64) for p in _init(rng, (3, 4, 4), 5)]
    params = [p if p.ndim == 2 else rng.normal(0, 0.1, p.shape) for p in params]
    x = rng.normal(0, 1, (2, 32, 32, 2))
    y, w = np.array([1, 7]), np.array([1.0, 2.0])

    def loss() -> float:
        z = _net(params, 3).logits(x)
        z = z - z.max(axis=1, keepdims=True)
        logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
        return float(-(w * logp[np.arange(2), y]).sum() / 2)

    grads = _gradients(params, 3, x, y, w)
    for p, g in zip(params, grads, strict=True):
        assert g.shape == p.shape
        for _ in range(3):
            i = tuple(int(rng.integers(0, n)) for n in p.shape)
            old = p[i]
            p[i] = old + 1e-5
            up = loss()
            p[i] = old - 1e-5
            down = loss()
            p[i] = old
            assert abs((up - down) / 2e-5 - g[i]) < 1e-6 + 1e-4 * abs(g[i])


def test_a_tiny_cnn_training_run_is_the_same_twice(tmp_path):
    patches, y = patch_dataset(7, 3, workers=1)
    x = np.stack([inputs(p) for p in patches])
    for name in ("a", "b"):
        Nets((fit_cnn(x, y, 7, 1, (4, 4, 4), 8),)).save(tmp_path / f"{name}.npz")
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()
    nets = load_cnn(tmp_path / "a.npz", "")
    assert [k.shape for k, _ in nets.nets[0].convs] == [(18, 4), (36, 4), (36, 4)]


def test_damaged_or_foreign_weights_are_refused(tmp_path):
    changed = tmp_path / "changed.npz"
    data = bytearray(MODEL_PATH.read_bytes())
    data[len(data) // 2] ^= 0xFF
    changed.write_bytes(bytes(data))
    with pytest.raises(ModelError, match="checksum"):
        load_model(changed)
    with pytest.raises(ModelError, match="no model file"):
        load_model(tmp_path / "missing.npz", "")
    foreign = tmp_path / "foreign.npz"
    np.savez(foreign, format=np.array("something-else/1"))
    with pytest.raises(ModelError, match="not a diablotin-faces-mlp/1"):
        load_model(foreign, "")
    shapes = tmp_path / "shapes.npz"
    with open(shapes, "wb") as out:
        np.savez(
            out,
            format=np.array(learned.FORMAT),
            mean=np.zeros(3),
            scale=np.ones(3),
            w1=np.zeros((3, 4)),
            b1=np.zeros(4),
            w2=np.zeros((4, 8)),
            b2=np.zeros(8),
        )
    with pytest.raises(ModelError, match="shape"):
        load_model(shapes, "")


def test_a_tiny_training_run_is_the_same_twice(tmp_path):
    x1, y1 = dataset(7, 4, workers=1)
    x2, y2 = dataset(7, 4, workers=1)
    assert np.array_equal(x1, x2) and np.array_equal(y1, y2) and len(y1) >= 4
    a = fit_ensemble(x1, y1, 7, epochs=2, hidden=8, members=1)
    b = fit_ensemble(x2, y2, 7, epochs=2, hidden=8, members=1)
    a.save(tmp_path / "a.npz")
    b.save(tmp_path / "b.npz")
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()
    assert load_model(tmp_path / "a.npz", "").w1.shape == (1, learned.FEATURES, 8)


class _Fixed(Model):
    """A stand-in network that gives each patch, in turn, a set probability vector."""

    def __init__(self, rows: list[list[float]]):
        zeros = np.zeros(1, np.float32)
        super().__init__(zeros, zeros, zeros, zeros, zeros, zeros)
        object.__setattr__(self, "rows", rows)

    def probabilities(self, x: np.ndarray) -> np.ndarray:
        rows = self.rows  # type: ignore[attr-defined]
        # one call for the patches as they lie, then one per patch for its 3 other turns
        if len(x) == 3:
            return np.array([rows.pop(0)] * 3, np.float64)
        return np.array([rows[k] for k in range(len(x))], np.float64)


def _vector(label: int | str, p: float) -> list[float]:
    v = [(1 - p) / (len(CLASSES) - 1)] * len(CLASSES)
    v[CLASSES.index(label)] = p
    return v


def _patch(style: str, face: int | str, seed: int) -> np.ndarray:
    from controller.camera.reader import square_patch

    rng = random.Random(seed)
    scene = random_scene(rng)
    frame = render(STYLES[style], face, rng, scene=scene)
    return square_patch(frame, (scene.centre, (scene.side, scene.side), -scene.angle))


def test_the_second_reader_answers_only_where_the_network_is_sure(profiles):
    profile = profiles["ivory"]
    four = _patch("ivory", 4, 3)
    sure = _vector(4, 0.999)
    unsure = _vector(4, THRESHOLD - 0.02)
    assert second_read(_Fixed([sure, sure]), [four], profile)[1] == 4
    assert second_read(_Fixed([unsure, unsure]), [four], profile)[1] is None
    # another candidate that sees another face: no answer, however sure the first
    other = _vector(2, 0.6)
    assert second_read(_Fixed([sure, other, sure, other]), [four, four], profile)[1] is None


def test_the_network_seeing_a_drawing_is_the_devil_only_if_the_calibration_says_so(
    profiles, monkeypatch
):
    profile = profiles["ivory"]
    drawing = _vector("drawing", 0.999)
    four, devil = _patch("ivory", 4, 3), _patch("ivory", "devil", 5)
    assert second_read(_Fixed([drawing, drawing]), [four], profile)[1] is None
    assert second_read(_Fixed([drawing, drawing]), [devil], profile)[1] == "devil"
    unsure = _vector("drawing", THRESHOLD - 0.02)
    assert second_read(_Fixed([unsure, unsure]), [devil], profile)[1] is None
    monkeypatch.setattr(learned, "DEVIL_REACH", 0.0)  # off: the network never says devil
    assert second_read(_Fixed([drawing, drawing]), [devil], profile)[1] is None


def test_a_number_the_calibration_takes_for_the_devil_is_not_answered(profiles):
    profile = profiles["ivory"]
    devil = _patch("ivory", "devil", 5)
    sure = _vector(3, 0.999)
    _, face, _, why = second_read(_Fixed([sure, sure]), [devil], profile)
    assert face is None and "devil" in why


def _glare_miss(
    style: str, seed: int, profile, face: int | str | None = None
) -> tuple[np.ndarray, int | str]:
    rng = random.Random(seed)
    face = (1, 2, 3, 4, 5, 6)[seed % 6] if face is None else face
    scene = random_scene(rng)
    frame = condition(render(STYLES[style], face, rng, scene=scene), "glare", scene, rng)
    return jpeg_roundtrip(frame, 80), face


GLARE_MISSES = [("ivory", 3), ("ivory", 8), ("ebony", 0), ("ebony", 11)]
"""Glare renders (style, seed of :func:`_glare_miss`) the rule reader leaves to the referee."""


@pytest.mark.parametrize(("style", "seed"), GLARE_MISSES)
def test_a_glare_render_the_rules_missed_is_read_right(profiles, style, seed):
    image, face = _glare_miss(style, seed, profiles[style])
    assert read_face(image, profiles[style], learned=False).face is None
    assert read_face(image, profiles[style], learned=True).face == face


CNN_GAINS = [("ivory", 32, None), ("ebony", 3, None), ("ebony", 23, None), ("slate", 3, "devil")]
"""Glare renders (style, seed and face of :func:`_glare_miss`) that neither the rules nor
the perceptrons alone read (the 6th pass's reader), and that the two networks read right."""


@pytest.mark.parametrize(("style", "seed", "face"), CNN_GAINS)
def test_a_glare_render_the_perceptrons_left_is_read_right_with_the_cnn(
    profiles, monkeypatch, style, seed, face
):
    image, face = _glare_miss(style, seed, profiles[style], face)
    assert read_face(image, profiles[style], learned=False).face is None
    with monkeypatch.context() as m:
        m.setattr(reader_module, "load_cnn", lambda: None)  # the perceptrons alone
        assert read_face(image, profiles[style], learned=True).face is None
    assert read_face(image, profiles[style], learned=True).face == face


class _FixedCnn:
    """A stand-in convolutional network that gives every patch the same probabilities."""

    def __init__(self, row: list[float]):
        self.row = row

    def patch_probabilities(self, patches: list[np.ndarray]) -> np.ndarray:
        return np.array([self.row] * len(patches))


def _glare_patch(style: str, face: int | str, seed: int) -> np.ndarray:
    rng = random.Random(seed)
    scene = random_scene(rng)
    frame = condition(render(STYLES[style], face, rng, scene=scene), "glare", scene, rng)
    return square_patch(frame, (scene.centre, (scene.side, scene.side), -scene.angle))


def test_a_devil_under_glare_needs_both_networks_sure_and_the_calibration_nearer_the_devil(
    profiles,
):
    profile = profiles["slate"]
    devil, four = _glare_patch("slate", "devil", 3), _glare_patch("slate", 4, 3)
    sure, unsure = _vector("drawing", 0.999), _vector("drawing", THRESHOLD - 0.02)
    # the perceptrons alone: the calibration's 15 % margin refuses this devil under glare
    assert second_read(_Fixed([sure, sure]), [devil], profile)[1] is None
    both = second_read(_Fixed([sure, sure]), [devil], profile, _FixedCnn(sure))  # type: ignore[arg-type]
    assert both[1] == "devil"
    one = second_read(_Fixed([sure, sure]), [devil], profile, _FixedCnn(unsure))  # type: ignore[arg-type]
    assert one[1] is None
    # a number the calibration puts nearer a number is never the devil, however sure both are
    assert second_read(_Fixed([sure, sure]), [four], profile, _FixedCnn(sure))[1] is None  # type: ignore[arg-type]


def test_two_networks_that_name_different_faces_are_never_sure(profiles):
    four = _patch("ivory", 4, 3)
    mlp, cnn = _vector(4, 0.999), _vector(5, 0.999)
    verdict = learned.classify(_Fixed([mlp, mlp]), [four], _FixedCnn(cnn))[0]  # type: ignore[arg-type]
    assert verdict.probability < THRESHOLD
    assert second_read(_Fixed([mlp, mlp]), [four], profiles["ivory"], _FixedCnn(cnn))[1] is None  # type: ignore[arg-type]
    agree = learned.classify(_Fixed([mlp, mlp]), [four], _FixedCnn(_vector(4, 0.6)))[0]  # type: ignore[arg-type]
    assert (agree.label, agree.probability, agree.agreed) == (
        4,
        pytest.approx(0.999),
        pytest.approx(0.6),
    )


def test_without_its_weights_the_reader_reads_as_the_rules_do(profiles, monkeypatch):
    image, _ = _glare_miss("ebony", 0, profiles["ebony"])
    monkeypatch.setattr(learned, "MODEL_PATH", Path("/nonexistent/faces-mlp.npz"))
    learned.load_model.cache_clear()
    try:
        read = read_face(image, profiles["ebony"], learned=True)
    finally:
        monkeypatch.undo()
        learned.load_model.cache_clear()
    assert read.face is None and "no model file" in read.reason


def test_an_empty_table_is_never_read(profiles):
    from controller.camera.render import BACKGROUNDS, _camera, background

    rng = random.Random(11)
    for kind in BACKGROUNDS:
        frame = _camera(background(kind, random.Random(rng.getrandbits(32))), rng, rng)
        assert read_face(jpeg_roundtrip(frame, 80), profiles["ebony"], learned=True).face is None


def test_a_ruby_4_under_glare_is_not_read_as_a_2(tmp_path):
    """Glare, ruby, frame 45 of ``faces evaluate --seed 233``: the rules read this 4 as a 2
    on a square put on a group of 2 of its pips (``pipgrid.py``; the other two, beside the
    highlight, not found), off the die's centre and turned from it. Found by the seventh
    pass's held-out run; now such a square is not read with a highlight beside its pips
    (``reader._highlight_near``)."""
    image, face, profile = evaluated_frame(tmp_path, "ruby", 233, "glare", 45)
    assert face == 4
    assert read_face(image, profile, learned=False).face in (None, 4)


@pytest.mark.parametrize("module", ["train", "train_cnn"])
def test_each_trainer_runs_from_its_command_line_and_says_how_it_did(
    module: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import importlib

    main = importlib.import_module(f"controller.camera.{module}").main
    out = tmp_path / "weights.npz"
    args = ["--frames", "12", "--epochs", "1", "--members", "1", "--workers", "1", "-o", str(out)]
    assert main([*args, "--hidden", "8"]) == 0
    said = capsys.readouterr().out
    assert " samples from 12 frames: {" in said
    assert "right on the tenth held back" in said and f"sha256 {sha256(out)}" in said
