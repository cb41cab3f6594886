"""Issue 26: the Box page's button that clears a latched ``coil-deadline`` fault, in real
Chromium at phone size: a confirmation first; while a coil still reads on, the box refuses
and the dialog says why in the page's language."""

from __future__ import annotations

from typing import Any

import pytest

from controller.web.i18n import sentence

from .conftest import live_server
from .test_a11y import AXE, RUN_AXE
from .test_box_faults import DETAIL, latch
from .test_browser import log_in, phone

pytestmark = pytest.mark.browser


def test_the_referee_clears_the_coil_fault_from_the_box_page(browser: Any, tmp_path) -> None:
    with live_server(tmp_path, 3600.0) as (base, service):
        box = latch(service)
        ctx, page, _ = phone(browser, base, bypass_csp=True)  # axe is injected
        ctx.add_cookies([{"name": "lang", "value": "de", "url": base}])
        page.goto(base + "/box")
        assert page.locator("#fault-clear-go").count() == 0  # a spectator has no such button
        log_in(page)
        page.goto(base + "/box")
        go = page.locator("#fault-clear-go")
        go.wait_for()
        assert go.inner_text() == sentence("de", "Clear the coil fault")
        # the fault in words, not as the backend's record ({'name': …})
        assert page.inner_text("#faults") == f"coil-deadline: {DETAIL}"
        if AXE.is_file():  # scripts/setup installs it (test_a11y.py says how)
            page.add_script_tag(path=str(AXE))
            assert page.evaluate(RUN_AXE) == []  # no serious or critical violation

        box._coils[2].on()  # a coil that still reads on: refused, with the reason
        go.click()
        page.wait_for_selector("#game-dialog[open]")
        assert "coil-deadline" in page.inner_text("#game-dialog-text")
        page.click("#game-dialog-go")
        page.wait_for_selector("#game-dialog-error:not([hidden])")
        why = "coil {keys} still reads on: the fault stays until every coil is off"
        assert page.inner_text("#game-dialog-error") == sentence("de", why, keys="2")
        assert box.status()["faults"]
        page.click("#game-dialog-cancel")
        box._coils[2].off()

        go.click()  # now it goes
        page.wait_for_selector("#game-dialog[open]")
        page.click("#game-dialog-go")
        page.wait_for_selector("#toast:not([hidden])")
        assert page.inner_text("#toast") == sentence("de", "The coil fault is cleared.")
        assert box.status()["faults"] == []
        page.wait_for_selector("#fault-clear-go", state="detached")  # the page saw it go
        assert "coil-deadline" in page.inner_text("#notices")
        ctx.close()
