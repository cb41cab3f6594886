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
