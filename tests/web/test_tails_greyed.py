"""Issue 24 (12): on the tail-tile page a greyed card button says why to a player on a phone,
where no tooltip shows: in words under the cards (its aria-describedby) and on a tap, in
English, French and German."""

from __future__ import annotations

import random
from typing import Any

import pytest

from controller.games.tails import KINDS
from controller.service import Service
from controller.web.i18n import sentence

from .conftest import live_server
from .test_browser import log_in, phone

pytestmark = pytest.mark.browser


def a_kind_used_up(service: Service) -> tuple[int, str]:
    """A tail-tile game in play, a card to place, and one kind with no card left."""
    rng = random.Random(5)
    while True:
        gid = service.new_game("tails", {"players": 2})
        table = service.table(gid)
        while not table.finished:
            empty = [k for k, n in zip(KINDS, table.state.stock, strict=True) if n == 0]
            places = [a for a in table.legal_actions() if a["type"] == "place"]
            if empty and places:
                return gid, empty[0]
            table.submit(rng.choice(table.legal_actions()))


def test_a_greyed_card_says_why_on_a_phone_in_three_languages(browser: Any, tmp_path) -> None:
    with live_server(tmp_path, 3600.0) as (base, service):
        gid, kind = a_kind_used_up(service)
        ctx, page, _ = phone(browser, base)
        page.goto(f"{base}/games/{gid}")
        log_in(page)
        for lang in ("en", "fr", "de"):
            ctx.add_cookies([{"name": "lang", "value": lang, "url": base}])
            page.goto(f"{base}/games/{gid}")
            button = page.locator(f"#kinds button[data-kind={kind}]")
            button.wait_for()
            assert button.is_disabled()
            why = sentence(lang, "no {kind} cards left", kind=kind)
            if lang != "en":  # really in the page's language
                assert why != f"no {kind} cards left"
            # in words, on screen, next to the cards, and the button's description
            assert page.locator("#kinds-why").is_visible()
            assert why in page.inner_text("#kinds-why")
            assert button.get_attribute("aria-describedby") == "kinds-why"
            assert why in page.evaluate(
                "(b) => document.getElementById(b.getAttribute('aria-describedby')).textContent",
                button.element_handle(),
            )
            # a tap on the greyed card (a phone has no hover) shows it too
            box = button.bounding_box()
            assert box is not None
            page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            page.wait_for_selector("#toast:not([hidden])")
            assert page.inner_text("#toast") == why
            # Place, greyed until a cell and a card are picked, points to the hint that says so
            assert page.is_disabled("#place")
            assert page.get_attribute("#place", "aria-describedby") == "hint"
            assert page.get_attribute("#place", "data-why") == page.inner_text("#hint")
            # the cards still in stock are not greyed, and say nothing
            other = next(
                k
                for k in KINDS
                if k != kind and not page.locator(f"#kinds button[data-kind={k}]").is_disabled()
            )
            assert (
                page.get_attribute(f"#kinds button[data-kind={other}]", "aria-describedby") is None
            )
            assert page.get_attribute("html", "lang") == lang
        # a phone in landscape: the reason does not push Place off the screen
        page.set_viewport_size({"width": 844, "height": 390})
        page.goto(f"{base}/games/{gid}")
        page.wait_for_selector("#kinds-why:not([hidden])")
        bottoms = page.evaluate(
            "() => ['kinds-why', 'place'].map((id) => "
            "document.getElementById(id).getBoundingClientRect().bottom - innerHeight)"
        )
        assert all(b <= 0 for b in bottoms), bottoms
        ctx.close()
