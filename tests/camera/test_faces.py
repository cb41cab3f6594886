"""The face reader, calibration and ``diablotin faces`` on real image files (real OpenCV)."""

from __future__ import annotations

import json
import random

import cv2
import numpy as np
import pytest

from controller.camera.calibrate import CalibrationError, calibrate
from controller.camera.cli import evaluate
from controller.camera.profile import load_profile
from controller.camera.reader import read_face
from controller.camera.render import DEV_STYLES, FACES, HELD_OUT, STYLES, render, write_image
from controller.cli import main


@pytest.mark.parametrize("style", DEV_STYLES)
def test_the_reader_reads_development_styles(profiles, style, tmp_path):
    rng = random.Random(5)
    answered = right = 0
    for n in range(35):
        face = FACES[n % 7]
        path = tmp_path / f"{n}.png"
        write_image(path, render(STYLES[style], face, rng))
        result = read_face(cv2.cvtColor(cv2.imread(str(path)), cv2.COLOR_BGR2RGB), profiles[style])
        if result.face is not None:
            answered += 1
            right += result.face == face
            assert (result.face == "devil") == (face == "devil")
    assert answered >= 28 and right == answered  # 80 %: the measured figure is in the docs


def test_held_out_style_calibrated_on_6_per_face_reads_fresh_images(tmp_path):
    """A style the reader was never tuned on (smaller than the 210 of docs). The target is
    95 % coverage; the shape-based reader measures about 90 % (docs/camera.md), so this
    checks the part it meets: no wrong answer, and coverage well above the colour reader's
    89.5 % on unseen dice is not claimed here."""
    r = evaluate(HELD_OUT, 15, seed=41, workdir=tmp_path)  # 105 fresh JPEG renders
    assert r["images"] == 105
    assert r["answered"] >= 0.8 * r["images"]
    assert r["right"] == r["answered"]
    assert r["devil_number_confusions"] == 0
    assert r["auto_wrong"] == 0


def test_calibrate_then_read_on_the_command_line(calibration_dirs, tmp_path, capsys):
    profile = tmp_path / "p.json"
    assert main(["faces", "calibrate", str(calibration_dirs[HELD_OUT]), "-o", str(profile)]) == 0
    assert load_profile(profile).images == 42
    assert json.loads(profile.read_text())["format"] == "diablotin-faces/2"
    rng = random.Random(9)
    four, devil = tmp_path / "four.jpg", tmp_path / "devil.png"
    write_image(four, render(STYLES[HELD_OUT], 4, rng))
    write_image(devil, render(STYLES[HELD_OUT], "devil", rng))
    empty = tmp_path / "empty.jpg"
    empty.write_bytes(b"")
    corrupt = tmp_path / "corrupt.jpg"
    corrupt.write_bytes(four.read_bytes()[:200])
    grey = tmp_path / "grey.png"
    cv2.imwrite(str(grey), np.full((480, 640), 128, np.uint8))
    deep = tmp_path / "deep.png"
    cv2.imwrite(str(deep), np.full((480, 640, 3), 30000, np.uint16))
    huge = tmp_path / "huge.png"
    cv2.imwrite(str(huge), np.zeros((4000, 6000, 3), np.uint8))
    capsys.readouterr()
    names = [four, devil, empty, corrupt, grey, deep, huge, tmp_path, tmp_path / "none.jpg"]
    assert main(["faces", "read", "--profile", str(profile), *map(str, names)]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [x["image"] for x in lines] == [str(n) for n in names]
    assert lines[0]["face"] == 4 and 0 < lines[0]["confidence"] <= 1
    assert lines[1]["face"] == "devil"
    for line in lines[2:]:
        assert line["face"] is None
    assert "error" in lines[2] and "error" in lines[3] and "error" in lines[7]
    assert "error" not in lines[4] and "error" not in lines[5] and "error" not in lines[6]


def test_a_bad_calibration_folder_says_why_and_exits_2(calibration_dirs, tmp_path, capsys):
    import shutil

    out = tmp_path / "p.json"
    assert main(["faces", "calibrate", str(tmp_path / "nowhere"), "-o", str(out)]) == 2
    assert "not a folder" in capsys.readouterr().err
    layout = tmp_path / "layout"
    shutil.copytree(calibration_dirs[HELD_OUT], layout)
    shutil.rmtree(layout / "devil")
    assert main(["faces", "calibrate", str(layout), "-o", str(out)]) == 2
    assert "no photos of the devil" in capsys.readouterr().err
    (layout / "seven").mkdir()
    shutil.copytree(calibration_dirs[HELD_OUT] / "devil", layout / "devil")
    assert main(["faces", "calibrate", str(layout), "-o", str(out)]) == 2
    assert "unknown subfolder(s) seven" in capsys.readouterr().err
    (layout / "seven").rmdir()
    (layout / "3" / "000.jpg").write_bytes(b"not a jpeg")
    assert main(["faces", "calibrate", str(layout), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "000.jpg: cannot read it" in err
    assert not out.exists()
    with pytest.raises(CalibrationError):
        calibrate(layout)


def test_read_without_a_profile_exits_2(tmp_path, capsys):
    assert main(["--data-dir", str(tmp_path), "faces", "read", str(tmp_path / "x.jpg")]) == 2
    assert "no such profile" in capsys.readouterr().err


def test_without_the_camera_extra_faces_and_camera_say_what_to_install(tmp_path):
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['cv2'] = None\n"
        "import controller.cli, controller.service, web\n"
        "from controller.cli import main\n"
        f"a = main(['--data-dir', {str(tmp_path)!r}, 'faces', 'read', 'x.jpg'])\n"
        f"b = main(['--data-dir', {str(tmp_path)!r}, 'serve', '--camera', 'simulated'])\n"
        "print(a, b)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == ["2", "2"], done.stderr
    assert done.stderr.count("install diablotin[camera]") == 2


def test_the_base_modules_do_not_import_opencv():
    import subprocess
    import sys

    code = "import sys, controller.cli, controller.service; print('cv2' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "False", done.stderr


def test_the_camera_config_keys_are_checked(tmp_path):
    from controller.config import ConfigError, load_config

    path = tmp_path / "c.toml"
    path.write_text('[camera]\nkind = "usb:1"\nread_s = 2\nlens_deg = 78\n')
    config = load_config(path)
    assert (config.camera.kind, config.camera.read_s) == ("usb:1", 2.0)
    assert config.camera.lens_deg == 78.0
    bad_values = ('kind = "webcam"', "read_s = 0", 'style = "gold"', "focus = 1")
    for bad in (*bad_values, "lens_deg = 10", "lens_deg = 180", 'lens_deg = "wide"'):
        path.write_text(f"[camera]\n{bad}\n")
        with pytest.raises(ConfigError, match="camera"):
            load_config(path)
