"""The hardware tests need the ``[hardware]`` extra; without it they skip and say how to get it
(CI sets DIABLOTIN_REQUIRE_HARDWARE, so there a missing tool fails instead)."""

from __future__ import annotations

import importlib.util
import os

import pytest

TOOLS = ("skidl", "schemdraw", "build123d", "trimesh", "rtree", "matplotlib")


def require_hardware_tools() -> None:
    """Call at the top of a test module, before importing ``hardware.design``."""
    missing = [name for name in TOOLS if importlib.util.find_spec(name) is None]
    if not missing:
        return
    message = (
        f"the [hardware] extra is not installed ({', '.join(missing)} missing): "
        "pip install -e '.[hardware]'"
    )
    if os.environ.get("DIABLOTIN_REQUIRE_HARDWARE"):
        pytest.fail(message + " (CI requires it)", pytrace=False)
    pytest.skip(message, allow_module_level=True)
