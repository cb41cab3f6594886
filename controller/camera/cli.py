"""``diablotin faces calibrate | read | evaluate`` (needs the [camera] extra: OpenCV, numpy).

Exit codes: 0 fine, 1 a target missed (evaluate), 2 bad input (a folder, a profile).
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path
from typing import Any

from ..cli import fail, say
from ..games.base import Said
from .calibrate import CalibrationError, calibrate, load_image
from .profile import DEVIL, ProfileError, face_from_name, load_profile
from .reader import read_face
from .render import DEV_STYLES, FACES, HELD_OUT, STYLES, render, write_dataset, write_image


def cmd_calibrate(source: str, output: str) -> int:
    try:
        profile = calibrate(Path(source))
    except CalibrationError as exc:
        fail(exc)
        return 2
    profile.save(Path(output))
    written = Said(
        "profile written to {output} ({images} photos; sure of faces {faces}; "
        "the other numbers are counted by their pips)",
        output=str(output),
        images=profile.images,
        faces=", ".join(profile.faces_seen),
    )
    print(say(written))
    return 0


def cmd_read(profile_path: Path, images: list[str]) -> int:
    try:
        profile = load_profile(profile_path)
    except ProfileError as exc:
        fail(exc)
        return 2
    for name in images:
        line: dict[str, Any] = {"image": name}
        try:
            result = read_face(load_image(Path(name)), profile)
        except ValueError as exc:
            line |= {"face": None, "confidence": 0.0, "error": str(exc)}
        else:
            line |= result.as_json()
        print(json.dumps(line), flush=True)
    return 0


def evaluate(style: str, fresh_per_face: int, seed: int, workdir: Path) -> dict[str, Any]:
    """Calibrate on 6 renders per face of ``style``, then read ``fresh_per_face`` new renders
    per face (written as JPEG and read back). Returns the counts and the confidences."""
    cal = workdir / f"{style}-calibration"
    write_dataset(cal, STYLES[style], 6, seed)
    profile = calibrate(cal)
    rng = random.Random(seed + 1)
    results: list[tuple[int | str, int | str | None, float]] = []
    times: list[float] = []
    path = workdir / "fresh.jpg"
    for n in range(fresh_per_face * len(FACES)):
        face = FACES[n % len(FACES)]
        write_image(path, render(STYLES[style], face, rng), rng.randint(60, 92))
        image = load_image(path)
        started = time.perf_counter()
        read = read_face(image, profile)
        times.append((time.perf_counter() - started) * 1000)
        results.append((face, read.face, read.confidence))
    answered = [(t, f, c) for t, f, c in results if f is not None]
    right = sum(1 for t, f, _ in answered if t == f)
    crossed = sum(1 for t, f, _ in answered if (t == DEVIL) != (f == DEVIL))
    auto = [(t, f) for t, f, c in answered if c >= profile.auto_threshold]
    times.sort()
    return {
        "style": style,
        "images": len(results),
        "answered": len(answered),
        "right": right,
        "devil_number_confusions": crossed,
        "auto": len(auto),
        "auto_wrong": sum(1 for t, f in auto if t != f),
        "auto_threshold": profile.auto_threshold,
        "worst_wrong_confidence": max((c for t, f, c in answered if t != f), default=None),
        "read_ms_p50": times[len(times) // 2],
        "read_ms_max": times[-1],
    }


def cmd_evaluate(styles: list[str], per_face: int, seed: int) -> int:
    missed = False
    with tempfile.TemporaryDirectory(prefix="diablotin-faces-") as tmp:
        for style in styles:
            r = evaluate(style, per_face, seed, Path(tmp))
            ok = (
                r["answered"] >= 0.95 * r["images"]
                and r["right"] >= 0.99 * r["answered"]
                and r["devil_number_confusions"] == 0
            )
            missed |= not ok
            held = " (held out)" if style == HELD_OUT else ""
            print(
                f"{style}{held}: {r['images']} fresh images, answered {r['answered']} "
                f"({r['answered'] / r['images']:.1%}), right {r['right']} "
                f"({r['right'] / max(1, r['answered']):.2%}), devil/number confusions "
                f"{r['devil_number_confusions']}; auto-journal (confidence >= "
                f"{r['auto_threshold']}): {r['auto']} reads, {r['auto_wrong']} wrong "
                f"(most confident wrong read: {r['worst_wrong_confidence']}); "
                f"read p50 {r['read_ms_p50']:.1f} ms, max {r['read_ms_max']:.1f} ms"
                f"  {'ok' if ok else 'MISS'}",
                flush=True,
            )
    return 1 if missed else 0


def main(argv: list[str], default_profile: Path | None = None) -> int:
    parser = argparse.ArgumentParser(prog="diablotin faces", description=__doc__)
    sub = parser.add_subparsers(dest="do", required=True)
    p = sub.add_parser("calibrate", help="make a profile from DIR/1 … DIR/6, DIR/devil")
    p.add_argument("dir", help="a folder of photos, one subfolder per face (1-6, devil)")
    p.add_argument("-o", "--output", required=True, help="the profile file to write")
    p = sub.add_parser("read", help="read the face in each image: one JSON line each")
    p.add_argument("--profile", default=None, help="default: the data dir's profile")
    p.add_argument("images", nargs="+", help="JPEG or PNG files")
    p = sub.add_parser("evaluate", help="calibrate on 6 renders per face, read fresh ones")
    p.add_argument(
        "--style", action="append", choices=sorted(STYLES), help="dice style (default: every one)"
    )
    p.add_argument("--per-face", type=int, default=60, help="fresh images per face (60: 420)")
    p.add_argument("--seed", type=int, default=1, help="first seed of the renders")
    args = parser.parse_args(argv)
    if args.do == "calibrate":
        return cmd_calibrate(args.dir, args.output)
    if args.do == "read":
        profile = Path(args.profile) if args.profile else default_profile
        if profile is None:
            fail(Said("give --profile PROFILE"))
            return 2
        return cmd_read(profile, args.images)
    return cmd_evaluate(args.style or [HELD_OUT, *DEV_STYLES], args.per_face, args.seed)


__all__ = ["DEVIL", "face_from_name", "main"]
