"""The tail-tile game's page: its API helpers (layout, advisor, refusals) and real Chromium.

The browser tests run the real server on 127.0.0.1:<free port> and drive phone-sized pages
(390×844, touch): a whole 2-player game entered by taps (cell → card picture → rotate →
Place) from a seeded random legal sequence, with a spectator page following live; and a
short one for what may not be tapped and what a refusal shows. Screenshots go to
artifacts/screenshots/tails-*.png.
"""

from __future__ import annotations

import json
import random
import re
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from controller.games.base import Refused, replay
from controller.games.tails import (
    TailsRules,
    advise,
    advise_cell,
    cell_refusals,
    format_move,
    legal_cells,
    score_record,
)
from controller.service import Service
from controller.web.assets import static_url

from .conftest import PIN, REFEREE, live_server, login

RULES = TailsRules()
PHONE = {"width": 390, "height": 844}
SHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"
MOVES_ARE = "(n) => Number(document.body.dataset.moves) === n"


def place(cell: str, kind: str, rotation: int = 0) -> dict[str, Any]:
    return {"type": "place", "cell": cell, "kind": kind, "rotation": rotation}


def random_game(seed: int) -> list[dict[str, Any]]:
    """A whole 2-player game: a seeded random choice among TailsRules' legal actions."""
    rng = random.Random(seed)
    state = RULES.setup({})
    actions: list[dict[str, Any]] = []
    while not RULES.is_over(state):
        action = rng.choice(RULES.legal_actions(state))
        state = RULES.apply(state, action)
        actions.append(action)
    return actions


def engine_state(service: Service, game_id: int) -> Any:
    table = service.table(game_id)
    return replay(RULES, table.options, table.actions)


# --- the API helpers (Flask test client) -------------------------------------------------


def test_the_page_is_the_tails_template_and_module(client: FlaskClient, service: Service) -> None:
    game_id = service.new_game("tails", {})
    html = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert f'src="{static_url("js/games/tails.js")}"' in html
    assert 'id="board"' in html and 'id="kinds"' in html
    assert 'id="place"' not in html  # spectators get no entry buttons
    login(client)
    html = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert 'id="place"' in html and 'id="rotate"' in html and 'id="pass"' in html


def test_layout_is_sent_once_with_an_etag(client: FlaskClient, service: Service) -> None:
    game_id = service.new_game("tails", {})
    resp = client.get(f"/api/games/{game_id}/layout")
    assert resp.status_code == 200
    layout = resp.get_json()
    assert len(layout["cells"]) == 54 and len(layout["devils"]) == 18
    assert sorted(layout["kinds"]) == list("ABCDEFG")
    first = layout["cells"][0]
    assert first["id"] == "1n" and first["twin"] == "1s"
    assert first["corners"] == [[2.0, 0.866], [1.0, 0.866], [1.5, 0.0]]  # rounded to 4 places
    etag = resp.headers["ETag"]
    assert resp.headers["Cache-Control"] == "no-cache"
    again = client.get(f"/api/games/{game_id}/layout", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.get_data() == b""
    sauteur = service.new_game("sauteur", {})
    resp = client.get(f"/api/games/{sauteur}/layout")
    assert resp.status_code == 404 and resp.get_json()["error"] == "no-layout"
    assert client.get("/api/games/999/layout").get_json()["error"] == "no-game"


def test_odds_is_the_advisor(client: FlaskClient, service: Service) -> None:
    game_id = service.new_game("tails", {})
    for action in (place("5n", "E", 1), place("5s", "D", 2), place("9n", "G"), place("9s", "B")):
        service.submit(game_id, action)  # then seat 0 chooses its second card's cell
    state = engine_state(service, game_id)
    url = f"/api/games/{game_id}/odds"

    cells = client.get(url).get_json()
    assert cells["mode"] == "cell" and cells["kind"] is None
    assert cells["to_move"] == {"seat": 0, "side": 0}
    assert cells["suggestions"] == [s.as_dict() for s in advise_cell(state)]
    assert len(cells["suggestions"]) == 3 and cells["suggestions"][0]["rotation"] is None

    drawn = client.get(url, query_string={"kind": "F"}).get_json()
    assert drawn["mode"] == "placement" and drawn["lookahead"] is False
    assert drawn["suggestions"] == [s.as_dict() for s in advise(state, "F")]
    ahead = client.get(url, query_string={"kind": "F", "lookahead": "1"}).get_json()
    assert ahead["lookahead"] is True
    assert ahead["suggestions"] == [s.as_dict() for s in advise(state, "F", lookahead=True)]
    assert ahead["version"] == service.table(game_id).version
    to_end = client.get(url, query_string={"kind": "F", "lookahead": "end"}).get_json()
    assert to_end["lookahead"] is True and to_end["to_end"] is True
    assert 1 <= len(to_end["suggestions"]) <= 3
    greedy_best = {(s.cell, s.rotation) for s in advise(state, "F", top=6)}
    for suggestion in to_end["suggestions"]:  # Monte Carlo ranks the greedy's best six
        assert (suggestion["cell"], suggestion["rotation"]) in greedy_best

    for query, code in (
        ({"kind": "J"}, "bad-kind"),
        ({"kind": "E", "lookahead": "yes"}, "bad-query"),
        ({"lookahead": "end"}, "bad-query"),
        ({"lookahead": "1"}, "bad-query"),
        ({"kind": "E", "top": "9"}, "bad-query"),
    ):
        resp = client.get(url, query_string=query)
        assert resp.status_code == 400, query
        assert resp.get_json()["error"] == code, query


def test_odds_for_a_kind_out_of_stock_and_after_the_end(
    client: FlaskClient, service: Service
) -> None:
    game_id = service.new_game("tails", {"stock": {"E": 0, "A": 15}})
    resp = client.get(f"/api/games/{game_id}/odds", query_string={"kind": "E"})
    assert resp.status_code == 409
    assert resp.get_json() == {
        "error": "no-stock",
        "code": "no-stock",
        "params": {"kind": "E"},
        "reason": "no E cards left",
        "template": "no {kind} cards left",
    }
    done = service.new_game("tails", {})
    for action in random_game(3):
        service.submit(done, action)
    over = client.get(f"/api/games/{done}/odds", query_string={"kind": "A"}).get_json()
    assert over["finished"] is True and over["suggestions"] == [] and over["to_move"] is None


def test_a_refused_placement_gets_the_engines_reason_and_changes_nothing(
    client: FlaskClient, service: Service
) -> None:
    game_id = service.new_game("tails", {})
    table = service.table(game_id)
    before = (table.version, list(table.actions))
    # seat 0 plays A–I: 2s carries devil K's body, so the exception rule forbids it
    reason = "exception rule: 2s borders devil K's body, an opponent's"
    assert cell_refusals(table.state)["2s"] == reason
    resp = client.post(f"/api/games/{game_id}/actions", json=place("2s", "E", 1), headers=REFEREE)
    assert resp.status_code == 409
    assert resp.get_json() == {
        "error": "exception-rule",
        "code": "exception-rule",
        "params": {"cell_id": "2s", "devil": "K"},
        "reason": reason,
        "template": "exception rule: {cell_id} borders devil {devil}'s body, an opponent's",
    }
    assert (table.version, table.actions) == before
    # the referee's extras carry every refusal, spectators' none
    extras = client.get(f"/api/games/{game_id}", headers=REFEREE).get_json()["extras"]
    assert extras["refusals"]["2s"] == reason
    refused_cells = set(table.state.board.cell_ids) - set(legal_cells(table.state))
    assert set(extras["refusals"]) == refused_cells
    assert "refusals" not in client.get(f"/api/games/{game_id}").get_json()["extras"]


# --- real Chromium -------------------------------------------------------------------------


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, Service]]:
    """The real WSGI server on 127.0.0.1:<free port> in a thread (the toy stays still)."""
    with live_server(tmp_path, 3600.0) as live:
        yield live


def phone(browser: Any, base: str, locale: str, **extra: Any) -> tuple[Any, Any, list[str]]:
    """A phone-sized touch page that records its requests and fails on a JavaScript error."""
    context = browser.new_context(
        viewport=PHONE, device_scale_factor=1, has_touch=True, locale=locale, **extra
    )
    page = context.new_page()
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.on("pageerror", lambda e: pytest.fail(f"JavaScript error: {e}"))
    return context, page, requests


def log_in(page: Any, base: str) -> None:
    page.goto(base + "/")
    page.tap("#role")
    page.fill("#pin", PIN)
    page.tap("#login-go")
    page.wait_for_selector("#role.referee")


def open_game(page: Any, base: str, game_id: int) -> None:
    page.goto(f"{base}/games/{game_id}")
    page.wait_for_selector("#board polygon.tcell")
    page.wait_for_selector("#live[data-state='on']")


def shot(page: Any, name: str, at: str | None = None) -> None:
    """The whole page from the top, or (``at``: an element id) what the phone's screen
    shows with that element just below the header (the referee's entry panel is fixed at
    the bottom of the screen while a game is on, so it is shot as the phone shows it)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    if at is None:
        page.evaluate("() => window.scrollTo(0, 0)")
    else:
        scroll_to(page, at)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=at is None)


def scroll_to(page: Any, element_id: str) -> None:
    """Scroll so the element's top is just below the sticky header."""
    page.evaluate(
        "(id) => { const b = document.getElementById(id).getBoundingClientRect();"
        " const top = document.querySelector('header').getBoundingClientRect().bottom;"
        " window.scrollBy(0, b.top - top - 4); }",
        element_id,
    )


def show_board(page: Any) -> None:
    """The whole board between the header and the referee's entry panel."""
    scroll_to(page, "board")


def enter(page: Any, action: dict[str, Any], moves: int) -> None:
    """Enter one placement by taps, as the referee does at the table; wait until it is in."""
    if action["type"] == "pass":
        page.tap("#pass")
    else:
        page.tap(f"#board polygon[data-cell='{action['cell']}']")
        page.tap(f"#kinds button[data-kind='{action['kind']}']")
        for _ in range(3):
            if int(page.get_attribute("#sheet", "data-rotation") or 0) == action["rotation"]:
                break
            page.tap("#rotate")
        assert page.get_attribute("#sheet", "data-cell") == action["cell"]
        assert int(page.get_attribute("#sheet", "data-rotation") or 0) == action["rotation"]
        page.tap("#place")
    page.wait_for_function(MOVES_ARE, arg=moves + 1, timeout=10_000)


def shown_scores(page: Any) -> list[int]:
    return [int(x) for x in page.locator("#scores .points").all_inner_texts()]


@pytest.mark.browser
def test_a_whole_game_entered_by_taps_with_a_spectator(browser: Any, server: Any) -> None:
    base, service = server
    actions = random_game(seed=11)
    assert sum(a["type"] == "place" for a in actions) == 54
    game_id = service.new_game("tails", {}, "Tails at the table")
    ref_ctx, ref, ref_requests = phone(browser, base, "en-GB")
    spec_ctx, spec, spec_requests = phone(browser, base, "fr-FR", color_scheme="dark")
    answers: list[tuple[str | None, str | None]] = []  # the page's Prefer, the answer's
    ref.on(
        "response",
        lambda r: (
            "/actions" in r.url
            and answers.append(
                (r.request.headers.get("prefer"), r.headers.get("preference-applied"))
            )
        ),
    )
    log_in(ref, base)
    open_game(ref, base, game_id)
    navigations: list[str] = []
    spec.on("framenavigated", lambda f: navigations.append(f.url))
    open_game(spec, base, game_id)
    assert spec.locator("#place").count() == 0 and spec.locator("#kinds button").count() == 0
    assert spec.inner_text("#role") == "Spectateur"
    show_board(ref)

    midgame = next(i for i, a in enumerate(actions) if i >= 30 and a["type"] == "place")
    started = time.monotonic()
    for moves, action in enumerate(actions):
        due = RULES.view(engine_state(service, game_id), "public")["pending"]
        if due["mode"] == "forced":  # the twin rule: the page picked the cell already
            assert ref.get_attribute("#sheet", "data-cell") == due["cell"]
            assert ref.get_attribute("body", "data-mode") == "forced"
        if moves == midgame:
            check_advice_and_take_midgame_shots(ref, spec, service, game_id, action)
        enter(ref, action, moves)
    print(f"\n{len(actions)} actions entered by taps in {time.monotonic() - started:.1f} s")

    table = service.table(game_id)
    assert table.finished and table.actions == actions
    record = "players: 2\n" + "\n".join(format_move(a) for a in actions)
    totals = score_record(record)["totals"]
    for page in (ref, spec):
        page.wait_for_selector("#banner:not([hidden])")
        page.wait_for_function(MOVES_ARE, arg=len(actions))
        assert shown_scores(page) == totals
        assert page.locator("#board path.piece").count() == 54 * 3
    assert spec.inner_text("#moves-count") == str(len(actions))
    # with its stream live the page asked for the short answer every time (issue 25)
    assert answers == [("return=minimal", "return=minimal")] * len(actions)
    assert navigations == [f"{base}/games/{game_id}"]  # the spectator never reloaded
    shot(ref, "tails-referee-final")
    shot(spec, "tails-spectator-final")
    for requests in (ref_requests, spec_requests):
        assert requests and all(url.startswith(base) for url in requests)
        assert sum("/layout" in url for url in requests) == 1  # the board's geometry, once
    ref_ctx.close()
    spec_ctx.close()


def check_advice_and_take_midgame_shots(
    ref: Any, spec: Any, service: Service, game_id: int, action: dict[str, Any]
) -> None:
    """Mid-game: the advisor's best place for the card drawn is highlighted on request."""
    state = engine_state(service, game_id)
    ref.tap(f"#board polygon[data-cell='{action['cell']}']")
    ref.tap(f"#kinds button[data-kind='{action['kind']}']")
    ref.tap("#advice-toggle")
    ref.wait_for_selector("#advice .tails-advice-list li")
    best = advise(state, action["kind"])
    assert ref.get_attribute("#advice li.rank0", "data-cell") == best[0].cell
    assert ref.locator(f"#board polygon.advice.rank0[data-advice='{best[0].cell}']").count() == 1
    spec.wait_for_function(MOVES_ARE, arg=len(service.table(game_id).actions))
    shot(ref, "tails-referee-midgame", at="board")
    shot(ref, "tails-referee-advice", at="advice-toggle")
    shot(spec, "tails-spectator-midgame")
    # Playing to the end: the Monte Carlo advisor's best, among the greedy's best six.
    with ref.expect_response(lambda r: "lookahead=end" in r.url) as answer:
        ref.select_option("#lookahead", "end")
    ranked = answer.value.json()["suggestions"]
    assert answer.value.json()["to_end"] is True
    ref.wait_for_selector(f"#advice li.rank0[data-cell='{ranked[0]['cell']}']")
    assert ranked[0]["cell"] in {s.cell for s in advise(state, action["kind"], top=6)}
    ref.select_option("#lookahead", "0")
    ref.tap("#advice-toggle")
    ref.wait_for_selector("#advice", state="hidden")


@pytest.mark.browser
def test_with_its_stream_lost_the_page_takes_the_whole_answer(browser: Any, server: Any) -> None:
    """The live stream lost and not coming back (a proxy that drops it): each placement
    still shows at once, from the action's full answer (no ``Prefer: return=minimal``)."""
    base, service = server
    actions = random_game(seed=11)[:2]
    game_id = service.new_game("tails", {}, "No stream")
    ctx, ref, _ = phone(browser, base, "en-GB")
    prefers: list[str | None] = []
    ref.on("request", lambda r: "/actions" in r.url and prefers.append(r.headers.get("prefer")))
    log_in(ref, base)
    open_game(ref, base, game_id)
    ref.route("**/stream?*", lambda route: route.abort())
    service.hub.close_all()  # every stream ends; the page's reconnects are dropped
    ref.wait_for_selector("#live[data-state='reconnecting']")
    for moves, action in enumerate(actions):
        enter(ref, action, moves)
    assert prefers == [None, None]
    assert service.table(game_id).actions == actions
    ctx.close()


@pytest.mark.browser
def test_an_illegal_cell_is_not_tappable_and_a_refusal_shows_the_engines_reason(
    browser: Any, server: Any
) -> None:
    base, service = server
    game_id = service.new_game("tails", {})
    ctx, page, _ = phone(browser, base, "en-GB")
    log_in(page, base)
    open_game(page, base, game_id)
    show_board(page)
    state = engine_state(service, game_id)
    refusals = cell_refusals(state)
    assert "2s" in refusals  # devil K's body: the exception rule, for seat 0

    # a tap on the forbidden cell selects nothing and says why, in the engine's words
    cell = page.locator("#board polygon[data-cell='2s']")
    assert cell.get_attribute("aria-disabled") == "true"
    assert "legal" not in (cell.get_attribute("class") or "")
    box = cell.bounding_box()
    page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.wait_for_selector("#hint.error")
    assert page.inner_text("#hint") == refusals["2s"]
    assert page.get_attribute("#sheet", "data-cell") == ""
    page.tap("#kinds button[data-kind='D']")
    assert page.is_disabled("#place")  # a card but no cell: nothing to place
    assert page.locator("#board polygon.tcell.legal").count() == len(legal_cells(state))

    # a placement refused by the engine (another referee took the cell first): its reason shows
    page.tap("#board polygon[data-cell='5n']")
    page.tap("#rotate")
    assert page.inner_text("#place") == "Place D on 5n"

    def other_referee_first(route: Any) -> None:
        body = json.dumps(place("5n", "G", 2)).encode()
        request = urllib.request.Request(
            f"{base}/api/games/{game_id}/actions",
            data=body,
            method="POST",
            headers={"Content-Type": "application/json", "X-Referee-Pin": PIN},
        )
        with urllib.request.urlopen(request) as resp:
            assert resp.status == 200
        route.continue_()

    page.route("**/api/games/*/actions", other_referee_first)
    page.tap("#place")
    page.wait_for_selector("#toast:not([hidden])")
    after = engine_state(service, game_id)
    with pytest.raises(Refused) as refused:
        RULES.apply(after, place("5n", "D", 1))
    assert refused.value.reason == "the twin rule forces 5s"
    assert page.inner_text("#toast") == refused.value.reason
    assert service.table(game_id).actions == [place("5n", "G", 2)]  # only the other one
    # the page moved on to the new position: the forced twin is picked for the next card
    page.wait_for_function(MOVES_ARE, arg=1)
    assert page.get_attribute("#sheet", "data-cell") == "5s"
    assert page.locator("#board polygon.tcell.legal").count() == 1
    page.unroute("**/api/games/*/actions")
    shot(page, "tails-referee-refused", at="board")

    # undo takes the other referee's card back
    page.tap("#undo")
    page.wait_for_function(MOVES_ARE, arg=0)
    assert service.table(game_id).actions == []
    ctx.close()


def random_three_player_game(seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    state = RULES.setup({"players": 3})
    actions: list[dict[str, Any]] = []
    while not RULES.is_over(state):
        action = rng.choice(RULES.legal_actions(state))
        state = RULES.apply(state, action)
        actions.append(action)
    return actions


@pytest.mark.browser
def test_pass_is_offered_only_when_the_engine_says_pass(browser: Any, server: Any) -> None:
    base, service = server
    actions = random_three_player_game(seed=6)  # 3 players: the end has a pass in it
    first_pass = actions.index({"type": "pass"})
    game_id = service.new_game("tails", {"players": 3})
    for action in actions[: first_pass - 1]:
        service.submit(game_id, action)
    ctx, page, _ = phone(browser, base, "en-GB")
    log_in(page, base)
    open_game(page, base, game_id)
    assert page.locator("#scores .score").count() == 3
    show_board(page)
    # one card to go before the pass: no Pass button while a cell is legal
    assert page.is_hidden("#pass") and page.is_visible("#place")
    enter(page, actions[first_pass - 1], first_pass - 1)
    # now the engine says pass: every cell refuses, the cards are off, Pass is offered
    assert RULES.legal_actions(engine_state(service, game_id)) == [{"type": "pass"}]
    assert page.get_attribute("body", "data-mode") == "pass"
    assert page.is_visible("#pass") and page.is_hidden("#place")
    assert page.locator("#kinds button:enabled").count() == 0
    assert page.locator("#board polygon.tcell[tabindex]").count() == 0
    assert "pass" in page.inner_text("#prompt")
    shot(page, "tails-referee-pass", at="board")
    for moves in range(first_pass, len(actions)):
        enter(page, actions[moves], moves)
    page.wait_for_selector("#banner:not([hidden])")
    # a side's letters stay on one line ("(K–" / "T)" broke on a phone: word joiners)
    assert re.search("\\(\\w\u2060[–-]\u2060\\w\\)", page.text_content("#banner") or "")
    assert service.table(game_id).actions == actions
    assert shown_scores(page) == RULES.view(engine_state(service, game_id), "public")["totals"]
    assert page.locator("#moves li").all_text_contents().count("pass") == actions.count(
        {"type": "pass"}
    )
    ctx.close()


@pytest.mark.browser
def test_a_tapped_illegal_cell_says_why_in_german(browser: Any, server: Any) -> None:
    from controller.games.tails.rules import refused_cells
    from controller.web.i18n import refusal_text

    base, service = server
    game_id = service.new_game("tails", {})
    ctx, page, _ = phone(browser, base, "de-DE")
    log_in(page, base)
    open_game(page, base, game_id)
    show_board(page)
    refused = refused_cells(engine_state(service, game_id))["2s"]
    cell = page.locator("#board polygon[data-cell='2s']").bounding_box()
    page.touchscreen.tap(cell["x"] + cell["width"] / 2, cell["y"] + cell["height"] / 2)
    page.wait_for_selector("#hint.error")
    german = refusal_text(refused, "de")
    assert german.startswith("Ausnahmeregel") and page.inner_text("#hint") == german
    ctx.close()
