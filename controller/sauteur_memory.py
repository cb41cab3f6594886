"""What a Diable sauteur game keeps for its computer popper, in the journal's settings.

- ``seed``: the game's own random seed (32 bits), drawn when the game is created. The
  ``optimal`` and ``adaptive`` poppers draw each hiding's plan from it
  (:func:`controller.games.sauteur.levels.plan_draw`), so a replay plays the same. An
  export does not carry it: an imported game (``diablotin replay --import``, ``POST
  /api/import``) draws its own seed when the computer or the coach first needs one, and
  journals it then (:func:`game_seed`); its moves so far are the file's, already played.
- ``adaptive_belief``: ``adaptive``'s counts at the game's start, per seat whose hiding it
  has read before (``{"p2": [a1, a2, a3, a4]}``). A roster player's counts carry over from
  their last game of the same rule (its start counts plus what that game revealed); a guest
  starts from the prior. The belief during the game is worked out from these and the game's
  own history (:func:`controller.games.sauteur.adaptive.belief_now`), so replaying or
  deleting a game never changes another's.

Both are ordinary per-game settings (``Journal.set_setting``): the journal's schema is
untouched.
"""

from __future__ import annotations

import random
import secrets
import threading
from collections.abc import Mapping, Sequence
from typing import Any

from .games.base import Refused
from .games.sauteur import SauteurRules, SauteurState
from .games.sauteur.adaptive import Beliefs, adaptive_action, belief_now
from .games.sauteur.levels import Tables, level_action
from .journal import Journal

SEED = "seed"
BELIEF = "adaptive_belief"
KIND = "sauteur"


def start_settings(
    journal: Journal, options: Mapping[str, Any], seats: Sequence[Mapping[str, Any]] | None
) -> dict[str, Any]:
    """The settings a new sauteur game starts with: its seed and ``adaptive``'s belief."""
    rule = options.get("rule", "A")
    belief: Beliefs = {}
    for seat in seats or ():
        player = seat.get("player")
        if player is not None:
            counts = last_counts(journal, player, rule)
            if counts is not None:
                belief[seat["key"]] = counts
    return {SEED: secrets.randbits(32), BELIEF: belief}


def last_counts(journal: Journal, player: int, rule: str) -> list[float] | None:
    """How roster player ``player`` hid in their last sauteur game of ``rule`` that still
    replays (its start counts plus what it revealed), or ``None`` when there is none."""
    rules = SauteurRules()
    for record in sorted(journal.games(), key=lambda game: -game.id):
        if record.kind != KIND or record.options.get("rule", "A") != rule:
            continue
        seat = next((s["key"] for s in record.seats or () if s.get("player") == player), None)
        if seat is None:
            continue
        try:
            state = rules.setup(record.options)
            for action in journal.actions(record.id):
                state = rules.apply(state, action)
        except Refused:  # a game that no longer replays teaches nothing
            continue
        counts = belief_now(journal.setting(record.id, BELIEF, {}), state).get(seat)
        return None if counts is None else [round(c, 6) for c in counts]
    return None


_SEEDING = threading.Lock()


def game_seed(journal: Journal, game_id: int) -> int:
    """The game's seed; a game without one (an imported game) gets one now, journaled, so
    every later move and replay draws from the same."""
    with _SEEDING:
        seed = journal.setting(game_id, SEED)
        if not isinstance(seed, int):
            seed = secrets.randbits(32)
            journal.set_setting(game_id, SEED, seed)
        return seed


def computer_action(
    journal: Journal,
    game_id: int,
    level: str,
    state: SauteurState,
    tables: Tables,
    rng: random.Random,
) -> dict[str, Any]:
    """The computer popper's move at ``level`` in journaled game ``game_id`` (``rng``: the
    ``random`` level's and the heuristic's choices)."""
    seed = game_seed(journal, game_id)
    if level == "adaptive":
        return adaptive_action(tables, state, seed, journal.setting(game_id, BELIEF, {}))
    return level_action(level, state, tables, rng, seed)


def coach_read(journal: Journal, game_id: int, state: SauteurState, tables: Tables) -> Any:
    """The coach's read of the hider (the referee only; see
    :func:`controller.games.sauteur.adaptive.read`)."""
    from .games.sauteur.adaptive import read

    seed = game_seed(journal, game_id)
    return read(tables, state, seed, journal.setting(game_id, BELIEF, {}))
