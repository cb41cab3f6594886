"""Issue 24: an evening at the table, scripted in real Chromium.

A referee (German phone) and a spectator (French phone) meet at the box. The referee logs in
through the "Zuschauer" chip, adds Zoé and Ömer to the roster and starts all three games by
tapping: a Diable sauteur game of Zoé against the computer (hidden, popped, its face tapped,
the spectator following live), a Teufel Teufel game by its colours, a tail-tile game. The
evening goes on: a finished Teufel game gets its rematch, the sauteur game is abandoned (the
spectator's page says so), a finished tail-tile game is deleted, and a new game after the
delete takes a new id. Then every page is read in English, French and German at 390×844,
844×390 and 1180×820.

It fails on any console error (CSP reports included), any visible text equal to an English
catalog string whose translation differs (an untranslated word), any element wider than its
container, and any text drawn under 12 px (SVG text scaled by its viewBox included).
With ``DIABLOTIN_SCREENSHOTS=<folder>`` (scripts/screenshots) it keeps a picture of every
page at every size in every language, mid-game with real names and finished games.
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.bench.teufel import random_game
from controller.service import Service
from controller.web.i18n import english, translate

from .conftest import PIN, live_server
from .test_at_the_table import LANDSCAPE, PHONE, SMALL_TEXT, TABLET, Page

pytestmark = pytest.mark.browser

SIZES = {"phone": PHONE, "landscape": LANDSCAPE, "tablet": TABLET}
LANGS = ("en", "fr", "de")
PAGES = {
    "home": "Games (home)",
    "sauteur": "Le Diable sauteur, mid-game",
    "sauteur-abandoned": "Le Diable sauteur, abandoned",
    "teufel": "Teufel Teufel (a rematch)",
    "tails": "The tail-tile game",
    "box": "The box",
    "history": "History",
    "history-step": "A finished game in the History, step by step",
    "stats": "Stats",
    "rules": "Rules",
}
"""Each page the evening reads: its screenshot's name and its heading in docs/screenshots.md."""


def shot_names() -> list[str]:
    """Every screenshot's file name: ``<page>-<size>-<lang>.jpg``."""
    return [f"{page}-{size}-{lang}.jpg" for page in PAGES for size in SIZES for lang in LANGS]


@pytest.fixture(scope="module")
def evening(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Service]]:
    with live_server(tmp_path_factory.mktemp("evening"), 0.05) as live:
        yield live


def test_an_evening_at_the_table(browser: Any, evening: tuple[str, Service]) -> None:
    base, service = evening
    ref = Page(browser, base, "de", PHONE, referee=False)
    spectator = Page(browser, base, "fr", PHONE, referee=False)

    # the referee logs in through the "Zuschauer" chip
    page = ref.goto("/")
    assert page.inner_text("#role") == translate("de", "role.spectator")
    page.click("#role")
    page.fill("#pin", PIN)
    page.click("#login-go")
    page.wait_for_selector("#role.referee")
    # the roster: Zoé and Ömer
    for name in ("Zoé", "Ömer"):
        page.fill("#player-name", name)
        page.click("#add-player")
        page.wait_for_selector(f"#roster li:has-text('{name}')")
    zoe, omer = (p["id"] for p in sorted(service.players(), key=lambda p: p["id"]))

    # Le Diable sauteur: Zoé against the computer, played on the box by tapping
    page.select_option("#kind", "sauteur")
    page.check("input[name='rule'][value='B']", force=True)
    page.select_option("select[name='seat0']", f"player:{zoe}")
    page.select_option("select[name='seat1']", "computer:heuristic")
    page.fill("input[name='title']", "Zoé gegen den Computer")
    page.click("#create")
    page.wait_for_url("**/games/*")
    sauteur = int(page.url.rsplit("/", 1)[1])
    watching = spectator.goto(f"/games/{sauteur}")
    page.wait_for_function("() => document.body.dataset.phase === 'pop'", timeout=10_000)
    watching.wait_for_function("() => document.body.dataset.phase === 'pop'")
    service.face_delay_s = 3600.0  # the referee taps the face
    popper = service.table(sauteur).state.popper
    if popper == "p1":  # Zoé pops: the referee taps a key for her
        page.locator("#slots button.pop:enabled").first.click()
        page.wait_for_selector("#choices button.face[data-face='2']")
        page.click("#choices button.face[data-face='2']")
        page.wait_for_function("() => document.body.dataset.phase !== 'face'")
    service.face_delay_s = 0.05
    watching.wait_for_selector("#scores .who")
    assert "Zoé" in watching.inner_text("#scores")

    # Teufel Teufel, by its colours and players
    page = ref.goto("/")
    page.select_option("#kind", "teufel")
    page.locator("#teufel-colours button").nth(0).click()
    page.locator("#teufel-colours button").nth(1).click()
    page.select_option("select[name='seat0']", f"player:{zoe}")
    page.select_option("select[name='seat1']", f"player:{omer}")
    page.click("#create")
    page.wait_for_url("**/games/*")
    page.wait_for_selector("#board g[data-square]")

    # the tail-tile game for two
    page = ref.goto("/")
    page.select_option("#kind", "tails")
    page.select_option("select[name='seat0']", f"player:{omer}")
    page.select_option("select[name='seat1']", "guest")
    page.fill("input[name='guest1']", "Max")
    page.click("#create")
    page.wait_for_url("**/games/*")
    tails = int(page.url.rsplit("/", 1)[1])
    page.wait_for_selector("#board")

    # games played earlier in the evening, to their ends (the rules alone, quickly)
    game = random_game(3)
    teufel_done = service.new_game("teufel", game.options, "Runde eins")
    for action in game.actions:
        service.table(teufel_done).submit(action)
    tails_done = service.new_game("tails", {"players": 2}, "Schwänzchen")
    table, rng = service.table(tails_done), random.Random(5)
    while not table.finished:
        table.submit(rng.choice(table.legal_actions()))

    # a rematch of the finished Teufel game, from its menu
    page = ref.goto(f"/games/{teufel_done}")
    menu(page, "rematch")
    page.wait_for_url(lambda url: not url.endswith(f"/games/{teufel_done}"))
    rematch = int(page.url.rsplit("/", 1)[1])
    assert service.table(rematch).rules.name == "teufel"

    # the sauteur game is abandoned: the spectator's page says so at once
    page = ref.goto(f"/games/{sauteur}")
    menu(page, "abandon")
    page.wait_for_url(f"**/history/{sauteur}")
    watching.wait_for_selector("#ended")
    assert watching.inner_text("#ended") == translate("fr", "game.ended_abandoned")

    # the finished tail-tile game is deleted; the next new game gets a new id
    page = ref.goto(f"/games/{tails_done}")
    menu(page, "delete")
    page.wait_for_url("**/history")
    page = ref.goto("/")
    page.select_option("#kind", "sauteur")
    page.click("#create")
    page.wait_for_url("**/games/*")
    after = int(page.url.rsplit("/", 1)[1])
    assert after > max(tails_done, rematch, tails)
    service.put_on_box(after)
    ref.close()
    spectator.close()

    # every page, three languages, three sizes
    paths = {  # in the order of PAGES
        "home": "/",
        "sauteur": f"/games/{after}",
        "sauteur-abandoned": f"/games/{sauteur}",
        "teufel": f"/games/{rematch}",
        "tails": f"/games/{tails}",
        "box": "/box",
        "history": "/history",
        "history-step": f"/history/{teufel_done}",
        "stats": "/stats",
        "rules": "/rules/sauteur",
    }
    assert list(paths) == list(PAGES)
    folder = os.environ.get("DIABLOTIN_SCREENSHOTS")
    problems: dict[str, list[str]] = {}
    for lang in LANGS:
        english = english_only(lang)
        visitor = Page(browser, base, lang, PHONE, referee=True)
        for name, path in paths.items():
            page = visitor.goto(path)
            for size, (width, height) in SIZES.items():
                page.set_viewport_size({"width": width, "height": height})
                page.wait_for_timeout(60)  # the layout settles (fitBoard, charts)
                where = f"{lang} {size} {name}"
                found = [f"too wide: {x}" for x in page.evaluate(TOO_WIDE)]
                found += [f"under 12 px: {x}" for x in page.evaluate(SMALL_TEXT, 12)]
                if name != "rules":  # being rewritten for players in their languages
                    texts = page.evaluate(VISIBLE_TEXTS)
                    found += [f"English: {x}" for x in texts if x in english]
                if found:
                    problems[where] = sorted(set(found))[:8]
                if folder:
                    Path(folder).mkdir(parents=True, exist_ok=True)
                    page.screenshot(path=f"{folder}/{name}-{size}-{lang}.jpg", quality=70)
            page.set_viewport_size({"width": PHONE[0], "height": PHONE[1]})
        visitor.close()  # fails on any console error or CSP report
    assert not problems, "\n".join(f"{k}: {v}" for k, v in problems.items())


def menu(page: Any, action: str) -> None:
    """The referee's game menu: ``action``, confirmed in its dialog."""
    page.click("#menu > summary")
    page.click(f"[data-game-do='{action}']")
    page.wait_for_selector("#game-dialog[open]")
    page.click("#game-dialog-go")


def test_the_docs_show_every_screenshot() -> None:
    docs = Path(__file__).resolve().parents[2] / "docs"
    gallery = (docs / "screenshots.md").read_text(encoding="utf-8")
    for name in shot_names():
        assert f"](screenshots/{name})" in gallery, name
        assert (docs / "screenshots" / name).is_file(), f"{name}: run scripts/screenshots"


# an element that sticks out of its container (a parent that does not scroll it)
TOO_WIDE = """() => {
  const out = [];
  const skip = 'svg, [hidden], dialog:not([open]), details:not([open]) > :not(summary)';
  for (const node of document.body.querySelectorAll('*')) {
    if (node.closest(skip)) continue;
    let parent = node.parentElement;  // the box it is laid out in
    while (parent && getComputedStyle(parent).display === 'contents') parent = parent.parentElement;
    if (!parent || parent === document.body) continue;
    const style = getComputedStyle(node);
    if (['absolute', 'fixed'].includes(style.position) || style.display === 'none') continue;
    if (getComputedStyle(parent).overflowX !== 'visible') continue;  // a scrolling table
    const r = node.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    const p = parent.getBoundingClientRect();
    if (r.left < p.left - 1 || r.right > p.right + 1) {
      const what = `${node.tagName}.${node.className || ''}#${node.id || ''}`;
      out.push(`${what} (${Math.round(r.width)} px in ${parent.tagName}.${parent.className || ''}` +
        ` ${Math.round(p.width)} px)`);
    }
  }
  if (document.documentElement.scrollWidth > innerWidth + 1) out.push('the page scrolls sideways');
  return out;
}"""

VISIBLE_TEXTS = """() => {
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    const text = node.data.trim();
    if (!text || !parent || parent.closest('script, style, [hidden], [translate="no"]')) continue;
    if (parent.checkVisibility && !parent.checkVisibility()) continue;
    out.push(text);
  }
  for (const b of document.querySelectorAll('button, [aria-label]')) {
    if (b.checkVisibility && b.checkVisibility()) out.push((b.innerText || '').trim());
  }
  return out;
}"""


def english_only(lang: str) -> set[str]:
    """The English strings whose translation in ``lang`` differs (no placeholders)."""
    if lang == "en":
        return set()
    return {
        text
        for key, text in english().items()
        if "{" not in text and len(text) > 2 and translate(lang, key) != text
    }
