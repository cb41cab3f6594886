"""Fixtures for the deploy tests: configs on temporary folders, and no real Pi underneath."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller import checks


@pytest.fixture
def no_pi(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No device tree model and an empty /dev: this machine is not a Raspberry Pi (and
    has no systemd to say whether its clock is synchronised)."""
    dev = tmp_path / "dev"
    dev.mkdir()
    monkeypatch.setattr(checks, "DEV", dev)
    monkeypatch.setattr(checks, "MODEL_PATH", tmp_path / "no-model")
    monkeypatch.setattr(checks, "clock_synchronised", lambda: None)
    return dev


@pytest.fixture
def pi5(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A device tree that says Raspberry Pi 5, with a /dev/gpiochip0."""
    model = tmp_path / "model"
    model.write_bytes(b"Raspberry Pi 5 Model B Rev 1.0\x00")
    dev = tmp_path / "dev"
    dev.mkdir()
    (dev / "gpiochip0").touch()
    monkeypatch.setattr(checks, "MODEL_PATH", model)
    monkeypatch.setattr(checks, "DEV", dev)
    return model
