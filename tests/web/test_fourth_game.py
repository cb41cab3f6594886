"""Issue 23: a fourth game, kept in the tests (tests/fixtures/dicerace), is registered
like a plug-in and works everywhere the built-in ones do: played to the end through the
API and in Chromium on its own page, then home, history, the step-through, stats with a
chart, CSV, the zip export, backup and restore, the reliability suite's kill -9 part, and
every page in English, French and German, with no 5xx anywhere and no product file
touched (the product never names it)."""

from __future__ import annotations

import base64
import csv
import io
import json
import os
import random
import re
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from controller import reliability as rel
from controller.games.registry import GameKind
from controller.service import Service
from tests.fixtures import dicerace

from .conftest import PIN, REFEREE, live_server

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ("controller", "web")
PHONE = {"width": 390, "height": 844}
PAGES = ("/", "/history", "/history/{gid}", "/games/{gid}", "/stats", "/box", "/rules/dicerace")


def product_files() -> dict[str, tuple[int, int]]:
    """Every product file's (mtime, size): what "no file outside the fixture touched" means."""
    return {
        str(path.relative_to(ROOT)): (path.stat().st_mtime_ns, path.stat().st_size)
        for top in PRODUCT
        for path in (ROOT / top).rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }


@pytest.fixture
def race() -> Iterator[GameKind]:
    before = product_files()
    with dicerace.registered() as kind:
        yield kind
    assert product_files() == before, "a product file changed while the fourth game played"


def roll(client: FlaskClient, gid: int, player: str, die: int) -> Any:
    action = {"type": "roll", "player": player, "die": die}
    return client.post(f"/api/games/{gid}/actions", json=action, headers=REFEREE)


def play_to_the_end(client: FlaskClient, gid: int, dice: list[int]) -> dict[str, Any]:
    """Roll ``dice`` in turn for whoever is to act; returns the last view."""
    view: dict[str, Any] = client.get(f"/api/games/{gid}").get_json()["view"]
    for die in dice:
        resp = roll(client, gid, view["state"]["to_act"], die)
        assert resp.status_code == 200, resp.get_json()
        view = resp.get_json()["view"]
    return view


def test_the_fourth_game_plays_refuses_and_is_counted_exported_and_restored(
    client: FlaskClient, service: Service, race: GameKind
) -> None:
    made = client.post("/api/games", json={"kind": "dicerace", "options": {"target": 61}})
    assert made.status_code == 401  # the referee's only
    bad = client.post(
        "/api/games", json={"kind": "dicerace", "options": {"target": 61}}, headers=REFEREE
    )
    assert bad.status_code == 400 and bad.get_json()["error"] == "bad-option"
    made = client.post(
        "/api/games", json={"kind": "dicerace", "options": {"target": 10}}, headers=REFEREE
    )
    assert made.status_code == 201, made.get_json()
    gid = made.get_json()["view"]["id"]
    assert made.get_json()["view"]["state"]["to_act"] == "p1"
    assert roll(client, gid, "p2", 3).status_code == 409  # not p2's turn: nothing changes
    assert roll(client, gid, "p1", 7).status_code == 400  # no such die
    assert client.get(f"/api/games/{gid}").get_json()["view"]["version"] == 0
    # p1 6 (again) 2, p2 3, p1 2 -> 10: p1 wins
    view = play_to_the_end(client, gid, [6, 2, 3, 2])
    assert view["finished"] is True and view["state"]["winner"] == "p1"
    assert view["state"]["at"] == {"p1": 10, "p2": 3}
    assert roll(client, gid, "p2", 1).status_code == 409  # over
    # statistics and the game's chart, as the kind declares them
    stats = client.get("/api/stats", headers=REFEREE).get_json()
    assert stats["kinds"]["dicerace"]["games"] == 1
    assert stats["kinds"]["dicerace"]["first_player"]["wins"] == 1
    assert {p["name"]: p["wins"] for p in stats["players"]} == {"p1": 1, "p2": 0}
    chart = client.get(f"/api/stats/games/{gid}", headers=REFEREE).get_json()
    assert chart["chart"] == "score" and chart["sides"] == [["p1"], ["p2"]]
    assert chart["series"] == [[0, 6, 8, 8, 10], [0, 0, 0, 3, 3]]
    # the step-through's steps, the CSV, the zip and the BG Stats link
    step = client.get(f"/api/games/{gid}/steps/3").get_json()
    assert step["steps"] == 4 and step["state"]["at"] == {"p1": 8, "p2": 3}
    rows = list(csv.DictReader(io.StringIO(client.get("/api/export.csv", headers=REFEREE).text)))
    assert [(r["kind"], r["winner"], r["actions"]) for r in rows] == [("dicerace", "p1", "4")]
    archive = zipfile.ZipFile(io.BytesIO(client.get("/api/export.zip", headers=REFEREE).data))
    exported = json.loads(archive.read(f"game-{gid}.json"))
    assert exported["kind"] == "dicerace" and len(exported["entries"]) == 4
    assert client.get(f"/api/games/{gid}/bgstats", headers=REFEREE).status_code == 200
    again = client.post("/api/import", json=exported, headers=REFEREE)
    assert again.status_code == 201, again.get_json()
    # backup, then restore it over a later game
    backup = client.get("/api/backup", headers=REFEREE).data
    client.post("/api/games", json={"kind": "dicerace"}, headers=REFEREE)
    body = {"name": "backup.sqlite3", "data": base64.b64encode(backup).decode()}
    checked = client.post("/api/backup/check", json=body, headers=REFEREE)
    assert checked.status_code == 200, checked.get_json()
    done = client.post(
        "/api/backup/restore",
        json={"upload": checked.get_json()["upload"], "confirm": True},
        headers=REFEREE,
    )
    assert done.status_code == 200, done.get_json()
    assert [g["kind"] for g in client.get("/api/games").get_json()["games"]] == ["dicerace"] * 2
    # every page, in every language: never a 5xx (no rules page of its own: 404)
    for lang in ("en", "fr", "de"):
        client.get(f"/lang/{lang}")
        for path in PAGES:
            resp = client.get(path.format(gid=gid), headers=REFEREE)
            assert resp.status_code == (404 if "rules" in path else 200), (lang, path)
            assert f'lang="{lang}"' in resp.text
        script = client.get("/kinds/dicerace/dicerace.js")
        assert script.status_code == 200 and script.mimetype == "text/javascript"
    assert client.get("/kinds/dicerace/other.js").status_code == 404
    assert client.get("/kinds/sauteur/sauteur.js").status_code == 404


@pytest.mark.browser
def test_the_fourth_game_in_chromium_in_three_languages(
    browser: Any, tmp_path: Path, race: GameKind
) -> None:
    with live_server(tmp_path, 3600) as (base, service):
        context = browser.new_context(viewport=PHONE, device_scale_factor=1)
        page = context.new_page()
        failures: list[str] = []
        page.on("pageerror", lambda e: failures.append(f"JavaScript error: {e}"))
        page.on(
            "response",
            lambda r: failures.append(f"{r.status} {r.url}") if r.status >= 500 else None,
        )
        try:
            other = service.new_game("dicerace", {}, "In play")  # for the home page's list
            page.goto(f"{base}/")
            page.wait_for_selector(f"#games [data-game='{other}'] [data-turn=p1]")
            assert "p1" in page.inner_text(f"#games [data-game='{other}'] .game-turn")
            page.click("#role")
            page.fill("#pin", PIN)
            page.click("#login-go")
            page.wait_for_selector("#role.referee")
            # started from the home page's form: its seats are the kind's (p1, p2)
            page.select_option("#kind", "dicerace")
            # the login reloads the page: its module may still be loading when the kind is
            # picked, and fills the seats for the picked kind once it has (CI saw [] here)
            page.wait_for_function(
                "() => [...document.querySelectorAll('#seats .seat-label')]"
                ".map((e) => e.textContent).join() === 'p1,p2'"
            )
            assert page.locator("#seats .seat-label").all_inner_texts() == ["p1", "p2"]
            page.click("#create")
            page.wait_for_url(re.compile(r"/games/\d+$"))
            gid = int(page.url.rsplit("/", 1)[1])
            assert service.journal.game(gid).options == {}
            page.wait_for_selector("#dice button[data-die='6']")
            # target 20: p1 6 5, p2 1, p1 6 3 -> 20: p1 wins, and the dice go
            for die, seat, at in (
                (6, "p1", 6),
                (5, "p1", 11),
                (1, "p2", 1),
                (6, "p1", 17),
                (3, "p1", 20),
            ):
                page.click(f"#dice button[data-die='{die}']")
                page.wait_for_selector(f"#track li[data-seat={seat}][data-at='{at}']")
            page.wait_for_function("() => !document.querySelector('#dice button')")
            assert service.table(gid).finished
            assert "p1" in page.inner_text("#turn")
            for lang in ("en", "fr", "de"):
                page.goto(f"{base}/lang/{lang}?next=/")
                page.wait_for_selector("#kind option[value=dicerace]", state="attached")
                assert page.get_attribute("html", "lang") == lang
                page.goto(f"{base}/history")
                page.wait_for_selector(f"[data-game='{gid}']")
                page.goto(f"{base}/history/{gid}")
                page.wait_for_selector("#moves button[data-step='5']")
                page.click("#moves button[data-step='1']")
                page.wait_for_function("() => document.getElementById('step').value === '1'")
                page.goto(f"{base}/stats?game={gid}")
                page.wait_for_selector("#kinds .kind-stats[data-kind=dicerace] canvas")
                page.wait_for_selector("#game-charts canvas")
                page.goto(f"{base}/games/{gid}")
                page.wait_for_selector("#track li[data-seat=p2][data-at='1']")
        finally:
            context.close()
        assert failures == []


def test_the_kill_9_part_plays_the_fourth_game_in_a_real_server(
    tmp_path: Path, race: GameKind, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `diablotin serve` finds the game through the plug-in variable, as a user's would
    monkeypatch.setenv("DIABLOTIN_GAMES", "tests.fixtures.dicerace")
    path = os.environ.get("PYTHONPATH", "")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, (str(ROOT), path))))
    lines: list[str] = []
    results = rel.run_crash(1, seed=3, workdir=tmp_path, log=lines.append, kinds=["dicerace"])
    assert [(r.kind, r.problems) for r in results] == [("dicerace", [])], "\n".join(lines)
    assert results[0].journaled >= results[0].acked > 0
    assert rel.crash_report(results)[0] == "kill -9: 1/1 games with no acknowledged action lost"
    options, ops = rel.scenario("dicerace", random.Random(3))
    assert set(options) == {"target", "first"} and ops
