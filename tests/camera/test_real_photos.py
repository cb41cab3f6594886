"""Real photographs of dice (tests/data/real, sources and licences in SOURCES.md): each set
is taught from two devil frames and two frames of face 3, and every other frame is read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller.camera.cli import evaluate_real

REAL = Path(__file__).parents[1] / "data" / "real"


READ_AT_LEAST = {
    "white-table": (24, 16),
    "grey-bowl-heldout": (24, 21),
    "colour-dice-tray": (38, 23),
}
"""Frames read, and the least answered: measured white-table 17/24, grey-bowl-heldout 23/24,
colour-dice-tray 24/38 (docs/camera.md: 18 and 21 until session 21, when the networks stopped
reading outlines that are not square; colour-dice-tray 20 until session 22 put tops on the
pips of dice shot at a slant). grey-mixed-heldout cannot be taught yet."""


@pytest.mark.parametrize("folder", sorted(READ_AT_LEAST))
def test_real_photos_are_read_with_no_wrong_face(folder):
    r = evaluate_real(REAL / folder)
    images, least = READ_AT_LEAST[folder]
    assert r["images"] == images
    assert r["right"] == r["answered"], r
    assert r["devil_number_confusions"] == 0
    assert r["answered"] >= least


def test_every_real_frame_is_labelled_and_640_by_480():
    import cv2

    for folder in (*READ_AT_LEAST, "grey-mixed-heldout"):
        labels = json.loads((REAL / folder / "labels.json").read_text())
        frames = sorted(p.name for p in (REAL / folder).glob("*.jpg"))
        assert frames == sorted(labels)
        assert sorted(set(map(str, labels.values()))) == ["1", "2", "3", "4", "5", "6", "devil"]
        for name in frames:
            assert cv2.imread(str(REAL / folder / name)).shape == (480, 640, 3)


def test_a_photo_set_that_cannot_be_taught_is_a_missed_row_and_the_rest_is_read(tmp_path, capsys):
    """``faces evaluate --real``: a set whose calibration fails (here: blank photos) is
    reported as a missed row, and the other rows are still read (it once stopped the whole
    run, calling the set "not a photo set")."""
    import cv2
    import numpy as np

    from controller.camera.cli import main

    blank = np.full((480, 640, 3), 128, np.uint8)
    labels = {}
    for name, face in (("d0.jpg", "devil"), ("d1.jpg", "devil"), ("t0.jpg", 3), ("t1.jpg", 3)):
        cv2.imwrite(str(tmp_path / name), blank)
        labels[name] = face
    (tmp_path / "labels.json").write_text(json.dumps(labels))
    argv = ["evaluate", "--style", "ivory", "--per-face", "1", "--light", "none"]
    assert main([*argv, "--real", str(tmp_path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"real photos {tmp_path.name}: calibration failed: ")
    assert out[0].endswith("MISS")
    assert out[1].startswith("ivory: 7 fresh images, answered ")


def _taught(folder: str):
    """A profile taught as :func:`evaluate_real` teaches it (two devils, two 3s)."""
    import shutil
    import tempfile

    from controller.camera.calibrate import calibrate

    labels = json.loads((REAL / folder / "labels.json").read_text())
    names = sorted(labels)
    teach = [n for n in names if labels[n] == "devil"][:2] + [n for n in names if labels[n] == 3][
        :2
    ]
    with tempfile.TemporaryDirectory() as tmp:
        for name in teach:
            (Path(tmp) / str(labels[name])).mkdir(exist_ok=True)
            shutil.copy(REAL / folder / name, Path(tmp) / str(labels[name]) / name)
        return calibrate(Path(tmp))


@pytest.mark.parametrize(("frame", "face"), [("f4-5.jpg", 4), ("f5-1.jpg", 5)])
def test_a_small_real_die_found_by_its_pips_is_read(frame, face):
    """colour-dice-tray: a small white die on the light tray, its outline lost against it, is
    found by its group of pips. Its pips lie about a fifth of the taught die's side from their
    middle (a smaller die than the taught one, its pips near the centre): a 4 and a 5 were read
    until the least reach of every group became 0.21, a bar meant for a 2's two pips."""
    from controller.camera.calibrate import load_image
    from controller.camera.reader import read_face

    profile = _taught("colour-dice-tray")
    assert read_face(load_image(REAL / "colour-dice-tray" / frame), profile).face == face


@pytest.mark.parametrize(
    ("frame", "face"), [("f3-2.jpg", 3), ("f4-2.jpg", 4), ("f4-3.jpg", 4), ("f4-4.jpg", 4)]
)
def test_a_real_die_shot_at_a_slant_is_read_from_the_pips_in_its_outline(frame, face):
    """colour-dice-tray: a die shot at a slant, its outline taking in a side face, so that its
    pips lie to one side of the outline's centre ("one lost?") or make no layout there. The
    top is put on the pips found in the outline (``pipgrid.square_on_pips``) and must read as
    that many pips, round, of one shade (docs/camera.md, *A die shot at a slant*)."""
    from controller.camera.calibrate import load_image
    from controller.camera.reader import read_face

    profile = _taught("colour-dice-tray")
    assert read_face(load_image(REAL / "colour-dice-tray" / frame), profile).face == face
