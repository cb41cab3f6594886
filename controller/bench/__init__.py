"""Benchmarks: ``diablotin bench <area>`` runs ``controller.bench.<area>.main``.

A kind's own bench, ``controller.bench.<kind>``, may also feed the shared ones: ``bench
all``'s engine row (``ENGINE_ROW``, ``ENGINE_TARGET_MS``, ``engine_samples``) and ``bench
stats``'s journal (``STATS_GAMES``, ``stats_actions``); :func:`kind_benches` finds them."""

from __future__ import annotations

import importlib
from types import ModuleType


def kind_modules(suffix: str = "") -> list[ModuleType]:
    """Each registered kind's ``controller.bench.<kind><suffix>``, in the registry's order
    (a kind without one is left out; one that is there but fails to import raises)."""
    from controller.games import registry

    found = []
    for kind in registry.kinds():
        name = f"controller.bench.{kind.name}{suffix}"
        try:
            found.append(importlib.import_module(name))
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise  # the kind's bench is there but needs something missing
    return found


def kind_benches(attribute: str) -> list[ModuleType]:
    """Each registered kind's ``controller.bench.<kind>`` that defines ``attribute``."""
    return [module for module in kind_modules() if hasattr(module, attribute)]
