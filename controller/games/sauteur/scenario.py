"""Le Diable sauteur's scripted games: in the reliability suite's kill -9 part the box's
computer plays both seats (no scripted actions), under rule A or B; its rules page draws
a chase and a race 16 seeded actions in."""

from __future__ import annotations

import random

from controller.games.registry import Script, played
from controller.games.sauteur.rules import SauteurRules


def crash_script(rng: random.Random) -> Script:
    return {"rule": rng.choice(["A", "B"])}, []


def rules_examples() -> dict[str, object]:
    """The rules page's pictures: a rule-A chase and a rule-B race, 16 seeded actions in."""
    return {
        "chase": played(SauteurRules(), {"rule": "A", "first_hider": "p1"}, 16, 7),
        "race": played(SauteurRules(), {"rule": "B", "first_hider": "p1"}, 16, 7),
    }
