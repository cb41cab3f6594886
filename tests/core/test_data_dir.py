"""The data dir's order of precedence, through the real CLI (``diablotin config`` prints the
one in effect): ``--data-dir``, else ``$DIABLOTIN_DATA_DIR``, else the file's ``[data] dir``,
else ``$XDG_DATA_HOME/diablotin`` (docs/config.md)."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

STEPS = ("default", "file", "environment", "flag")


def _data_dir(tmp_path: Path, step: str) -> Path:
    """The ``[data] dir`` that ``diablotin config`` prints with every source up to ``step``
    set, each naming its own folder."""
    config = tmp_path / "etc" / "diablotin.toml"
    config.parent.mkdir()
    config.write_text('[data]\ndir = "from-file"\n', encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("DIABLOTIN_")}
    env["XDG_DATA_HOME"] = str(tmp_path / "xdg")
    args = [sys.executable, "-m", "controller.cli"]
    given = STEPS[: STEPS.index(step) + 1]
    if "file" in given:
        env["DIABLOTIN_CONFIG"] = str(config)
    if "environment" in given:
        env["DIABLOTIN_DATA_DIR"] = "from-env"  # relative: to the current directory
    if "flag" in given:
        args += ["--data-dir", str(tmp_path / "from-flag")]
    done = subprocess.run(
        [*args, "config"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return Path(tomllib.loads(done.stdout)["data"]["dir"])


@pytest.mark.parametrize(
    "step, expected",
    [
        ("default", "xdg/diablotin"),
        ("file", "etc/from-file"),
        ("environment", "from-env"),
        ("flag", "from-flag"),
    ],
)
def test_each_source_of_the_data_dir_beats_the_ones_below_it(
    tmp_path: Path, step: str, expected: str
) -> None:
    assert _data_dir(tmp_path, step) == (tmp_path / expected).resolve()


def test_an_empty_environment_variable_is_not_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``DIABLOTIN_DATA_DIR=`` (empty) leaves the file's dir, as an empty
    ``DIABLOTIN_CONFIG`` does."""
    from controller.config import load_config

    config = tmp_path / "diablotin.toml"
    config.write_text('[data]\ndir = "here"\n', encoding="utf-8")
    monkeypatch.setenv("DIABLOTIN_DATA_DIR", "")
    assert load_config(config).data_dir == (tmp_path / "here").resolve()
