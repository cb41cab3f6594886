"""The coach on the odds endpoint; the hider's advice for the referee only."""

from __future__ import annotations

import json
import time

from flask.testing import FlaskClient

from controller.service import Service

from .conftest import REFEREE
from .test_stream import events


def _coach(client: FlaskClient, game_id: int, query: str, headers=None) -> dict:
    for _ in range(120):  # the first request starts the solve on a thread
        resp = client.get(f"/api/games/{game_id}/odds?{query}", headers=headers or {})
        if resp.status_code != 200:
            return {"status_code": resp.status_code, **resp.get_json()}
        body = resp.get_json()
        if body["coach"]["status"] == "ready":
            return body
        time.sleep(1.0)  # as a page asks: a spectator earns one costly read a second
    raise AssertionError("the coach never became ready")


def test_popper_coach_is_public_and_hider_advice_is_referee_only(
    client: FlaskClient, service: Service
) -> None:
    service.post(lambda: time.sleep(0.3))  # a busy worker (a loaded machine: CI saw it)
    game_id = service.new_game("sauteur", {"rule": "B", "circuit_length": 8, "first_hider": "p1"})
    service.call(lambda: None)  # the box has taken the game and started its hiding
    service.table(game_id).submit({"type": "hidden"})
    body = _coach(client, game_id, "coach=1")
    coach = body["coach"]
    assert coach["measure"] == "win" and "hider" not in coach
    assert {row["option"] for row in coach["options"]} == {"pop 1", "pop 2", "pop 3", "pop 4"}
    assert all(0 <= row["win"] <= 1 for row in coach["options"])

    refused = _coach(client, game_id, "coach=1&hider=1")
    assert refused["status_code"] == 401 and refused["error"] == "pin-required"

    body = _coach(client, game_id, "coach=1&hider=1", REFEREE)
    advice = body["coach"]["hider"]
    assert set(advice["placement"]) == {"1", "2", "3", "4"}
    assert abs(sum(advice["placement"].values()) - 1) < 1e-3
    assert advice["popper_chance"] <= advice["popper_chance_uniform"] + 1e-9
    read = body["coach"]["read"]  # the read of the hider: referee only, like the advice
    assert read["hider"] == "p1" and read["seen"] == 0 and read["mode"] == "equilibrium"
    assert read["advice"]["type"] == "pop"


def test_the_read_counts_the_devils_the_hider_showed(client: FlaskClient, service: Service) -> None:
    game_id = service.new_game("sauteur", {"rule": "B", "circuit_length": 40, "first_hider": "p1"})
    table = service.table(game_id)
    service.call(lambda: None)  # the box has taken the game and started its hiding
    for action in (
        {"type": "hidden"},
        {"type": "pop", "key": 4, "by": "p2"},
        {"type": "face", "face": "devil"},  # p1 hid under key 4
        {"type": "hidden"},
        {"type": "pop", "key": 1, "by": "p1"},
        {"type": "face", "face": 2},
        {"type": "stop", "by": "p1"},
        {"type": "hidden"},
    ):
        table.submit(action)
    read = _coach(client, game_id, "coach=1&hider=1", REFEREE)["coach"]["read"]
    assert read["hider"] == "p1" and read["seen"] == 1 and read["keys"]["4"] == 1
    assert (read["top_key"], read["top"]) == (4, 1)
    assert read["belief"]["4"] == 0.4 and read["evidence"] == 1.0  # (1, 1, 1, 2) / 5


def test_hider_advice_never_reaches_the_public_page_or_stream(
    client: FlaskClient, service: Service
) -> None:
    game_id = service.new_game("sauteur", {"rule": "B", "circuit_length": 8, "first_hider": "p1"})
    table = service.table(game_id)
    service.call(lambda: None)  # the box has taken the game and started its hiding
    for action in (
        {"type": "hidden"},
        {"type": "pop", "key": 2, "by": "p2"},
        {"type": "face", "face": "devil"},  # p1 hid under key 2: the read has content
        {"type": "hidden"},
        {"type": "pop", "key": 1, "by": "p1"},
        {"type": "face", "face": 2},
        {"type": "stop", "by": "p1"},
    ):
        table.submit(action)
    body = _coach(client, game_id, "coach=1&hider=1", REFEREE)  # the referee asked for it
    assert body["coach"]["read"]["keys"]["2"] == 1
    resp = client.get(f"/stream?topics=games,game:{game_id}", buffered=False)
    chunks = iter(resp.response)
    frames = events(chunks, 3)
    service.table(game_id).submit({"type": "hidden"})
    frames += events(chunks, 1)
    resp.close()
    public = json.dumps(frames) + client.get(f"/api/games/{game_id}").get_data(as_text=True)
    public += client.get(f"/games/{game_id}").get_data(as_text=True)
    for secret in ('"placement"', "popper_chance", '"top_key"', '"evidence"', '"belief"'):
        assert secret not in public
