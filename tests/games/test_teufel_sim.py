"""Random legal games with 2 to 6 players, checking invariants after every action.

The random player is controller/bench/teufel.py's (a "walker" that heads for
face-down cards, and a "devilish" one that shuffles, exchanges and passes
over cards). Checked after every action: 42 cards conserved (and the faces
the product does not know are exactly the cards not face up), 4 devil pegs
conserved, at most two sleds per square, letters only gained on the
player's own letter card, the exit order, the pending decision, and that
the legal set is empty exactly when the game is over. After every game:
replaying its actions rebuilds every state, undo (replay all but the last
action) then redo (apply it again) equals the state, and the game ended.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from math import gcd
from typing import Any

import pytest

from controller.bench.teufel import random_game
from controller.games.base import Refused, replay
from controller.games.teufel import TeufelRules
from controller.games.teufel.actions import FIELDS, legal_actions, legal_types
from controller.games.teufel.board import DEVIL_FACE, name, parse
from controller.games.teufel.cards import DEFAULT_COLOURS, DEVIL_PEGS, LETTERS, deck, split_letter
from controller.games.teufel.flow import devils_on_face
from controller.games.teufel.state import FACE_DOWN, State

RULES = TeufelRules()
FAST_GAMES = 400
SLOW_CHUNKS = 1
SLOW_CHUNK = 400
MARKERS = {
    "takes a devil from the face": "devil from the face",
    "'s devil": "devil taken from a player",
    "devil, devil": "devil, devil",
    "gives the devil": "devil given",
    "stands on a tower": "tower protects",
    "leaves the board": "sled leaves",
    "peeks": "peek",
    "puts their devil back": "devil returned",
    "shuffles": "shuffle",
    "exchanges": "exchange",
    "may go on": "held letter lets the move go on",
    "takes the letter": "letter taken",
}


DECK = deck(DEFAULT_COLOURS)


def check_cards(state: State) -> None:
    """42 cards; the faces not known are exactly the cards not face up."""
    cards = [c for c in state.cards if c is not None] + [c for _, c in state.pending.hand]
    assert len(cards) == 42
    known = Counter(cards)
    known.update(dict(state.knowledge.unknown))
    hidden = known.pop(FACE_DOWN, 0)
    assert known == DECK
    assert sum(n for _, n in state.knowledge.unknown) == hidden


def check_knowledge(state: State) -> None:
    """Weights in lowest terms; groups on face-down cards and no fuller than their squares."""
    knowledge = state.knowledge
    weights = [w for _, w in knowledge.hypotheses]
    assert all(w > 0 for w in weights) and gcd(*weights) == 1
    if state.pending.kind != "shuffle":
        face_down = {s for s, c in enumerate(state.cards) if c == FACE_DOWN}
        assert all(group <= face_down for group in knowledge.groups)
    for contents, _ in knowledge.hypotheses:
        assert all(len(t) <= len(g) for t, g in zip(contents, knowledge.groups, strict=True))


def check(before: State, action: dict[str, Any], after: State) -> None:
    """Invariants between two consecutive states."""
    hand = after.pending.hand
    if (after.cards, after.knowledge, hand) != (
        before.cards,
        before.knowledge,
        before.pending.hand,
    ):
        check_cards(after)

    assert 0 <= devils_on_face(after) <= DEVIL_PEGS
    assert all(isinstance(p.devil, bool) for p in after.players)

    on_board = [p.square for p in after.players if p.square is not None]
    assert max(Counter(on_board).values(), default=0) <= 2
    assert all(p.square is None for p in after.players if p.left)
    if after.pending.kind != "place":
        assert all(p.square is not None for p in after.players if not p.left)
    assert sorted(after.exit_order) == [i for i, p in enumerate(after.players) if p.left]
    assert after.exit_order[: len(before.exit_order)] == before.exit_order

    for old, new in zip(before.players, after.players, strict=True):
        assert new.letters <= set(LETTERS)
        gained = new.letters - old.letters
        if gained:
            assert len(gained) == 1
            assert new.square is not None or new.left  # a sled taking its 6th letter leaves
            square = new.square
            if square is None:  # where it stood when it took the letter
                square = parse(action["to"]) if action["type"] == "step" else before.pending.square
            assert square is not None
            card = after.cards[square]
            assert card is not None and split_letter(card) == (new.colour, next(iter(gained)))

    if action["type"] == "step" and action["to"] == name(DEVIL_FACE):
        assert devils_on_face(before) == 0
    if after.pending.kind in ("turn", "move", "flip_two"):
        assert after.pending.player == after.turn

    if after.knowledge is not before.knowledge or after.cards is not before.cards:
        check_knowledge(after)

    kinds = legal_types(after)
    assert bool(kinds) != RULES.is_over(after)


def accepted_iff_listed(state: State, rng: random.Random) -> None:
    """Random candidate actions of every type: accepted exactly when listed as legal."""
    legal = legal_actions(state)
    listed = {_key(action) for action in legal}
    candidates = rng.sample(legal, min(3, len(legal)))
    colours = [p.colour for p in state.players]
    for kind, fields in FIELDS.items():
        for _ in range(3):
            action: dict[str, Any] = {"type": kind}
            for field in fields:
                action[field] = _random_value(field, rng, colours)
            candidates.append(action)
    for action in candidates:
        decider = state.pending.player
        if action["type"] != "reveal" and decider is not None:
            action = {**action, "player": state.players[decider].colour}
        try:
            RULES.apply(state, action)
        except Refused:
            assert _key(action) not in listed, action
        else:
            assert _key(action) in listed, action


def _key(action: dict[str, Any]) -> str:
    """An action in the form legal_actions lists it (pairs and sets in board order)."""
    normal = dict(action)
    if normal["type"] == "exchange":
        a, b = sorted([normal["a"], normal["b"]], key=parse)
        normal.update(a=a, b=b)
    if normal["type"] == "lay_down":
        normal["squares"] = sorted(normal["squares"], key=parse)
    if normal["type"] == "give_up_letters":
        normal["letters"] = sorted(normal["letters"])
    return json.dumps(normal, sort_keys=True)


def _random_value(field: str, rng: random.Random, colours: list[str]) -> Any:
    squares = [name(s) for s in range(49)]
    if field in ("square", "to", "a", "b"):
        return rng.choice(squares)
    if field == "squares":
        return rng.sample(squares, rng.choice([2, 2, 3, 4]))
    if field == "card":
        return rng.choice(
            ["devil", "tower", *(f"{c}-{x}" for c in DEFAULT_COLOURS for x in LETTERS)]
        )
    if field == "from":
        return rng.choice(colours)
    assert field == "letters"
    return rng.sample(LETTERS, 2)


def play_and_check(seed: int, rng: random.Random, seen: Counter[str]) -> None:
    game = random_game(seed, keep_states=True, check=check)
    start = RULES.setup(game.options)
    check_cards(start)
    check_knowledge(start)
    final = game.final
    assert final is not None and RULES.is_over(final)
    assert RULES.legal_actions(final) == []
    # replay equals state, after every action
    state = start
    for action, expected in zip(game.actions, game.states, strict=True):
        undone = state
        state = RULES.apply(state, action)
        assert state == expected
    # undo (replay all but the last action) then redo (apply it again)
    assert RULES.apply(undone, game.actions[-1]) == final
    # anywhere: apply accepts an action exactly when legal_actions lists it
    for index in rng.sample(range(len(game.states)), min(3, len(game.states))):
        accepted_iff_listed(game.states[index], rng)
    seen[f"{len(game.options['players'])} players"] += 1
    seen[final.ending] += 1
    for after in game.states:
        for event in after.events:
            for marker, label in MARKERS.items():
                if marker in event:
                    seen[label] += 1


def run(seeds: range) -> Counter[str]:
    rng = random.Random(seeds.start)
    seen: Counter[str] = Counter()
    for seed in seeds:
        play_and_check(seed, rng, seen)
    return seen


def test_random_games_keep_every_invariant() -> None:
    seen = run(range(FAST_GAMES))
    for players in range(2, 7):
        assert seen[f"{players} players"] > 40
    assert seen["one-left"] > 0 and seen["all-face-up"] > 0
    for label in MARKERS.values():
        assert seen[label] > 0, label


def test_replay_helper_rebuilds_random_games() -> None:
    for seed in range(5):
        game = random_game(seed)
        assert replay(RULES, game.options, game.actions) == game.final


@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.parametrize("chunk", range(SLOW_CHUNKS))
def test_many_more_random_games(chunk: int) -> None:
    first = FAST_GAMES + chunk * SLOW_CHUNK
    seen = run(range(first, first + SLOW_CHUNK))
    assert seen["all-face-up"] > 0
