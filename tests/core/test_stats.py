"""Statistics against games whose results and times were worked out by hand.

The fixture (``hand_journal``), every time in seconds:

=====  =======================  =====================================  ======  ========  ======
game   what                     actions (undone ones struck)           first   winner    length
=====  =======================  =====================================  ======  ========  ======
1      sauteur B, p1 hides      hidden, pop 4, face 3 (pot 12), stop   p2      p2        130-100
2      sauteur B, p2 hides      hidden, pop 4, face 3, stop            p1      p1        260-200
3      sauteur B, p1 hides      hidden, ~pop 2~ (undone), pop 1,       p2      p1        380-300
                                devil; hidden, pop 4, face 3, stop
4      sauteur B, in play       hidden                                 —       —         —
5      Teufel, blue and green   ~step c2~ (undone), step c4: blue      blue    blue      460-400
       (blue holds A–E)         leaves the board, green loses
=====  =======================  =====================================  ======  ========  ======

The circuit is 10 squares, so banking 12 ends a race. Games end in the order 1, 2, 3, 5.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from controller.journal import Journal
from controller.stats import StatsCache, counted, game_series, seat_names, streaks

RACE = {"rule": "B", "circuit_length": 10}
HIDDEN = {"type": "hidden"}
UNDO = {"undo": True, "action": {"type": "undo"}}


def pop(key: int, by: str) -> dict[str, Any]:
    return {"type": "pop", "key": key, "by": by}


def face(value: int | str) -> dict[str, Any]:
    return {"type": "face", "face": value}


def stop(by: str) -> dict[str, Any]:
    return {"type": "stop", "by": by}


def game(
    kind: str, options: dict[str, Any], steps: list[dict[str, Any]], start: float, every: float
) -> dict[str, Any]:
    entries = [
        (step if "undo" in step else {"action": step}) | {"at": start + i * every}
        for i, step in enumerate(steps)
    ]
    return {
        "format": "diablotin-game/1",
        "kind": kind,
        "title": "",
        "options": options,
        "finished": entries[-1]["at"]
        if kind != "sauteur" or steps[-1].get("type") == "stop"
        else None,
        "entries": entries,
    }


TEUFEL = {
    "players": ["blue", "green"],
    "position": {
        "sleds": {"blue": "c3", "green": "g7"},
        "face_up": {"c4": "blue-F"},
        "letters": {"blue": ["A", "B", "C", "D", "E"]},
    },
}


def hand_games() -> list[dict[str, Any]]:
    """The five games of the table above, as export files."""
    p1_hides, p2_hides = RACE | {"first_hider": "p1"}, RACE | {"first_hider": "p2"}
    return [
        game("sauteur", p1_hides, [HIDDEN, pop(4, "p2"), face(3), stop("p2")], 100, 10),
        game("sauteur", p2_hides, [HIDDEN, pop(4, "p1"), face(3), stop("p1")], 200, 20),
        game(
            "sauteur",
            p1_hides,
            [
                *(HIDDEN, pop(2, "p2"), UNDO, pop(1, "p2"), face("devil")),
                *(HIDDEN, pop(4, "p1"), face(3), stop("p1")),
            ],
            300,
            10,
        ),
        game("sauteur", p1_hides, [HIDDEN], 390, 1),
        game(
            "teufel",
            TEUFEL,
            [
                {"type": "step", "player": "blue", "to": "c2"},
                UNDO,
                {"type": "step", "player": "blue", "to": "c4"},
            ],
            400,
            30,
        ),
    ]


@pytest.fixture
def hand_journal() -> Iterator[Journal]:
    journal = Journal(":memory:")
    games = hand_games()
    for data in games:
        journal.import_game(data)
    yield journal
    journal.close()


def test_only_finished_games_count(hand_journal: Journal) -> None:
    assert [r.id for r in counted(hand_journal.games())] == [1, 2, 3, 5]


def test_players_wins_rates_and_streaks(hand_journal: Journal) -> None:
    summary = StatsCache().summary(hand_journal)
    assert summary["games"] == 4 and summary["skipped"] == []
    players = {row["name"]: row for row in summary["players"]}
    assert [row["name"] for row in summary["players"]] == ["p1", "p2", "blue", "green"]
    # p1 lost game 1, won games 2 and 3; p2 the opposite.
    assert players["p1"] | {"streaks": None} == {
        "name": "p1",
        "games": 3,
        "wins": 2,
        "win_rate": 0.6667,
        "by": {"sauteur/B": {"games": 3, "wins": 2, "win_rate": 0.6667}},
        "streaks": None,
    }
    assert players["p1"]["streaks"] == {
        "current": {"win": True, "length": 2},
        "best_wins": 2,
        "worst_losses": 1,
    }
    assert players["p2"]["streaks"] == {
        "current": {"win": False, "length": 2},
        "best_wins": 1,
        "worst_losses": 2,
    }
    assert players["p2"]["wins"] == 1 and players["p2"]["win_rate"] == 0.3333
    assert players["blue"]["by"] == {"teufel/2p": {"games": 1, "wins": 1, "win_rate": 1.0}}
    assert players["green"]["wins"] == 0


def test_kinds_durations_and_first_player(hand_journal: Journal) -> None:
    kinds = StatsCache().summary(hand_journal)["kinds"]
    sauteur = kinds["sauteur"]
    assert sauteur["games"] == 3
    assert sauteur["duration_s"] == {"min": 30, "median": 60, "max": 80}
    assert sauteur["actions_median"] == 4  # 4, 4 and 7 actions standing
    # The first popper won games 1 and 2, lost game 3.
    assert sauteur["first_player"] == {"games": 3, "wins": 2, "win_rate": 0.6667, "fair_rate": 0.5}
    assert [g["id"] for g in sauteur["games_list"]] == [1, 2, 3]
    teufel = kinds["teufel"]
    assert teufel["duration_s"] == {"min": 60, "median": 60, "max": 60}
    assert teufel["first_player"]["wins"] == 1


def test_race_and_letters_series(hand_journal: Journal) -> None:
    race = game_series(hand_journal.game(3), hand_journal.entries(3))
    assert race["chart"] == "race"
    # devil at once (nothing to lose), pot 12, p1 banks 12 → capped at the 10-square lap
    assert race["races"] == [
        {"race": 1, "p1": [0, 0, 0, 10], "p2": [0, 0, 0, 0], "pot": [0, 0, 12, 0], "circuit": 10}
    ]
    letters = game_series(hand_journal.game(5), hand_journal.entries(5))
    assert letters["chart"] == "letters"
    assert letters["series"] == {"blue": [5, 6], "green": [0, 0]}


def test_chase_positions_after_each_pop() -> None:
    journal = Journal(":memory:")
    # Rule A, default figures blue 5, orange 10, green 15, devil 0 (×3).
    advance = {"type": "advance", "figure": "blue", "by": "p2"}
    steps = [HIDDEN, pop(2, "p2"), face(3), advance, pop(1, "p2"), face("devil")]
    journal.import_game(game("sauteur", {"rule": "A"}, steps, 0, 1))
    chase = game_series(journal.game(1), journal.entries(1))
    assert chase["chart"] == "chase"
    assert chase["rounds"] == [
        {
            "round": 1,
            "popper": "p2",
            "devil": [0, 0, 3],  # blue +2×3 = 6 → 11, then the devil from key 1: +3
            "figures": {"blue": [5, 11, 11], "orange": [10, 10, 10], "green": [15, 15, 15]},
        }
    ]


def test_tails_series_from_the_committed_journal(tmp_path: Any) -> None:
    import shutil
    from pathlib import Path

    source = Path(__file__).parent.parent / "data" / "journal-v0-3786bd4.sqlite3"
    shutil.copy(source, tmp_path / "j.sqlite3")
    journal = Journal(tmp_path / "j.sqlite3")
    try:
        record = journal.game(4)  # tails for two, finished
        series = game_series(record, journal.entries(4))
        assert series["chart"] == "score" and series["sides"] == [["seat1"], ["seat2"]]
        from controller.games.base import replay
        from controller.games.tails import TailsRules, game_view

        final = game_view(replay(TailsRules(), record.options, journal.actions(4)))
        assert [s[-1] for s in series["series"]] == final["totals"]
        assert all(len(s) == len(journal.actions(4)) + 1 for s in series["series"])
        assert seat_names(journal.game(6)) == {c: c for c in ("blue", "green", "yellow")}
    finally:
        journal.close()


def test_cache_follows_an_undo_of_the_last_action(hand_journal: Journal) -> None:
    cache = StatsCache()
    assert cache.summary(hand_journal)["games"] == 4
    hand_journal.append(2, {"type": "undo"}, undo=True)
    hand_journal.mark_finished(2, False)  # what Table.undo does
    summary = cache.summary(hand_journal)
    assert summary["games"] == 3
    assert {r["name"]: r["wins"] for r in summary["players"]}["p1"] == 1


def test_streaks_edges() -> None:
    assert streaks([]) == {"current": None, "best_wins": 0, "worst_losses": 0}
    assert streaks([True, True, False, True, True, True]) == {
        "current": {"win": True, "length": 3},
        "best_wins": 3,
        "worst_losses": 1,
    }


def _contained(part: Any, whole: Any) -> bool:
    """``part`` is ``whole`` with some keys (and the tail of lists) left out."""
    if isinstance(part, dict):
        return isinstance(whole, dict) and all(
            k in whole and _contained(v, whole[k]) for k, v in part.items()
        )
    if isinstance(part, list):
        return isinstance(whole, list) and all(
            _contained(p, w) for p, w in zip(part, whole, strict=False)
        )
    return bool(part == whole)


def test_the_example_in_docs_stats_md_is_what_the_hand_games_give(hand_journal: Journal) -> None:
    import json
    import re
    from pathlib import Path

    doc = (Path(__file__).parents[2] / "docs" / "stats.md").read_text()
    example = json.loads(re.findall(r"```json\n(.*?)```", doc, re.S)[0])
    summary = StatsCache().summary(hand_journal)
    assert _contained(example, summary), (example, summary)
    assert not _contained({"games": 5}, summary)  # the check can fail
