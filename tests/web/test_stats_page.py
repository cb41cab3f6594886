"""The Stats page in real Chromium: charts drawn by the vendored uPlot, labelled, translated,
dark, and without a single request leaving the box; and GET /api/stats over HTTP."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from controller.service import Service
from controller.web.assets import digest
from tests.core.test_stats import hand_games

from .conftest import PIN, live_server

PHONE = {"width": 390, "height": 844}
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def live(tmp_path: Path) -> Iterator[tuple[str, Service]]:
    with live_server(tmp_path, 3600) as (base, service):
        for data in hand_games():
            service.import_game(data)
        yield base, service


def open_stats(browser: Any, base: str, path: str, **extra: Any) -> tuple[Any, Any, list[str]]:
    context = browser.new_context(viewport=PHONE, device_scale_factor=1, **extra)
    page = context.new_page()
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.on("pageerror", lambda e: pytest.fail(f"JavaScript error: {e}"))
    page.goto(base + path)
    return context, page, requests


@pytest.mark.browser
def test_stats_page_draws_labelled_charts_in_dark_mode_without_external_requests(
    browser: Any, live: Any
) -> None:
    base, _service = live
    ctx, page, requests = open_stats(browser, base, "/stats?game=3", color_scheme="dark")
    try:
        page.wait_for_selector("#players-chart canvas")
        page.wait_for_selector("#kinds .kind-stats[data-kind=teufel] canvas")
        page.wait_for_selector("#game-charts canvas")
        labels = page.eval_on_selector_all(
            "canvas", "(cs) => cs.map((c) => c.getAttribute('aria-label'))"
        )
        # players' win rates, the two kinds' durations, game 3's race
        assert labels == [
            "Win rate per player (%)",
            "Le Diable sauteur: length of each game (minutes)",
            "Devils, Devils: length of each game (minutes)",
            "Race 1: squares gone round after each pop",
        ]
        sizes = page.eval_on_selector_all("canvas", "(cs) => cs.map((c) => c.clientWidth)")
        assert all(0 < w <= PHONE["width"] for w in sizes), sizes  # fits a phone
        rows = page.eval_on_selector_all(
            "#players tbody tr", "(rs) => rs.map((r) => r.dataset.player)"
        )
        assert rows == ["p1", "p2", "blue", "green"]
        assert "2 won in a row" in page.inner_text("#players tr[data-player=p1]")
        assert "The first player won 2 of 3 (67%" in page.inner_text(
            "#kinds"
        )  # CLDR: 67 % in French
        background = page.evaluate("() => getComputedStyle(document.body).backgroundColor")
        assert background == "rgb(20, 16, 22)"  # --bg in dark mode
        legend = page.evaluate("() => getComputedStyle(document.querySelector('.u-legend')).color")
        assert legend == "rgb(241, 236, 242)"  # --ink in dark mode: readable on the dark card
        # a spectator's picker offers the finished games only (not game 4, in play)
        options = page.eval_on_selector_all("#game-pick option", "(os) => os.map((o) => o.value)")
        assert options == ["5", "3", "2", "1"]
        page.select_option("#game-pick", "5")
        page.wait_for_selector("#game-charts canvas[aria-label='Letters held as the game went']")
        page.select_option("#game-pick", "1")
        page.wait_for_selector("#game-charts canvas[aria-label^='Race 1']")
        assert requests and all(url.startswith(base + "/") for url in requests), requests
        vendored = [url for url in requests if url.endswith("/vendor/uplot/uPlot.esm.js")]
        assert vendored and all(f"/static/v/{digest()}/" in url for url in vendored)
    finally:
        ctx.close()


@pytest.mark.browser
def test_stats_page_in_french_with_a_chase(browser: Any, live: Any) -> None:
    base, service = live
    steps = [{"type": "hidden"}, {"type": "pop", "key": 1, "by": "p2"}]
    steps.append({"type": "face", "face": "devil"})
    game_id = service.import_game(
        {
            "format": "diablotin-game/1",
            "kind": "sauteur",
            "options": {"rule": "A"},
            "finished": 1.0,  # not over by the rules: the table corrects it on opening
            "entries": [{"at": i, "action": a} for i, a in enumerate(steps)],
        }
    )
    ctx, page, _requests = open_stats(browser, base, "/stats", locale="fr-FR")
    try:
        page.wait_for_selector(
            "#players-chart canvas[aria-label='Taux de victoire par joueur (%)']"
        )
        assert "Joueur 1" in page.inner_text("#players")
        page.evaluate("() => document.getElementById('role').click()")  # referee sees games in play
        page.fill("#pin", PIN)
        page.click("#login-go")
        page.wait_for_selector("#role.referee")
        page.select_option("#game-pick", str(game_id))
        page.wait_for_selector(
            "#game-charts canvas[aria-label^='Manche 1 (Joueur 2 sort les dés)']"
        )
        # a tail-tile game's seats nobody was named for, in words (the walkthrough read
        # "seat1", "seat2" in the legend)
        record = json.loads((ROOT / "docs" / "examples" / "game-tails.json").read_text())
        tails = service.import_game(record)
        page.reload()  # the picker lists the games the page was given
        page.wait_for_selector(f"#game-pick option[value='{tails}']", state="attached")
        page.select_option("#game-pick", str(tails))
        page.wait_for_function(
            "() => (document.querySelector('#game-charts .u-legend') || {}).innerText"
            " && !document.querySelector('#game-charts canvas[aria-label^=\"Manche\"]')"
        )
        legend = page.inner_text("#game-charts .u-legend")
        assert "Joueur 1" in legend and "Joueur 2" in legend and "seat" not in legend, legend
        # each side in its board colour (the legend's Joueur 1 was blue, the board's orange)
        colours = page.evaluate(
            """() => {
              const probe = document.createElement("span");
              document.body.append(probe);
              const board = [0, 1].map((i) => {
                probe.style.color = `var(--tails-side${i})`;
                return getComputedStyle(probe).color;
              });
              const marks = [...document.querySelectorAll("#game-charts .u-series .u-marker")]
                .slice(1, 3).map((m) => getComputedStyle(m).borderColor);
              return { board, marks };
            }"""
        )
        assert colours["marks"] == colours["board"], colours
        # a long name is cut to its bar's room on the win-rate chart ("Anne-Charlotte de La
        # RocComputer · schlau" ran into each other); the page's own module, not a new copy
        cut = page.evaluate(
            """async () => {
              const src = document.querySelector("script[type=module]").src;
              const { fitted } = await import(src);
              return [fitted("Anne-Charlotte de La Rochefoucauld", 10), fitted("Zoé", 10),
                      fitted("Computer · schlau", 2)];
            }"""
        )
        assert cut == ["Anne-Char…", "Zoé", "Co…"]
    finally:
        ctx.close()


def test_api_stats_and_a_game_in_play_is_the_referees(client: FlaskClient, service: Any) -> None:
    for data in hand_games():
        service.import_game(data)
    stats = client.get("/api/stats").get_json()
    assert stats["games"] == 4 and stats["kinds"]["sauteur"]["first_player"]["wins"] == 2
    race = client.get("/api/stats/games/3").get_json()
    assert race["chart"] == "race" and race["races"][0]["p1"] == [0, 0, 0, 10]
    in_play = client.get("/api/stats/games/4")
    assert in_play.status_code == 401 and in_play.get_json()["error"] == "pin-required"
    ok = client.get("/api/stats/games/4", headers={"X-Referee-Pin": PIN})
    assert ok.status_code == 200 and ok.get_json()["races"] == []  # no pop yet
    assert client.get("/api/stats/games/99").status_code == 404
