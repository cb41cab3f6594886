"""Issue 26: the referee clears a latched ``coil-deadline`` fault from the dashboard (an API
call, a button on the Box page with a confirmation); refused, with the reason in the caller's
language, while a coil still reads on or the coil threads are still stuck."""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from typing import Any

import pytest
from flask.testing import FlaskClient

from controller.box.base import BoxFault
from controller.service import Service
from controller.web.i18n import sentence

from .conftest import REFEREE

CLEAR = "/api/box/faults/clear"
BODY = {"fault": "coil-deadline"}
DETAIL = "coil 2 was on 131 ms, over the 100 ms limit: its timer woke up late"


def latch(service: Service) -> Any:
    """Latch the fault the way the coil thread does when a pulse ended late."""
    box: Any = service.box
    box._deadline_fault = True  # the simulated toy's box only logs it; a real box latches
    box._deadline_missed(DETAIL)
    assert [f["name"] for f in box.status()["faults"]] == ["coil-deadline"]
    return box


def refused(client: FlaskClient, lang: str = "en") -> dict[str, Any]:
    resp = client.post(CLEAR, json=BODY, headers=REFEREE | {"Accept-Language": lang})
    assert resp.status_code == 409, resp.get_json()
    body: dict[str, Any] = resp.get_json()
    return body


def test_the_referee_clears_the_fault_and_the_box_fires_again(
    client: FlaskClient, service: Service, caplog: pytest.LogCaptureFixture
) -> None:
    box = latch(service)
    with pytest.raises(BoxFault):
        box.fire(1)
    assert client.get("/api/box/faults").get_json() == {
        "faults": [{"name": "coil-deadline", "detail": DETAIL, "clearable": True}],
        "toy": [],
    }
    spectator = client.post(CLEAR, json=BODY)
    assert spectator.status_code == 401
    assert box.status()["faults"]  # still latched
    with caplog.at_level(logging.WARNING):
        done = client.post(CLEAR, json=BODY, headers=REFEREE)
    assert done.status_code == 200, done.get_json()
    assert done.get_json() == {"faults": []}
    assert box.status()["faults"] == []
    assert any("cleared the coil-deadline fault" in r.getMessage() for r in caplog.records)
    notices = client.get("/api/box").get_json()["notices"]
    assert notices[-1]["template"] == "the referee cleared the {name} fault ({detail})"
    box.fire(1)  # pulses are allowed again
    assert box.wait_idle(1.0)
    assert refused(client)["error"] == "no-fault"  # nothing left to clear


def test_refused_while_a_coil_reads_on_in_three_languages(
    client: FlaskClient, service: Service
) -> None:
    box = latch(service)
    box._coils[3].on()  # a coil the deadline could not drive low
    try:
        reasons = {lang: refused(client, lang) for lang in ("en", "fr", "de")}
    finally:
        box._coils[3].off()
    template = "coil {keys} still reads on: the fault stays until every coil is off"
    for lang, body in reasons.items():
        assert body["error"] == "coil-high"
        assert body["reason"] == sentence(lang, template, keys="3")
    assert len({body["reason"] for body in reasons.values()}) == 3  # really translated
    assert box.status()["faults"]  # nothing changed


def test_refused_while_the_coil_threads_are_stuck(
    client: FlaskClient, service: Service, monkeypatch: pytest.MonkeyPatch
) -> None:
    box = latch(service)
    monkeypatch.setattr(box, "check_coils", lambda: False)  # a pulse still past its deadline
    body = refused(client, "de")
    assert body["error"] == "coils-stuck"
    assert body["reason"] == sentence(
        "de", "the coil threads are still stuck: the fault stays; restart the service"
    )
    assert box.status()["faults"]


def test_only_the_coil_deadline_fault_and_only_alone(client: FlaskClient, service: Service) -> None:
    box = latch(service)
    wrong = client.post(CLEAR, json={"fault": "coil2"}, headers=REFEREE)
    assert wrong.status_code == 400
    box._latch_fault("coil2", "coil 2 could not be switched off: stuck")
    assert refused(client)["error"] == "other-faults"
    assert len(box.status()["faults"]) == 2


def test_a_coil_thread_stuck_in_its_on_write_keeps_the_fault_until_it_returns(
    client: FlaskClient, service: Service
) -> None:
    """The world, not a stand-in: the pin's write hangs after it went high; the deadline
    thread forces it low and latches the fault; while the coil thread is still stuck the
    clear is refused, once it returns the clear goes through."""
    from gpiozero.pins.mock import MockFactory, MockPin

    from controller.box.base import Limits
    from controller.box.gpio import GpioBox
    from controller.box.pins import PinMap
    from controller.clock import RealClock

    release = threading.Event()

    class HangingPin(MockPin):  # type: ignore[misc]  # gpiozero has no type hints
        def _change_state(self, value: bool) -> bool:
            changed: bool = super()._change_state(value)
            if value:
                release.wait(5)
            return changed

    coils = (17, 27, 22, 23)
    factory = MockFactory()
    factory.pin(coils[1], pin_class=HangingPin)
    clock = RealClock()
    real = GpioBox(PinMap(coils=coils, sensors=(5, 6, 13, 19)), Limits(pulse_ms=30), clock, factory)
    service.box, simulated = real, service.box
    firing = threading.Thread(target=lambda: _quietly(real.fire, 2), daemon=True)
    try:
        firing.start()
        deadline = time.monotonic() + 5
        while not real.status()["faults"] and time.monotonic() < deadline:
            time.sleep(0.02)
        assert [f["name"] for f in real.status()["faults"]] == ["coil-deadline"]
        assert factory.pin(coils[1]).state is False  # forced low
        assert refused(client)["error"] == "coils-stuck"  # the coil thread is still stuck
        release.set()
        firing.join(2)
        assert real.wait_idle(1.0)
        done = client.post(CLEAR, json=BODY, headers=REFEREE)
        assert done.status_code == 200, done.get_json()
        assert real.status()["faults"] == []
    finally:
        release.set()
        service.box = simulated
        real.close()
        clock.close()


def _quietly(fire: Any, key: int) -> None:
    with contextlib.suppress(BoxFault):
        fire(key)
