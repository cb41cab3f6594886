"""Without the [hardware] extra the hardware tests skip and say how to install it; in CI
(DIABLOTIN_REQUIRE_HARDWARE) they fail instead."""

from __future__ import annotations

import importlib.util

import pytest

from . import tools


def test_a_missing_tool_skips_with_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "skidl" else real(name, *a)
    )
    monkeypatch.delenv("DIABLOTIN_REQUIRE_HARDWARE", raising=False)
    with pytest.raises(
        pytest.skip.Exception, match=r"skidl missing\): pip install -e '\.\[hardware\]'"
    ):
        tools.require_hardware_tools()
    monkeypatch.setenv("DIABLOTIN_REQUIRE_HARDWARE", "1")
    with pytest.raises(pytest.fail.Exception, match="CI requires it"):
        tools.require_hardware_tools()


def test_with_every_tool_present_nothing_happens(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: object())
    tools.require_hardware_tools()
