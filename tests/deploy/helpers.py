"""Helpers for the deploy tests: configs on temporary folders, pin maps."""

from __future__ import annotations

from pathlib import Path

from controller.config import Config


def make_config(tmp_path: Path, backend: str = "gpio", factory: str = "mock") -> Config:
    """Defaults, with the data dir in ``tmp_path`` and port 0 (no port check)."""
    config = Config()
    config.box.backend = backend
    config.box.pin_factory = factory
    config.data_dir = tmp_path / "data"
    config.server.port = 0
    return config


def write_pins(tmp_path: Path, extra: str = "") -> Path:
    """A pin map with the repository's [pi] pins (coils 17 27 22 23, sensors 5 6 13 19)."""
    path = tmp_path / "pins.toml"
    path.write_text(
        "[pi]\ncoils = [17, 27, 22, 23]\nsensors = [5, 6, 13, 19]\n" + extra, encoding="utf-8"
    )
    return path
