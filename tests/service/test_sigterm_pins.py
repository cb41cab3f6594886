"""A real SIGTERM to this process while `serve` runs and a coil is mid-pulse:
every coil pin is low afterwards (strict, on gpiozero's MockFactory pins)."""

from __future__ import annotations

import os
import signal
import threading

from controller.box.base import Limits
from controller.server import serve
from controller.service import Service

from .conftest import make_config, wait_for


def test_sigterm_mid_pulse_leaves_every_coil_low(tmp_path, monkeypatch):
    assert threading.current_thread() is threading.main_thread()  # signal handlers need it
    # An 800 ms pulse (above the real limit but within the duty cycle; this test only), so
    # the signal surely lands mid-pulse even on a busy machine.
    monkeypatch.setattr(Limits, "MAX_PULSE_MS", 800.0)
    config = make_config(tmp_path)
    config.box.limits = Limits(pulse_ms=800.0)
    service = Service(config, think_s=0.01, face_delay_s=0.01, hide_delay_s=0.01)
    service.start()
    gid = service.new_game("sauteur", {"rule": "A"})
    table = service.table(gid)
    wait_for(lambda: table.state.phase == "pop", what="hiding done")
    coil = service.toy.coil_pin(2)
    seen: dict[str, bool] = {}

    def ready(server) -> None:
        def fire_then_terminate() -> None:
            service.box_play.press(gid, 2)
            seen["on before SIGTERM"] = bool(coil.state)
            os.kill(os.getpid(), signal.SIGTERM)

        threading.Thread(target=fire_then_terminate, daemon=True).start()

    lines: list[str] = []
    serve(service, "127.0.0.1", 0, 16, log=lines.append, ready=ready)  # returns on SIGTERM
    assert lines[-1] == "Diablotin stopped: coils off."
    assert seen == {"on before SIGTERM": True}
    assert [bool(service.toy.coil_pin(k).state) for k in (1, 2, 3, 4)] == [False] * 4
    states = coil.states
    assert [bool(s.state) for s in states] == [False, True, False]
    held_s = states[2].timestamp - states[1].timestamp
    assert held_s < 0.6, held_s  # cut short by the stop, not by the pulse's own end
    assert signal.getsignal(signal.SIGTERM) is not None  # the previous handler is restored


def test_sigterm_while_ready_runs_still_ends_serve_cleanly(tmp_path):
    """The signal handler is installed before ``ready`` runs: a SIGTERM delivered inside
    ``ready`` (the start-up notification, say) must end ``serve`` like any other."""
    service = Service(make_config(tmp_path))
    service.start()
    lines: list[str] = []
    serve(
        service, "127.0.0.1", 0, 16, log=lines.append,
        ready=lambda server: os.kill(os.getpid(), signal.SIGTERM),
    )  # fmt: skip
    assert lines[-1] == "Diablotin stopped: coils off."
    assert not service.started
