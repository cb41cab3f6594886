"""Benchmarks: ``diablotin bench <area>`` runs ``controller.bench.<area>.main``.

A kind's own bench, ``controller.bench.<kind>``, may also feed the shared ones: ``bench
all``'s engine row (``ENGINE_ROW``, ``ENGINE_TARGET_MS``, ``engine_samples``) and ``bench
stats``'s journal (``STATS_GAMES``, ``stats_actions``); :func:`kind_benches` finds them."""

from __future__ import annotations

import importlib
from types import ModuleType


def kind_benches(attribute: str) -> list[ModuleType]:
    """Each registered kind's ``controller.bench.<kind>`` that defines ``attribute``, in
    the registry's order (a kind without a bench of its own is left out)."""
    from controller.games import registry

    found = []
    for kind in registry.kinds():
        try:
            module = importlib.import_module(f"controller.bench.{kind.name}")
        except ModuleNotFoundError:
            continue
        if hasattr(module, attribute):
            found.append(module)
    return found
