"""Damaged, truncated and missing journals (issue 10, point 5): refused with a message that
names the file and what to do; what can be read is saved by ``diablotin export --raw``."""

from __future__ import annotations

import json
import os
import re
import sqlite3
from pathlib import Path

import pytest

from controller import cli
from controller.games.tails import TailsRules
from controller.journal import (
    Journal,
    JournalDamaged,
    JournalError,
    inspect_file,
    marker_path,
    salvage,
)

PAGE = 4096


def tails_moves(n: int) -> list[dict]:
    rules = TailsRules()
    state, moves = rules.setup({"players": 2}), []
    for _ in range(n):
        move = rules.legal_actions(state)[0]
        state = rules.apply(state, move)
        moves.append(move)
    return moves


def three_games(path: Path) -> dict[int, list[dict]]:
    """A journal with three tails games of 40 moves each (several pages of entries)."""
    journal = Journal(path)
    games = {}
    for n in range(3):
        gid = journal.create_game("tails", {"players": 2}, f"game {n}")
        games[gid] = tails_moves(40)
        for move in games[gid]:
            journal.append(gid, move)
    journal.close()  # checkpoints: everything is in the main file
    return games


def entry_leaf_pages(path: Path) -> list[int]:
    """Page numbers (0-based) of table leaf pages holding entries' actions."""
    data = path.read_bytes()
    pages = []
    for number in range(1, len(data) // PAGE):
        page = data[number * PAGE : (number + 1) * PAGE]
        if page[0] == 0x0D and page.count(b'"type":"place"') > 5:
            pages.append(number)
    return pages


def damage_page(path: Path, number: int) -> None:
    with path.open("r+b") as file:
        file.seek(number * PAGE)
        file.write(bytes([0xA5]) * PAGE)


@pytest.fixture
def damaged(tmp_path: Path) -> tuple[Path, dict[int, list[dict]], int]:
    path = tmp_path / "data" / "diablotin.sqlite3"
    games = three_games(path)
    leaves = entry_leaf_pages(path)
    assert len(leaves) >= 3
    victim = leaves[len(leaves) // 2]
    damage_page(path, victim)
    return path, games, victim


def test_a_damaged_journal_is_refused_with_what_to_do(damaged) -> None:
    """Found by the adversarial run: a raw traceback at start."""
    path, _, _ = damaged
    with pytest.raises(JournalDamaged) as refused:
        Journal(path)
    message = str(refused.value)
    assert message.startswith(f"the journal {path} is damaged (")
    assert "Restore a copy of the file" in message
    assert "`diablotin export --raw -o FOLDER`" in message
    assert "`diablotin serve --new-journal`" in message


def test_a_file_that_is_not_a_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "diablotin.sqlite3"
    three_games(path)
    with path.open("r+b") as file:
        file.write(b"not sqlite" * 10)
    with pytest.raises(JournalDamaged, match="is damaged \\(file is not a database\\)"):
        Journal(path)


@pytest.mark.parametrize(
    "how, said",
    [
        ("truncate", "is empty (0 bytes)"),
        ("delete", "is missing"),
        ("drop-tables", "has no games table"),
    ],
)
def test_a_lost_journal_is_refused_while_the_marker_says_it_existed(
    tmp_path: Path, how: str, said: str
) -> None:
    """Found by the adversarial run: a journal truncated to 0 bytes started empty, silently."""
    path = tmp_path / "diablotin.sqlite3"
    three_games(path)
    assert marker_path(path).exists()
    if how == "truncate":
        os.truncate(path, 0)
    elif how == "delete":
        path.unlink()
    else:
        db = sqlite3.connect(path)
        db.executescript("DROP TABLE settings; DROP TABLE entries; DROP TABLE games; VACUUM;")
        db.close()
    with pytest.raises(JournalDamaged) as refused:
        Journal(path)
    message = str(refused.value)
    assert message.startswith(f"the journal {path} {said}, but diablotin.sqlite3.marker says")
    assert "Restore a copy of the file" in message and "--new-journal" in message
    assert str(marker_path(path)) in message
    assert how == "delete" or path.exists()  # nothing was created or changed
    if how == "delete":
        assert not path.exists()


def test_new_journal_starts_afresh_but_never_replaces_one_with_games(tmp_path: Path) -> None:
    path = tmp_path / "diablotin.sqlite3"
    three_games(path)
    with pytest.raises(JournalError, match="holds 3 game\\(s\\) and is not damaged"):
        Journal(path, new=True)
    assert len(Journal(path).games()) == 3
    os.truncate(path, 0)
    fresh = Journal(path, new=True)
    assert fresh.games() == []
    fresh.close()
    assert marker_path(path).exists()
    assert Journal(path).games() == []


def test_new_journal_keeps_a_damaged_file_beside_the_new_one(damaged) -> None:
    path, _, _ = damaged
    before = path.read_bytes()
    fresh = Journal(path, new=True)
    fresh.close()
    kept = [p for p in path.parent.glob("diablotin.sqlite3.damaged-*") if p.name[-4] != "-"]
    assert len(kept) == 1 and kept[0].read_bytes() == before


def test_first_start_makes_the_marker(tmp_path: Path) -> None:
    path = tmp_path / "data" / "diablotin.sqlite3"
    Journal(path).close()
    assert "refuses to start when the journal is missing" in marker_path(path).read_text()


def test_salvage_reads_every_row_it_can(damaged) -> None:
    path, games, _ = damaged
    before = path.read_bytes()
    saved = salvage(path)
    assert path.read_bytes() == before  # read from a copy
    assert sorted(saved.games) == [1, 2, 3]
    complete = [gid for gid, data in saved.games.items() if len(data["entries"]) == 40]
    assert 1 <= len(complete) < 3  # the damaged page held some game's entries
    for gid in complete:
        assert [e["action"] for e in saved.games[gid]["entries"]] == games[gid]
    for gid in (gid for gid in saved.games if gid not in complete):
        assert any(p.startswith(f"game {gid}: ") for p in saved.problems), saved.problems
    assert any(p.startswith("entries: damaged") for p in saved.problems)


def test_export_raw_then_import_into_a_new_journal(
    damaged, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, games, _ = damaged
    data = ["--data-dir", str(path.parent)]
    folder = tmp_path / "saved"
    assert cli.main([*data, "export", "--raw", "-o", str(folder)]) == 1  # some rows lost
    err = capsys.readouterr().err
    assert err.splitlines()[-1] == f"3 game(s) written to {folder}"
    assert sorted(p.name for p in folder.iterdir()) == ["game-1.json", "game-2.json", "game-3.json"]
    # the service refuses the damaged file; the documented way forward works
    assert cli.main([*data, "games"]) == 1
    assert "is damaged" in capsys.readouterr().err
    fresh = ["--data-dir", str(tmp_path / "fresh")]
    imported = {}
    for gid in games:  # a game whose first entries are lost no longer replays: refused
        file = folder / f"game-{gid}.json"
        if cli.main([*fresh, "replay", str(file), "--import"]) == 0:
            imported[gid] = len(imported) + 1
    capsys.readouterr()
    journal = Journal(tmp_path / "fresh" / "diablotin.sqlite3")
    assert imported, "no game could be imported again"
    for gid, new_id in imported.items():
        restored = journal.actions(new_id)
        assert restored == games[gid][: len(restored)]
    journal.close()


def test_export_raw_of_a_file_that_is_not_a_database_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "data" / "diablotin.sqlite3"
    path.parent.mkdir()
    path.write_bytes(b"garbage" * 1000)
    assert (
        cli.main(["--data-dir", str(path.parent), "export", "--raw", "-o", str(tmp_path / "o")])
        == 1
    )
    err = capsys.readouterr().err
    assert "nothing can be read (file is not a database)" in err
    assert "Traceback" not in err


def test_inspect_file_never_creates_or_changes_a_file(damaged, tmp_path: Path) -> None:
    path, _, _ = damaged
    assert inspect_file(tmp_path / "none.sqlite3").state == "missing"
    assert not (tmp_path / "none.sqlite3").exists()
    found = inspect_file(path, full=True)
    assert found.state == "damaged" and found.detail
    good = tmp_path / "good.sqlite3"
    three_games(good)
    assert inspect_file(good, full=True) == type(found)("ok", "", 3)


def test_export_of_one_game_on_a_damaged_journal_points_to_raw(
    damaged, capsys: pytest.CaptureFixture[str]
) -> None:
    path, _, _ = damaged
    assert cli.main(["--data-dir", str(path.parent), "export", "1"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "export --raw" in err


def test_games_lists_a_damaged_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "diablotin.sqlite3"
    journal = Journal(path)
    gid = journal.create_game("tails", {"players": 2}, "twice")
    first = tails_moves(1)[0]
    journal.append(gid, first)
    journal.append(gid, first)  # the same cell twice: no longer replays
    journal.close()
    assert cli.main(["--data-dir", str(tmp_path), "games"]) == 0
    header, line = capsys.readouterr().out.rstrip("\n").splitlines()
    assert header.split() == ["id", "game", "state", "started", "players", "title"]
    assert [cell.strip() for cell in line.split("  ")[:3]] == [
        str(gid),
        "Devil by the Tail",
        "damaged",
    ]
    assert "  twice  (damaged: action 2: " in line
    assert cli.main(["--data-dir", str(tmp_path), "export", str(gid)]) == 0  # raw entries
    exported = json.loads(capsys.readouterr().out)
    assert [e["action"] for e in exported["entries"]] == [first, first]


def test_games_prints_a_readable_table_or_says_there_are_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["--data-dir", str(tmp_path), "games"]) == 0
    assert capsys.readouterr().out == "no games yet: start one on the dashboard (diablotin serve)\n"
    journal = Journal(tmp_path / "diablotin.sqlite3")
    journal.create_game("sauteur", {"rule": "B"}, "Friday's race")
    seats = [
        {"key": k, "name": n, "mark": None, "player": None, "computer": None}
        for k, n in (("blue", "Zoé"), ("green", "Max"))
    ]
    journal.create_game(
        "teufel", {"players": ["blue", "green"]}, "Devils, Devils", {"seats": seats}
    )
    journal.abandon(journal.create_game("tails", {"players": 2}, "Left"))
    journal.close()
    assert cli.main(["--data-dir", str(tmp_path), "games"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 4
    columns = [lines[0].index(name) for name in ("game", "state", "started", "players", "title")]
    for line in lines[1:]:  # every column starts where its header does
        assert all(line[c - 2 : c] == "  " and line[c] != " " for c in columns)
    assert [cell.strip() for cell in lines[1].split("  ")[:3]] == [
        "1",
        "Le Diable sauteur",
        "in progress",
    ]
    assert lines[1].endswith("Friday's race") and lines[2].endswith("Devils, Devils")
    assert "Zoé, Max" in lines[2]  # the people, not the colours
    assert [cell.strip() for cell in lines[3].split("  ")[:3]] == [
        "3",
        "Devil by the Tail",
        "abandoned",
    ]


def test_play_keeps_its_match_out_of_the_data_dir_unless_told(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A quit `diablotin play sauteur` leaves no half-played match for `serve` to resume."""

    def quit_at_once(prompt: str = "") -> str:
        raise EOFError

    monkeypatch.setattr("builtins.input", quit_at_once)
    data = ["--data-dir", str(tmp_path / "data")]
    assert cli.main([*data, "play", "sauteur", "--rule", "B", "--seed", "3"]) == 1
    assert cli.main([*data, "games"]) == 0
    assert "no games yet" in capsys.readouterr().out
    kept = tmp_path / "data" / "diablotin.sqlite3"
    assert cli.main([*data, "play", "sauteur", "--seed", "3", "--journal", str(kept)]) == 1
    assert cli.main([*data, "games"]) == 0
    assert "in progress" in capsys.readouterr().out.splitlines()[-1]


KILLED_WRITER = """
import os, signal, sys, time
from controller.journal import Journal
journal = Journal(sys.argv[1])
games = [journal.create_game("tails", {"players": 2}, f"game {n}") for n in range(4)]
for n in range(230):
    journal.append(games[0], {"type": "note", "n": n})
versions = sys.argv[1] + ".versions"
deadline = time.monotonic() + 20
while time.monotonic() < deadline:  # both written off the writes, by threads: wait for them
    checkpointed = journal.health()["checkpoints"] >= 1  # not killed mid-copy: a torn file
    if checkpointed and f'"{games[0]}": 230' in open(versions).read():
        break
    time.sleep(0.02)
os.kill(os.getpid(), signal.SIGKILL)
"""


def killed_with_a_wal(path: Path) -> None:
    """``kill -9`` of a process that wrote 4 games (230 entries in the first): a checkpoint
    after 200 writes, the rest only in the WAL."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", KILLED_WRITER, str(path)], timeout=60)
    assert done.returncode == -9
    assert Path(f"{path}-wal").stat().st_size > 0


@pytest.mark.parametrize("deleted", [("-wal",), ("-wal", "-shm")])
def test_a_wal_lost_after_kill_9_is_refused_with_the_way_out(
    tmp_path: Path, deleted: tuple[str, ...]
) -> None:
    """Issue 26, item 10: after kill -9 with the WAL deleted the service started with 1 of 4
    games (game 1 at version 200 of 230), without a word."""
    path = tmp_path / "diablotin.sqlite3"
    killed_with_a_wal(path)
    for suffix in deleted:
        Path(f"{path}{suffix}").unlink()
    with pytest.raises(JournalDamaged) as refused:
        Journal(path)
    message = str(refused.value)
    assert message.startswith(f"the journal {path} holds less than it did: ")
    assert "diablotin.sqlite3-wal" in message and "`diablotin restore FILE`" in message
    way_out = Path(f"{path}-shm") if len(deleted) == 1 else Path(f"{path}.versions")
    if len(deleted) == 1:
        assert "diablotin.sqlite3-shm is there but not diablotin.sqlite3-wal" in message
    else:
        held = re.search(r"game 1 had 230 entries, the file holds (\d+)\b", message)
        assert held and 0 < int(held[1]) < 230, message
    assert message.endswith(f"delete {way_out}")
    from controller.checks import journal_check

    check = journal_check(tmp_path)  # doctor says the same
    assert not check.ok and "holds less than it did" in check.message
    with pytest.raises(JournalDamaged, match="holds less than it did"):
        Journal(path)  # refused again: the refusal changed nothing that matters
    way_out.unlink()  # the way out: start from what the file holds, on purpose
    if len(deleted) == 1:
        with pytest.raises(JournalDamaged, match="game 1 had 230 entries"):
            Journal(path)  # the versions file still tells
        Path(f"{path}.versions").unlink()
    journal = Journal(path)
    assert 0 < len(journal.entries(1)) < 230  # what the checkpoint had copied
    journal.close()
    reopened = Journal(path)  # and from then on, it opens
    reopened.close()


def test_no_false_alarm_after_kill_9_with_the_wal_a_clean_stop_or_a_restore(
    tmp_path: Path,
) -> None:
    from controller import backup

    path = tmp_path / "diablotin.sqlite3"
    journal = Journal(path)
    gid = journal.create_game("tails", {"players": 2}, "kept")
    journal.close()
    copy = backup.backup(path, tmp_path / "copy.sqlite3")
    killed_with_a_wal(path)  # the WAL is there: SQLite recovers it
    journal = Journal(path)
    assert len(journal.games()) == 5 and len(journal.entries(2)) == 230
    journal.close()  # a clean stop
    journal = Journal(path)
    journal.close()
    backup.restore(copy, path)  # an older copy, on purpose: the versions file follows
    journal = Journal(path)
    assert [g.id for g in journal.games()] == [gid]
    journal.close()
