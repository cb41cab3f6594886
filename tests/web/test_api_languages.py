"""Every refusal over the API comes in the caller's language (``Accept-Language``): the
engines' and the service's sentences, the box's limits, an import's complaints, the text
policy's and HTTP's own errors. English is only the answer to an English caller."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient

from controller.service import Service

from .conftest import REFEREE, snapshot

LANGS = ("en", "fr", "de")


def ask(client: FlaskClient, method: str, url: str, body: Any, lang: str) -> Any:
    resp = client.open(url, method=method, json=body, headers={**REFEREE, "Accept-Language": lang})
    assert 400 <= resp.status_code < 500, (url, resp.status_code, resp.get_data(as_text=True))
    return resp.status_code, resp.get_json()


BAD = {  # a request a referee's phone could send -> (method, url, body)
    "teufel colours": ("POST", "/api/games", {"kind": "teufel", "options": {"players": ["red"]}}),
    "teufel start squares": (
        "POST",
        "/api/games",
        {"kind": "teufel", "options": {"players": ["blue", "green"], "colours": ["a"]}},
    ),
    "sauteur rule": ("POST", "/api/games", {"kind": "sauteur", "options": {"rule": "Z"}}),
    "title with a control character": (
        "POST",
        "/api/games",
        {"kind": "sauteur", "title": "Soir\u0007"},
    ),
    "no such game": ("GET", "/api/games/999", None),
    "no such address": ("GET", "/api/nowhere", None),
    "wrong method": ("DELETE", "/api/stats", None),
    "import of an empty file": ("POST", "/api/import", {}),
    "import of a wrong format": ("POST", "/api/import", {"format": "chess/1", "entries": []}),
    "coil key out of range": ("POST", "/api/box/coils/7/fire", {}),
    "coil pulse too long": ("POST", "/api/box/coils/1/fire", {"pulse_ms": 5000}),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_refusal_comes_back_in_the_callers_language(
    case: str, client: FlaskClient, service: Service
) -> None:
    before = snapshot(service)
    answers = {lang: ask(client, *BAD[case], lang) for lang in LANGS}
    statuses = {status for status, _ in answers.values()}
    assert len(statuses) == 1  # the same refusal, worded three ways
    english = answers["en"][1]
    for lang in ("fr", "de"):
        said = answers[lang][1]
        assert said["error"] == english["error"], lang  # the code belongs to no language
        assert said["reason"] != english["reason"], (lang, said["reason"])
    assert snapshot(service) == before  # and nothing changed


def test_the_box_limits_are_told_in_german(client: FlaskClient) -> None:
    first = ask_fire(client, "de")
    assert first.status_code == 200, first.get_json()
    again = ask_fire(client, "de").get_json()
    assert again["error"] == "box-refused"
    # the coil is still on (one at a time) or just off (the gap between pulses)
    reason = again["reason"]
    assert reason == "eine andere Spule ist an: immer nur eine Spule" or (
        reason.startswith("Taste 1 wurde vor ") and "warte mindestens" in reason
    ), reason


def ask_fire(client: FlaskClient, lang: str) -> Any:
    return client.post(
        "/api/box/coils/1/fire", json={}, headers={**REFEREE, "Accept-Language": lang}
    )


def test_an_unknown_page_is_a_page_in_the_readers_language(client: FlaskClient) -> None:
    german = client.get("/nowhere", headers={"Accept-Language": "de"})
    assert german.status_code == 404
    html = german.get_data(as_text=True)
    assert "Unter dieser Adresse gibt es nichts" in html
    assert 'lang="de"' in html and "Not Found" not in html
    french = client.get("/games/999", headers={"Accept-Language": "fr"})
    assert french.status_code == 404
    assert "Il n’y a rien à cette adresse" in french.get_data(as_text=True)
