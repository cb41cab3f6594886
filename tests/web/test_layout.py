"""Board-first layout, weight and caching (issue 13, items 1 and 5).

Fast: gzip on text answers (never on the live stream), hashed static URLs cached a year,
the service worker's precache list (every page's scripts), the rules pages and the menu.
Browser (real Chromium, one session-wide browser): at 390×844 the board and the controls
are stacked, at 1180×820 and 844×390 side by side; at each size, every referee step of a
game of each kind shows the whole board and every button of the controls panel inside the
viewport without scrolling. Screenshots: artifacts/screenshots/layout-*.png.
"""

from __future__ import annotations

import gzip
import random
import re
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from controller import __version__
from controller.bench.teufel import random_game
from controller.service import Service
from controller.web.assets import STATIC, digest, static_url

from .conftest import PIN, games_in_play, live_server
from .test_browser import log_in

SHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"
SIZES = {"phone": (390, 844), "landscape": (844, 390), "tablet": (1180, 820)}
VERSION_IS = "(v) => Number(document.body.dataset.version) === v"

# --- fast --------------------------------------------------------------------------------


def test_html_css_js_and_json_are_gzipped_when_the_browser_accepts_it(
    client: FlaskClient, service: Service
) -> None:
    game_id = service.new_game("sauteur", {"rule": "A"})
    for path in ("/", f"/games/{game_id}", static_url("app.css"), static_url("js/common.js")):
        plain = client.get(path)
        packed = client.get(path, headers={"Accept-Encoding": "gzip, br"})
        assert plain.status_code == packed.status_code == 200, path
        assert "Content-Encoding" not in plain.headers
        assert packed.headers["Content-Encoding"] == "gzip", path
        assert "Accept-Encoding" in packed.headers["Vary"]
        body = gzip.decompress(packed.data)
        if not path.startswith("/static/"):  # pages hold a fresh CSRF token each time
            assert len(body) > 1000
        else:
            assert body == plain.data
        assert len(packed.data) < 0.6 * len(body), path


def test_the_live_stream_is_never_compressed(client: FlaskClient) -> None:
    resp = client.get("/stream?topics=games", headers={"Accept-Encoding": "gzip"}, buffered=False)
    try:
        assert resp.status_code == 200
        assert resp.mimetype == "text/event-stream"
        assert "Content-Encoding" not in resp.headers
    finally:
        resp.close()


def test_static_files_have_hashed_urls_cached_a_year(client: FlaskClient) -> None:
    page = client.get("/").get_data(as_text=True)
    linked = set(re.findall(r'(?:href|src)="(/static/[^"]+)"', page))
    assert static_url("app.css") in linked and static_url("js/home.js") in linked
    assert all(url.startswith(f"/static/v/{digest()}/") for url in linked), linked
    resp = client.get(static_url("js/common.js"))
    assert resp.status_code == 200
    assert resp.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    assert client.get("/static/v/000000000000/app.css").status_code == 404
    assert client.get(static_url("nothing-here.js")).status_code == 404


def test_the_service_worker_precaches_every_pages_scripts(client: FlaskClient) -> None:
    resp = client.get("/sw.js")
    assert resp.status_code == 200 and resp.headers["Cache-Control"] == "no-cache"
    text = resp.get_data(as_text=True)
    scripts = sorted(p.relative_to(STATIC).as_posix() for p in (STATIC / "js").rglob("*.js"))
    assert "js/games/teufel-board.js" in scripts and "js/games/tails.js" in scripts
    for script in scripts:
        if script != "js/sw.js":
            assert f'"{static_url(script)}"' in text, script
    assert f'"{static_url("app.css")}"' in text
    assert f"diablotin-{digest()}" in text


def test_the_menu_has_the_version_and_each_games_rules(client: FlaskClient) -> None:
    from controller.web.i18n import kind_title

    page = client.get("/").get_data(as_text=True)
    assert __version__ in page
    for kind in ("sauteur", "teufel", "tails"):
        assert f'href="/rules/{kind}"' in page
        resp = client.get(f"/rules/{kind}")
        assert resp.status_code == 200
        html = resp.get_data(as_text=True)
        # the players' page (web/rules/), not the developers' document (docs/)
        assert re.search(r"<h1[^>]*>" + re.escape(kind_title("en", kind)) + "</h1>", html)
    assert client.get("/rules/chess").status_code == 404
    assert client.get("/rules/..%2fREADME").status_code == 404


def test_every_game_page_marks_its_board_and_controls(
    client: FlaskClient, service: Service
) -> None:
    for kind, options in (("sauteur", {"rule": "A"}), ("tails", {"players": 2})):
        page = client.get(f"/games/{service.new_game(kind, options)}").get_data(as_text=True)
        assert page.count('data-role="board"') == 1 and page.count('data-role="controls"') == 1
    game = random_game(1)
    page = client.get(f"/games/{service.new_game('teufel', game.options)}").get_data(as_text=True)
    assert page.count('data-role="board"') == 1 and page.count('data-role="controls"') == 1


# --- in Chromium -------------------------------------------------------------------------

# the board's box, and every shown button of the controls panel for the step (not the
# odds / advice / undo row under them), relative to the viewport
BOXES = """() => {
  const box = (n) => { const r = n.getBoundingClientRect();
    return {top: r.top, left: r.left, bottom: r.bottom, right: r.right, w: r.width, h: r.height}; };
  const board = document.querySelector('[data-role="board"]');
  const controls = document.querySelector('[data-role="controls"]');
  const buttons = [...controls.querySelectorAll('button')]
    .filter((b) => b.offsetParent !== null && !b.closest('#odds, #advice, .row.wrap'))
    .map((b) => ({label: b.textContent.trim() || b.getAttribute('aria-label'),
                   special: !b.closest('.tf-grid'), ...box(b)}));
  return {board: box(board.querySelector('svg')), controls: box(controls), buttons,
          picker: document.querySelector('#picker .tf-grid') !== null,
          scrollY: window.scrollY, vw: innerWidth, vh: innerHeight};
}"""


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, Service]]:
    with live_server(tmp_path, 3600.0) as live:
        yield live


def inside(b: dict[str, float], vw: int, vh: int) -> bool:
    top_left = b["top"] >= -0.5 and b["left"] >= -0.5
    return top_left and b["bottom"] <= vh + 0.5 and b["right"] <= vw + 0.5


def check_step(page: Any, size: str, where: str) -> dict[str, Any]:
    got: dict[str, Any] = page.evaluate(BOXES)
    try:
        return check_boxes(got, size, where)
    except AssertionError:
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"layout-failed-{size}.png"))
        raise


def check_boxes(got: dict[str, Any], size: str, where: str) -> dict[str, Any]:
    vw, vh = got["vw"], got["vh"]
    assert got["scrollY"] == 0, where
    assert got["board"]["h"] >= 150, (where, got["board"])
    assert inside(got["board"], vw, vh), (where, "board", got["board"])
    for button in got["buttons"]:
        assert inside(button, vw, vh), (where, button)
    board, controls = got["board"], got["controls"]
    if size == "phone":  # stacked: the controls under the board
        assert controls["top"] >= board["bottom"], where
    else:  # side by side: the controls to the right of the board
        assert controls["left"] >= board["right"] and controls["top"] < board["bottom"], where
    return got


def follow(page: Any, service: Service, game_id: int) -> None:
    page.wait_for_function(VERSION_IS, arg=service.table(game_id).version, timeout=5_000)
    page.wait_for_timeout(30)  # the resize observer's frame


Steps = list[dict[str, Any]]


def games(service: Service) -> dict[str, tuple[int, Steps, set[int]]]:
    """A game of each kind, the referee steps to take through it (none: 12 random legal
    ones) and the steps at which to look: Teufel looks at its first six steps and at the
    first step of every kind of action in the game (sleds, steps, the card picker, flips,
    passing over, ending a move, peeking, done, returning a devil, picking up, laying
    down, exchanging)."""
    sauteur = service.new_game("sauteur", {"rule": "A"})
    tails = service.new_game("tails", {"players": 2})
    teufel = random_game(4)
    firsts: dict[str, int] = {}
    for i, action in enumerate(teufel.actions):
        firsts.setdefault(action["type"], i)
    look = set(range(6)) | set(firsts.values())
    teufel_id = service.new_game("teufel", teufel.options)
    steps = list(teufel.actions[: max(look) + 1])
    return {
        "sauteur": (sauteur, [], set(range(12))),
        "teufel": (teufel_id, steps, look),
        "tails": (tails, [], set(range(12))),
    }


def box_believes(service: Service, table: Any) -> None:
    """The box's watch takes the dice as hidden with the game's popped keys out."""
    from controller.box.watch import HidingDone

    watch = service.box_play.watch
    if table.state.phase in ("pop", "face", "advance") and watch.state()["phase"] != "hidden":
        service.call(lambda: watch.resume_hidden(table.state.popped))
        service.publish_box_event(HidingDone(service.clock.now()))  # the pages hear it


@pytest.mark.browser
@pytest.mark.parametrize("size", list(SIZES))
def test_board_and_the_current_steps_controls_are_on_screen_together(
    browser: Any, server: Any, size: str
) -> None:
    base, service = server
    width, height = SIZES[size]
    context = browser.new_context(viewport={"width": width, "height": height}, has_touch=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    SHOTS.mkdir(parents=True, exist_ok=True)
    try:
        page.goto(base + "/")
        page.click("#role")
        page.fill("#pin", PIN)
        page.click("#login-go")
        page.wait_for_selector("#role.referee")
        assert page.locator("header.bar").bounding_box()["height"] <= 57  # one row
        rng = random.Random(size)
        colour_first = 0  # Teufel reveals offered colour first (short landscape screens)
        for kind, (game_id, steps, look) in games(service).items():
            table = service.table(game_id)
            page.goto(f"{base}/games/{game_id}")
            page.wait_for_selector("#live[data-state='on']")
            n, checked = (len(steps) if steps else 12), 0
            for i in range(n):
                if i in look:
                    follow(page, service, game_id)
                    where = f"{kind} step {i} ({steps[i]['type'] if steps else 'random'})"
                    checked += len(check_step(page, size, where)["buttons"])
                colours = page.locator("#picker button.tf-colour")
                if kind == "teufel" and i in look and colours.count():
                    # a short landscape screen: the colour first, then that colour's letters
                    colour_first += 1
                    colours.first.dispatch_event("click")
                    page.wait_for_selector("#other-colour")
                    got = check_step(page, size, f"{kind} step {i} colour picked")
                    assert len(got["buttons"]) >= 3, got["buttons"]  # letters, other, specials
                    page.click("#other-colour")
                    page.wait_for_selector("#picker button.tf-colour")
                if kind == "tails" and i == 3:  # a cell chosen: rotate, cancel and place shown
                    cell = page.locator("#board polygon.tcell.legal").first
                    cell.dispatch_event("click")
                    page.wait_for_selector("#kinds button[aria-pressed='true'], #place")
                    check_step(page, size, f"{kind} step {i} cell picked")
                if i == 5:
                    page.screenshot(path=str(SHOTS / f"layout-{kind}-{size}.png"))
                legal = table.legal_actions()
                if not legal:
                    break
                table.submit(steps[i] if steps else rng.choice(legal))
                if kind == "sauteur":  # moves made behind the box's back: it is told, as
                    box_believes(service, table)  # after a restart (else it waits, and says so)
            assert checked >= len(look), (kind, checked)  # the steps had buttons, all seen
        assert (colour_first > 0) == (size == "landscape"), colour_first
        assert not errors, errors
    finally:
        context.close()


COUNTDOWN = """() => { const live = document.getElementById('live');
  const m = /(\\d+)/.exec(live.textContent);
  return {state: live.dataset.state, s: m ? Number(m[1]) : null,
          bar: document.querySelector('header.bar').getBoundingClientRect().height}; }"""


@pytest.mark.browser
def test_history_links_to_live_games_and_the_live_dot_counts_down(
    browser: Any, server: Any
) -> None:
    base, service = server
    playing = service.new_game("tails", {"players": 2})
    finished = service.new_game("tails", {"players": 2})
    table, rng = service.table(finished), random.Random(1)
    while not table.finished:
        table.submit(rng.choice(table.legal_actions()))
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="fr-FR")
    page = context.new_page()
    try:
        page.goto(base + "/history")
        page.wait_for_selector(f"#all a[data-game='{finished}']")
        assert page.get_attribute(f"#all a[data-game='{playing}']", "href") == f"/games/{playing}"
        assert page.get_attribute(f"#all a[data-game='{finished}']", "href") == (
            f"/history/{finished}"
        )
        # the box stops answering the stream: the dot counts down to each retry
        page.route("**/stream?*", lambda route: route.abort())
        service.hub.close_all()
        seen: list[dict[str, Any]] = []
        for _ in range(14):
            seen.append(page.evaluate(COUNTDOWN))
            page.wait_for_timeout(200)
        counts = [s["s"] for s in seen if s["state"] == "reconnecting"]
        assert any(b < a for a, b in pairwise(counts)), counts  # down
        assert max(counts) >= 2, counts  # the wait grows: 0.5, 1, 2, 4 … s
        assert {s["bar"] for s in seen} == {seen[0]["bar"]} and seen[0]["bar"] <= 57
        assert page.inner_text("#live").startswith("↻")
        page.unroute("**/stream?*")
        page.wait_for_selector("#live[data-state='on']", timeout=10_000)
        assert page.inner_text("#live") == "En direct"
    finally:
        context.close()


# the smallest text on the board, in CSS pixels as drawn (font size × the SVG's scale)
SMALLEST_LABEL = """() => Math.min(...[...document.querySelectorAll('[data-role="board"] svg text')]
  .filter((n) => n.getBBox().width > 0)
  .map((n) => parseFloat(getComputedStyle(n).fontSize) * n.getScreenCTM().a))"""
MOVING = "() => document.getAnimations().length"


@pytest.mark.browser
def test_board_labels_are_12px_on_a_phone_and_the_last_move_shows(
    browser: Any, server: Any
) -> None:
    base, service = server
    sauteur = service.new_game("sauteur", {"rule": "A"})
    circuit = service.new_game("sauteur", {"rule": "B"})
    tails = service.new_game("tails", {"players": 2})
    game = random_game(4)
    teufel = service.new_game("teufel", game.options)
    for action in game.actions[:6]:
        service.table(teufel).submit(action)
    for reduced in ("no-preference", "reduce"):
        context = browser.new_context(
            viewport={"width": 390, "height": 844}, reduced_motion=reduced, has_touch=True
        )
        page = context.new_page()
        try:
            if reduced == "no-preference":  # as a spectator: every board's labels
                for game_id in (sauteur, circuit, tails, teufel):
                    page.goto(f"{base}/games/{game_id}")
                    page.wait_for_selector("#live[data-state='on']")
                    page.wait_for_selector("[data-role='board'] svg text")
                    smallest = page.evaluate(SMALLEST_LABEL)
                    assert smallest >= 12, (game_id, smallest)
            page.goto(f"{base}/games/{sauteur}")
            page.wait_for_selector("#board [data-piece='devil']")
            assert page.locator("#board .trail").count() == 0  # nothing moved yet
            table = service.table(sauteur)
            for action in table.legal_actions()[:1] or []:
                table.submit(action)  # hidden
            table.submit({"type": "pop", "key": 1, "by": table.legal_actions()[0]["by"]})
            table.submit({"type": "face", "face": 3})
            follow(page, service, sauteur)
            figure = table.legal_actions()[0]
            table.submit(figure)
            page.wait_for_function(VERSION_IS, arg=table.version, timeout=5_000)
            start = service.table(sauteur).view("public")["state"]
            to = next(f["position"] for f in start["figures"] if f["name"] == figure["figure"])
            trail = page.locator("#board .trail").evaluate_all(
                "(nodes) => nodes.map((n) => Number(n.dataset.trail))"
            )
            assert trail == list(range(to - 3, to + 1)), (trail, to)  # the squares it crossed
            assert page.locator(f"#board .token.moved[data-figure='{figure['figure']}']").count()
            assert (page.evaluate(MOVING) > 0) == (reduced == "no-preference")
            # the finish square is a chequered flag, not red like the devil
            finish = page.locator("#board .finish-flag .chequer").count()
            assert finish == 2
            if reduced == "no-preference":
                page.screenshot(path=str(SHOTS / "layout-sauteur-last-move.png"))
            # the next round starts from a fresh game for the reduced-motion pass
            sauteur = service.new_game("sauteur", {"rule": "A"})
        finally:
            context.close()


# every text of the header bar and of the game's head card that the reader cannot read whole:
# wider or taller than its box (an ellipsis, a clamped line), or out of the viewport; on a
# phone the live chip is its dot alone by design (its words are for screen readers)
CUT_TEXTS = """() => {
  const vw = document.documentElement.clientWidth, out = [];
  for (const n of document.querySelectorAll('header.bar *, [data-role="head"] *')) {
    if (!n.checkVisibility() || !n.textContent.trim() || n.clientWidth === 0) continue;
    if (n.id === 'live' && vw <= 480) continue;
    const r = n.getBoundingClientRect();
    if (n.scrollWidth > n.clientWidth + 1 || n.scrollHeight > n.clientHeight + 1
        || r.left < -0.5 || r.right > vw + 0.5) {
      out.push({id: n.id || n.className, text: n.textContent.trim().slice(0, 80),
                scroll: [n.scrollWidth, n.scrollHeight], client: [n.clientWidth, n.clientHeight],
                left: r.left, right: r.right});
    }
  }
  return {cut: out, page: document.documentElement.scrollWidth, vw,
          bar: document.querySelector('header.bar').getBoundingClientRect().height};
}"""


@pytest.mark.browser
@pytest.mark.parametrize("size", list(SIZES))
def test_the_game_pages_header_lines_are_read_whole_in_german_and_french(
    browser: Any, server: Any, size: str
) -> None:
    """The walkthrough: on a phone the Teufel head line ('3 Spieler · 39 Karten verdeckt ·
    3 Teufel auf d…', '… 3 diables sur l…') ended in an ellipsis; beside 'Schiedsrichter'
    the German tail-tile title was 'Auf Teufel / komm…'. Every game page (its kind's own
    title), for a spectator and for the referee (a wider chip): the header bar stays one
    row, nothing in it or in the head card is cut, the page never scrolls sideways."""
    base, service = server
    teufel, tails, _ = games_in_play(service)
    sauteur = service.new_game("sauteur", {"rule": "A"})
    width, height = SIZES[size]
    context = browser.new_context(viewport={"width": width, "height": height}, has_touch=True)
    page = context.new_page()
    cut: dict[str, Any] = {}
    try:
        for role in ("spectator", "referee"):
            if role == "referee":
                page.goto(base + "/")
                log_in(page)
            for lang in ("de", "fr"):
                for kind, game_id in (("teufel", teufel), ("sauteur", sauteur), ("tails", tails)):
                    page.goto(f"{base}/lang/{lang}?next=/games/{game_id}")
                    page.wait_for_selector("#live[data-state='on']")
                    follow(page, service, game_id)
                    got = page.evaluate(CUT_TEXTS)
                    where = f"{kind} {lang} {role} {size}"
                    if kind == "teufel" and role == "spectator":
                        page.screenshot(path=str(SHOTS / f"layout-head-{lang}-{size}.png"))
                    if got["cut"] or got["page"] > got["vw"] or got["bar"] > 57:
                        cut[where] = got
    finally:
        context.close()
    assert not cut, "\n".join(f"{where}: {got}" for where, got in cut.items())
