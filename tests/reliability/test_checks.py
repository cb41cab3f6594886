"""The reliability suite's own checks, on made-up evidence: each must catch what it is for."""

from __future__ import annotations

import json
import random

import pytest

from controller import reliability as rel
from controller.bench import all as bench_all
from controller.games.base import replay
from controller.games.tails import TailsRules
from controller.hub import Hub
from controller.journal import Entry, Journal, effective_actions
from controller.table import Table

PLACE = TailsRules().legal_actions(TailsRules().setup({"players": 2}))[0]
SCRIPT: list[rel.Op] = [{"type": "a"}, {"type": "b"}, None, {"type": "b"}, {"type": "c"}]


def test_acked_entries_all_journaled_pass():
    assert rel.acked_problems(SCRIPT[:3], SCRIPT[:3], SCRIPT) == []
    assert rel.acked_problems(SCRIPT[:3], SCRIPT[:4], SCRIPT) == []  # one in flight


@pytest.mark.parametrize(
    ("stored", "problem"),
    [
        (SCRIPT[:2], "acknowledged entry #3 lost"),
        ([SCRIPT[1], SCRIPT[0], SCRIPT[2]], "acknowledged entry #1 lost or changed"),
        (SCRIPT[:5], "2 entries journaled beyond"),
        ([*SCRIPT[:3], {"type": "z"}], "never sent"),
    ],
)
def test_a_lost_reordered_or_invented_entry_is_caught(stored, problem):
    problems = rel.acked_problems(SCRIPT[:3], stored, SCRIPT)
    assert len(problems) == 1 and problem in problems[0]


def test_an_entry_beyond_the_end_of_the_script_is_caught():
    problems = rel.acked_problems(SCRIPT, [*SCRIPT, {"type": "a"}], SCRIPT)
    assert problems == ["the entry journaled beyond the acknowledged ones was never sent"]


def test_version_gaps():
    assert rel.version_gaps([3, 4, 5], 3, 5) is None
    assert rel.version_gaps([], 3, 2) is None  # nothing was sent
    assert rel.version_gaps([3, 5], 3, 5) == "missing [4], unexpected []"
    assert rel.version_gaps([3, 5, 4], 3, 5) == "out of order"
    assert rel.version_gaps([3, 4, 4, 5], 3, 5) == "out of order"
    assert rel.version_gaps([2, 3, 4, 5], 3, 5) == "missing [], unexpected [2]"


def tails_game(seed: int) -> tuple[dict, list[rel.Op]]:
    options, script = rel.scenario("tails", random.Random(seed))
    return options, script[:30]


def stream_of(options: dict, ops: list[rel.Op]) -> list[dict]:
    """What a phone would have been sent: the public view after each entry."""
    rules = TailsRules()
    events = []
    for version in range(len(ops) + 1):
        stack: list = []
        for op in ops[:version]:
            stack = stack[:-1] if op is None else [*stack, op]
        state = replay(rules, options, stack)
        view = json.loads(json.dumps(rules.view(state, "public")))
        events.append({"version": version, "state": view, "finished": rules.is_over(state)})
    return events


def test_stream_matching_the_journal_passes():
    options, ops = tails_game(3)
    assert rel.stream_problems("tails", options, stream_of(options, ops), ops) == []


def test_a_state_the_journal_does_not_replay_to_is_caught():
    options, ops = tails_game(4)
    events = stream_of(options, ops)
    events[7]["state"]["totals"] = [99, 99]
    assert rel.stream_problems("tails", options, events, ops) == [
        "the state sent at version 7 is not the journal's replay"
    ]


def test_a_version_phones_saw_but_the_journal_lacks_is_caught():
    options, ops = tails_game(5)
    events = stream_of(options, ops)
    problems = rel.stream_problems("tails", options, events, ops[:20])
    assert problems == ["phones saw version 30 but the journal has 20"]


def test_versions_going_back_are_caught():
    options, ops = tails_game(6)
    events = stream_of(options, ops)
    events[3], events[4] = events[4], events[3]
    assert "stream versions went back" in rel.stream_problems("tails", options, events, ops)[0]


def test_scripts_are_legal_and_undos_redo_the_same_action():
    for seed in range(5):
        options, ops = rel.scenario("tails", random.Random(seed))
        for i, op in enumerate(ops):
            if op is None:
                assert ops[i + 1] == ops[i - 1]
        entries = [Entry(i, 0.0, op is None, op or {"type": "undo"}) for i, op in enumerate(ops)]
        state = replay(TailsRules(), options, effective_actions(entries))
        assert TailsRules().is_over(state)
    options, ops = rel.scenario("teufel", random.Random(1))
    assert 0 < len(ops) <= rel.OPS_CAP and set(options) >= {"players", "first"}


def test_views_by_version_follow_undos():
    options, ops = {"players": 2}, [PLACE, None, PLACE]
    views = rel.views_by_version("tails", options, ops, {0, 1, 2, 3})
    assert views[0] == views[2] and views[1] == views[3] and views[0] != views[1]


def test_tails_walk_is_legal_for_long():
    walk = rel.Walk(random.Random(2), players=2)
    assert walk.body == {"kind": "tails", "options": {"players": 2}}  # the walked kind
    rules, stack = TailsRules(), []
    for _ in range(400):
        op = walk.next()
        stack = stack[:-1] if op is None else [*stack, op]
    assert replay(rules, walk.options, stack) == walk.states[-1]
    assert len(walk.states) == len(stack) + 1


def test_quantile():
    assert rel.quantile([], 0.5) != rel.quantile([], 0.5)  # NaN
    assert rel.quantile([4.0], 0.99) == 4.0
    assert rel.quantile([1.0, 2.0, 3.0], 0.5) == 2.0
    assert rel.quantile(list(map(float, range(101))), 0.99) == pytest.approx(99.0)


def test_table_has_a_line_per_row_with_verdicts():
    rows = [bench_all.spread(name, [1.0, 2.0, 30.0], 25.0) for name in bench_all.ROWS]
    rows[3] = bench_all.judged(bench_all.ROWS[3], 1, 2500.0, 2000.0, above=True)
    lines = bench_all.format_table(rows).splitlines()
    assert len(lines) == 2 + len(bench_all.ROWS)
    assert lines[2 + 3].endswith(" ok") and "2,500" in lines[2 + 3]
    assert lines[2].endswith("MISS")  # p99 29.4 against p99 < 25


def test_a_game_killed_before_its_finished_mark_reopens_finished(tmp_path):
    """What one kill in a hundred found: the last action journaled, then SIGKILL before
    ``mark_finished``. On restart the game must still be over (the replay says so)."""
    journal = Journal(tmp_path / "journal.sqlite3")
    options, script = rel.scenario("tails", random.Random(1))
    game_id = journal.create_game("tails", options)
    for op in script:
        journal.append(game_id, op or {"type": "undo"}, undo=op is None)
    table = Table(TailsRules(), journal, game_id, Hub())
    assert TailsRules().is_over(table.state)
    assert table.finished and journal.game(game_id).finished is not None
