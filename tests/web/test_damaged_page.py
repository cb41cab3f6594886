"""A game that no longer replays, as a phone sees it: "damaged: <reason>" on the home and
history pages, a page of its own with the raw export for the referee (real Chromium)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from controller.journal import Journal

from .conftest import PIN, live_server

pytestmark = pytest.mark.browser


def test_a_damaged_game_reads_damaged_with_its_reason(browser: Any, tmp_path: Path) -> None:
    journal = Journal(tmp_path / "diablotin.sqlite3")
    gone = str(tmp_path / "gone.json")
    journal.create_game("tails", {"players": 2, "board": gone}, "lost board")
    journal.close()
    with live_server(tmp_path, 3600.0) as (base, service):
        assert service.damaged  # the service started anyway
        context = browser.new_context(viewport={"width": 390, "height": 844})
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        try:
            expected = f"damaged: no board named '{gone}'"
            page.goto(base + "/")
            page.wait_for_selector("#games .damaged")
            assert expected in page.inner_text("#games")
            page.goto(base + "/history")
            page.wait_for_selector("#all .damaged")
            assert expected in page.inner_text("#all")
            page.click("#all a.game-link")
            page.wait_for_selector("#damaged")
            assert page.inner_text("#damaged").startswith(expected)
            assert page.is_hidden("#export")  # raw entries: for the referee
            page.request.post(base + "/api/session", data={"pin": PIN})
            page.reload()
            assert page.is_visible("#export")
            download = page.request.get(base + page.get_attribute("#export", "href"))
            assert download.status == 200 and download.json()["options"]["board"] == gone
        finally:
            context.close()
        assert errors == []
