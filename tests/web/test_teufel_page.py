"""Teufel Teufel's page: the odds helper and the page shell (fast), and in real Chromium at
a phone's size the referee's entry in taps while a spectator follows live.

The browser tests compare what the pages draw (each board square's ``data-card`` and
``data-sleds``, the pegs on the devil face, each player's letters and devil) with the
engine's own view after every step. Screenshots: artifacts/screenshots/teufel-*.png.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from controller.games.base import Refused
from controller.games.teufel import TeufelRules, odds
from controller.service import Service
from controller.web import i18n
from controller.web.assets import static_url

from .conftest import REFEREE, live_server, snapshot
from .test_browser import NEWER, log_in, phone, shot, version

TWO = {"players": ["blue", "green"]}
"""Two players, blue first: enough for most positions."""


def two(**position: Any) -> dict[str, Any]:
    """Setup options for blue (on c3, to play) and green (on g7) in a prepared position."""
    return {**TWO, "position": {"sleds": {"blue": "c3", "green": "g7"}, **position}}


# What a page shows, read through the debugging protocol (a function: the CSP forbids eval).
PAGE_PICTURE = """() => {
  const squares = {};
  for (const g of document.querySelectorAll('#board .tf-sq')) {
    squares[g.dataset.square] = [g.dataset.card, g.dataset.sleds];
  }
  const face = document.querySelector('#board .tf-sq[data-square="d4"]');
  const players = [...document.querySelectorAll('#players .tf-player')].map((p) =>
    [p.dataset.colour, p.dataset.letters, p.dataset.devil === '1', p.dataset.left === '1']);
  return {squares, pegs: Number(face.dataset.pegs), players};
}"""
PICKER_CARDS = "els => els.map(e => e.dataset.card)"
VERSION_IS = "(v) => Number(document.body.dataset.version) === v"


def engine_picture(state: dict[str, Any]) -> dict[str, Any]:
    """What the pages must show, from the engine's public view."""

    def card(shown: dict[str, Any] | None) -> str:
        if shown is None:
            return "none"
        return "down" if shown["face"] == "down" else str(shown["card"])

    return {
        "squares": {
            square: [card(info["card"]), " ".join(info["sleds"])]
            for square, info in state["squares"].items()
        },
        "pegs": state["devils_on_face"],
        "players": [
            [p["colour"], "".join(p["letters"]), p["devil"], p["left"]] for p in state["players"]
        ],
    }


def new_game(service: Service, options: dict[str, Any]) -> int:
    game_id: int = service.new_game("teufel", options)
    return game_id


# --- fast: the odds helper, the API and the page shell ----------------------------------


def test_odds_for_a_player_are_the_engines(client: FlaskClient, service: Service) -> None:
    face_up = {"a1": "devil", "a2": "devil", "a3": "tower"}
    game_id = new_game(service, two(face_up=face_up, letters={"blue": ["A", "B"]}))
    state = service.table(game_id).state

    resp = client.get(f"/api/games/{game_id}/odds?player=blue")
    assert resp.status_code == 200
    data = resp.get_json()
    assert data["player"] == "blue" and data["missing"] == ["C", "D", "E", "F"]
    assert data["face_down"] == 39 and data["version"] == 0
    assert data["squares"] == odds(state, "blue")
    assert data["squares"]["c4"] == pytest.approx(
        {"devil": 2 / 39, "tower": 1 / 39, "letters": 4 / 39}
    )
    assert "a1" not in data["squares"] and "d4" not in data["squares"]

    # without a player: the one whose turn it is (blue starts)
    assert client.get(f"/api/games/{game_id}/odds").get_json()["player"] == "blue"
    green = client.get(f"/api/games/{game_id}/odds?player=green").get_json()
    assert green["squares"]["c4"]["letters"] == pytest.approx(6 / 39)


def test_odds_refuse_a_colour_not_playing_and_setup_without_a_player(
    client: FlaskClient, service: Service
) -> None:
    game_id = new_game(service, {"players": ["blue", "green", "purple"]})
    for query in ("?player=black", "?player=", ""):  # black is a colour, but not playing
        resp = client.get(f"/api/games/{game_id}/odds{query}")
        assert resp.status_code == 400, query
        body = resp.get_json()
        assert body["error"] == "bad-player"
        assert body["reason"].endswith("use ?player= one of blue, green, purple")
    ok = client.get(f"/api/games/{game_id}/odds?player=purple").get_json()
    assert ok["face_down"] == 42 and len(ok["squares"]) == 42
    assert ok["squares"]["a1"]["devil"] == pytest.approx(4 / 42)


def test_an_illegal_step_is_refused_with_the_engines_reason_and_changes_nothing(
    client: FlaskClient, service: Service
) -> None:
    game_id = new_game(service, {**TWO, "position": {"sleds": {"blue": "d3", "green": "g7"}}})
    before = snapshot(service)
    resp = client.post(
        f"/api/games/{game_id}/actions", json={"type": "step", "to": "d4"}, headers=REFEREE
    )
    assert resp.status_code == 409
    body = resp.get_json()
    assert (body["code"], body["params"]) == ("blocked", {"n": 4})
    assert body == {
        "error": "blocked",
        "code": "blocked",
        "params": {"n": 4},
        "reason": "d4 is the devil face: it opens only when all four devils are on players "
        "(4 pegs are still on it)",
        "template": "d4 is the devil face: it opens only when all four devils are on players "
        "({n} devil pegs still on it)",
    }
    assert snapshot(service) == before and service.table(game_id).version == 0


def test_the_game_page_is_teufels_own(client: FlaskClient, service: Service) -> None:
    game_id = new_game(service, {"players": ["blue", "green", "purple"]})
    html = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert f'src="{static_url("js/games/teufel.js")}"' in html
    assert '<svg id="board" class="board tf-board"' in html
    assert 'id="controls" class="choices referee-only" hidden>' in html  # spectator: no entry
    for name in ("teufel.js", "teufel-board.js", "teufel-colours.js", "teufel-words.js"):
        assert client.get(f"/static/js/games/{name}").status_code == 200, name


def test_the_home_page_offers_teufels_players_and_first(
    client: FlaskClient, service: Service
) -> None:
    html = client.get("/", headers=REFEREE).get_data(as_text=True)
    assert 'id="teufel-field"' in html and 'id="teufel-first"' in html
    # the board's colours from the config, as the kind's default options (the start form's)
    assert '"colours": ["yellow", "green", "blue", "purple", "white", "black"]' in html
    assert "teufel-kind.js" in html


# --- in Chromium ------------------------------------------------------------------------


@pytest.fixture
def live(tmp_path: Path) -> Iterator[tuple[str, Service]]:
    """The real server on 127.0.0.1:<free port> in a thread."""
    with live_server(tmp_path, 3600.0) as live:
        yield live


class Table:
    """The referee's page and the spectators' pages on one game, checked against the engine."""

    def __init__(self, service: Service, game_id: int, referee: Any, spectators: list[Any]):
        self.service = service
        self.game_id = game_id
        self.referee = referee
        self.spectators = spectators

    @property
    def state(self) -> dict[str, Any]:
        state: dict[str, Any] = self.service.table(self.game_id).view("public")["state"]
        return state

    def tap(self, selector: str) -> None:
        """One tap by the referee that the engine accepts; then every page shows it."""
        before = version(self.referee)
        self.referee.click(selector)
        self.referee.wait_for_function(NEWER, arg=before, timeout=5_000)
        self.check()

    def check(self) -> None:
        """Every page shows the engine's board, pegs and players at the engine's version."""
        table = self.service.table(self.game_id)
        want = engine_picture(self.state)
        for page in (self.referee, *self.spectators):
            page.wait_for_function(VERSION_IS, arg=table.version, timeout=5_000)
            assert page.evaluate(PAGE_PICTURE) == want

    def picker(self) -> set[str]:
        """The cards the referee's picker offers; they must be exactly the possible ones."""
        self.referee.wait_for_selector("#picker")
        offered = set(self.referee.locator("#picker [data-card]").evaluate_all(PICKER_CARDS))
        legal = self.service.table(self.game_id).legal_actions()
        assert offered == {a["card"] for a in legal if a["type"] == "reveal"}
        return offered


@pytest.mark.browser
def test_the_start_of_a_three_player_game_by_taps(browser: Any, live: Any) -> None:
    base, service = live
    ref_ctx, ref, ref_requests = phone(browser, base, locale="en-GB")
    spec_ctx, spec, spec_requests = phone(browser, base, locale="fr-FR", color_scheme="dark")

    # start: players in seat order, green places first and starts
    ref.goto(base + "/")
    log_in(ref)
    ref.select_option("#kind", "teufel")
    for colour in ("blue", "green", "purple"):
        ref.click(f"#teufel-colours [data-colour='{colour}']")
    assert ref.get_attribute("#teufel-colours [data-colour='purple']", "aria-pressed") == "true"
    ref.check("#teufel-first input[value='green']", force=True)
    shot(ref, "teufel-home-form")
    ref.click("#create")
    ref.wait_for_url("**/games/*")
    game_id = int(ref.url.rsplit("/", 1)[1])
    assert service.table(game_id).options["players"] == ["blue", "green", "purple"]
    assert service.table(game_id).options["first"] == "green"

    navigations: list[str] = []
    spec.on("framenavigated", lambda f: navigations.append(f.url))
    spec.goto(f"{base}/games/{game_id}")
    assert spec.locator("#controls").is_hidden() and spec.locator("#undo").is_hidden()
    table = Table(service, game_id, ref, [spec])
    table.check()
    assert spec.inner_text("#prompt") == "Vert pose son traîneau"

    # setup: three sleds by taps, in seat order from green
    table.tap("#board [data-square='c3']")
    assert ref.inner_text("#prompt") == "Purple places their sled"
    assert ref.locator("#board .tf-sq.target").count() == len(
        table.state["pending"]["choices"]["place_sled"]
    )
    table.tap("#board [data-square='g7']")
    table.tap("#board [data-square='c7']")
    shot(ref, "teufel-referee-setup-done")
    assert table.state["turn"] == "green"

    # green moves onto a face-down card: the picker offers every card (none seen yet)
    table.tap("#board [data-square='c2']")
    assert table.state["pending"]["kind"] == "reveal"
    assert len(table.picker()) == 38  # 36 letters, the devil, the tower
    shot(ref, "teufel-referee-picker")
    table.tap("#picker [data-card='green-A']")
    assert table.state["players"][1]["letters"] == ["A"]
    assert spec.inner_text("#events").splitlines() == [
        "La carte en c2 est : vert A",
        "Vert prend la lettre A",
    ]

    # purple flips a devil: the green A, face up on c2, is no longer offered; a devil is taken
    table.tap("#board [data-square='g6']")
    offered = table.picker()
    assert "green-A" not in offered and {"green-B", "devil", "tower"} <= offered
    table.tap("#picker [data-card='devil']")
    assert table.state["devils_on_face"] == 3 and table.state["players"][2]["devil"] is True
    assert ref.locator("#players .tf-player[data-colour='purple'] .tf-devil-peg.held").count() == 1

    # blue flips: a wrong entry is taken back with Undo, then the right card
    table.tap("#board [data-square='c6']")
    table.picker()
    table.tap("#picker [data-card='blue-C']")
    assert table.state["players"][0]["letters"] == ["C"]
    table.tap("#undo")
    assert table.state["pending"]["kind"] == "reveal" and table.state["players"][0]["letters"] == []
    table.picker()
    table.tap("#picker [data-card='blue-B']")

    # green steps onto a vine and ends the move there
    table.tap("#board [data-square='b2']")
    assert ref.is_visible("#end-move")
    table.tap("#end-move")

    # purple, holding a devil, passes over face-down cards and over blue's sled on c6
    table.tap("#board [data-square='f6']")
    table.tap("#board [data-square='e6']")
    assert ref.is_visible("#pass-over") and ref.is_visible("#flip")
    table.tap("#pass-over")
    table.tap("#board [data-square='d6']")
    table.tap("#pass-over")
    table.tap("#board [data-square='c6']")
    assert table.state["squares"]["c6"]["sleds"] == ["blue", "purple"]
    assert table.state["pending"]["kind"] == "move"  # on blue's sled, and free to go on
    shot(ref, "teufel-referee-devil-move")
    shot(spec, "teufel-spectator-devil-move")
    table.tap("#board [data-square='b6']")
    table.tap("#end-move")
    state = table.state
    assert state["players"][2]["square"] == "b6" and state["players"][2]["devil"] is True
    assert state["players"][0]["devil"] is False  # passing a sled gives nothing
    assert state["turn"] == "blue"

    actions = [
        {k: v for k, v in a.items() if k != "player"} for a in service.table(game_id).actions
    ]
    assert actions == [
        {"type": "place_sled", "square": "c3"},
        {"type": "place_sled", "square": "g7"},
        {"type": "place_sled", "square": "c7"},
        {"type": "step", "to": "c2"},
        {"type": "reveal", "card": "green-A"},
        {"type": "step", "to": "g6"},
        {"type": "reveal", "card": "devil"},
        {"type": "step", "to": "c6"},
        {"type": "reveal", "card": "blue-B"},
        {"type": "step", "to": "b2"},
        {"type": "end_move"},
        {"type": "step", "to": "f6"},
        {"type": "step", "to": "e6"},
        {"type": "pass_over"},
        {"type": "step", "to": "d6"},
        {"type": "pass_over"},
        {"type": "step", "to": "c6"},
        {"type": "step", "to": "b6"},
        {"type": "end_move"},
    ]

    # odds on request, shaded on the spectator's board
    spec.click("#odds-toggle")
    spec.wait_for_selector("#odds-summary")
    spec.click("#odds [data-player='green']")
    spec.click("#odds [data-metric='letters']")
    spec.wait_for_function("() => document.querySelector('#board .tf-sq[data-odds]') !== null")
    shaded = spec.locator("#board .tf-sq[data-odds]")
    assert shaded.count() == state["face_down"]
    c5 = float(spec.get_attribute("#board .tf-sq[data-square='c5']", "data-odds") or -1)
    assert c5 == pytest.approx(state["odds"]["green"]["c5"]["letters"], abs=1e-4)
    shot(spec, "teufel-spectator-odds")
    shot(ref, "teufel-referee-end-of-test")

    assert navigations == [f"{base}/games/{game_id}"]  # the spectator never reloaded
    for requests in (ref_requests, spec_requests):
        assert requests and all(url.startswith(base) for url in requests)
    ref_ctx.close()
    spec_ctx.close()


@pytest.mark.browser
def test_an_illegal_step_shows_the_engines_reason(browser: Any, live: Any) -> None:
    base, service = live
    game_id = new_game(service, {**TWO, "position": {"sleds": {"blue": "d3", "green": "g7"}}})
    rules = TeufelRules()
    state = service.table(game_id).state
    ctx, ref, _ = phone(browser, base, locale="en-GB")
    ref.goto(f"{base}/games/{game_id}")
    log_in(ref)
    ref.wait_for_selector("#board .tf-sq.target")
    for square in ("d4", "d6"):  # the devil face with its pegs; not a neighbour
        with pytest.raises(Refused) as refused:
            rules.apply(state, {"type": "step", "to": square, "player": "blue"})
        ref.click(f"#board [data-square='{square}']")
        ref.wait_for_selector("#refusal:not([hidden])")
        ref.wait_for_function(
            "(r) => document.getElementById('refusal').textContent === r", arg=refused.value.reason
        )
    assert refused.value.code == "not-adjacent"
    assert service.table(game_id).version == 0 and version(ref) == 0
    shot(ref, "teufel-referee-refused")
    ctx.close()


@pytest.mark.browser
def test_a_refusal_and_a_squares_tooltip_are_in_the_pages_language(browser: Any, live: Any) -> None:
    base, service = live
    game_id = new_game(service, {**TWO, "position": {"sleds": {"blue": "d3", "green": "g7"}}})
    state = service.table(game_id).state
    with pytest.raises(Refused) as refused:
        TeufelRules().apply(state, {"type": "step", "to": "d4", "player": "blue"})
    german = i18n.refusal_text(refused.value, "de")
    assert german.startswith("d4 ist das Teufelsgesicht: es öffnet erst, wenn alle vier Teufel")
    ctx, ref, _ = phone(browser, base, locale="de-DE")
    ref.goto(f"{base}/games/{game_id}")
    log_in(ref)
    ref.wait_for_selector("#board .tf-sq.target")
    tooltip = ref.locator("#board [data-square='d4'] title").text_content()
    assert tooltip.endswith(" — " + german), tooltip  # the square's name, then why not
    ref.click("#board [data-square='d4']")
    ref.wait_for_function("(r) => document.getElementById('refusal').textContent === r", arg=german)
    assert service.table(game_id).version == 0 and version(ref) == 0
    ctx.close()


@pytest.mark.browser
def test_the_other_choices_by_taps_and_the_end_screen(browser: Any, live: Any) -> None:
    base, service = live
    ctx, ref, _ = phone(browser, base, locale="en-GB")
    ref.goto(base + "/")
    log_in(ref)

    def open_game(options: dict[str, Any]) -> Table:
        game_id = new_game(service, options)
        ref.goto(f"{base}/games/{game_id}")
        ref.wait_for_function(VERSION_IS, arg=0)
        table = Table(service, game_id, ref, [])
        table.check()
        return table

    # no devil left on the face: whose devil to take
    five = ["blue", "green", "purple", "white", "yellow"]
    sleds = {"blue": "c3", "green": "g7", "purple": "a7", "white": "g1", "yellow": "a1"}
    table = open_game(
        {
            "players": five,
            "position": {"sleds": sleds, "face_up": {"c4": "devil"}, "devils": five[1:]},
        }
    )
    table.tap("#board [data-square='c4']")
    offered = ref.locator("#controls [data-from]").evaluate_all(
        "els => els.map(e => e.dataset.from)"
    )
    assert offered == five[1:]
    shot(ref, "teufel-referee-take-devil")
    table.tap("#controls [data-from='white']")
    assert [p["devil"] for p in table.state["players"]] == [True, True, True, False, True]

    # devil, devil: two letters to give up, chosen by toggles
    table = open_game(
        two(face_up={"c4": "devil"}, devils=["blue"], letters={"blue": ["A", "B", "C"]})
    )
    table.tap("#board [data-square='c4']")
    assert ref.is_disabled("#give-up")
    ref.click("#controls [data-letter='A']")
    ref.click("#controls [data-letter='C']")
    shot(ref, "teufel-referee-give-up")
    table.tap("#give-up")
    assert table.state["players"][0]["letters"] == ["B"] and table.state["devils_on_face"] == 4

    # a tower: peek (nothing recorded but the peek), put the devil back, done
    table = open_game(two(face_up={"c4": "tower"}, devils=["blue"]))
    table.tap("#board [data-square='c4']")
    shot(ref, "teufel-referee-tower")
    ref.click("#peek")
    table.tap("#board [data-square='e5']")
    assert table.state["peeks"] == [{"player": "blue", "square": "e5"}]
    assert ref.locator("#peek").count() == 0
    table.tap("#return-devil")
    assert table.state["players"][0]["devil"] is False
    if table.state["pending"]["kind"] == "tower":
        table.tap("#tower-done")
    assert table.state["turn"] == "green"

    # exchange two cards, then (green holds a devil) shuffle two cards onto two squares
    table = open_game(two(face_up={"a1": "blue-F"}, devils=["green"]))
    ref.click("#controls [data-mode='shuffle']")  # blue holds no devil: the engine says why
    ref.wait_for_selector("#refusal:not([hidden])")
    assert ref.inner_text("#refusal") == table.state["pending"]["unavailable"]["pick_up"]
    ref.click("#controls [data-mode='exchange']")
    ref.click("#board [data-square='a1']")
    assert ref.locator("#board .tf-sq.selected").count() == 1
    table.tap("#board [data-square='a2']")
    assert table.state["squares"]["a2"]["card"]["card"] == "blue-F"
    ref.click("#controls [data-mode='shuffle']")
    table.tap("#board [data-square='a2']")
    table.tap("#board [data-square='e5']")
    ref.click("#lay")
    ref.click("#board [data-square='b2']")
    assert ref.locator("#board .tf-sq.selected").count() == 1
    shot(ref, "teufel-referee-lay-down")
    table.tap("#board [data-square='a2']")
    state = table.state
    assert state["squares"]["e5"]["card"] is None
    assert state["squares"]["b2"]["card"] == {"face": "down"}
    assert state["turn"] == "blue"

    # blue takes their last letter and leaves: only green is left, the game is over
    table = open_game(two(face_up={"c4": "blue-F"}, letters={"blue": list("ABCDE")}))
    table.tap("#board [data-square='c4']")
    ref.wait_for_selector("#banner:not([hidden])")
    assert ref.inner_text("#banner") == "Game over: green is the last sled on the board and loses"
    rows = ref.locator("#result li").evaluate_all("els => els.map(e => e.dataset.colour)")
    assert rows == ["blue", "green"]
    assert ref.inner_text("#prompt") == "The game is over"
    shot(ref, "teufel-referee-end")
    ctx.close()
