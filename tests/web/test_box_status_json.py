"""GET /api/box is strict JSON on every backend: no NaN or Infinity a browser cannot parse."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from controller.config import ConfigError, load_config
from controller.service import Service
from controller.web import create_app

from .conftest import PIN


def strict_json(data: bytes) -> Any:
    """``JSON.parse`` in a browser: NaN, Infinity and -Infinity are syntax errors."""

    def refuse(constant: str) -> Any:
        raise ValueError(f"not JSON: {constant}")

    return json.loads(data, parse_constant=refuse)


@pytest.mark.parametrize("backend", ["simulated", "gpio", "virtual"])
def test_box_status_is_strict_json(tmp_path: Path, backend: str) -> None:
    path = tmp_path / "diablotin.toml"
    path.write_text(
        f'[box]\nbackend = "{backend}"\npin_factory = "mock"\nseed = 3\n'
        f'[server]\nreferee_pin = "{PIN}"\n[data]\ndir = "data"\n'
        "[limits]\nmin_gap_ms = 300\nduty_window_s = 10\n"
    )
    config = load_config(path)
    service = Service(config)
    service.start()
    try:
        resp = create_app(service).test_client().get("/api/box")
        assert resp.status_code == 200
        status = strict_json(resp.data)
    finally:
        service.stop()
    assert status["limits"]["min_gap_ms"] == 300
    assert status["limits"]["duty_window_s"] == 10
    assert status["limits"]["max_pulse_ms"] == 100
    if backend == "gpio":
        assert status["pulse_timing"] == "thread"  # MockFactory: no lgpio tx_pulse


def test_a_config_that_would_put_nan_in_the_status_never_starts(tmp_path: Path) -> None:
    path = tmp_path / "diablotin.toml"
    path.write_text("[limits]\nmin_gap_ms = nan\n")
    with pytest.raises(ConfigError, match=r"limits\.min_gap_ms: min_gap_ms must be a finite"):
        load_config(path)
