"""axe-core at its current release (tests/web/package.json, installed by scripts/setup) with
all its default rules and WCAG 2.5.3's label-in-name, run in real Chromium on every page,
both themes, phone and tablet sizes, as the referee (in German) and as a spectator (in
French): no serious or critical violation."""

from __future__ import annotations

import json
import os
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.service import Service

from .conftest import PIN, games_in_play, live_server

AXE = Path(__file__).parent / "node_modules" / "axe-core" / "axe.min.js"
SIZES = {"phone": (390, 844), "tablet": (1180, 820)}
RUN_AXE = """async () => {
  // all default rules, and WCAG 2.5.3 "label in name" (experimental in axe, serious)
  const r = await axe.run(document, {resultTypes: ['violations'],
    rules: {'label-content-name-mismatch': {enabled: true}}});
  return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ') + ' :: ' + n.failureSummary)}));
}"""

# the page has its data: live (pages with a stream), or the history step drawn
READY = """() => { const live = document.getElementById('live');
  if (live) return live.dataset.state === 'on';
  const card = document.getElementById('board-card');
  return !card || !card.hidden; }"""

pytestmark = pytest.mark.browser


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, Service]]:
    with live_server(tmp_path, 3600.0) as live:
        yield live


def pages(service: Service) -> list[str]:
    """Every page: home, a game of each kind mid-game, box, history and a history step."""
    sauteur = service.new_game("sauteur", {"rule": "A"})
    table = service.table(sauteur)
    for action in ({"type": "hidden"}, {"type": "pop", "key": 2, "by": "p2"}):
        table.submit(action)
    teufel, tails, _ = games_in_play(service)
    return [
        "/",
        f"/games/{sauteur}",
        f"/games/{teufel}",
        f"/games/{tails}",
        "/box",
        "/history",
        f"/history/{tails}",
        "/stats",
        "/rules/sauteur",
    ]


def finished_tails(service: Service) -> str:
    done = service.new_game("tails", {"players": 2})
    table, rng = service.table(done), random.Random(3)
    while not table.finished:
        table.submit(rng.choice(table.legal_actions()))
    return f"/games/{done}"


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_no_serious_or_critical_axe_violation_on_any_page(
    browser: Any, server: Any, theme: str
) -> None:
    if not AXE.is_file():
        message = f"{AXE} is absent: run scripts/setup (npm ci in tests/web)"
        if os.environ.get("DIABLOTIN_REQUIRE_BROWSER"):
            pytest.fail(message + " (CI requires it)")
        pytest.skip(message)
    base, service = server
    # and a finished tail-tile game (every card used up), the page that says it is not there
    paths = [*pages(service), finished_tails(service), "/no/such/page"]
    found: dict[str, Any] = {}
    errors: list[str] = []
    for size, (width, height) in SIZES.items():
        for role in ("referee", "spectator"):
            context = browser.new_context(
                viewport={"width": width, "height": height}, bypass_csp=True
            )
            # German for the referee, French for the spectator: names say what buttons show
            lang = "de" if role == "referee" else "fr"
            context.add_cookies([{"name": "lang", "value": lang, "url": base}])
            page = context.new_page()
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(f"{base}/theme/{theme}")
            if role == "referee":
                page.click("#role")
                page.fill("#pin", PIN)
                page.click("#login-go")
                page.wait_for_selector("#role.referee")
            for path in paths:
                if role == "spectator" and path.startswith("/history/"):
                    continue  # a game in play is the referee's until it ends
                page.goto(base + path)
                page.wait_for_function(READY)
                page.add_script_tag(path=str(AXE))
                bad = page.evaluate(RUN_AXE)
                if bad:
                    found[f"{size} {role} {path}"] = bad
            context.close()
    assert not errors, errors  # JavaScript errors on any page
    if found:
        pytest.fail("axe: serious or critical violations\n" + json.dumps(found, indent=1))
