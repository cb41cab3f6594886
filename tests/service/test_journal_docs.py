"""The journal's examples in the docs run: install-pi.md's recovery of a damaged journal,
the messages its Troubleshooting table quotes, api.md's disk-full and damaged answers."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from controller import cli
from controller.datadir import DataDirBusy, DataDirLock
from controller.journal import Journal, JournalDamaged

from .test_crash_and_signals import Server

DOCS = Path(__file__).resolve().parents[2] / "docs"
PI_DATA = "/var/lib/diablotin"


def recovery_block() -> list[str]:
    text = (DOCS / "install-pi.md").read_text(encoding="utf-8")
    block = re.search(r"```sh\n# recover a damaged journal\n(.*?)```", text, re.S)
    assert block, "install-pi.md has the recovery block"
    return [line for line in block.group(1).splitlines() if line.strip()]


def test_the_recovery_of_a_damaged_journal_runs_as_documented(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = Server(tmp_path)  # a config whose data dir stands in for /var/lib/diablotin
    data = str(server.data)
    journal = Journal(server.data / "diablotin.sqlite3")
    ids = [journal.create_game("tails", {"players": 2}, f"game {n}") for n in range(2)]
    journal.close()
    with (server.data / "diablotin.sqlite3").open("r+b") as file:
        file.write(b"garbage!" * 12)  # the header: SQLite cannot read the file any more
    with pytest.raises(JournalDamaged):
        Journal(server.data / "diablotin.sqlite3")
    lines = recovery_block()
    assert (
        lines[0] == "sudo systemctl stop diablotin"
        and lines[-1] == "sudo systemctl start diablotin"
    )
    as_user = "sudo -u diablotin diablotin "
    for line in lines[1:-1]:
        command = line.split("#")[0].strip().replace(PI_DATA, data)
        config = ["--config", str(server.config)]
        if command.startswith(as_user + "serve"):
            words = shlex.split(command[len(as_user) :])
            server.start(None, *words[1:])
            assert server.call("GET", "/api/games")["games"] == []
            server.stop()
        elif command.startswith(as_user):
            words = shlex.split(command[len(as_user) :])
            code = cli.main([*config, *words])
            assert code == 1, capsys.readouterr()  # the header is lost: nothing readable
            assert "nothing can be read (file is not a database)" in capsys.readouterr().err
        else:  # the for loop over the saved files
            match = re.fullmatch(r'for f in (\S+); do (.*) "\$f" --import; done', command)
            assert match, command
            saved = sorted(Path(match.group(1).rsplit("/", 1)[0]).glob("game-*.json"))
            assert match.group(2) == as_user + "replay"
            for file in saved:
                assert cli.main([*config, "replay", str(file), "--import"]) == 0
    kept = list(server.data.glob("diablotin.sqlite3.damaged-*"))
    assert kept, "the damaged file is kept beside the new journal"
    assert ids == [1, 2]


def test_the_recovery_imports_what_export_raw_saved(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same commands on a journal whose tables are readable: the games come back."""
    data = tmp_path / "data"
    journal = Journal(data / "diablotin.sqlite3")
    from controller.games.tails import TailsRules

    rules = TailsRules()
    gid = journal.create_game("tails", {"players": 2}, "saved")
    move = rules.legal_actions(rules.setup({"players": 2}))[0]
    journal.append(gid, move)
    journal.close()
    saved = tmp_path / "saved"
    assert cli.main(["--data-dir", str(data), "export", "--raw", "-o", str(saved)]) == 0
    fresh = tmp_path / "fresh"
    assert (
        cli.main(["--data-dir", str(fresh), "replay", str(saved / "game-1.json"), "--import"]) == 0
    )
    capsys.readouterr()
    again = Journal(fresh / "diablotin.sqlite3")
    assert [g.title for g in again.games()] == ["saved"] and again.actions(1) == [move]
    again.close()


def test_the_troubleshooting_table_quotes_the_real_messages(tmp_path: Path) -> None:
    text = (DOCS / "install-pi.md").read_text(encoding="utf-8")
    lock = DataDirLock(tmp_path)
    try:
        with pytest.raises(DataDirBusy) as busy:
            DataDirLock(tmp_path)
    finally:
        lock.release()
    import os

    real = str(busy.value).replace(str(os.getpid()), "1234").replace(str(tmp_path), PI_DATA)
    quoted = re.search(r"`(another diablotin \(pid 1234\) is using the data dir [^`]+)`", text)
    assert quoted and real.startswith(quoted.group(1))
    path = tmp_path / "diablotin.sqlite3"
    Journal(path).close()
    path.write_bytes(b"")
    with pytest.raises(JournalDamaged) as lost:
        Journal(path)
    real = str(lost.value).replace(str(tmp_path), PI_DATA)
    quoted = re.search(r"`(the journal \.\.\. is empty \(0 bytes\), but [^`]+)`", text)
    assert quoted
    assert real.startswith(quoted.group(1).replace("...", f"{PI_DATA}/diablotin.sqlite3"))
    path.write_bytes(b"garbage!" * 20)
    with pytest.raises(JournalDamaged) as damaged:
        Journal(path)
    real = str(damaged.value).replace(str(tmp_path), PI_DATA)
    quoted = re.search(r"`(the journal /var/lib/diablotin/diablotin.sqlite3 is damaged \()", text)
    assert quoted and real.startswith(quoted.group(1))
