"""`diablotin serve` refuses, with one clear message and no traceback: a second service on
the same data dir, a damaged journal, a journal lost while its marker says it existed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from controller.journal import Journal

from .test_crash_and_signals import Server, free_port


def serve(config: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """Run `serve` expecting it to refuse (it must exit by itself)."""
    return subprocess.run(
        [sys.executable, "-m", "controller.cli", "--config", str(config), "serve", *extra],
        capture_output=True,
        text=True,
        timeout=60,
    )


def second_config(server: Server, tmp_path: Path) -> Path:
    """The first server's config with another port: the same data dir."""
    other = tmp_path / "second.toml"
    other.write_text(
        server.config.read_text().replace(f"port = {server.port}", f"port = {free_port()}")
    )
    return other


def test_a_second_serve_on_the_same_data_dir_refuses(tmp_path: Path) -> None:
    """Found by the adversarial run: both served, both acknowledged conflicting moves."""
    server = Server(tmp_path)
    server.start()
    try:
        run = serve(second_config(server, tmp_path))
        assert server.proc is not None
        assert run.returncode == 1, run.stderr
        assert "Traceback" not in run.stderr
        last = run.stderr.splitlines()[-1]
        assert last.startswith(f"diablotin: another diablotin (pid {server.proc.pid}) is using ")
        assert f"the data dir {server.data}: only one may run on it at a time" in last
        assert server.call("GET", "/api/games") is not None  # the first one is unharmed
    finally:
        server.stop()


def test_serve_refuses_a_damaged_journal_and_a_lost_one_then_starts_afresh_on_request(
    tmp_path: Path,
) -> None:
    server = Server(tmp_path)
    journal_path = server.data / "diablotin.sqlite3"
    journal = Journal(journal_path)
    journal.create_game("tails", {"players": 2}, "kept")
    journal.close()
    with journal_path.open("r+b") as file:
        file.write(b"garbage!" * 20)
    run = serve(server.config)
    assert run.returncode == 1 and "Traceback" not in run.stderr, run.stderr
    last = run.stderr.splitlines()[-1]
    assert last.startswith(f"diablotin: the journal {journal_path} is damaged (file is not a")
    assert "`diablotin export --raw -o FOLDER`" in last
    os.truncate(journal_path, 0)
    run = serve(server.config)
    assert run.returncode == 1 and "Traceback" not in run.stderr, run.stderr
    assert run.stderr.splitlines()[-1].startswith(
        f"diablotin: the journal {journal_path} is empty (0 bytes), but diablotin.sqlite3.marker "
        "says a journal existed there"
    )
    assert journal_path.stat().st_size == 0  # untouched
    # --new-journal: the documented way to start afresh on purpose
    server.start(None, "--new-journal")
    try:
        assert server.call("GET", "/api/games")["games"] == []
    finally:
        server.stop()
    kept = sorted(p.name for p in server.data.glob("diablotin.sqlite3.old-*"))
    assert kept and kept[0].startswith("diablotin.sqlite3.old-")  # the empty file, set aside
