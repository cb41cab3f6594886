"""A whole Diable sauteur game in real Chromium on the simulated box, phone-sized.

The referee plays from one page (pops by tap, faces by tap where the page offers
them, figures to move), a spectator watches from another and must follow live
without reloading. Screenshots of every page go to artifacts/screenshots/.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.service import Service
from tests.service.conftest import wait_for

from .conftest import PIN, live_server

PHONE = {"width": 390, "height": 844}
SHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"

pytestmark = pytest.mark.browser

# predicates run through the debugging protocol (functions, not strings: the CSP forbids eval)
NEWER = "(v) => Number(document.body.dataset.version) > v"
NEWER_OR_TOAST = (
    "(v) => Number(document.body.dataset.version) > v || "
    "document.querySelector('#toast:not([hidden])') !== null"
)
STEP_IS = "(v) => document.getElementById('step').value === v"


@pytest.fixture
def live(tmp_path: Path) -> Iterator[tuple[str, Service]]:
    """The real WSGI server on 127.0.0.1:<free port> in a thread, short delays."""
    with live_server(tmp_path, 0.05) as live:
        yield live


def shot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.evaluate("() => window.scrollTo(0, 0)")
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def phone(browser: Any, base: str, **extra: Any) -> tuple[Any, Any, list[str]]:
    """A phone-sized page that records every request it makes."""
    context = browser.new_context(viewport=PHONE, device_scale_factor=1, **extra)
    page = context.new_page()
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.on("pageerror", lambda e: pytest.fail(f"JavaScript error: {e}"))
    return context, page, requests


def log_in(page: Any) -> None:
    page.click("#role")
    page.fill("#pin", PIN)
    page.click("#login-go")
    page.wait_for_selector("#role.referee")


def version(page: Any) -> int:
    return int(page.get_attribute("body", "data-version") or -1)


def play_step(page: Any) -> str:
    """The referee's next move, decided from what the page shows; returns what it did
    ("wait" when the page offers nothing yet or a button went away under the finger)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    phase = page.get_attribute("body", "data-phase")
    try:
        if phase == "advance" and page.locator("#choices button.advance").count():
            page.locator("#choices button.advance").first.click(timeout=2_000)
            return "advance"
        if phase == "pop":
            popped = page.locator("#slots .slot.popped").count()
            enabled = page.locator("#slots button.pop:enabled")
            if popped < 2 and enabled.count():
                enabled.last.click(timeout=2_000)  # the highest key: the round goes faster
                return "pop"
            if page.locator("#rehide-button").count():
                page.click("#rehide-button", timeout=2_000)
                return "rehide"
    except PlaywrightTimeout:
        pass
    return "wait"


def test_a_whole_game_with_a_referee_and_a_spectator(browser: Any, live: Any) -> None:
    base, service = live
    ref_ctx, ref, ref_requests = phone(browser, base, locale="en-GB")
    spec_ctx, spec, spec_requests = phone(browser, base, locale="fr-FR")

    ref.goto(base + "/")
    assert ref.inner_text("#live") in ("Live", "Connecting…")
    log_in(ref)
    ref.wait_for_selector("#new-game")
    shot(ref, "home-referee")
    ref.check("input[name=rule][value=A]", force=True)
    ref.click("#create")
    ref.wait_for_url("**/games/*")
    game_id = int(ref.url.rsplit("/", 1)[1])

    navigations: list[str] = []
    spec.on("framenavigated", lambda f: navigations.append(f.url))
    spec.goto(f"{base}/games/{game_id}")
    assert spec.inner_text("#role") == "Spectateur"  # French from Accept-Language
    assert spec.locator("#slots button.pop").count() == 0  # spectators get no buttons

    # hiding is done by the simulated toy; the pop buttons come alive
    ref.wait_for_selector("#slots button.pop:enabled", timeout=10_000)
    shot(ref, "sauteur-referee-ready")

    # once, the referee enters the face (the toy is told to wait)
    service.face_delay_s = 3600.0
    ref.locator("#slots button.pop:enabled").last.click()
    ref.wait_for_selector("#choices button.face", timeout=5_000)
    faces = ref.locator("#choices button.face")
    assert faces.count() == 7  # 1-6 and the devil
    assert ref.locator("#choices button.face.devil").count() == 1
    shot(ref, "sauteur-face-entry")
    before = version(ref)
    ref.click("#choices button.face[data-face='5']")
    ref.wait_for_function(NEWER, arg=before)
    service.face_delay_s = 0.05
    assert service.table(game_id).actions[-1] == {"type": "face", "face": 5}

    deadline = time.monotonic() + 120
    moves = {"pop": 0, "advance": 0, "rehide": 0}
    shots_taken = False
    while not service.table(game_id).finished:
        assert time.monotonic() < deadline, "the game did not finish in time"
        before = version(ref)
        done = play_step(ref)
        if done in moves:
            moves[done] += 1
            try:
                ref.wait_for_function(NEWER_OR_TOAST, arg=before, timeout=10_000)
            except Exception:
                table = service.table(game_id)
                raise AssertionError(
                    f"stuck after {done}: {moves} {table.actions[-4:]} "
                    f"{table.view('public')['state']['phase']} {service.box_status()}"
                ) from None
        else:
            ref.wait_for_timeout(30)
        if not shots_taken and moves["pop"] >= 4:
            spec.wait_for_function(NEWER, arg=version(ref) - 1)
            shot(ref, "sauteur-referee-midgame")
            shot(spec, "sauteur-spectator-midgame")
            shots_taken = True
    assert moves["pop"] >= 3 and moves["rehide"] >= 1

    final = service.table(game_id)
    ref.wait_for_selector("#banner:not([hidden])")
    spec.wait_for_selector("#banner:not([hidden])")
    state = final.view("public")["state"]
    assert state["over"] is True and len(state["results"]) == 2
    for page in (ref, spec):
        assert version(page) == final.version
        scores = page.locator("#scores .points").all_inner_texts()
        assert scores == [str(state["scores"]["p1"]), str(state["scores"]["p2"])]
    assert spec.locator("#history li").count() == len(state["history"])
    assert navigations == [f"{base}/games/{game_id}"]  # the spectator never reloaded
    shot(ref, "sauteur-referee-final")
    shot(spec, "sauteur-spectator-final")

    # the history: step through the finished game, as the spectator
    spec.goto(f"{base}/history/{game_id}")
    spec.wait_for_selector("#board-card:not([hidden])")
    assert spec.input_value("#step") == str(len(final.actions))
    spec.click("#first")
    spec.wait_for_function(STEP_IS, arg="0")
    spec.click("#next")
    spec.wait_for_function(STEP_IS, arg="1")
    assert spec.inner_text("#step-action") == "Les dés sont cachés"
    shot(spec, "history-step")
    spec.goto(f"{base}/history")
    spec.wait_for_selector(f"#finished a[data-game='{game_id}']")
    shot(spec, "history-list")

    for requests in (ref_requests, spec_requests):
        assert requests and all(url.startswith(base) for url in requests), requests
        assert not any("/api/games" in url and "poll" in url for url in requests)
    ref_ctx.close()
    spec_ctx.close()


def test_box_page_rule_b_board_and_reconnect(browser: Any, live: Any) -> None:
    base, service = live
    ctx, page, requests = phone(browser, base, locale="en-GB", color_scheme="dark")
    page.goto(base + "/box")
    page.wait_for_selector("#sensors .slot")
    log_in(page)
    page.wait_for_selector("#coils button")
    page.wait_for_selector("#toy-card:not([hidden])")
    # hide the dice by hand: the sensors go full, live
    page.click("#toy-hide")
    page.wait_for_function("() => document.querySelectorAll('#sensors .slot.full').length === 4")
    # a hand press empties a slot, live
    page.click("#toy-press button[data-press='3']")
    page.wait_for_selector("#sensors .slot.empty[data-key='3']")
    page.click("#coils button[data-key='1']")
    page.wait_for_selector("#toast:not([hidden])")
    shot(page, "box-dark")

    # losing the stream shows "reconnecting" and comes back by itself
    service.hub.close_all()
    page.wait_for_selector("#live[data-state='reconnecting']", timeout=5_000)
    page.wait_for_selector("#live[data-state='on']", timeout=10_000)

    game_id = service.new_game("sauteur", {"rule": "B"})
    page.goto(f"{base}/games/{game_id}")
    page.wait_for_selector("#board rect.square")
    assert page.locator("#board rect.square").count() == 40
    page.click("#odds-toggle")
    page.wait_for_selector("#odds table")
    assert page.locator("#odds tbody tr").count() == 4
    shot(page, "sauteur-rule-b-dark")
    assert all(url.startswith(base) for url in requests)
    ctx.close()


def test_a_cross_site_form_post_from_another_site_changes_nothing(browser: Any, live: Any) -> None:
    base, service = live
    game_id = service.new_game("sauteur", {"rule": "A"})
    ctx, page, _ = phone(browser, base)
    page.goto(base + "/")
    log_in(page)
    table = service.table(game_id)
    wait_for(lambda: table.state.phase == "pop", what="the toy's hiding")  # no change after
    before = table.version
    evil = (
        f'<form id="f" method="post" action="{base}/api/games/{game_id}/undo" '
        'enctype="text/plain"><input name=\'{"type":"hidden","x":"\' value=\'"}\'></form>'
    )
    # a page on another site (localhost is not 127.0.0.1) posts a form to the box
    page.route("http://localhost:9/evil", lambda r: r.fulfill(body=evil, content_type="text/html"))
    page.goto("http://localhost:9/evil")
    with page.expect_navigation():
        page.evaluate("document.getElementById('f').submit()")
    assert service.table(game_id).version == before
    assert "pin-required" in page.content() or "cross-site" in page.content()
    ctx.close()


def test_the_home_form_starts_a_tails_game_for_three_or_four(browser: Any, live: Any) -> None:
    base, service = live
    context, page, _requests = phone(browser, base, locale="en-GB")
    try:
        page.goto(base + "/")
        log_in(page)
        assert page.is_hidden("#tails-field")
        page.select_option("#kind", "tails")
        assert page.is_visible("#tails-field") and page.is_hidden("#rule-field")
        page.check("#tails-field input[value='3']", force=True)
        page.click("#create")
        page.wait_for_url("**/games/*")
        game_id = int(page.url.rsplit("/", 1)[1])
        assert service.table(game_id).options["players"] == 3
        assert service.table(game_id).view("public")["state"]["players"] == 3
    finally:
        context.close()


def _finished_game(service: Service, kind: str, seed: int) -> int:
    """A finished game of ``kind`` from seeded random legal actions, through the service."""
    import random

    from controller.bench.teufel import random_game

    if kind == "teufel":
        game = random_game(seed)
        options, actions = game.options, iter(game.actions)
    else:
        options, actions = {"players": 2}, None
    game_id = service.new_game(kind, options)
    table, rng = service.table(game_id), random.Random(seed)
    while not table.finished:
        table.submit(next(actions) if actions else rng.choice(table.legal_actions()))
    return game_id


@pytest.mark.parametrize("kind, marker", [("tails", ".tcell"), ("teufel", "rect")])
def test_history_draws_each_games_board(browser, live, kind, marker) -> None:
    base, service = live
    game_id = _finished_game(service, kind, seed=4)
    context, page, requests = phone(browser, base, locale="en-GB")
    try:
        page.goto(f"{base}/history/{game_id}")
        page.wait_for_selector(f"#board-card:not([hidden]) #board {marker}")
        steps = len(service.table(game_id).actions)
        assert page.input_value("#step") == str(steps)
        page.click("#first")
        page.wait_for_function("() => document.getElementById('step').value === '0'")
        assert page.locator("#board *").count() > 20
        shot(page, f"history-{kind}-start")
        page.click("#last")
        page.wait_for_function(STEP_IS, arg=str(steps))
        shot(page, f"history-{kind}-final")
        layouts = [u for u in requests if u.endswith(f"/api/games/{game_id}/layout")]
        assert len(layouts) == (1 if kind == "tails" else 0)  # fetched once, then reused
    finally:
        context.close()


def test_sauteur_coach_and_levels_on_the_page(browser: Any, live: Any) -> None:
    base, service = live
    game_id = service.new_game("sauteur", {"rule": "B", "circuit_length": 8})
    service.table(game_id).submit({"type": "hidden"})
    # A spectator sees the popper's coach, never the hider's advice or the read.
    ctx, page, _ = phone(browser, base, locale="fr-FR")
    page.goto(f"{base}/games/{game_id}")
    page.click("#odds-toggle")
    page.wait_for_selector("#coach li", timeout=20_000)
    assert page.locator("#coach li").count() == 4
    assert "de gagner" in page.inner_text("#coach")
    assert page.locator("#coach-hider").count() == 0
    assert page.locator("#coach-read").count() == 0
    ctx.close()
    # The referee sees the placement too, and chooses a computer level.
    ctx, page, _ = phone(browser, base, locale="en-GB")
    page.goto(f"{base}/games/{game_id}")
    log_in(page)
    page.click("#odds-toggle")
    page.wait_for_selector("#coach-hider", timeout=20_000)
    assert "key 4:" in page.inner_text("#coach-hider")
    assert "has not been seen yet" in page.inner_text("#coach-read")
    assert not page.is_visible("#computer select[data-player='p2']")  # a person: no level
    page.click("#computer button.toggle[data-player='p2']")
    page.select_option("#computer select[data-player='p2']", "optimal")
    page.wait_for_function(
        "() => document.querySelector(\"#computer select[data-player='p2']\").value === 'optimal'"
    )
    wait_for(lambda: service.box_play.computer_levels(game_id)["p2"] == "optimal", 10, "the level")
    shot(page, "sauteur-coach")
    ctx.close()


def test_the_coil_test_says_the_pulse_it_fired_and_refuses_zero(browser: Any, live: Any) -> None:
    """Walkthrough, de: 0 ms or an empty field both said "Taste 3 ausgelöst" (0 was
    dropped: the configured pulse fired), without the pulse used; the pins read "gpio
    MockFactory (sim)". Now the pulse is said, 0 is refused in plain words, and a
    simulated box says so in the page's language (a real one names its pins' library)."""
    base, service = live
    ctx, page, _ = phone(browser, base)
    ctx.add_cookies([{"name": "lang", "value": "de", "url": base}])
    page.goto(base + "/box")
    log_in(page)
    page.wait_for_selector("#coils button")
    page.wait_for_function("() => document.getElementById('backend').textContent !== '…'")
    assert page.inner_text("#backend") == "simuliert (keine echte Hardware)"
    assert "MockFactory" not in page.inner_text("main")
    pulse = service.box.limits.pulse_ms
    page.fill("#pulse", "")
    page.click("#coils button[data-key='3']")
    page.wait_for_function(
        "(t) => document.getElementById('toast').textContent.includes(t)",
        arg=f"Taste 3 ausgelöst: ein Impuls von {pulse:g} ms",
    )
    page.fill("#pulse", "0")
    page.click("#coils button[data-key='2']")
    page.wait_for_function(
        "(t) => document.getElementById('toast').textContent.includes(t)",
        arg="ein Impuls dauert mehr als 0 ms und höchstens 100 ms, nicht 0 ms",
    )
    ctx.close()
