"""Statistics over the journal: per player, per game kind, and per-game charts.

Everything here is computed by replaying journaled games through their rules engines
(pure functions over :class:`~controller.journal.GameRecord` + entries); nothing is stored.

- **Who a seat is** comes from one function, :func:`seat_names` (today the seat id or
  colour itself; a player roster will return people's names there).
- **Which games count** is decided in one place, :func:`counted`: finished games only
  (abandoned or deleted games will be filtered there too).
- A finished game's facts are cached per game version (:class:`StatsCache`): a finished
  game only changes through an undo, which clears its ``finished`` time, and finishing it
  again stamps a new one, so ``(id, finished)`` is the version key.

Definitions (docs/stats.md): a game's **duration** is the time from its first journal
entry to its last (seconds; imported games keep their original times). The **first player**
is who makes the game's first choice: the Diable sauteur's first popper (the other player
of ``first_hider``), Teufel Teufel's ``first``, the tail-tile game's seat 1. A **win** is
being the winner (sauteur), a player of a winning side (tails: a tie gives every tied side
a win), or leaving the board (Teufel Teufel: everyone but the losers). A sauteur draw is
nobody's win. **Streaks** run over a player's games in the order they ended.
"""

from __future__ import annotations

import statistics
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .games.base import Rules
from .journal import Entry, GameRecord, effective_actions


def _rules(kind: str) -> Rules[Any]:
    from .games import registry

    return registry.get(kind).rules()


def counted(records: Iterable[GameRecord]) -> list[GameRecord]:
    """The games statistics count: finished ones, not abandoned, not damaged (deleted games
    are gone from the journal). The one filter."""
    return [
        r for r in records if r.finished is not None and r.abandoned is None and r.damaged is None
    ]


def seat_names(game: GameRecord) -> dict[str, str]:
    """Seat id → the name statistics use for it, in seat order.

    The seat's person (:mod:`controller.players`): a roster player's or a guest's name,
    or ``Computer (level)``. A seat nobody was named for is its own id: ``p1``/``p2``
    (sauteur), the colour (Teufel Teufel), ``seat1``… (tail-tile game); the dashboard
    translates those. Raises ``Refused`` for options the game refuses.
    """
    ids = _seat_ids(game)
    seats = game.seats or []
    if len(seats) != len(ids):
        return {seat: seat for seat in ids}
    return {seat: _person(person) or seat for seat, person in zip(ids, seats, strict=True)}


def _person(seat: dict[str, Any]) -> str | None:
    if seat.get("name"):
        return str(seat["name"])
    if seat.get("computer"):
        return f"Computer ({seat['computer']})"
    return None


def _seat_ids(game: GameRecord) -> list[str]:
    if game.kind == "sauteur":
        return ["p1", "p2"]
    state = _rules(game.kind).setup(game.options)
    if game.kind == "teufel":
        return [p.colour for p in state.players]
    if game.kind == "tails":
        return [f"seat{i + 1}" for i in range(state.players)]
    return []


@dataclass(frozen=True)
class GameFacts:
    """What statistics need from one finished game. Seats are seat ids (see :func:`seat_names`)."""

    id: int
    kind: str
    variant: str
    """``A``/``B`` (sauteur rule), ``2p``/``3p``/``4p`` (players, the other games)."""
    ended: float
    duration_s: float
    actions: int
    seats: dict[str, str]
    first: str
    winners: tuple[str, ...]


def game_facts(record: GameRecord, entries: Sequence[Entry]) -> GameFacts:
    """Replay one finished game; raises ``Refused`` if its record does not replay."""
    from .games.base import replay

    rules = _rules(record.kind)
    actions = effective_actions(list(entries))
    state = replay(rules, record.options, actions)
    seats = seat_names(record)
    ids = list(seats)
    if record.kind == "sauteur":
        config = state.config
        variant = config.rule
        first = "p2" if config.first_hider == "p1" else "p1"
        winners: tuple[str, ...] = () if state.winner in (None, "draw") else (state.winner,)
    elif record.kind == "teufel":
        variant = f"{len(ids)}p"
        first = ids[state.first]
        winners = tuple(ids[i] for i in range(len(ids)) if i not in state.losers)
    elif record.kind == "tails":
        from .games.tails import game_view

        variant = f"{len(ids)}p"
        first = ids[0]
        winners = tuple(ids[i] for i in game_view(state)["winning_seats"])
    else:  # a kind without stats of its own (issue 23: a kind will declare them)
        variant, first, winners = f"{len(ids)}p", ids[0] if ids else "", ()
    times = [e.at for e in entries]
    return GameFacts(
        id=record.id,
        kind=record.kind,
        variant=variant,
        ended=max(times, default=record.finished or 0.0),
        duration_s=(max(times) - min(times)) if times else 0.0,
        actions=len(actions),
        seats=seats,
        first=first,
        winners=winners,
    )


def summarise(games: Sequence[GameFacts]) -> dict[str, Any]:
    """Per player and per kind (see the module doc). Plain JSON data."""
    ordered = sorted(games, key=lambda g: (g.ended, g.id))
    players: dict[str, dict[str, Any]] = {}
    outcomes: dict[str, list[bool]] = {}
    for game in ordered:
        for seat, name in game.seats.items():
            won = seat in game.winners
            row = players.setdefault(name, {"name": name, "games": 0, "wins": 0, "by": {}})
            row["games"] += 1
            row["wins"] += won
            by = row["by"].setdefault(f"{game.kind}/{game.variant}", {"games": 0, "wins": 0})
            by["games"] += 1
            by["wins"] += won
            outcomes.setdefault(name, []).append(won)
    for name, row in players.items():
        row["win_rate"] = _rate(row["wins"], row["games"])
        for by in row["by"].values():
            by["win_rate"] = _rate(by["wins"], by["games"])
        row["streaks"] = streaks(outcomes[name])
    kinds: dict[str, dict[str, Any]] = {}
    for kind in sorted({g.kind for g in ordered}):
        mine = [g for g in ordered if g.kind == kind]
        durations = [g.duration_s for g in mine]
        first_won = sum(g.first in g.winners for g in mine)
        kinds[kind] = {
            "games": len(mine),
            "duration_s": {
                "min": min(durations),
                "median": statistics.median(durations),
                "max": max(durations),
            },
            "actions_median": statistics.median(g.actions for g in mine),
            "first_player": {
                "games": len(mine),
                "wins": first_won,
                "win_rate": _rate(first_won, len(mine)),
                "fair_rate": round(statistics.fmean(1 / len(g.seats) for g in mine), 4),
            },
            "games_list": [
                {"id": g.id, "variant": g.variant, "duration_s": g.duration_s, "actions": g.actions}
                for g in mine
            ],
        }
    ranked = sorted(players.values(), key=lambda r: (-r["games"], r["name"]))
    return {"games": len(ordered), "players": ranked, "kinds": kinds}


def streaks(won: Sequence[bool]) -> dict[str, Any]:
    """``current``: the run the player is on (``{"win": bool, "length": n}``, ``None``
    before any game); ``best_wins``/``worst_losses``: the longest runs of wins / non-wins."""
    best = worst = run = 0
    for i, w in enumerate(won):
        run = run + 1 if i and won[i - 1] == w else 1
        if w:
            best = max(best, run)
        else:
            worst = max(worst, run)
    current = {"win": won[-1], "length": run} if won else None
    return {"current": current, "best_wins": best, "worst_losses": worst}


def _rate(wins: int, games: int) -> float:
    return round(wins / games, 4) if games else 0.0


# --- per-game charts ------------------------------------------------------------------------


def game_series(record: GameRecord, entries: Sequence[Entry]) -> dict[str, Any]:
    """The data of a game's chart (``chart`` names it): the sauteur chase (positions after
    each pop, per round), the rule-B race (progress and pot after each pop, per race), the
    tail-tile game's score per side after each action, Teufel Teufel's letters held per
    player after each action. Raises ``Refused`` if the record does not replay."""
    from .games.base import replay

    rules = _rules(record.kind)
    actions = effective_actions(list(entries))
    seats = seat_names(record)
    base = {"game": record.id, "kind": record.kind, "seats": seats}
    if record.kind == "sauteur":
        state = replay(rules, record.options, actions)
        if state.config.rule == "A":
            return base | {"chart": "chase", "rounds": _chase(state)}
        return base | {"chart": "race", "races": _race(state)}
    state = rules.setup(record.options)
    if record.kind == "tails":
        from .games.tails.scoring import side_totals, trace_all

        def totals(s: Any) -> list[int]:
            points = [tail.points for tail in trace_all(s.board, s.cards)]
            return side_totals(s.board, s.players, points)

        from .games.tails.rules import seats_of_side

        names = list(seats)
        count = len(state.board.sides[state.players])
        sides = [
            [names[seat] for seat in seats_of_side(state.players, side)] for side in range(count)
        ]
        points = [totals(state)]
        for action in actions:
            state = rules.apply(state, action)
            points.append(totals(state))
        return base | {
            "chart": "score",
            "sides": sides,
            "series": [[row[side] for row in points] for side in range(len(sides))],
        }
    # teufel
    held = [[len(p.letters) for p in state.players]]
    for action in actions:
        state = rules.apply(state, action)
        held.append([len(p.letters) for p in state.players])
    return base | {
        "chart": "letters",
        "series": {seat: [row[i] for row in held] for i, seat in enumerate(seats)},
    }


def _history(state: Any) -> list[tuple[Any, ...]]:
    entries = []
    link = state.history
    while link is not None:
        entries.append(link[0])
        link = link[1]
    return entries[::-1]


def _chase(state: Any) -> list[dict[str, Any]]:
    """Rule A, per round: the devil's and each figure's square, at the start and after
    each pop that moved something (x: pops in the round)."""
    config = state.config
    rounds: dict[int, dict[str, Any]] = {}
    for round_no, _hiding, _key, _face, kind, detail in _history(state):
        if kind not in ("move", "devil"):
            continue
        row = rounds.get(round_no)
        if row is None:
            row = rounds[round_no] = {
                "round": round_no,
                "popper": "p1" if (config.first_hider == "p1") != bool(round_no % 2) else "p2",
                "devil": [config.devil_start],
                "figures": {
                    n: [s] for n, s in zip(config.figure_names, config.figure_starts, strict=True)
                },
            }
        devil = row["devil"][-1]
        figures = {n: at[-1] for n, at in row["figures"].items()}
        if kind == "move":
            figures[detail[0]] = detail[2]
        else:
            devil = detail[1]
        row["devil"].append(devil)
        for name, at in row["figures"].items():
            at.append(figures[name])
    return [rounds[r] for r in sorted(rounds)]


def _race(state: Any) -> list[dict[str, Any]]:
    """Rule B, per race: squares gone round by each player (banked) and the pot, at the
    start and after each pop or stop."""
    circuit = state.config.circuit_length
    races: dict[int, dict[str, Any]] = {}
    for round_no, _hiding, _key, _face, kind, detail in _history(state):
        row = races.setdefault(
            round_no, {"race": round_no, "p1": [0], "p2": [0], "pot": [0], "circuit": circuit}
        )
        laps = {"p1": row["p1"][-1], "p2": row["p2"][-1]}
        pot = 0
        if kind == "pot":
            pot = detail[0]
        elif kind == "bank":
            _why, player, banked, _done = detail
            laps[player] = min(laps[player] + banked, circuit)
        row["p1"].append(laps["p1"])
        row["p2"].append(laps["p2"])
        row["pot"].append(pot)
    return [races[r] for r in sorted(races)]


class StatsCache:
    """:func:`summarise` over the journal's counted games, with each game's facts cached
    by ``(id, finished)``. Thread-safe. Games whose record no longer replays are skipped
    and listed under ``"skipped"``."""

    def __init__(self) -> None:
        self._facts: dict[int, tuple[float, GameFacts]] = {}
        self._lock = threading.Lock()

    def summary(self, journal: Any) -> dict[str, Any]:
        from .games.base import Refused

        facts, skipped = [], []
        records = counted(journal.games())
        with self._lock:  # a deleted or abandoned game's facts go with it
            for gone in set(self._facts) - {record.id for record in records}:
                del self._facts[gone]
        for record in records:
            assert record.finished is not None
            with self._lock:
                cached = self._facts.get(record.id)
            if cached is None or cached[0] != record.finished:
                try:
                    fact = game_facts(record, journal.entries(record.id))
                except Refused:
                    skipped.append(record.id)
                    continue
                cached = (record.finished, fact)
                with self._lock:
                    self._facts[record.id] = cached
            facts.append(cached[1])
        return summarise(facts) | {"skipped": skipped}
