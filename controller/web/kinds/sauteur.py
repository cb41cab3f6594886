"""Dashboard helpers for the Diable sauteur: the odds, and the coach on request."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from controller.games.sauteur.levels import coach_hider, coach_popper
from controller.games.sauteur.odds import odds as sauteur_odds
from controller.games.sauteur.rules import SauteurState

if TYPE_CHECKING:
    from controller.journal import Journal
    from controller.solver_cache import Solvers


ODDS = "the popper's odds per key"
"""What ``GET /api/games/<id>/odds`` says for this game (the OpenAPI summary)."""


def odds(state: SauteurState, args: Mapping[str, str]) -> dict[str, object]:
    """The popper's odds per key: chance of the devil, what each outcome gives."""
    report: dict[str, object] = sauteur_odds(state)
    return report


def coach(solvers: Solvers, state: SauteurState, hider: bool) -> dict[str, object]:
    """The coach from the solved tables (``?coach=1`` on the odds): each option's win
    chance (rule B) or expected round score and match chance (rule A); with ``hider``
    (the referee only: the API checks) the hider's equilibrium placement.

    ``{"status": "solving"}`` while the tables are being solved on a thread."""
    if not solvers.when_ready(state, lambda: None):
        return {"status": "solving"}
    report = {"status": "ready", **coach_popper(solvers.tables, state)}
    if hider:
        report["hider"] = coach_hider(solvers.tables, state)
    return report


def coach_read(journal: Journal, game_id: int, state: SauteurState, solvers: Solvers) -> object:
    """The coach's read of the hider from what the game's memory holds (the referee only;
    see :func:`controller.sauteur_memory.coach_read`)."""
    from controller.sauteur_memory import coach_read as read

    return read(journal, game_id, state, solvers.tables)
