"""Le Diable sauteur: the rules engine (A and B), the odds and the computer popper.

The service needs :class:`SauteurRules` (``setup``/``apply``/``legal_actions``/
``is_over``/``view``/``explain``), :func:`odds` for the popper's help screen and
:func:`choose` when the computer pops. See ``docs/rules-sauteur.md``.
"""

from controller.games.sauteur.odds import choose, odds
from controller.games.sauteur.rules import (
    DEVIL,
    KEYS,
    PLAYERS,
    Pop,
    RoundResult,
    SauteurConfig,
    SauteurRules,
    SauteurState,
    history,
    parse_options,
    view,
)

__all__ = [
    "DEVIL",
    "KEYS",
    "PLAYERS",
    "Pop",
    "RoundResult",
    "SauteurConfig",
    "SauteurRules",
    "SauteurState",
    "choose",
    "history",
    "odds",
    "parse_options",
    "view",
]
