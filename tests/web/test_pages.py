"""Pages: every shell renders, French/English, themes, installable, nothing external."""

from __future__ import annotations

import json
import re

from flask.testing import FlaskClient

from controller.service import Service
from controller.web import i18n
from controller.web.assets import digest, static_url

from .conftest import REFEREE, login

ABSOLUTE = re.compile(r'(?:src|href|action)="(?:https?:)?//([^/"]+)', re.I)


def test_every_page_renders_without_external_references(
    client: FlaskClient, service: Service
) -> None:
    game_id = service.new_game("sauteur", {})
    for url in ("/", f"/games/{game_id}", "/box", "/history", f"/history/{game_id}"):
        resp = client.get(url)
        assert resp.status_code == 200, url
        html = resp.get_data(as_text=True)
        assert set(ABSOLUTE.findall(html)) <= {"localhost"}, url  # only the join link
        assert f'<script type="module" src="/static/v/{digest()}/js/' in html
        assert "<script>" not in html  # no inline script: the CSP forbids it
        boot = json.loads(
            re.search(
                r'<script type="application/json" id="boot">(.*?)</script>', html, re.S
            ).group(1)
        )  # type: ignore[union-attr]
        assert boot["referee"] is False
        assert 'name="csrf-token"' not in html
    assert client.get("/games/999").status_code == 404


def test_game_page_is_one_template_and_one_module(client: FlaskClient, service: Service) -> None:
    game_id = service.new_game("sauteur", {})
    html = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert f'src="{static_url("js/games/sauteur.js")}"' in html
    assert 'id="board"' in html and 'id="slots"' in html


def test_referee_page_carries_the_csrf_token(client: FlaskClient) -> None:
    token = login(client)
    html = client.get("/").get_data(as_text=True)
    assert f'<meta name="csrf-token" content="{token}">' in html
    assert '"referee": true' in html


def test_language_from_accept_language_then_the_switch(client: FlaskClient) -> None:
    html = client.get("/", headers={"Accept-Language": "fr-FR,fr;q=0.9,en;q=0.5"}).get_data(
        as_text=True
    )
    assert '<html lang="fr"' in html and "Parties en cours" in html
    html = client.get("/", headers={"Accept-Language": "de-AT,de;q=0.9"}).get_data(as_text=True)
    assert '<html lang="de"' in html and "Laufende Spiele" in html
    html = client.get("/", headers={"Accept-Language": "es"}).get_data(as_text=True)
    assert '<html lang="en"' in html and "Games in progress" in html
    resp = client.get("/lang/fr?next=/box")
    assert resp.status_code == 302 and resp.headers["Location"] == "/box"
    html = client.get("/", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert '<html lang="fr"' in html  # remembered over the browser's wish
    # the menu offers the two other languages, each in its own words
    assert 'hreflang="en" lang="en">English</a>' in html
    assert 'hreflang="de" lang="de">Deutsch</a>' in html
    assert client.get("/lang/es").status_code == 404


def test_a_refusal_over_the_api_comes_in_the_callers_language(
    client: FlaskClient, service: Service
) -> None:
    game_id = service.new_game("sauteur", {"rule": "B"})
    refused = {}
    for lang in ("de", "fr", "en"):
        resp = client.post(
            f"/api/games/{game_id}/actions",
            json={"type": "stop", "by": "p1"},
            headers={**REFEREE, "Accept-Language": lang},
        )
        assert resp.status_code in (400, 409), resp.get_json()
        refused[lang] = resp.get_json()
    assert refused["de"]["error"] == refused["en"]["error"]  # the code is the language's neither
    assert refused["de"]["params"] == refused["en"]["params"]
    assert refused["de"]["reason"] != refused["en"]["reason"]
    assert refused["fr"]["reason"] != refused["en"]["reason"]
    english = i18n.english()  # the German is the catalog's sentence, not an English one
    assert refused["de"]["reason"] not in english.values()


def test_switch_redirects_stay_on_this_site(client: FlaskClient) -> None:
    for target in ("//evil.example/x", "http://evil.example/", "javascript:alert(1)", "box"):
        resp = client.get("/theme/dark", query_string={"next": target})
        assert resp.headers["Location"] == "/", target
    html = client.get("/").get_data(as_text=True)
    assert 'data-theme="dark"' in html


def test_installable(client: FlaskClient) -> None:
    manifest = client.get("/manifest.webmanifest")
    assert manifest.mimetype == "application/manifest+json"
    data = manifest.get_json(force=True)
    assert data["display"] == "standalone" and data["start_url"] == "/"
    sizes = {icon["sizes"] for icon in data["icons"]}
    assert {"192x192", "512x512"} <= sizes
    for icon in data["icons"]:
        resp = client.get(icon["src"])
        assert resp.status_code == 200, icon["src"]
        assert resp.mimetype == icon["type"]
    sw = client.get("/sw.js")
    assert sw.status_code == 200 and sw.mimetype == "text/javascript"
    for path in re.findall(r'"(/static/[^"]+\.[a-z]+)"', sw.get_data(as_text=True)):
        assert client.get(path).status_code == 200, path


def test_static_assets_make_no_external_requests(client: FlaskClient) -> None:
    from pathlib import Path

    static = Path(__file__).resolve().parents[2] / "web" / "static"
    for path in static.rglob("*"):
        if path.suffix not in (".js", ".css", ".svg"):
            continue
        # comment lines name sources (the vendored uPlot cites its references): no request
        code = [
            line
            for line in path.read_text().splitlines()
            if not line.lstrip().startswith(("//", "*", "/*"))
        ]
        urls = re.findall(r"https?://[^\s\"')]+", "\n".join(code))
        assert all(u.startswith("http://www.w3.org/") for u in urls), (path, urls)


def test_home_has_the_join_qr_code_inline(client: FlaskClient) -> None:
    html = client.get("/", base_url="http://192.168.1.20:8000").get_data(as_text=True)
    assert "<svg" in html and 'class="segno"' in html
    assert "http://192.168.1.20:8000/" in html


def test_the_apis_own_refusals_come_in_the_callers_language(
    client: FlaskClient, service: Service
) -> None:
    game_id = service.new_game("sauteur", {"rule": "B"})
    url = f"/api/games/{game_id}/actions"
    german = client.post(url, json={"type": "stop"}, headers={"Accept-Language": "de"})
    english = client.post(url, json={"type": "stop"}, headers={"Accept-Language": "en"})
    assert german.status_code == english.status_code == 401
    assert german.get_json()["error"] == english.get_json()["error"] == "pin-required"
    assert english.get_json()["reason"] == "only the referee may do this: enter the PIN"
    assert german.get_json()["reason"] == "nur der Schiedsrichter darf das: gib die PIN ein"
    # with parameters: an unknown live topic, in French
    bad = client.get("/stream?topics=nowhere", headers={"Accept-Language": "fr"})
    assert bad.status_code == 400
    assert bad.get_json()["reason"].startswith("sujet inconnu 'nowhere'")
