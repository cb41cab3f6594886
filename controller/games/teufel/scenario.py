"""Teufel Teufel's scripted games: the reliability suite's kill -9 part enters a random
legal game for 2-6 colours, its first :data:`ACTIONS` actions (whole games run to
thousands); its rules page draws a board 40 actions into one."""

from __future__ import annotations

import random

from controller.games.registry import Action, Script

from .cards import DEFAULT_COLOURS
from .rules import TeufelRules

ACTIONS = 150


def crash_script(rng: random.Random) -> Script:
    players = rng.sample(list(DEFAULT_COLOURS), rng.randint(2, 6))
    options: dict[str, object] = {"players": players, "first": rng.choice(players)}
    rules = TeufelRules()
    state, actions = rules.setup(options), list[Action]()
    while not rules.is_over(state) and len(actions) < ACTIONS:
        action = rng.choice(rules.legal_actions(state))
        state = rules.apply(state, action)
        actions.append(action)
    return options, actions


def rules_examples() -> dict[str, object]:
    """The rules page's picture: a board 40 actions into a seeded random game."""
    options, actions = crash_script(random.Random(4))
    rules = TeufelRules()
    state = rules.setup(options)
    for action in actions[:40]:
        state = rules.apply(state, action)
    return {"board": state}
