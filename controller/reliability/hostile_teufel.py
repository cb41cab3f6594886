"""Teufel Teufel's hostile requests (the attack part, :mod:`.hostile`): lists where its
actions and positions hold strings, sent to a game waiting for "devil, devil"."""

from __future__ import annotations

from collections.abc import Callable

from .common import Api

GIVE_UP = "teufel give_up_letters [[A],[B]]"
POSITION = "teufel position with nested lists"
GROUPS = (GIVE_UP, POSITION)
"""This kind's hostile-request attacks, in order."""
GIVE_UP_SEED = 152
"""``bench teufel``'s random game from this seed reaches "devil, devil" (give up two
letters) after 70 actions: the Teufel game the hostile ``give_up_letters`` go to."""
SURROGATE_OPTIONS = ('{"players": ["\\ud800", "blue"]}',)
"""New games' options, as JSON text, with lone surrogates."""


def give_up_script() -> tuple[dict[str, object], list[dict[str, object]], str]:
    """A Teufel game's options and actions that end waiting for "devil, devil: give up two
    letters", and the colour who must (``bench teufel``'s random games from
    :data:`GIVE_UP_SEED` on; the first that gets there within 200 actions)."""
    from ..bench.teufel import random_game
    from ..games.teufel import TeufelRules

    rules = TeufelRules()
    for seed in range(GIVE_UP_SEED, GIVE_UP_SEED + 500):
        game = random_game(seed)
        state = rules.setup(game.options)
        for index, action in enumerate(game.actions[:200]):
            state = rules.apply(state, action)
            if state.pending.kind == "give_up":
                assert state.pending.player is not None
                return (
                    game.options,
                    game.actions[: index + 1],
                    state.players[state.pending.player].colour,
                )
    raise RuntimeError("no random Teufel game reached devil, devil")


def prepare(api: Api) -> dict[str, object]:
    """Start the game the hostile actions go to: ``{"game": id, "who": colour}``."""
    options, script, who = give_up_script()
    game = api.call("POST", "/api/games", {"kind": "teufel", "options": options})
    gid = int(game["view"]["id"])
    for action in script:
        api.call("POST", f"/api/games/{gid}/actions", action)
    return {"game": gid, "who": who}


def add_cases(add: Callable[[str, str, str, str, str], None], context: dict[str, object]) -> None:
    """``add(attack, method, path, body, label)`` each case: lists where a Teufel action
    or position holds strings."""
    teufel, who = context["game"], context["who"]
    for letters in ('[["A"], ["B"]]', '[{"A": 1}, {"B": 2}]', '[["A", "B"]]'):
        action = f'{{"type": "give_up_letters", "player": "{who}", "letters": {letters}}}'
        path = f"/api/games/{teufel}/actions"
        add(GIVE_UP, "POST", path, action, f"letters {letters}")
    for position in (
        '{"left": [["blue"]]}',
        '{"devils": [["blue"]]}',
        '{"letters": {"blue": [["A"]]}}',
        '{"sleds": {"blue": ["c3"], "green": "e5"}}',
        '{"sleds": {"blue": [["c3"]], "green": "e5"}}',
        '{"face_up": {"c4": ["blue-A"]}}',
        '{"empty": [["b2"]]}',
    ):
        options = f'{{"players": ["blue", "green"], "position": {position}}}'
        body = f'{{"kind": "teufel", "options": {options}}}'
        add(POSITION, "POST", "/api/games", body, f"position {position}")
