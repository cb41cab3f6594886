"""score_record (the pure part of ``diablotin tails score``) and the CLI helper."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from controller.games.tails import RecordError, game_view, score_record
from controller.tails_cli import score_main

from .test_tails_support import random_game

RECORD = """\
# a short game, scored while open
players: 2

14n:E2      # seat 0, first turn: one card
14s:D1      # seat 1: forced twin
2s:B0       # seat 1: chosen, next to its own devil K
2n:C0
"""


def test_a_partial_record_is_scored_provisionally() -> None:
    result = score_record(RECORD)
    assert set(result) == {"devils", "totals", "finished"}
    assert list(result["devils"]) == list("ABCDEFGHIKLMNPQRST")
    assert result["finished"] is False
    # K: 2s is B0, body point 0 → 5; 1s is empty: open after 1 cell
    assert result["devils"]["K"] == {"length": 1, "end": "open", "points": 1}
    # A: 2n is C0, 0 → 3 into 3n (empty): open after 1 cell
    assert result["devils"]["A"] == {"length": 1, "end": "open", "points": 1}
    assert result["devils"]["B"] == {"length": 0, "end": "open", "points": 0}
    assert result["totals"] == [1, 1]


def test_a_full_record_matches_the_game() -> None:
    for players in (2, 3, 4):
        state = random_game(random.Random(players), players)
        text = f"players: {players}\n" + "\n".join(state.moves) + "\n"
        result = score_record(text)
        view = game_view(state)
        assert result["finished"] is True
        assert result["totals"] == view["totals"] and len(result["totals"]) == (
            3 if players == 3 else 2
        )
        for devil in view["devils"]:
            assert result["devils"][devil["name"]] == {
                "length": devil["length"], "end": devil["end"], "points": devil["points"]
            }  # fmt: skip
            assert devil["end"] != "open"


@pytest.mark.parametrize(
    ("text", "line", "reason"),
    [
        ("", 1, "empty record: the first line must be 'players: N'"),
        ("# nothing\n\n", 2, "empty record: the first line must be 'players: N'"),
        ("14n:E2\n", 1, "expected 'players: 2', '3' or '4' first, not '14n:E2'"),
        ("players: 5\n", 1, "players must be one of 2, 3, 4, not 5"),
        ("players: two\n", 1, "players must be 2, 3 or 4, not 'two'"),
        ("players: 2\n14n:E2\n13n:E2\n", 3, "the twin rule forces 14s"),
        (
            "players: 2\n\n# c\n2s:E2\n",
            4,
            "exception rule: 2s borders devil K's body, an opponent's",
        ),
        ("players: 3\n12n:A0\n13n:A0\n", 3, "sector rule: choose a cell outside sector 0"),
        ("players: 2\n14n:E7\n", 2, "rotation must be 0, 1 or 2, not 7"),
        (
            "players: 2\n14n E2\n",
            2,
            "cannot read '14n E2': expected a placement like 14n:E2, or pass",
        ),
        ("players: 2\npass\n", 2, "cannot pass: 45 cell(s) are legal, e.g. 2n"),
        ("players: 2\n99n:A0\n", 2, "unknown cell '99n'"),
    ],
)
def test_bad_records_name_the_line_and_the_reason(text: str, line: int, reason: str) -> None:
    with pytest.raises(RecordError) as caught:
        score_record(text)
    assert (caught.value.line, caught.value.reason) == (line, reason)
    assert str(caught.value) == f"line {line}: {reason}"


def test_score_main_prints_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "game.txt"
    path.write_text(RECORD, encoding="utf-8")
    assert score_main(str(path)) == 0
    out, err = capsys.readouterr()
    full = score_record(RECORD)
    printed = json.loads(out)
    assert list(printed) == ["devils", "totals"] and err == ""  # exactly the documented shape
    assert printed == {"devils": full["devils"], "totals": full["totals"]}
    assert sorted(printed["devils"]) == sorted("ABCDEFGHIKLMNPQRST")


def test_score_main_reports_an_illegal_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.txt"
    path.write_text("players: 2\n14n:E2\n13n:E2\n", encoding="utf-8")
    assert score_main(str(path)) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == f"{path}:3: the twin rule forces 14s\n"


def test_score_main_reports_an_unreadable_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "missing.txt"
    assert score_main(str(missing)) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(f"{missing}: cannot read the record:")
