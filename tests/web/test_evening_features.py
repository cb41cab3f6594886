"""Issue 24's missing features through the API: deleting a roster player (past games keep
their names), whose turn it is in the games list, the moves counted live."""

from __future__ import annotations

import json

from flask.testing import FlaskClient

from controller.service import Service

from .conftest import REFEREE


def add(client: FlaskClient, name: str, mark: str = "#d94f30") -> dict:
    resp = client.post("/api/players", json={"name": name, "mark": mark}, headers=REFEREE)
    assert resp.status_code == 201, resp.get_json()
    return resp.get_json()


def test_deleting_a_player_keeps_the_names_of_past_games(
    client: FlaskClient, service: Service
) -> None:
    zoe, omer = add(client, "Zoé", "🦊"), add(client, "Ömer")
    made = client.post(
        "/api/games",
        json={"kind": "sauteur", "seats": [{"player": zoe["id"]}, {"player": omer["id"]}]},
        headers=REFEREE,
    ).get_json()
    gid = made["view"]["id"]
    resp = client.delete(f"/api/players/{zoe['id']}", headers=REFEREE)
    assert resp.status_code == 200, resp.get_json()
    assert resp.get_json() == {"deleted": zoe["id"]}
    assert [p["name"] for p in client.get("/api/players").get_json()["players"]] == ["Ömer"]
    # the game still reads "Zoé" in its seats, in the list and in its export
    seats = client.get(f"/api/games/{gid}").get_json()["view"]["seats"]
    assert [s["name"] for s in seats] == ["Zoé", "Ömer"]
    listed = next(g for g in client.get("/api/games").get_json()["games"] if g["id"] == gid)
    assert [s["name"] for s in listed["seats"]] == ["Zoé", "Ömer"]
    exported = client.get(f"/api/games/{gid}/export", headers=REFEREE).get_json()
    assert "Zoé" in str(exported)
    # a rematch seats her as a guest under the same name; the id is never given again
    again = client.post(f"/api/games/{gid}/rematch", headers=REFEREE)
    assert again.status_code == 201, again.get_json()
    assert [s["name"] for s in again.get_json()["view"]["seats"]] == ["Zoé", "Ömer"]
    assert again.get_json()["view"]["seats"][0]["player"] is None
    assert add(client, "Zoé")["id"] > omer["id"]


def test_deleting_a_player_twice_or_unknown_is_404_and_needs_the_referee(
    client: FlaskClient,
) -> None:
    zoe = add(client, "Zoé")
    assert client.delete(f"/api/players/{zoe['id']}").status_code == 401
    assert len(client.get("/api/players").get_json()["players"]) == 1
    assert client.delete(f"/api/players/{zoe['id']}", headers=REFEREE).status_code == 200
    again = client.delete(f"/api/players/{zoe['id']}", headers=REFEREE)
    assert again.status_code == 404 and again.get_json()["error"] == "no-player"
    de = client.delete("/api/players/999", headers=REFEREE | {"Accept-Language": "de"})
    assert de.status_code == 404 and "999" in de.get_json()["reason"]
    assert de.get_json()["reason"] != "there is no player 999"  # said in German


def test_the_games_list_says_whose_turn_it_is_and_counts_moves_live(
    client: FlaskClient, service: Service
) -> None:
    zoe = add(client, "Zoé")
    made = client.post(
        "/api/games",
        json={
            "kind": "teufel",
            "options": {"players": ["yellow", "blue"], "first": "blue"},
            "seats": [{"player": zoe["id"]}, {"guest": "Ömer"}],
        },
        headers=REFEREE,
    )
    assert made.status_code == 201, made.get_json()
    gid = made.get_json()["view"]["id"]
    row = next(g for g in service.games() if g["id"] == gid)
    assert row["to_act"] == service.table(gid).rules.to_act(service.table(gid).state)
    assert row["to_act"] in ("yellow", "blue")
    moves = service.hub.subscribe(["games"])
    try:
        table = service.table(gid)
        before = row["actions"]
        service.submit(gid, table.legal_actions()[0])
        frame = moves.get(timeout=5)  # the list goes out again after a move, unasked
        assert frame is not None, "no games list after a move"
        data = json.loads(frame.decode().split("data: ", 1)[1])
        row = next(g for g in data if g["id"] == gid)
        assert row["actions"] == before + 1
        assert row["to_act"] == table.rules.to_act(table.state)
    finally:
        moves.close()


def test_the_game_page_says_why_the_computer_does_not_play(
    client: FlaskClient, service: Service, monkeypatch
) -> None:
    from controller.box.base import BoxError
    from controller.boxplay import box_play
    from controller.games.base import Said
    from tests.service.conftest import wait_for

    older = service.new_game("sauteur", {"rule": "A", "first_hider": "p1"})
    holder = service.new_game("sauteur", {"rule": "A", "first_hider": "p1"})
    on = {"player": "p2", "on": True, "level": "heuristic"}  # pops at once: no solve first
    assert client.put(f"/api/games/{older}/computer", json=on, headers=REFEREE).status_code == 200
    why = client.get(f"/api/games/{older}", headers=REFEREE).get_json()["extras"]["computer_why"]
    assert why["template"].startswith("the computer plays only the game on the box")
    de = client.get(f"/games/{older}", headers={"Accept-Language": "de"}).get_data(as_text=True)
    assert 'id="computer-why"' in de
    # the holder's computer popper is refused by the box: its page says why, in German too
    assert client.put(f"/api/games/{holder}/computer", json=on, headers=REFEREE).status_code == 200
    extras = client.get(f"/api/games/{holder}", headers=REFEREE).get_json()["extras"]
    assert extras["computer_why"] is None  # nothing stops it
    table = service.table(holder)
    service.toy.hide()
    wait_for(lambda: table.state.phase == "pop", what="the dice hidden")
    play = box_play(service)

    def refused(*_args: object, **_kw: object) -> None:
        raise BoxError(Said("coil {key} is too hot: wait {s} s", key=3, s=20))

    monkeypatch.setattr(play, "press", refused)
    service.call(play._computer_move)
    why = client.get(f"/api/games/{holder}", headers=REFEREE).get_json()["extras"]["computer_why"]
    assert why["template"].startswith("the computer stopped: {reason}")
    assert why["params"]["reason"]["params"] == {"key": 3, "s": 20}
    # turned off and on, it tries again (and says nothing until something stops it)
    off = {"player": "p2", "on": False}
    client.put(f"/api/games/{holder}/computer", json=off, headers=REFEREE)
    assert client.get(f"/api/games/{holder}").get_json()["extras"]["computer_why"] is None


def test_no_games_list_is_built_after_a_move_when_nobody_listens_to_it(
    service: Service, monkeypatch
) -> None:
    """Phones on a game's topic only: a move does not rebuild the whole games list."""
    import time

    from controller.service import GAMES_EVERY_S

    gid = service.new_game("sauteur", {})
    built: list[int] = []
    monkeypatch.setattr(service, "games", lambda: built.append(1) or [])
    phone = service.hub.subscribe([f"game:{gid}"])
    try:
        service.submit(gid, {"type": "hidden"})
        time.sleep(GAMES_EVERY_S * 3)
        assert built == []
        listing = service.hub.subscribe(["games"])
        service.undo(gid)
        assert listing.get(timeout=5) is not None and built == [1]  # someone listens: sent
        listing.close()
    finally:
        phone.close()


def test_a_burst_of_moves_sends_the_games_list_once_and_starts_no_thread(
    service: Service, monkeypatch
) -> None:
    """The games list goes out from the service's own thread: a move on the request's
    thread only marks it due (starting a thread there cost the referee ~0.1 ms a move)."""
    import threading

    gid = service.new_game("sauteur", {})
    listing = service.hub.subscribe(["games"])
    started: list[str] = []
    real_start = threading.Thread.start

    def counted(thread: threading.Thread) -> None:
        started.append(thread.name)
        real_start(thread)

    try:
        service.submit(gid, {"type": "hidden"})  # the first move: lazy threads start once
        assert listing.get(timeout=5) is not None
        monkeypatch.setattr(threading.Thread, "start", counted)
        service.undo(gid)
        service.submit(gid, {"type": "hidden"})
        service.undo(gid)
        sent = listing.get(timeout=5)
        assert sent is not None
        games = json.loads(sent.split(b"data: ", 1)[1].split(b"\n", 1)[0])
        assert [game["id"] for game in games] == [gid]
        assert started == []
        assert listing.get(timeout=0.5) is None  # the burst went out once
    finally:
        listing.close()
