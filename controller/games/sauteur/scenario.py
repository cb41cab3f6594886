"""Le Diable sauteur in the reliability suite's kill -9 part: the box's computer plays
both seats (no scripted actions), under rule A or B."""

from __future__ import annotations

import random

from controller.games.registry import Script


def crash_script(rng: random.Random) -> Script:
    return {"rule": rng.choice(["A", "B"])}, []
