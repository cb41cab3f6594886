"""A started Service on the simulated box (gpiozero MockFactory + simulated toy)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import pytest

from controller.config import Config
from controller.service import Service


def wait_for(condition: Callable[[], object], timeout: float = 10.0, what: str = "") -> object:
    """Poll ``condition`` until truthy; fail the test with ``what`` after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.01)
    pytest.fail(f"timed out after {timeout} s waiting for {what or condition}")


def make_config(tmp_path, backend: str = "simulated") -> Config:
    config = Config()
    config.box.backend = backend
    config.data_dir = tmp_path / "data"
    config.box.seed = 11
    config.server.referee_pin = "2468"
    return config


@pytest.fixture(params=["simulated", "virtual"])
def backend(request) -> str:
    """Every sauteur-on-the-box test runs on mocked GPIO pins and, unchanged, through the
    serial backend against the virtual co-processor (the firmware's own code)."""
    return request.param


@pytest.fixture
def service(tmp_path, backend) -> Iterator[Service]:
    svc = Service(
        make_config(tmp_path, backend), think_s=0.01, face_delay_s=0.01, hide_delay_s=0.01
    )
    svc.start()
    yield svc
    svc.stop()


@pytest.fixture
def referee_faces(tmp_path, backend) -> Iterator[Service]:
    """A started Service whose toy holds its own face report back for 30 s: the referee
    enters the faces (as on a box whose dice the sensors cannot read)."""
    svc = Service(make_config(tmp_path, backend), think_s=0.01, face_delay_s=30, hide_delay_s=0.01)
    svc.start()
    yield svc
    svc.stop()
