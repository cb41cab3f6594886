"""A bad config stops the service for good: one clear line, exit 78, no restart by systemd."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from controller.config import EXIT_CONFIG

REPO = Path(__file__).resolve().parents[2]
UNIT = REPO / "deploy" / "diablotin.service"


@pytest.mark.parametrize(
    "content, words",
    [
        (b"[server]\nreferee_pin = '\xff\xfe'\n", "not UTF-8"),
        (b"[limits]\nmin_gap_ms = nan\n", "limits.min_gap_ms: min_gap_ms must be a finite"),
        (b"[limits]\nduty_window_s = 20\n", "limits.duty_window_s: the duty window is fixed"),
        (b"[box\n", "not valid TOML"),
    ],
)
def test_serve_with_a_bad_config_exits_78_without_a_traceback(
    tmp_path: Path, content: bytes, words: str
) -> None:
    config = tmp_path / "diablotin.toml"
    config.write_bytes(content)
    done = subprocess.run(
        [sys.executable, "-m", "controller.cli", "--config", str(config), "serve"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == EXIT_CONFIG == 78
    assert done.stderr.startswith(f"diablotin: config error: {config}: "), done.stderr
    assert words in done.stderr
    assert "Traceback" not in done.stderr


def test_the_unit_does_not_restart_after_a_config_error() -> None:
    lines = UNIT.read_text(encoding="utf-8").splitlines()
    prevent = [line for line in lines if line.startswith("RestartPreventExitStatus=")]
    assert len(prevent) == 1
    assert str(EXIT_CONFIG) in prevent[0].split("=", 1)[1].split()
    assert "Restart=on-failure" in lines
