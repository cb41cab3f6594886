"""``diablotin bench all --quick``: one table with every row, numbers that parse (no timing
targets are asserted here: they are the benchmark's business)."""

from __future__ import annotations

import re

from controller.bench import all as bench_all

NUMBER = r"-?[\d,]+(?:\.\d+)?"


def test_quick_bench_prints_the_whole_table(capsys) -> None:
    status = bench_all.main(["--quick"])
    out = capsys.readouterr().out
    table = out[out.index("measure") :].splitlines()
    assert set(table[1]) == {"-"}
    body = [line for line in table[2:] if not line.startswith(("error:", "targets missed:"))]
    assert [line[: len(name)] for line, name in zip(body, bench_all.ROWS, strict=True)] == list(
        bench_all.ROWS
    )
    for line, name in zip(body, bench_all.ROWS, strict=True):
        fields = line[len(name) :].split()
        assert re.fullmatch(r"\d+", fields[0]), line
        assert re.fullmatch(NUMBER, fields[1]), line
        assert float(fields[1].replace(",", "")) >= 0, line
    assert "error:" not in out, out
    missed = [line for line in body if line.endswith("MISS")]
    assert status == (1 if missed else 0), out
    assert re.search(r"load average [\d.]+ at start", out)


def test_an_installed_server_starts_from_bytecode(tmp_path, monkeypatch) -> None:
    """The start-up row measures the box as install-pi leaves it: its modules compiled,
    even where PYTHONDONTWRITEBYTECODE is set (as on this machine)."""
    import importlib.util
    from pathlib import Path

    import controller
    from controller.reliability.common import ServeProcess

    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    server = ServeProcess(tmp_path / "serve", installed=True)
    assert server.env is not None and "PYTHONDONTWRITEBYTECODE" not in server.env
    source = Path(controller.__file__).parent / "service.py"
    assert Path(importlib.util.cache_from_source(str(source))).is_file()
    assert ServeProcess(tmp_path / "plain").env is None  # the tests' servers run as they are


def test_the_floors_process_commits_each_round_trip_and_the_trip_holds_the_commit(
    tmp_path,
) -> None:
    """``bench stages``'s floors: the waitress server with an app that only commits. Each
    round trip is answered after a row is durable, so it takes at least the commit."""
    import sqlite3

    from controller.bench import stages

    commits, trips = stages.floors_alone(8, 0.0, folder=tmp_path)
    assert len(commits) == len(trips) == 8
    assert all(0 < c <= t for c, t in zip(commits, trips, strict=True))
    db = sqlite3.connect(tmp_path / "floor.sqlite3")
    assert db.execute("SELECT COUNT(*), MIN(LENGTH(x)) FROM t").fetchone() == (8, 300)
    assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
