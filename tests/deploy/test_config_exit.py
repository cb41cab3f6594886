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
        # issue 26, item 12: a RecursionError traceback and exit 1
        (b"x = " + b"[" * 500 + b"]" * 500 + b"\n", "nested more than 32 deep"),
        # issue 26, item 12: Arabic-Indic digits were taken; no phone types them
        ("[server]\nreferee_pin = '\u0661\u0662\u0663\u0664'\n".encode(), "ASCII digits 0-9"),
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


def test_a_config_that_never_ends_is_refused_before_it_is_read_whole(tmp_path: Path) -> None:
    """Issue 26, item 12: ``--config /dev/zero`` grew memory without bound (6 GB in 5 s). The
    run here may use 1 GB at most: reading the whole stream would fail with a MemoryError."""
    import resource

    def limit_memory() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    done = subprocess.run(
        [sys.executable, "-m", "controller.cli", "--config", "/dev/zero", "config"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        preexec_fn=limit_memory,
    )
    assert done.returncode == EXIT_CONFIG, done.stderr[-500:]
    assert done.stderr.startswith("diablotin: config error: /dev/zero: "), done.stderr
    assert "larger than 262144 bytes" in done.stderr
    assert "Traceback" not in done.stderr
