"""Le Diable sauteur: the rules engine (A and B), the odds and the computer popper.

The service needs :class:`SauteurRules` (``setup``/``apply``/``legal_actions``/
``is_over``/``view``/``explain``), :func:`odds` for the popper's help screen and
:func:`choose` when the computer pops. See ``docs/rules-sauteur.md``.
"""

from collections.abc import Mapping
from typing import Any

from controller.games.registry import GameKind, Message
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
from controller.games.sauteur.scenario import crash_script, rules_examples
from controller.games.sauteur.stats import STATS

from .config import SECTION
from .strings import STRINGS
from .voice import VOICE


def _options(section: Any) -> dict[str, object]:
    """The config's ``[sauteur]`` section as setup options."""
    if section is None:
        return {}
    options: dict[str, object] = {"rule": section.rule, "number_faces": section.number_faces}
    if section.rounds:
        options["rounds"] = section.rounds
    return options


def _title(options: Mapping[str, object]) -> str:
    return "Diable sauteur" + (f" — {options['rule']}" if "rule" in options else "")


KIND = GameKind(
    name="sauteur",
    title=Message("Le Diable sauteur"),
    rules=SauteurRules,
    options=_options,
    config=SECTION,
    strings=STRINGS,
    voice=VOICE,
    default_title=_title,
    web="controller.web.kinds.sauteur",
    rules_page=True,
    computer=True,
    page="sauteur",
    box_player="controller.boxplay:BoxPlay",
    cli="controller.sauteur_cli:CLI",
    seat_keys=lambda options: list(PLAYERS),
    stats=STATS,
    crash_script=crash_script,
    rules_examples=rules_examples,
    long_game={"rule": "A", "rounds": 100, "track_length": 1000},
)

__all__ = [
    "DEVIL",
    "KEYS",
    "KIND",
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
