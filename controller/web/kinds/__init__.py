"""Per-game server-side helpers for the dashboard, one module per game kind.

A game's declaration (:class:`controller.games.registry.GameKind`) names its module in
``web``, e.g. ``controller.web.kinds.sauteur``. The module may define (all optional, all
pure over the table's state):

- ``odds(state, args) -> dict``: what ``GET /api/games/<id>/odds`` answers (``args`` are
  the query parameters); raise :class:`~controller.games.base.Refused` for bad ones;
- ``coach(solvers, state, hider) -> dict``: the solved tables' advice (``?coach=1``);
- ``coach_read(journal, game_id, state, solvers)``: the coach's read of the hider, added
  to the referee's advice (``?coach=1&hider=1``);
- ``extras(state, referee) -> dict``: merged into a game payload's ``extras``;
- ``layout(state) -> dict``: the board's static geometry (tails);
- ``said(state) -> list``: what the last action did, as sentences (``{"template",
  "params"}``) for the history page's list of moves;
- ``ODDS``: what the odds say and their query, in one line (the OpenAPI document's);
- ``LEGAL_IN_EXTRAS = False``: leave the (long) list of legal actions out of the referee's extras.

:func:`hooks` reads them once per kind; nothing else looks into these modules.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from controller.games import registry


@dataclass(frozen=True)
class WebHooks:
    """A game kind's dashboard helpers (``None``: the game has none)."""

    odds: Callable[..., dict[str, object]] | None = None
    coach: Callable[..., dict[str, object]] | None = None
    coach_read: Callable[..., object] | None = None
    extras: Callable[..., dict[str, object]] | None = None
    layout: Callable[..., dict[str, object]] | None = None
    said: Callable[..., list[dict[str, object]]] | None = None
    legal_in_extras: bool = True
    odds_summary: str = ""


@cache
def hooks(kind: str) -> WebHooks:
    """The helpers of game kind ``kind`` (raises Refused ``bad-game`` for an unknown kind)."""
    module_name = registry.get(kind).web
    if module_name is None:
        return WebHooks()
    module = importlib.import_module(module_name)
    return WebHooks(
        odds=getattr(module, "odds", None),
        coach=getattr(module, "coach", None),
        coach_read=getattr(module, "coach_read", None),
        extras=getattr(module, "extras", None),
        layout=getattr(module, "layout", None),
        said=getattr(module, "said", None),
        legal_in_extras=getattr(module, "LEGAL_IN_EXTRAS", True),
        odds_summary=getattr(module, "ODDS", ""),
    )
