"""The tail-tile game's scripted games: the reliability suite's kill -9 part enters a
random legal game for 2-4 players, to its end; its rules page draws a board 16 seeded
actions in."""

from __future__ import annotations

import random

from controller.games.registry import Action, Script, played

from .rules import TailsRules


def crash_script(rng: random.Random) -> Script:
    options: dict[str, object] = {"players": rng.choice([2, 3, 4])}
    rules = TailsRules()
    state, actions = rules.setup(options), list[Action]()
    while not rules.is_over(state):
        action = rng.choice(rules.legal_actions(state))
        state = rules.apply(state, action)
        actions.append(action)
    return options, actions


def rules_examples() -> dict[str, object]:
    """The rules page's picture: a two-player board, 16 seeded actions in."""
    return {"board": played(TailsRules(), {"players": 2}, 16, 7)}
