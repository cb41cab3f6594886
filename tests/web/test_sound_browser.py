"""Sound at the table in real Chromium: off by default for spectators, on for the referee,
the menu's switch remembered, and the sound of each kind of event (issue 13, point 6)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.service import Service
from tests.service.conftest import wait_for

from .conftest import live_server
from .test_browser import log_in, phone

LAST_SOUND = "() => document.documentElement.dataset.lastSound || ''"
VIBRATIONS = """window.vibrations = [];
navigator.vibrate = (ms) => { window.vibrations.push(ms); return true; };"""
TOAST_AN_ERROR = """async () => {
  const url = performance.getEntriesByType("resource").map((e) => e.name)
    .find((name) => name.includes("/static/v/") && name.endsWith("/js/common.js"));
  (await import(url)).toast("refused");  // the page's own module instance
}"""


@pytest.fixture
def live(tmp_path: Path) -> Iterator[tuple[str, Service]]:
    with live_server(tmp_path, 0.05) as live:
        yield live


def switch(page: Any) -> str:
    page.click("#menu > summary")
    return str(page.get_attribute("#sound-switch", "aria-pressed"))


@pytest.mark.browser
def test_sounds_follow_the_switch_and_the_games_events(browser: Any, live: Any) -> None:
    base, service = live
    game_id = service.new_game("sauteur", {"rule": "A"})
    table = service.table(game_id)
    wait_for(lambda: table.state.phase == "pop", what="the dice hidden")

    spec_ctx, spec, _ = phone(browser, base)
    spec.goto(f"{base}/games/{game_id}")
    assert switch(spec) == "false"  # a spectator hears nothing unless they ask
    ref_ctx, ref, _ = phone(browser, base)
    ref.add_init_script(VIBRATIONS)
    ref.goto(base + "/")
    log_in(ref)
    ref.goto(f"{base}/games/{game_id}")
    assert switch(ref) == "true"  # the referee's phone sounds
    ref.click("#sound-switch")
    assert ref.get_attribute("#sound-switch", "aria-pressed") == "false"
    ref.reload()
    assert switch(ref) == "false"  # remembered on this phone
    ref.click("#sound-switch")
    ref.click("#menu > summary")  # close the menu

    # a devil from key 1 (3 squares, nobody caught): the devil's sound for the referee only
    ref.wait_for_selector("#slots button.pop:enabled")
    service.box_play.press(game_id, 1)
    wait_for(lambda: table.state.phase == "face", what="the die out")
    service.submit(game_id, {"type": "face", "face": "devil"})
    ref.wait_for_function(f"() => ({LAST_SOUND})() === 'devil'")
    spec.wait_for_function(f"() => document.body.dataset.version == '{table.version}'")
    assert spec.evaluate(LAST_SOUND) == ""

    # an error toast (a refusal) makes the referee's phone vibrate, once
    ref.evaluate(TOAST_AN_ERROR)
    assert ref.evaluate("() => window.vibrations") == [120]
    spec_ctx.close()
    ref_ctx.close()
