"""The rules pages for players (issue 24): short, in English, French and German,
illustrated with the boards the game pages draw, linked from each game, and with nothing
for developers in them (no source paths, no test files, no links that lead nowhere)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from controller.service import Service
from controller.web.i18n import kind_title

from .conftest import live_server
from .test_browser import phone

KINDS = ("sauteur", "teufel", "tails")
LANGS = ("en", "fr", "de")
DEVELOPER = re.compile(
    r"docs/|tests?/|controller|\.py\b|\.md\b|\.txt\b|`|pytest|Refused|diablotin |json|"
    r"p1|p2|schema|engine",
    re.I,
)


def article(html: str) -> str:
    return html.split('<article class="card rules"', 1)[1].split("</article>", 1)[0]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("kind", KINDS)
def test_each_rules_page_is_for_players_in_their_language(
    client: FlaskClient, kind: str, lang: str
) -> None:
    resp = client.get(f"/rules/{kind}", headers={"Accept-Language": lang})
    assert resp.status_code == 200
    html = resp.get_data(as_text=True)
    assert f'<html lang="{lang}"' in html
    body = article(html)
    assert re.search(r"<h1>" + re.escape(kind_title(lang, kind)) + "</h1>", body)
    text = re.sub(r"<[^>]+>", " ", body)
    assert not DEVELOPER.search(text), DEVELOPER.search(text)
    assert len(text.split()) < 450  # short enough for a phone
    # every picture is a real position, drawn from the page's boot data
    boot = json.loads(html.split('<script type="application/json" id="boot">', 1)[1].split("<")[0])
    pictures = re.findall(r'<svg data-example="(\w+)"', body)
    assert pictures and set(pictures) == set(boot["examples"])
    for example in boot["examples"].values():
        assert example["state"]["game"] == kind
    # no link to anywhere that is not there
    for href in re.findall(r'href="([^"]+)"', body):
        assert href.startswith("/") and client.get(href).status_code == 200, href


def test_each_game_page_links_its_rules(client: FlaskClient, service: Service) -> None:
    for kind in KINDS:
        options = {"players": ["yellow", "blue"]} if kind == "teufel" else {}
        gid = service.new_game(kind, options)
        assert f'href="/rules/{kind}"' in client.get(f"/games/{gid}").get_data(as_text=True)


TINY_TEXT = """() => [...document.querySelectorAll("main svg text")].filter((t) => {
  const m = t.getScreenCTM();
  const px = parseFloat(getComputedStyle(t).fontSize) * (m ? Math.hypot(m.a, m.b) : 1);
  return t.textContent.trim() && px < 12;
}).map((t) => t.textContent)"""
"""SVG text drawn under 12 px on the screen (its font size scaled by the viewBox)."""


@pytest.fixture
def live(tmp_path: Path) -> Iterator[tuple[str, Service]]:
    with live_server(tmp_path, 3600.0) as live:
        yield live


@pytest.mark.browser
def test_the_rules_pages_draw_their_boards_and_fit_a_phone(
    browser: Any, live: tuple[str, Service]
) -> None:
    base, _service = live
    for lang in LANGS:
        context, page, _ = phone(browser, base, locale=lang)
        errors: list[str] = []
        page.on(
            "console", lambda m, seen=errors: seen.append(m.text) if m.type == "error" else None
        )
        try:
            for kind in KINDS:
                page.goto(f"{base}/rules/{kind}")
                drawn = page.locator("svg[data-example]")
                for i in range(drawn.count()):
                    svg = drawn.nth(i)
                    svg.wait_for(state="attached")
                    page.wait_for_function(
                        "(s) => s.dataset.drawn === 'true'", arg=svg.element_handle()
                    )
                    assert svg.evaluate("(s) => s.querySelectorAll('*').length") > 20
                    box = svg.bounding_box()
                    assert box is not None and 200 < box["width"] <= 390, (kind, lang, box)
                size = page.evaluate(
                    "() => [document.documentElement.scrollWidth,"
                    " document.documentElement.scrollHeight]"
                )
                assert size[0] <= 390, (kind, lang, size)
                assert size[1] < 6000, (kind, lang, size)  # was 22,727 px of developer text
                assert page.evaluate(TINY_TEXT) == [], (kind, lang)
            assert errors == []
        finally:
            context.close()
