"""Every page in German and in French, in real Chromium: no English text shows through
(issue 13, point 3). Each page is rendered in English, then in German and in French with the
same data; a visible text of the German or French page that is also on the English page is
English left untranslated, unless the catalogs themselves say it is the same in that
language (Box, Live, Le Diable sauteur…) or a user entered it (titles, names)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller import __version__
from controller.service import Service
from controller.web import i18n

from .conftest import live_server
from .test_a11y import READY, pages
from .test_browser import log_in

pytestmark = pytest.mark.browser

TEXTS = """() => {
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode, box = node.parentElement;
    if (!box || box.closest('script, style, [hidden], [translate=no], .rules-body')) continue;
    const style = getComputedStyle(box);
    if (style.display === 'none' || style.visibility === 'hidden') continue;
    const text = node.textContent.replace(/\\s+/g, ' ').trim();
    if (text) out.push(text);
  }
  for (const el of document.querySelectorAll('[aria-label], [title]')) {
    for (const name of ['aria-label', 'title']) {
      const text = (el.getAttribute(name) || '').trim();
      if (text) out.push(text);
    }
  }
  return out;
}"""


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, Service]]:
    with live_server(tmp_path, 3600.0) as live:
        yield live


def same_in(lang: str) -> set[str]:
    """Catalog messages whose translation in ``lang`` is the English itself."""
    same = set()
    for key, english in i18n.english().items():
        if i18n.translate(lang, key) == english:
            same.add(english)
    return same


def english_left(text: str, english: set[str], allowed: set[str]) -> bool:
    if text not in english or text in allowed or text.startswith("http"):
        return False  # an address is no language
    letters = re.sub(r"[^A-Za-zÀ-ÿ]", "", text)
    return len(letters) >= 4


def texts(page: Any, base: str, lang: str, path: str) -> list[str]:
    page.goto(f"{base}/lang/{lang}?next={path}")
    page.wait_for_function(READY)
    return [str(text) for text in page.evaluate(TEXTS)]


def english_on(browser: Any, base: str, service: Service, paths: list[str]) -> dict[str, Any]:
    """Per ``<lang> <path>``: the texts of the German or French page left in English."""
    user_text = {game["title"] for game in service.games() if game.get("title")}
    languages = {i18n.language_name(code) for code in i18n.LANGS}  # each in its own words
    version = i18n.translate("en", "menu.version", v=__version__)
    context = browser.new_context(viewport={"width": 1180, "height": 820})
    page = context.new_page()
    page.goto(base + "/")
    log_in(page)
    found: dict[str, list[str]] = {}
    for path in paths:
        english = {numbered(t) for t in texts(page, base, "en", path)}
        for lang in ("de", "fr"):
            allowed = same_in(lang) | user_text | languages | {version}
            shown = {numbered(t) for t in texts(page, base, lang, path)}
            left = sorted(t for t in shown if english_left(t, english, allowed))
            if left:
                found[f"{lang} {path}"] = left
    context.close()
    return found


def numbered(text: str) -> str:
    """A list entry's text without its game number (``#4 Sonntag``: ``Sonntag``)."""
    return re.sub(r"^#\d+ ", "", text)


def test_no_english_shows_through_on_a_german_or_french_page(browser: Any, server: Any) -> None:
    base, service = server
    paths = pages(service)  # the rules pages too: they are the players' now
    sauteur = service.new_game("sauteur", {"rule": "B"}, title="Sonntag")
    table = service.table(sauteur)
    for action in (
        {"type": "hidden"},
        {"type": "pop", "key": 3, "by": table.state.popper},
        {"type": "face", "face": 4},
    ):
        table.submit(action)
    paths.append(f"/games/{sauteur}")
    paths.append("/no/such/page")  # the 404 page says so in the reader's language
    found = english_on(browser, base, service, paths)
    assert not found, "\n".join(f"{where}: {left}" for where, left in found.items())


def test_french_and_german_typography_on_the_pages(browser: Any, server: Any) -> None:
    """Walkthrough: "lettres de Élodie" (no elision), "bleu: 7" and "Règle A: 0/1" (no space
    before the colon in French), "33%" beside "50 %" (four ways to write a percentage). The
    pages' one formatter (common.js) elides, pairs and writes percentages the language's way."""
    base, _service = server
    probe = """async () => {
      const m = await import("/static/js/common.js");
      return [m.t("teufel.letters_of", { p: "Élodie", l: "A" }),
              m.t("teufel.take_from", { p: "Zoé" }), m.t("teufel.take_from", { p: "e2" }),
              m.pair("Règle A", "0/1"), m.percent(1 / 3), m.percent(1),
              m.t("history.round_result", { r: 1, p: "Anne", n: 1, pts: 2 })];
    }"""
    found = {}
    for lang in ("fr", "de"):
        page = browser.new_page()
        page.goto(f"{base}/lang/{lang}?next=/")
        found[lang] = page.evaluate(probe)
        page.close()
    nbsp, narrow = "\u00a0", "\u202f"
    assert found["fr"][:3] == [
        "Lettres d’Élodie : A",
        "Prendre le diable de Zoé",
        "Prendre le diable de e2",
    ]
    assert found["fr"][3] == f"Règle A{nbsp}: 0/1" and found["de"][3] == "Règle A: 0/1"
    for lang in ("fr", "de"):  # CLDR's non-breaking space (narrow or not, as ICU has it)
        assert [re.sub(f"[{nbsp}{narrow}]", "_", s) for s in found[lang][4:6]] == ["33_%", "100_%"]
    assert found["fr"][6] == "Manche 1 : Anne a sauvé 1 personnage, 2 points"
    assert found["de"][6] == "Runde 1: Anne brachte 1 Figur ins Ziel, 2 Punkte"
