"""Per-game server-side helpers for the dashboard, one module per game kind.

A module ``controller.web.kinds.<kind>`` may define (all optional, all pure over the table's state):

- ``odds(state, args) -> dict``: what ``GET /api/games/<id>/odds`` answers (``args`` are
  the query parameters); raise :class:`~controller.games.base.Refused` for bad ones;
- ``extras(state, referee) -> dict``: merged into a game payload's ``extras``.
- ``LEGAL_IN_EXTRAS = False``: leave the (long) list of legal actions out of the referee's extras.
"""

from __future__ import annotations

import importlib
from types import ModuleType


def module_for(kind: str) -> ModuleType | None:
    """``controller.web.kinds.<kind>``, or ``None`` when the game has no dashboard helpers."""
    try:
        return importlib.import_module(f"controller.web.kinds.{kind}")
    except ModuleNotFoundError:
        return None
