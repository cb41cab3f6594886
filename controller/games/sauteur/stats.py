"""Le Diable sauteur as statistics read it (:class:`controller.games.registry.Stats`).

The first player is the first popper (the other player of ``first_hider``); the winner
wins, a draw is nobody's win. The chart follows rule A's chase (the devil's and each
figure's square after each pop that moved something, per round) or rule B's race
(squares banked per player and the pot after each pop or stop, per race).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from controller.games.base import replay
from controller.games.registry import Outcome, Stats

from .rules import PLAYERS, SauteurRules, SauteurState
from .state import entries


def _state(state: object) -> SauteurState:
    assert isinstance(state, SauteurState), type(state)  # the engine of this kind made it
    return state


def outcome(state: object, seats: Sequence[str]) -> Outcome:
    game = _state(state)
    first = "p2" if game.config.first_hider == "p1" else "p1"
    winners = () if game.winner in (None, "draw") else (str(game.winner),)
    return Outcome(game.config.rule, first, winners)


def scores(state: object, seats: Sequence[str]) -> dict[str, int]:
    game = _state(state)
    return {"p1": int(game.scores[0]), "p2": int(game.scores[1])}


def chart(
    options: Mapping[str, object], actions: Sequence[Mapping[str, object]], seats: Sequence[str]
) -> dict[str, object]:
    state = replay(SauteurRules(), options, actions)
    if state.config.rule == "A":
        return {"chart": "chase", "rounds": _chase(state)}
    return {"chart": "race", "races": _race(state)}


def _chase(state: SauteurState) -> list[dict[str, object]]:
    """Rule A, per round: the devil's and each figure's square, at the start and after
    each pop that moved something (x: pops in the round)."""
    config = state.config
    devils: dict[int, list[int]] = {}
    figures: dict[int, dict[str, list[int]]] = {}
    for round_no, _hiding, _key, _face, kind, detail in entries(state):
        if kind not in ("move", "devil"):
            continue
        if round_no not in devils:
            devils[round_no] = [config.devil_start]
            figures[round_no] = {
                n: [s] for n, s in zip(config.figure_names, config.figure_starts, strict=True)
            }
        devil = devils[round_no][-1]
        now = {n: at[-1] for n, at in figures[round_no].items()}
        if kind == "move":
            now[str(detail[0])] = int(detail[2])
        else:
            devil = int(detail[1])
        devils[round_no].append(devil)
        for name, at in figures[round_no].items():
            at.append(now[name])
    return [
        {
            "round": r,
            "popper": "p1" if (config.first_hider == "p1") != bool(r % 2) else "p2",
            "devil": devils[r],
            "figures": figures[r],
        }
        for r in sorted(devils)
    ]


def _race(state: SauteurState) -> list[dict[str, object]]:
    """Rule B, per race: squares gone round by each player (banked) and the pot, at the
    start and after each pop or stop."""
    circuit = state.config.circuit_length
    races: dict[int, dict[str, list[int]]] = {}
    for round_no, _hiding, _key, _face, kind, detail in entries(state):
        row = races.setdefault(round_no, {"p1": [0], "p2": [0], "pot": [0]})
        laps = {"p1": row["p1"][-1], "p2": row["p2"][-1]}
        pot = 0
        if kind == "pot":
            pot = int(detail[0])
        elif kind == "bank":
            _why, player, banked, _done = detail
            laps[str(player)] = min(laps[str(player)] + int(banked), circuit)
        row["p1"].append(laps["p1"])
        row["p2"].append(laps["p2"])
        row["pot"].append(pot)
    return [{"race": r, **races[r], "circuit": circuit} for r in sorted(races)]


def seat_word(seat: str) -> tuple[str, dict[str, object]]:
    return f"player.{seat}", {}


STATS = Stats(
    seats=lambda options: list(PLAYERS),
    outcome=outcome,
    chart=chart,
    scores=scores,
    seat_word=seat_word,
)
