"""Hostile game titles in real Chromium: every page shows them literally, nothing runs.

A title such as ``<!--<script>`` once ended the page's JSON block early and blanked the
game page and its history page for everyone (the JSON embedded in HTML was not escaped).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.service import Service
from controller.text import clean_text

from .conftest import live_server

pytestmark = pytest.mark.browser

TITLES = [
    "<!--<script>",
    "</script><script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "<!-- x --> & &amp; &lt;",
    "]]> {{ 7*7 }} ${7*7} '\"`",
    "👨‍👩‍👧 Café",
]


@pytest.fixture
def live(tmp_path: Path) -> Iterator[tuple[str, Service]]:
    with live_server(tmp_path, 3600.0) as live:
        yield live


def test_hostile_titles_are_shown_literally(browser: Any, live: tuple[str, Service]) -> None:
    base, service = live
    ids = {
        service.new_game("sauteur", {"rule": "A"}, clean_text(title, field="title")): title
        for title in TITLES
    }
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("dialog", lambda d: (errors.append("dialog: " + d.message), d.dismiss()))
    try:
        page.goto(base + "/")
        page.wait_for_selector("#games a.game-link")
        shown = page.locator("#games a.game-link strong").all_inner_texts()
        assert sorted(shown) == sorted(TITLES)
        for game_id, title in ids.items():
            for url in (f"/games/{game_id}", f"/history/{game_id}"):
                page.goto(base + url)
                assert page.inner_text("#title") == title, url
                # the page's module ran on its data: the nav and the language switch are there
                assert page.locator("footer, nav").count() >= 1, url
                assert page.evaluate("() => document.getElementById('boot') !== null")
                boot = page.evaluate(
                    "() => JSON.parse(document.getElementById('boot').textContent)"
                )
                assert boot["title"] == title, url
        assert errors == []
    finally:
        context.close()


NAMES = ["<b>x</b>", "<svg/onload=alert()>", "&amp;", "</script>", "'\"<>", "green"]


def test_hostile_player_names_are_shown_literally(browser: Any, live: tuple[str, Service]) -> None:
    """Teufel Teufel's players are named by their colours, which a referee may choose."""
    base, service = live
    game_id = service.new_game("teufel", {"colours": NAMES, "players": NAMES[:4]}, "<!--<script>")
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("dialog", lambda d: (errors.append("dialog: " + d.message), d.dismiss()))
    try:
        for url in (f"/games/{game_id}", f"/history/{game_id}"):
            page.goto(base + url)
            assert page.inner_text("#title") == "<!--<script>"
        page.goto(base + f"/games/{game_id}")
        page.wait_for_function(
            "(n) => document.body.innerText.includes(n)", arg=NAMES[1], timeout=10_000
        )
        text = page.inner_text("body")
        for name in NAMES[:4]:
            assert name in text, name
        assert page.locator("svg[onload]").count() == 0
        assert page.evaluate(
            "() => [...document.querySelectorAll('b')].every(b => b.textContent !== 'x')"
        )
        assert errors == []
    finally:
        context.close()
