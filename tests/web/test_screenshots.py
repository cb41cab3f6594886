"""Screenshots of every page at phone and tablet size in English, French and German, taken in
real Chromium with the same games as the accessibility test (issue 13, point 7).

In the test run they go to a temporary folder and are checked to be real pictures.
``scripts/screenshots`` runs this module with ``DIABLOTIN_SCREENSHOTS=docs/screenshots`` to
refresh the ones in the docs (docs/screenshots.md shows them)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from .test_a11y import READY, pages, server  # noqa: F401  (the fixture)
from .test_browser import log_in

pytestmark = pytest.mark.browser

SIZES = {"phone": (390, 844), "tablet": (1180, 820)}
LANGS = ("en", "fr", "de")
PAGES = ("home", "sauteur", "teufel", "tails", "box", "history", "history-step", "stats", "rules")
"""The names of :func:`tests.web.test_a11y.pages`' paths, in its order."""


def shot_names() -> list[str]:
    """Every screenshot's file name: ``<page>-<size>-<lang>.jpg``."""
    return [f"{page}-{size}-{lang}.jpg" for page in PAGES for size in SIZES for lang in LANGS]


def test_every_page_at_each_size_in_each_language(
    browser: Any,
    server: Any,  # noqa: F811
    tmp_path: Path,
) -> None:
    base, service = server
    paths = dict(zip(PAGES, pages(service), strict=True))
    folder = Path(os.environ.get("DIABLOTIN_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    for size, (width, height) in SIZES.items():
        context = browser.new_context(viewport={"width": width, "height": height})
        page = context.new_page()
        page.goto(base + "/")
        log_in(page)
        for lang in LANGS:
            for name, path in paths.items():
                page.goto(f"{base}/lang/{lang}?next={path}")
                page.wait_for_function(READY)
                assert page.evaluate("document.documentElement.lang") == lang
                page.screenshot(path=str(folder / f"{name}-{size}-{lang}.jpg"), quality=70)
        context.close()
    for name in shot_names():
        picture = (folder / name).read_bytes()
        assert picture[:3] == b"\xff\xd8\xff" and len(picture) > 5000, name  # a JPEG, not blank


def test_the_docs_show_every_screenshot() -> None:
    docs = Path(__file__).resolve().parents[2] / "docs"
    gallery = (docs / "screenshots.md").read_text(encoding="utf-8")
    for name in shot_names():
        assert f"](screenshots/{name})" in gallery, name
        assert (docs / "screenshots" / name).is_file(), f"{name}: run scripts/screenshots"
