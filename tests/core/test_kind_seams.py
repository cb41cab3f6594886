"""The generic benches, the reliability suite and the OpenAPI document ask the registry
which kind plays on the box, which kind the load tests walk, and what each kind adds
(issue 23: generic code never names a kind). Cheap: nothing is served or measured."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator

import pytest

from controller.games import registry
from controller.games.base import replay


@pytest.fixture
def box_and_walk_swapped() -> Iterator[tuple[str, str]]:
    """The box's game and the walked game declared by other kinds (copies of the built-in
    ones under new names): what the generic code then picks."""
    box = dataclasses.replace(registry.get("sauteur"), name="boxgame")
    walked = dataclasses.replace(registry.get("tails"), name="walkgame")
    originals = registry.kinds()
    registry.unregister("sauteur")
    registry.unregister("tails")
    registry.register(box)
    registry.register(walked)
    try:
        yield box.name, walked.name
    finally:
        for kind in registry.kinds():
            registry.unregister(kind.name)
        for kind in originals:  # in their order, as menus show them
            registry.register(kind)


def test_the_box_game_and_the_walked_game_are_the_declared_ones() -> None:
    assert registry.on_box().name == "sauteur"  # the kind with a box_player
    assert registry.walked().name == "tails"  # the kind with a walk


def test_the_generic_code_follows_the_declarations(box_and_walk_swapped) -> None:
    from controller.reliability.hostile import _new_game
    from controller.reliability.live import Walk, walk_body
    from controller.web.openapi import document

    box, walked = box_and_walk_swapped
    assert registry.on_box().name == box and registry.walked().name == walked
    assert walk_body(3) == {"kind": walked, "options": {"players": 3}}
    assert _new_game(2) == f'{{"kind": "{walked}", "options": {{"players": 2}}}}'
    walk = Walk(random.Random(4), players=2)
    stack: list[object] = []
    for _ in range(60):
        op = walk.next()
        stack = stack[:-1] if op is None else [*stack, op]
    rules = registry.get(walked).rules()
    assert replay(rules, walk.options, stack) == walk.states[-1]
    summary = document()["paths"]["/api/games/{game_id}/box"]["post"]["summary"]
    assert (
        summary
        == "Put this unfinished game of Le Diable sauteur on the box (it checks the sensors first)"
    )


def test_no_kind_on_the_box_or_walked_is_a_clear_error(monkeypatch) -> None:
    monkeypatch.setattr(registry, "kinds", lambda: ())
    with pytest.raises(LookupError, match="no game kind plays on the box"):
        registry.on_box()
    with pytest.raises(LookupError, match="no game kind declares a walk"):
        registry.walked()


def test_each_kind_bench_feeds_bench_all_and_bench_stats() -> None:
    from controller.bench import all as bench_all
    from controller.bench import kind_benches

    engines = [bench.__name__ for bench in kind_benches("ENGINE_ROW")]
    assert engines == ["controller.bench.teufel", "controller.bench.tails"]
    assert "tails: score a full board (ms)" in bench_all.ROWS
    assert "teufel: apply one action (ms)" in bench_all.ROWS
    assert bench_all.SIM == "sauteur sim, rule A (games/s, all cores)"
    stats = [bench.__name__ for bench in kind_benches("STATS_GAMES")]
    assert stats == [
        "controller.bench.sauteur",
        "controller.bench.teufel",
        "controller.bench.tails",
    ]
    samples = kind_benches("ENGINE_ROW")[1].engine_samples(True, 1)
    assert len(samples) == 3 * 3 * 10 and all(ms >= 0 for ms in samples)


def test_each_kind_adds_its_hostile_requests() -> None:
    from controller.reliability import hostile, hostile_teufel

    assert [name for name, _ in hostile.kind_hostiles()] == ["sauteur", "teufel", "tails"]
    assert hostile.HOSTILE_GROUPS[3:5] == (hostile_teufel.GIVE_UP, hostile_teufel.POSITION)
    cases = hostile._Cases()
    hostile._nan(cases, 7)
    bodies = [case.body for case in cases.cases if case.path == "/api/games"]
    assert bodies == [
        b'{"kind": "sauteur", "options": {"rounds": Infinity}}',
        b'{"kind": "sauteur", "options": {"rounds": 1e999}}',
        b'{"kind": "tails", "options": {"players": NaN}}',
    ]


def test_the_odds_summary_names_each_kind_with_odds_by_its_title() -> None:
    from controller.web.openapi import document

    summary = document()["paths"]["/api/games/{game_id}/odds"]["get"]["summary"]
    for kind in registry.kinds():
        if kind.web is not None:
            assert kind.title.english() + ": " in summary
    assert "`player=<colour>`" in summary and "`kind=A..G`" in summary
