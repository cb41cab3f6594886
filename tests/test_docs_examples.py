"""Every example in the docs is a file under docs/examples/ and runs here: the blocks the docs
show are those files (a ``<!-- example: docs/examples/NAME -->`` line above the block), configs
load from anywhere, game records import through the real importer, the tail-tile record scores,
and the shell sessions run against a temporary data dir (the API one against a real server).
Every file the docs name (``something.md``) exists in the repository."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from controller import cli
from controller.box import protocol
from controller.config import DEFAULT_PINS, Config, load_config
from controller.games.registry import names as game_kinds

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "docs" / "examples"
DOCS = sorted([*REPO.glob("docs/*.md"), REPO / "README.md", *REPO.glob("*/README.md")])
GAMES = sorted(EXAMPLES.glob("game-*.json"))
INCLUDED = re.compile(r"<!-- example: (docs/examples/[\w.-]+) -->\n```\w*\n(.*?)```", re.S)


def _included() -> list[tuple[str, str, str]]:
    return [
        (doc.relative_to(REPO).as_posix(), found[1], found[2])
        for doc in DOCS
        for found in INCLUDED.finditer(doc.read_text(encoding="utf-8"))
    ]


@pytest.mark.parametrize("doc, name, block", _included(), ids=lambda v: str(v)[:40])
def test_the_block_in_the_doc_is_the_example_file(doc: str, name: str, block: str) -> None:
    assert block == (REPO / name).read_text(encoding="utf-8"), f"{doc} shows an old {name}"


def test_every_example_file_is_in_the_docs() -> None:
    text = "\n".join(doc.read_text(encoding="utf-8") for doc in DOCS)
    for path in sorted(EXAMPLES.iterdir()):
        assert f"examples/{path.name}" in text, f"no doc shows or links {path.name}"


def test_every_example_file_is_run_here() -> None:
    source = Path(__file__).read_text(encoding="utf-8")
    for path in sorted(EXAMPLES.iterdir()):
        assert f'"{path.name}"' in source or path in GAMES, f"nothing runs {path.name}"


# -- the tail-tile record ------------------------------------------------------------------


def test_the_tail_tile_record_scores(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["tails", "score", str(EXAMPLES / "tails-record.txt")]) == 0, (
        capsys.readouterr().err
    )
    result = json.loads(capsys.readouterr().out)
    assert sorted(result) == ["devils", "totals"]
    assert len(result["devils"]) == 18 and len(result["totals"]) == 2


def test_a_pass_where_a_card_fits_is_refused_as_the_doc_says(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = (EXAMPLES / "tails-record.txt").read_text(encoding="utf-8").splitlines()
    record = tmp_path / "FILE"
    record.write_text("\n".join([*lines[:-1], "pass"]) + "\n", encoding="utf-8")
    assert cli.main(["tails", "score", str(record)]) == 2
    message = capsys.readouterr().err.strip().replace(str(record), "FILE")
    assert f"`{message}`" in (REPO / "docs" / "rules-tails.md").read_text(encoding="utf-8")


# -- the config ----------------------------------------------------------------------------


def test_the_config_example_works_copied_anywhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Copied to a folder of its own, away from the repository, with ``~`` expanded: it is
    the defaults written out."""
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    monkeypatch.chdir(tmp_path)
    copy = tmp_path / "somewhere" / "else" / "diablotin.toml"
    copy.parent.mkdir(parents=True)
    copy.write_bytes((EXAMPLES / "diablotin.toml").read_bytes())
    loaded = load_config(copy)
    assert loaded.data_dir == home / ".local" / "share" / "diablotin"
    assert loaded.box.pins == DEFAULT_PINS and loaded.box.pins.is_file()
    assert dataclasses.replace(loaded, source=None) == Config()


# -- exported games ------------------------------------------------------------------------


def test_there_is_an_exported_game_of_every_kind() -> None:
    assert sorted(json.loads(p.read_text())["kind"] for p in GAMES) == sorted(game_kinds())


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.name)
def test_the_exported_game_imports_through_the_real_importer(
    path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DIABLOTIN_CONFIG", raising=False)
    data = json.loads(path.read_text(encoding="utf-8"))
    data_dir = ["--data-dir", str(tmp_path)]
    assert cli.main([*data_dir, "replay", str(path), "--import"]) == 0, capsys.readouterr().err
    out, err = capsys.readouterr()
    assert json.loads(out)  # the final view
    assert err.strip() == "stored as game 1"
    assert cli.main([*data_dir, "export", "1"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["kind"] == data["kind"] and again["options"] == data["options"]
    assert [e["action"] for e in again["entries"]] == [e["action"] for e in data["entries"]]
    assert (again["finished"] is None) == (data["finished"] is None)


# -- shell sessions ------------------------------------------------------------------------

PIN = "24680"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _env(tmp_path: Path) -> dict[str, str]:
    """A config of our own (data dir in ``tmp_path``, a known PIN), ``diablotin`` on PATH."""
    config = tmp_path / "diablotin.toml"
    config.write_text(
        f'[server]\nhost = "127.0.0.1"\nport = {_free_port()}\nreferee_pin = "{PIN}"\n'
        f'[data]\ndir = "{tmp_path / "data"}"\n'
    )
    bin_dir = Path(sys.executable).parent
    return dict(os.environ, DIABLOTIN_CONFIG=str(config), PATH=f"{bin_dir}:{os.environ['PATH']}")


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_the_api_session_runs_against_a_real_server(tmp_path: Path) -> None:
    env = _env(tmp_path)
    port = load_config(Path(env["DIABLOTIN_CONFIG"])).server.port
    box = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "serve"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(f"{box}/api/games", timeout=2).close()
                break
            except OSError:
                assert server.poll() is None and time.monotonic() < deadline, "no server"
                time.sleep(0.1)
        work = tmp_path / "work"
        work.mkdir()
        result = subprocess.run(
            ["sh", str(EXAMPLES / "api.sh")],
            cwd=work,
            env=dict(env, BOX=box, PIN=PIN),
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        server.terminate()
        server.communicate(timeout=20)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "game 1 started" in result.stdout and "event: " in result.stdout
    saved = json.loads((work / "game-1.json").read_text())
    assert saved["format"] == "diablotin-game/1"
    assert [e["action"]["cell"] for e in saved["entries"]] == ["14n"]


def _sh(
    example: str, cwd: Path, env: dict[str, str], timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    """Run the shell example ``docs/examples/<example>`` in ``cwd``; its output as text."""
    return subprocess.run(
        ["sh", str(EXAMPLES / example)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_the_cli_session_runs_on_a_temporary_data_dir(tmp_path: Path) -> None:
    env = _env(tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    result = _sh("cli.sh", work, env, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert load_config(work / "effective.toml").data_dir == tmp_path / "data"
    assert PIN in result.stdout and "RESULT: PASS" in result.stdout
    assert re.search(r"^\s*1\s+Devil by the Tail\s+finished\s", result.stdout, re.M), result.stdout
    exported = json.loads((work / "game-1.json").read_text())
    original = json.loads((EXAMPLES / "game-tails.json").read_text())
    assert [e["action"] for e in exported["entries"]] == [e["action"] for e in original["entries"]]
    assert "mpremote connect /dev/ttyACM0" in result.stdout


# -- references ----------------------------------------------------------------------------

SOURCES = [
    *DOCS,
    *REPO.glob("controller/**/*.py"),
    *REPO.glob("firmware/diablotin_fw/*.py"),
    *REPO.glob("web/templates/**/*.html"),
    *REPO.glob("deploy/*"),
    *REPO.glob("scripts/*"),
]
MD_NAME = re.compile(r"(?<![\w/.@-])((?:[\w-]+/)*[\w-]+\.md)\b")
OUTSIDE = ("spec/", "shared/")  # the design spec the rules pages cite as their source


def test_every_markdown_file_named_exists() -> None:
    """``hardware.md`` and the like: a name in the docs or the code is a file of the repo,
    relative to the repository, the naming file's folder or docs/."""
    missing = []
    for source in SOURCES:
        for found in MD_NAME.finditer(source.read_text(encoding="utf-8", errors="replace")):
            name = found[1]
            if name.startswith(OUTSIDE) or "<" in name:
                continue
            if not any((base / name).is_file() for base in (REPO, source.parent, REPO / "docs")):
                missing.append(f"{source.relative_to(REPO)}: {name}")
    assert missing == []


def test_the_frame_decodes_with_the_wire_code_host_and_pico_share() -> None:
    line = (EXAMPLES / "frame.txt").read_bytes()
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    message = protocol.wire.decode(line[:-1], protocol.wire.TO_PICO)
    assert message == {"t": "fire", "s": 7, "k": 2, "ms": 30}
    assert protocol.wire.encode(message) == line


def test_the_camera_section_loads(tmp_path: Path) -> None:
    copy = tmp_path / "diablotin.toml"
    copy.write_bytes((EXAMPLES / "camera.toml").read_bytes())
    camera = load_config(copy).camera
    assert (camera.kind, camera.profile) == ("picamera2", str(tmp_path / "faces.json"))


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="shellcheck is not installed")
def test_the_shell_examples_and_setup_scripts_pass_shellcheck() -> None:
    scripts = [*EXAMPLES.glob("*.sh"), *(REPO / "scripts" / n for n in ("setup", "serve", "test"))]
    done = subprocess.run(
        ["shellcheck", *map(str, scripts)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout


def test_the_sound_section_loads_and_the_table_is_what_the_box_says(tmp_path: Path) -> None:
    from controller.announce import sentence

    text = (REPO / "docs" / "sound.md").read_text(encoding="utf-8")
    block = re.search(r"```toml\n(.*?)```", text, re.S)
    assert block is not None
    copy = tmp_path / "diablotin.toml"
    copy.write_text(block.group(1), encoding="utf-8")
    config = load_config(copy)
    assert config.sound.speak is True and config.sound.language == "de"
    rows = {
        "the devil moves": ("say.devil", {"n": 12}),
        "a figure caught": ("say.capture", {"figure": ("figure", "green")}),
        "a player possessed": ("say.possessed", {"colour": ("teufel.colour", "blue")}),
    }
    for event, announcement in rows.items():
        line = next(line for line in text.splitlines() if line.startswith(f"| {event} |"))
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        assert cells[1:] == [sentence(lang, announcement) for lang in ("en", "fr", "de")]


def test_the_cli_speaks_the_languages_the_doc_shows(tmp_path: Path) -> None:
    doc = (REPO / "docs" / "translations.md").read_text(encoding="utf-8")
    block = doc.split("docs/examples/cli-languages.sh -->", 1)[1]
    printed = re.search(r"prints\n\n```text\n(.*?)```", block, re.S)
    assert printed, "translations.md shows what cli-languages.sh prints"
    env = {k: v for k, v in _env(tmp_path).items() if k not in ("LC_ALL", "LC_MESSAGES")}
    result = _sh("cli-languages.sh", tmp_path, env)
    assert "Traceback" not in result.stderr
    assert (result.stderr + result.stdout).splitlines() == printed[1].splitlines()
