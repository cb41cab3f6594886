"""Thousands of random legal games, checking the rules' invariants after each one."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from controller.games.base import replay
from controller.games.tails import (
    KINDS,
    TailsState,
    game_view,
    legal_cells,
    parse_move,
    pending,
    score,
    score_record,
)

from .test_tails_support import RULES, random_action

GAMES = {2: 1000, 3: 1000, 4: 500}


def check_step(before: TailsState, action: dict[str, object], after: TailsState) -> None:
    """One accepted action kept the twin, exception and sector rules."""
    due = pending(before)
    assert due is not None
    board = before.board
    if action["type"] == "pass":
        assert not due.legal and after.cards == before.cards
        return
    cell = board.index[str(action["cell"])]
    assert before.cards[cell] == -1 and after.cards[cell] >= 0
    last = before.placed[-1] if before.placed else None
    if before.players != 3 and due.placement == 1 and before.turn > 1:
        assert last is not None
        if before.cards[board.twin[last]] == -1:  # twin rule
            assert cell == board.twin[last] and due.forced == cell
            return
    assert due.forced is None
    assert cell not in board.forbidden[before.players][due.side]  # exception rule
    if before.players == 3 and last is not None and board.sector[cell] == board.sector[last]:
        # sector rule: the same sector only when no other sector had a legal cell
        others = [
            c for c in range(board.cell_count)
            if before.cards[c] == -1
            and board.sector[c] != board.sector[last]
            and c not in board.forbidden[3][due.side]
        ]  # fmt: skip
        assert others == []


def check_finished(state: TailsState) -> None:
    board = state.board
    assert state.finished and pending(state) is None and RULES.legal_actions(state) == []
    assert -1 not in state.cards and sorted(state.placed) == list(range(54))
    used = Counter(KINDS[code // 3] for code in state.cards)
    assert all(used[kind] + state.stock[i] == 8 for i, kind in enumerate(KINDS))
    assert max(used.values()) <= 8 and sum(state.stock) == 2
    assert state.moves.count("pass") == len(state.moves) - 54

    view = game_view(state)
    devils = view["devils"]
    by_name = {d["name"]: d for d in devils}
    for devil in devils:
        assert devil["end"] in ("tail", "body") and not devil["provisional"]
        assert devil["length"] == len(devil["cells"]) == len(devil["segments"]) >= 1
        assert devil["points"] == (devil["length"] if devil["end"] == "tail" else 0)
        if devil["end"] == "body":  # two bodies joined: each ends at the other
            other = by_name[devil["end_devil"]]
            assert other["end"] == "body" and other["end_devil"] == devil["name"]
            assert other["length"] == devil["length"]
            assert other["cells"] == devil["cells"][::-1]
        # consecutive segments meet across an edge
        for (cell_a, _, out), (cell_b, entry, _) in zip(
            devil["segments"], devil["segments"][1:], strict=False
        ):
            a, b = board.index[cell_a], board.index[cell_b]
            assert board.neighbour[a * 6 + out] == b * 6 + entry
    tail_ends = [d["end_devil"] for d in devils if d["end"] == "tail"]
    assert len(tail_ends) == len(set(tail_ends))  # each tail end closes at most one tail
    sides = board.sides[state.players]
    assert view["totals"] == [sum(devils[d]["points"] for d in group) for group in sides]
    assert view["totals"] == view["secured_totals"]
    assert score(board, state.cards, state.players)[1] == view["totals"]
    best = max(view["totals"])
    assert view["winners"] == [s for s, t in enumerate(view["totals"]) if t == best]
    json.dumps(view)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games_keep_the_invariants(players: int) -> None:
    rng = random.Random(1000 + players)
    passes = 0
    for game in range(GAMES[players]):
        state = RULES.setup({"players": players})
        while not state.finished:
            if game % 50 == 0:  # the full legal set is never empty before the end
                assert RULES.legal_actions(state)
            action = random_action(rng, state)
            after = RULES.apply(state, action)
            check_step(state, action, after)
            state = after
        passes += state.moves.count("pass")
        check_finished(state)
        if game % 100 == 0:  # replay from the notation, and the record scorer agree
            assert replay(RULES, {"players": players}, map(parse_move, state.moves)) == state
            record = f"players: {players}\n" + "\n".join(state.moves)
            result = score_record(record)
            assert result["totals"] == game_view(state)["totals"] and result["finished"]
    if players == 3:  # random 3-player games do reach positions where a player must pass
        assert passes > 0


def test_undo_then_redo_is_the_same_game() -> None:
    rng = random.Random(7)
    state = RULES.setup({"players": 2})
    actions = []
    for _ in range(30):
        action = random_action(rng, state)
        actions.append(action)
        state = RULES.apply(state, action)
    undone = replay(RULES, {"players": 2}, actions[:-1])
    assert undone != state and RULES.apply(undone, actions[-1]) == state
    assert legal_cells(undone) != [] or RULES.legal_actions(undone) == [{"type": "pass"}]
