"""Dashboard helpers for the Diable sauteur."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from controller.games.sauteur.odds import odds as sauteur_odds
from controller.games.sauteur.rules import SauteurState


def odds(state: SauteurState, args: Mapping[str, str]) -> dict[str, Any]:
    """The popper's odds per key: chance of the devil, what each outcome gives."""
    report: dict[str, Any] = sauteur_odds(state)
    return report
