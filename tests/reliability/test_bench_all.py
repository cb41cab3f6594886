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
