"""Dice seen through the box's lens rather than from straight above everywhere (issue 22,
"in play"): off the frame's centre a die lying flat shows the side faces that face the lens
beside its top, and its outline is as long as a die on its edge's (docs/camera.md, *Seen
through the lens*)."""

from __future__ import annotations

import math
import random

import cv2
import numpy as np
import pytest

from controller.camera.calibrate import calibrate
from controller.camera.on_edge import LENS_F, focal_length, tops_seen_at_an_angle
from controller.camera.reader import read_face
from controller.camera.render import (
    BACKGROUNDS,
    STYLES,
    Scene,
    jpeg_roundtrip,
    render,
    render_leaning,
    render_oblique,
    write_dataset,
)
from tests.camera.conftest import evaluated_frame


def _off_axis(n: int, rng: random.Random, near: float = 150, far: float = 260) -> Scene:
    """A die ``near``-``far`` pixels from the frame's centre (by default its side faces
    show 0.3-0.53 of a side through the box's lens)."""
    turn = 2 * math.pi * n / 12 + rng.uniform(0, 0.4)
    reach = rng.uniform(near, far)
    centre = (320 + reach * math.cos(turn), 240 + 0.75 * reach * math.sin(turn))
    return Scene(rng.randint(80, 100), centre, rng.uniform(0, 360), "felt", rng.getrandbits(32))


def _side_faces(scene: Scene) -> np.ndarray:
    """Where the lens shows more of the die at ``scene`` than a view from straight above."""
    through = render_oblique(STYLES["ivory"], 4, random.Random(4), scene)
    above = render_oblique(STYLES["ivory"], 4, random.Random(4), scene, f=1e12)
    return np.asarray(np.abs(through.astype(np.int16) - above).max(axis=2) > 25)


def test_through_the_lens_the_side_faces_show_between_the_top_and_the_centre():
    # a die right of the centre: its top spans 515-605; its side face, 90 x 240 / 493 = 44
    # pixels wide, lies to its left, towards the centre
    rows, columns = np.nonzero(_side_faces(Scene(90, (560.0, 240.0), 0.0, "grey", 7)))
    assert 468 <= columns.min() <= 476 and 510 <= columns.max() <= 518
    assert 192 <= rows.min() <= 200 and 280 <= rows.max() <= 288  # the die's height
    assert not _side_faces(Scene(90, (320.0, 240.0), 0.0, "grey", 7)).any()  # none at the centre


def test_a_slate_3_on_a_top_put_beside_it_is_not_read_as_a_2(tmp_path):
    """Colour cast, slate, frame 9 of ``faces evaluate --seed 273`` (held out; found in
    session 23, read so before and after that session's change): a 3 whose outline, grown
    by the table's cast, read as no face; the top put in it as if the lens saw its side
    faces lay off the die towards one end and held the middle pip and the other end only,
    as close together as a 2's pips are not: read as a 2."""
    image, face, profile = evaluated_frame(tmp_path, "slate", 273, "colour cast", 9)
    assert face == 3
    assert read_face(image, profile).face in (None, 3)


def _three_with_a_highlight_on_an_end_pip(k: int) -> np.ndarray:
    """An ivory 3 with a lamp's highlight on one end pip (random.Random(k) draws it): the
    ``glare`` condition puts its spot within 0.3 die sides of the centre, this one on the
    end pip, 0.35 away (found by an adversarial review, session 24)."""
    rng = random.Random(k)
    side, turn = rng.randint(78, 104), rng.uniform(0, 360)
    centre = (rng.uniform(150, 490), rng.uniform(120, 360))
    scene = Scene(side, centre, turn, rng.choice(BACKGROUNDS), rng.getrandbits(32))
    frame = render(STYLES["ivory"], 3, rng, scene=scene).astype(np.float32)
    jx, jy = 0.25 + rng.uniform(-0.04, 0.04), 0.25 + rng.uniform(-0.04, 0.04)
    t = math.radians(turn)
    dx = side * (jx * math.cos(t) + jy * math.sin(t))
    dy = side * (-jx * math.sin(t) + jy * math.cos(t))
    r = side * rng.uniform(0.08, 0.16)
    y, x = np.mgrid[0:480, 0:640].astype(np.float32)
    spot = np.exp(-((x - centre[0] - dx) ** 2 + (y - centre[1] - dy) ** 2) / (2 * r * r))
    frame += 230 * spot[:, :, None]
    return jpeg_roundtrip(np.clip(frame, 0, 255).astype(np.uint8), rng.randint(60, 92))


@pytest.mark.xfail(
    strict=True,
    reason="known: a 3 with a highlight on an end pip is read as a 2 on a top put beside it "
    "(docs/camera.md, session 24); the code before session 24 read it so too",
)
def test_a_3_with_a_highlight_on_an_end_pip_is_not_read_as_a_2(tmp_path):
    """The lens path's top (``tops_seen_at_an_angle``) put off the die holds the middle pip
    and the other end; the third pip that ``pipgrid.third_in_line`` looks for is under the
    highlight, paled, so the 2 stands. Ivory, 3 of 40 such frames (k 14, 25, 37)."""
    write_dataset(tmp_path, STYLES["ivory"], 6, 215)
    profile = calibrate(tmp_path)
    assert read_face(_three_with_a_highlight_on_an_end_pip(14), profile).face in (None, 3)


def test_the_top_of_a_die_seen_at_an_angle_is_the_outline_less_its_side_face():
    side = 90.0
    # a die right of the centre: its side face shows to its left, 90 x 240 / 493 wide
    strip = side * 240 / LENS_F
    outline = ((560.0 - strip / 2, 240.0), (side + strip, side), 0.0)
    (top,) = tops_seen_at_an_angle([outline], (480, 640), side)
    assert top[0][0] == pytest.approx(560.0, abs=3) and top[0][1] == pytest.approx(240.0, abs=1)
    # (d is worked out at the outline's centre, a little nearer the frame's centre than the
    # top's: the top comes out a few pixels long)
    assert sorted(top[1]) == pytest.approx([side, side], abs=5)
    # the same outline at the frame's centre, or with no calibrated size: no top
    centred = ((320.0, 240.0), (side + strip, side), 0.0)
    assert tops_seen_at_an_angle([centred], (480, 640), side) == []
    assert tops_seen_at_an_angle([outline], (480, 640), None) == []


@pytest.mark.parametrize("style", ["ivory", "ruby"])
def test_a_flat_die_off_the_lens_axis_is_read_and_never_wrong(profiles, style):
    rng = random.Random(31)
    reads = []
    for n in range(12):
        face = (2, 3, 4, 5, 6, "devil")[n % 6]
        frame = render_oblique(STYLES[style], face, rng, _off_axis(n, rng))
        reads.append((face, read_face(jpeg_roundtrip(frame, 85), profiles[style]).face))
    assert [r for r in reads if r[1] is not None and r[1] != r[0]] == []
    # the reader before read 3 of ivory's 12 and 7 of ruby's (mostly "a die on its edge");
    # now 9 and 11
    assert sum(1 for face, read in reads if read == face) >= 8, reads


# Dice on their edge whose outline the lens's geometry fits: the square kept as their top cut
# pips off (a first version read these; docs/camera.md, *Seen through the lens*).
ON_EDGE_FITTING_A_TOP = [("ivory", 9104, 5), ("ebony", 9104, 5), ("ivory", 9025, 3)]
# The sweep's own draws (top 1 + seed mod 6) found two more the first commit read: a 4 up
# as a 6 and a 2 up as a 3.
ON_EDGE_FITTING_A_TOP += [("ivory", 9009, 4), ("ivory", 9025, 2)]


@pytest.mark.parametrize("shade", [0.7, 1.0])
@pytest.mark.parametrize(("style", "seed", "top"), ON_EDGE_FITTING_A_TOP)
def test_a_die_on_its_edge_whose_outline_fits_a_top_seen_at_an_angle_is_not_read(
    profiles, style, seed, top, shade
):
    """``shade`` 1.0: both faces lit alike (a lamp straight above), so no seam of shade
    shows; the pips of a face tilted 38-52 degrees are not round (ivory 9009 and 9025 were
    read as a 6 and a 3 so, after the seam check)."""
    frame = render_leaning(STYLES[style], top, random.Random(seed), shade)
    assert read_face(jpeg_roundtrip(frame, 85), profiles[style]).face is None


def test_the_reader_takes_the_lens_it_is_told_of(profiles):
    """A wider webcam (80° across) shows a die 230 pixels off its axis with a side face 0.6
    of a side wide: the reader told of that lens cuts the top out where it is; told of the
    box's default lens (66°) it expects 0.47, and the top it would cut is mostly no die's
    (0 of 12 read with sizes 0.92-1.09; 3 since 0.8-1.25: a top 0.13 of a side long; 5
    since session 22, when a top is also put on the pips found in an outline, lens or not)."""
    wide = focal_length(80, 640)
    matched, default = [], []
    for k in range(12):
        scene = Scene(90, (550.0, 240.0), 7.0 * k, "felt", k)
        frame = render_oblique(STYLES["ivory"], 4, random.Random(k), scene, f=wide)
        frame = jpeg_roundtrip(frame, 85)
        matched.append(read_face(frame, profiles["ivory"], lens_deg=80).face)
        default.append(read_face(frame, profiles["ivory"]).face)
    assert set(matched) <= {4, None} and set(default) <= {4, None}
    assert matched.count(4) >= 7 and default.count(4) <= 5, (matched, default)


def test_a_top_across_the_seam_of_two_faces_is_two_shades_and_pips_do_not_count():
    from controller.camera.layout import COVER, PATCH
    from controller.camera.on_edge import ONE_SHADE, flat_top, shade_step
    from controller.camera.pips import Pips

    face = np.full((PATCH, PATCH, 3), 220, np.uint8)
    centres = np.array([[-0.25, -0.25], [0.25, 0.25]], np.float32)  # a 2's pips, black
    for x, y in centres * PATCH / COVER + PATCH / 2:
        cv2.circle(face, (round(float(x)), round(float(y))), 4, (10, 10, 10), -1)
    two = Pips(centres, np.array([0.02, 0.02], np.float32), 2, 0.0)
    assert shade_step(face, two) < 0.02  # the pips are left out
    seam = face.copy()
    seam[:, 30:] = (seam[:, 30:] * 0.7).astype(np.uint8)  # a shaded face from 30 on
    assert shade_step(seam, two) > ONE_SHADE
    assert not flat_top(seam, 2, two)
    assert flat_top(seam.transpose(1, 0, 2), "devil", two)  # a devil's drawing: not judged
    assert not flat_top(np.ascontiguousarray(seam.transpose(1, 0, 2)), 2, two)  # either way


def test_faces_evaluate_has_a_row_of_dice_on_their_edge_where_any_answer_is_a_miss(capsys):
    from controller.camera.cli import _edge_line, main

    assert main(["evaluate", "--style", "ivory", "--per-face", "3", "--light", "on its edge"]) in (
        0,
        1,
    )
    row = capsys.readouterr().out.splitlines()[-1]
    assert row.startswith("on its edge, ivory: 7 dice on their edge, answered ")
    answered = int(row.split("answered ")[1].split()[0])
    assert row.endswith("ok" if answered == 0 else "MISS")
    tally = {"images": 70, "answered": 1, "right": 0, "read_ms_p50": 9.0, "read_ms_p99": 20.0}
    text, ok = _edge_line("on its edge, ruby", tally, 0.9)
    assert not ok and "answered 1 " in text and "1 of them not the face up" in text
    assert _edge_line("x", {**tally, "answered": 0, "right": 0}, 0.9)[1]


def test_the_pips_of_a_tilted_face_are_not_round():
    from controller.camera.layout import COVER, PATCH
    from controller.camera.on_edge import ROUND_PIPS, flat_top, pip_roundness
    from controller.camera.pips import Pips

    centres = np.array([[-0.25, -0.25], [0.0, 0.0], [0.25, 0.25]], np.float32)  # a 3
    three = Pips(centres, np.full(3, 0.025, np.float32), 3, 0.0)
    flat, tilted = (np.full((PATCH, PATCH, 3), 220, np.uint8) for _ in range(2))
    for x, y in centres * PATCH / COVER + PATCH / 2:
        at = (round(float(x)), round(float(y)))
        cv2.circle(flat, at, 5, (10, 10, 10), -1)
        cv2.ellipse(tilted, (at, (10, 7), 30), (10, 10, 10), -1)  # cos 45 degrees: 0.7 round
    assert pip_roundness(flat, three) > 0.95
    assert pip_roundness(tilted, three) < ROUND_PIPS
    assert flat_top(flat, 3, three) and not flat_top(tilted, 3, three)


def _on_its_edge_frame(folder, style: str, seed: int, index: int):
    """Frame ``index`` of ``faces evaluate --seed SEED --light "on its edge"`` for ``style``
    (as ``controller.camera.cli.evaluate`` draws it), its face up and the run's profile."""
    from controller.camera.calibrate import calibrate
    from controller.camera.render import FACES, random_scene, write_dataset

    write_dataset(folder, STYLES[style], 6, seed)
    profile = calibrate(folder)
    rng = random.Random(seed + 1)
    for n in range(index + 1):
        face = FACES[n % len(FACES)]
        random_scene(rng)
        frame = render_leaning(STYLES[style], face, rng, rng.uniform(0.6, 1.0))
        image = jpeg_roundtrip(frame, rng.randint(60, 92))
    return image, face, profile


@pytest.mark.parametrize(("seed", "index", "up"), [(211, 66, 4), (267, 14, 1)])
def test_a_die_on_its_edge_on_a_table_of_its_colour_is_not_read(tmp_path, seed, index, up):
    """Ruby on the red planks or the check cloth, from the new row: seed 211 (tuning), a 4 up
    read as a 6 from a square on the pips of both faces (a group of pips: they are not
    round); held-out seed 267, a 1 up whose face was lost against the planks, its side
    face's outline 82 x 66 read as a 6 by the rules and, once they refused it (not square,
    pips not round), by the networks."""
    image, face, profile = _on_its_edge_frame(tmp_path, "ruby", seed, index)
    assert face == up
    assert read_face(image, profile).face is None


@pytest.mark.parametrize("style", ["ivory", "ruby"])
def test_a_flat_1_off_the_lens_axis_is_read(profiles, style):
    """A 1 seen at an angle was left to the referee (a die on its edge's 5 with its corners
    cut off read as a 1); its pip is round only on a face seen from above, so it is read."""
    rng = random.Random(41)
    reads = []
    for n in range(8):
        frame = render_oblique(STYLES[style], 1, rng, _off_axis(n, rng))
        reads.append(read_face(jpeg_roundtrip(frame, 85), profiles[style]).face)
    assert set(reads) <= {1, None}, reads
    assert reads.count(1) >= 5, reads
