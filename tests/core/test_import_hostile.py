"""Imports are all-or-nothing, and hostile export files get one clear line (issue 10, 4 + 13).

``diablotin replay FILE --import`` on each file of a corpus of hostile files: exit 2, one
line ``diablotin: FILE: reason`` on stderr, no traceback, and nothing stored.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from controller import cli
from controller.games.base import Refused
from controller.journal import EXPORT_FORMAT, MAX_EXPORT_BYTES, BadExport, Journal

GOOD_TAILS: dict[str, Any] = {
    "format": EXPORT_FORMAT,
    "kind": "tails",
    "title": "evening",
    "options": {"players": 2},
    "created": 1.0,
    "finished": None,
    "entries": [],
}


def export(**changes: Any) -> dict[str, Any]:
    return {**GOOD_TAILS, **changes}


def entry(action: Any, **extra: Any) -> dict[str, Any]:
    return {"seq": 1, "at": 2.0, "undo": False, "action": action, **extra}


def legal_first_move() -> dict[str, Any]:
    from controller.games.tails import TailsRules

    rules = TailsRules()
    return rules.legal_actions(rules.setup({"players": 2}))[0]


# name -> file content (bytes), or a callable making the path (directory, missing file).
CORPUS: dict[str, Any] = {
    "empty": b"",
    "whitespace": b"  \n\t ",
    "not-json": b"this is not json",
    "truncated-json": json.dumps(GOOD_TAILS).encode()[:-5],
    "json-list": b"[1, 2, 3]",
    "json-string": b'"diablotin"',
    "json-null": b"null",
    "format-missing": json.dumps({k: v for k, v in GOOD_TAILS.items() if k != "format"}).encode(),
    "format-int": json.dumps(export(format=1)).encode(),
    "kind-list": json.dumps(export(kind=["tails"])).encode(),
    "kind-unknown": json.dumps(export(kind="chess")).encode(),
    "kind-huge": json.dumps(export(kind="x" * 100_000)).encode(),
    "options-string": json.dumps(export(options="players=2")).encode(),
    "options-bad-value": json.dumps(export(options={"players": "two"})).encode(),
    "options-unknown": json.dumps(export(options={"players": 2, "colour": "red"})).encode(),
    "title-int": json.dumps(export(title=5)).encode(),
    "title-too-long": json.dumps(export(title="t" * 81)).encode(),
    "title-control": json.dumps(export(title="bad\u0007bell")).encode(),
    "title-bidi": json.dumps(export(title="abc\u202edcba")).encode(),
    "created-string": json.dumps(export(created="yesterday")).encode(),
    "finished-list": json.dumps(export(finished=[1])).encode(),
    "entries-object": json.dumps(export(entries={"1": {}})).encode(),
    "entry-string": json.dumps(export(entries=["place 14n"])).encode(),
    "entry-no-action": json.dumps(export(entries=[{"seq": 1}])).encode(),
    "action-list": json.dumps(export(entries=[entry(["place"])])).encode(),
    "action-no-type": json.dumps(export(entries=[entry({"cell": "14n"})])).encode(),
    "action-type-int": json.dumps(export(entries=[entry({"type": 3})])).encode(),
    "action-unknown-type": json.dumps(export(entries=[entry({"type": "teleport"})])).encode(),
    "action-huge-string": json.dumps(export(entries=[entry({"type": "x" * 5000})])).encode(),
    "undo-string": json.dumps(export(entries=[entry({"type": "undo"}, undo="yes")])).encode(),
    "at-string": json.dumps(export(entries=[entry({"type": "pass"}, at="noon")])).encode(),
    "at-nan": json.dumps(export(entries=[entry({"type": "pass"}, at=float("nan"))])).encode(),
    "number-too-big": json.dumps(export(created=12345)).encode().replace(b"12345", b"1" * 5000),
    "illegal-action": json.dumps(export(entries=[entry({"type": "pass"})])).encode(),
    "illegal-after-legal": json.dumps(
        export(entries=[entry(legal_first_move()), entry(legal_first_move())])
    ).encode(),
    "deep-nesting": b'{"format": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
    "deep-in-action": json.dumps(
        export(entries=[entry({"type": "pass", "x": [[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]})])
    ).encode(),
    "huge": json.dumps(export(title="x", pad="y" * (MAX_EXPORT_BYTES + 10))).encode(),
    "too-many-entries": json.dumps(
        export(entries=[{"action": {"type": "pass"}}] * 20_001)
    ).encode(),
    "non-utf8": b'{"format": "\xff\xfe\xfa"}',
    "utf16": json.dumps(GOOD_TAILS).encode("utf-16"),
    "directory": lambda tmp: tmp,
    "missing": lambda tmp: tmp / "no-such-file.json",
}


def corpus_file(tmp_path: Path, name: str) -> Path:
    content = CORPUS[name]
    if callable(content):
        return content(tmp_path)
    path = tmp_path / f"{name}.json"
    path.write_bytes(content)
    return path


def stored_games(data_dir: Path) -> int:
    path = data_dir / "diablotin.sqlite3"
    if not path.exists():
        return 0
    journal = Journal(path)
    try:
        return len(journal.games())
    finally:
        journal.close()


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_every_hostile_file_gets_one_clear_line_exit_2_and_stores_nothing(
    tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    path = corpus_file(tmp_path, name)
    code = cli.main(["--data-dir", str(data), "replay", str(path), "--import"])
    out, err = capsys.readouterr()
    assert code == 2, (name, out, err)
    lines = err.splitlines()
    assert len(lines) == 1, (name, err)
    assert lines[0].startswith(f"diablotin: {path}: "), lines[0]
    assert len(lines[0]) < 400, lines[0]
    assert "Traceback" not in err and out == ""
    assert stored_games(data) == 0


def test_reasons_name_what_is_wrong(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    expected = {
        "empty": "not JSON",
        "non-utf8": "not UTF-8",
        "deep-nesting": "nested too deeply",
        "huge": f"larger than {MAX_EXPORT_BYTES} bytes",
        "directory": "is a folder",
        "missing": "no such file",
        "kind-unknown": "unknown game 'chess'",
        "title-too-long": "title must be at most 80 characters",
        "title-control": "title holds a control character (U+0007)",
        "at-nan": "not a finite number",
        "illegal-after-legal": "action 2:",
        "too-many-entries": "at most 20000 entries",
    }
    for name, words in expected.items():
        path = corpus_file(tmp_path, name)
        assert cli.main(["--data-dir", str(tmp_path / "d"), "replay", str(path)]) == 2
        err = capsys.readouterr().err
        assert words in err, (name, err)


def test_a_hostile_file_in_a_real_process_prints_no_traceback(tmp_path: Path) -> None:
    for name in ("deep-nesting", "non-utf8", "at-string"):
        path = corpus_file(tmp_path, name)
        command = [sys.executable, "-m", "controller.cli", "--data-dir", str(tmp_path / "d")]
        command += ["replay", str(path), "--import"]
        run = subprocess.run(
            command,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert run.returncode == 2, run.stderr
        assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr, run.stderr


def test_a_good_file_replays_and_imports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "good.json"
    path.write_text(json.dumps(export(entries=[entry(legal_first_move())])))
    data = tmp_path / "data"
    assert cli.main(["--data-dir", str(data), "replay", str(path), "--import"]) == 0
    assert "stored as game 1" in capsys.readouterr().err
    journal = Journal(data / "diablotin.sqlite3")
    assert [g.title for g in journal.games()] == ["evening"]
    assert journal.actions(1) == [legal_first_move()]
    journal.close()


# -- the journal: one transaction -----------------------------------------------------------


def test_a_bad_entry_leaves_no_game_row(tmp_path: Path) -> None:
    """Found by the adversarial run: the game row was committed before the entries."""
    journal = Journal(tmp_path / "j.sqlite3")
    bad = export(entries=[entry({"type": "pass"}, at="noon")])
    with pytest.raises(BadExport, match="entry 1: at"):
        journal.import_game(bad)
    assert journal.games() == []
    journal.close()


def test_an_entry_that_cannot_be_stored_rolls_back_the_game_row(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.sqlite3")
    data = export(entries=[entry({"type": "pass"}), entry({"type": "pass", "v": object()})])
    with pytest.raises((BadExport, TypeError)):
        journal.import_game(data)
    assert journal.games() == []
    journal.close()


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_replay_refuses_a_file_that_is_not_a_regular_file(tmp_path: Path, kind: str) -> None:
    """Issue 26, item 13: ``diablotin replay FIFO --import`` hung waiting for a writer."""
    import os
    import threading

    from controller.importing import read_export

    if kind == "fifo":
        path = tmp_path / "game.json"
        os.mkfifo(path)
    else:
        path = Path("/dev/zero")
    outcome: list[BaseException | None] = []

    def read() -> None:
        try:
            read_export(path)
            outcome.append(None)
        except BaseException as exc:
            outcome.append(exc)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(5)
    if reader.is_alive() and kind == "fifo":  # unblock the reader, then fail
        os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
        reader.join(5)
    assert outcome and isinstance(outcome[0], Refused), outcome
    assert str(outcome[0]) == "is not a regular file (a pipe or a device): give an export file"


def test_replay_fifo_import_says_why_and_stores_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import os

    fifo = tmp_path / "game.json"
    os.mkfifo(fifo)
    data = tmp_path / "data"
    assert cli.main(["--data-dir", str(data), "replay", str(fifo), "--import"]) == 2
    err = capsys.readouterr().err
    assert f"{fifo}: is not a regular file (a pipe or a device)" in err
    assert not (data / "diablotin.sqlite3").exists()
