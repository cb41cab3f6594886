"""The Box page's clock offer, restart and shut down, and the PIN reset reaching a running
app. System commands are faked at the one boundary (``controller.system`` runs them);
the command lines are checked in tests/core/test_system.py."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from controller import system
from controller.service import Service
from controller.system import PinFile, System
from tests.core.test_system import SHOW, FakeRun

from .conftest import PIN, live_server, login

UNSYNCED = {SHOW: (0, "no\n", "")}


@pytest.fixture
def run(app: Flask, tmp_path: Path) -> FakeRun:
    fake = FakeRun(dict(UNSYNCED))
    app.extensions["diablotin.system"] = System(fake, tmp_path / "no-timesync")
    return fake


def test_the_clock_report_offers_the_phones_time(client: FlaskClient, run: FakeRun) -> None:
    report = client.get(f"/api/box/clock?phone={time.time() + 300}").get_json()
    assert report["offer"] is True and 295 < report["offset_s"] < 305
    assert report["synchronised"] is False
    assert client.get(f"/api/box/clock?phone={time.time() + 5}").get_json()["offer"] is False
    assert client.get("/api/box/clock?phone=soon").status_code == 400


def test_taking_the_phones_time_is_the_referees_and_is_recorded(
    client: FlaskClient, run: FakeRun, service: Service
) -> None:
    when = time.time() + 300
    assert client.post("/api/box/clock", json={"time": when}).status_code == 401
    assert not [c for c in run.commands if c[1] == "set-time"]
    headers = {"X-CSRF-Token": login(client)}
    assert client.post("/api/box/clock", json={"time": "now"}, headers=headers).status_code == 400
    resp = client.post("/api/box/clock", json={"time": when}, headers=headers)
    assert resp.status_code == 200, resp.get_json()
    stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(when))
    assert run.commands[-1] == ["timedatectl", "set-time", stamp]
    notices = client.get("/api/box").get_json()["notices"]
    assert "clock set from the referee's phone: +300 s" in notices[-1]["text"]


def test_a_clock_the_service_may_not_set_is_reported(client: FlaskClient, run: FakeRun) -> None:
    run.answers["timedatectl set-time"] = (1, "", "Failed to set time: Access denied")
    headers = {"X-CSRF-Token": login(client)}
    resp = client.post("/api/box/clock", json={"time": time.time() + 300}, headers=headers)
    assert resp.status_code == 409
    body = resp.get_json()
    assert body["error"] == "not-permitted"
    assert "Access denied" in body["reason"] and "not allowed to" in body["reason"]


@pytest.mark.parametrize(
    ("path", "command"),
    [
        ("/api/box/restart", ["systemctl", "restart", "--no-block", "diablotin"]),
        ("/api/box/poweroff", ["systemctl", "poweroff", "--no-block"]),
    ],
)
def test_restart_and_poweroff_switch_the_coils_off_first(
    client: FlaskClient, run: FakeRun, service: Service, path: str, command: list[str]
) -> None:
    assert service.box is not None
    real_all_off = service.box.all_off

    def all_off() -> None:
        run.commands.append(["all_off"])
        real_all_off()

    service.box.all_off = all_off  # type: ignore[method-assign]
    assert client.post(path, json={"confirm": True}).status_code == 401  # spectators may not
    headers = {"X-CSRF-Token": login(client)}
    assert client.post(path, json={}, headers=headers).status_code == 400  # no confirmation
    assert ["all_off"] not in run.commands
    resp = client.post(path, json={"confirm": True}, headers=headers)
    assert resp.status_code == 200 and resp.get_json()["command"] == command
    assert run.commands[-2:] == [["all_off"], command]


def test_a_pin_reset_by_the_cli_ends_every_referee_session(
    client: FlaskClient, service: Service
) -> None:
    service.config.server.referee_pin = ""  # the generated PIN, kept in the data dir
    pin = service.referee_pin
    assert client.post("/api/session", json={"pin": pin}).status_code == 200
    assert client.get("/api/session").get_json()["referee"] is True
    new = PinFile(service.config.data_dir).reset()  # `diablotin pin --reset`
    assert client.get("/api/session").get_json()["referee"] is False
    assert client.post("/api/session", json={"pin": pin}).status_code == 401
    assert client.post("/api/session", json={"pin": new}).status_code == 200


@pytest.fixture
def live(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, Any, FakeRun]]:
    fake = FakeRun(dict(UNSYNCED))
    monkeypatch.setattr(system, "run_command", fake)
    monkeypatch.setattr(system, "TIMESYNC_FLAG", tmp_path / "no-timesync")
    with live_server(tmp_path, 3600) as (base, service):
        yield base, service, fake


@pytest.mark.browser
def test_a_referee_whose_phone_is_5_minutes_ahead_is_offered_its_time(
    browser: Any, live: Any
) -> None:
    base, _service, run = live
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.on("pageerror", lambda e: pytest.fail(f"JavaScript error: {e}"))
    page.add_init_script("{ const now = Date.now; Date.now = () => now() + 300000; }")
    try:
        page.goto(base + "/box")
        assert page.locator("#clock-offer").count() == 0  # spectators are not asked
        page.click("#role")
        page.fill("#pin", PIN)
        page.click("#login-go")
        page.wait_for_selector("#clock-offer")
        assert "5 min" in page.inner_text("#clock-offer")
        assert "behind your phone" in page.inner_text("#clock-offer")
        page.wait_for_function(
            "() => document.getElementById('clock-status').textContent.includes('behind')"
        )
        assert "Clock not synchronised" in page.inner_text("#clock-status")
        page.click("#clock-take")
        page.wait_for_selector("#clock-offer", state="detached")
        set_time = [c for c in run.commands if c[:2] == ["timedatectl", "set-time"]]
        assert len(set_time) == 1
        # the restart asks first: going back does nothing
        page.click("#restart")
        page.click("#game-dialog-cancel")
        page.wait_for_timeout(200)
        assert not [c for c in run.commands if c[0] == "systemctl"]
        page.click("#restart")
        page.click("#game-dialog-go")
        page.wait_for_selector("#toast:not([hidden])")
        assert ["systemctl", "restart", "--no-block", "diablotin"] in run.commands
        page.reload()  # the offer is made once per session
        page.wait_for_selector("#clock-status:not(:empty)")
        assert page.locator("#clock-offer").count() == 0
    finally:
        context.close()
