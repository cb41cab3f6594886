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
(who makes the game's first choice), the **winners** and the **variant** are what each
kind's :class:`~controller.games.registry.Stats` reads from the game's last state (its
package's ``stats`` module); a kind without one counts ``<n>p`` games with no winner.
**Streaks** run over a player's games in the order they ended. This module never names
a kind.
"""

from __future__ import annotations

import statistics
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import NotRequired, Protocol, TypedDict

from .games import registry
from .games.base import Refused, replay
from .games.registry import Outcome, plain_outcome
from .journal import Entry, GameRecord, effective_actions
from .text import name_order


class Games(Protocol):
    """What :class:`StatsCache` reads from the journal."""

    def games(self) -> Sequence[GameRecord]: ...

    def entries(self, game_id: int) -> Sequence[Entry]: ...


def counted(records: Iterable[GameRecord]) -> list[GameRecord]:
    """The games statistics count: finished ones, not abandoned, not damaged (deleted games
    are gone from the journal). The one filter."""
    return [
        r for r in records if r.finished is not None and r.abandoned is None and r.damaged is None
    ]


def seat_names(game: GameRecord) -> dict[str, str]:
    """Seat id → the name statistics use for it, in seat order.

    The seat's person (:mod:`controller.players`): a roster player's or a guest's name,
    or ``Computer (level)``. A seat nobody was named for is its own id, as the kind's
    :class:`~controller.games.registry.Stats` names it (``p1``, a colour, ``seat1``…);
    the dashboard translates those. Raises ``Refused`` for options the game refuses.
    """
    ids = seat_ids(game.kind, game.options)
    seats = game.seats or []
    if len(seats) != len(ids):
        return {seat: seat for seat in ids}
    return {seat: _person(person) or seat for seat, person in zip(ids, seats, strict=True)}


def _person(seat: Mapping[str, object]) -> str | None:
    if seat.get("name"):
        return str(seat["name"])
    if seat.get("computer"):
        return f"Computer ({seat['computer']})"
    return None


def seat_ids(kind: str, options: Mapping[str, object]) -> list[str]:
    """The seat ids of a game of ``kind`` with ``options``, as its kind declares them
    (its ``seat_keys`` for a kind without stats of its own)."""
    declared = registry.get(kind)
    if declared.stats is None:
        return declared.seat_keys(options)
    return declared.stats.seats(options)


@dataclass(frozen=True)
class GameFacts:
    """What statistics need from one finished game. Seats are seat ids (see :func:`seat_names`)."""

    id: int
    kind: str
    variant: str
    """As the kind's :class:`~controller.games.registry.Outcome` says: ``A``/``B`` (a
    rule), ``2p``/``3p``/``4p`` (players)."""
    ended: float
    duration_s: float
    actions: int
    seats: dict[str, str]
    first: str
    winners: tuple[str, ...]


def _outcome(record: GameRecord, actions: Sequence[Mapping[str, object]]) -> Outcome:
    declared = registry.get(record.kind)
    state = replay(declared.rules(), record.options, actions)
    ids = seat_ids(record.kind, record.options)
    if declared.stats is None:
        return plain_outcome(state, ids)
    return declared.stats.outcome(state, ids)


def game_facts(record: GameRecord, entries: Sequence[Entry]) -> GameFacts:
    """Replay one finished game; raises ``Refused`` if its record does not replay."""
    actions = effective_actions(list(entries))
    outcome = _outcome(record, actions)
    times = [e.at for e in entries]
    return GameFacts(
        id=record.id,
        kind=record.kind,
        variant=outcome.variant,
        ended=max(times, default=record.finished or 0.0),
        duration_s=(max(times) - min(times)) if times else 0.0,
        actions=len(actions),
        seats=seat_names(record),
        first=outcome.first,
        winners=outcome.winners,
    )


def game_scores(record: GameRecord, entries: Sequence[Entry]) -> dict[str, int] | None:
    """Seat id → points at the game's end, as its kind counts them; ``None`` for a kind
    without points. Raises ``Refused`` if the record does not replay."""
    declared = registry.get(record.kind)
    if declared.stats is None or declared.stats.scores is None:
        return None
    state = replay(declared.rules(), record.options, effective_actions(list(entries)))
    return declared.stats.scores(state, seat_ids(record.kind, record.options))


class Tally(TypedDict):
    games: int
    wins: int
    win_rate: float


class Run(TypedDict):
    win: bool
    length: int


class Streaks(TypedDict):
    current: Run | None
    best_wins: int
    worst_losses: int


class PlayerRow(TypedDict):
    name: str
    games: int
    wins: int
    by: dict[str, Tally]
    """Per ``<kind>/<variant>``."""
    win_rate: float
    streaks: Streaks


class Spread(TypedDict):
    min: float
    median: float
    max: float


class FirstPlayer(TypedDict):
    games: int
    wins: int
    win_rate: float
    fair_rate: float


class GameRow(TypedDict):
    id: int
    variant: str
    duration_s: float
    actions: int


class KindRow(TypedDict):
    games: int
    duration_s: Spread
    actions_median: float
    first_player: FirstPlayer
    games_list: list[GameRow]


class Summary(TypedDict):
    games: int
    players: list[PlayerRow]
    kinds: dict[str, KindRow]
    skipped: NotRequired[list[int]]
    """Games whose record no longer replays (:class:`StatsCache`)."""


def summarise(games: Sequence[GameFacts]) -> Summary:
    """Per player and per kind (see the module doc). Plain JSON data."""
    ordered = sorted(games, key=lambda g: (g.ended, g.id))
    played: dict[str, list[tuple[str, bool]]] = {}
    for game in ordered:
        for seat, name in game.seats.items():
            played.setdefault(name, []).append(
                (f"{game.kind}/{game.variant}", seat in game.winners)
            )
    players = [_player(name, results) for name, results in played.items()]
    kinds = {
        kind: _kind_row([g for g in ordered if g.kind == kind])
        for kind in sorted({g.kind for g in ordered})
    }
    ranked = sorted(players, key=lambda r: (-r["games"], name_order(r["name"])))
    return {"games": len(ordered), "players": ranked, "kinds": kinds}


def _tally(won: Sequence[bool]) -> Tally:
    wins = sum(won)
    return {"games": len(won), "wins": wins, "win_rate": _rate(wins, len(won))}


def _player(name: str, results: Sequence[tuple[str, bool]]) -> PlayerRow:
    """One player's row from their games' (``<kind>/<variant>``, won) in the order they ended."""
    won = [w for _key, w in results]
    by: dict[str, list[bool]] = {}
    for key, w in results:
        by.setdefault(key, []).append(w)
    return {
        "name": name,
        "games": len(won),
        "wins": sum(won),
        "by": {key: _tally(outcomes) for key, outcomes in by.items()},
        "win_rate": _rate(sum(won), len(won)),
        "streaks": streaks(won),
    }


def _kind_row(mine: Sequence[GameFacts]) -> KindRow:
    durations = [g.duration_s for g in mine]
    first_won = sum(g.first in g.winners for g in mine)
    return {
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
            "fair_rate": _fair_rate(mine),
        },
        "games_list": [
            {"id": g.id, "variant": g.variant, "duration_s": g.duration_s, "actions": g.actions}
            for g in mine
        ],
    }


def streaks(won: Sequence[bool]) -> Streaks:
    """``current``: the run the player is on (``{"win": bool, "length": n}``, ``None``
    before any game); ``best_wins``/``worst_losses``: the longest runs of wins / non-wins."""
    best = worst = run = 0
    for i, w in enumerate(won):
        run = run + 1 if i and won[i - 1] == w else 1
        if w:
            best = max(best, run)
        else:
            worst = max(worst, run)
    current: Run | None = {"win": won[-1], "length": run} if won else None
    return {"current": current, "best_wins": best, "worst_losses": worst}


def _rate(wins: int, games: int) -> float:
    return round(wins / games, 4) if games else 0.0


def _fair_rate(games: Sequence[GameFacts]) -> float:
    """The first player's win rate if seats did not matter: the mean of 1/seats (games
    with no seats count 0)."""
    return round(statistics.fmean(1 / len(g.seats) if g.seats else 0.0 for g in games), 4)


# --- per-game charts ------------------------------------------------------------------------


def game_series(record: GameRecord, entries: Sequence[Entry]) -> dict[str, object]:
    """The data of a game's chart, as its kind draws it (``chart`` names the type, see
    docs/stats.md; ``"none"`` for a kind without a chart). Raises ``Refused`` if the record
    does not replay."""
    declared = registry.get(record.kind)
    actions = effective_actions(list(entries))
    seats = seat_names(record)
    base: dict[str, object] = {"game": record.id, "kind": record.kind, "seats": seats}
    if declared.stats is None or declared.stats.chart is None:
        replay(declared.rules(), record.options, actions)  # refuses a record that no longer replays
        return base | {"chart": "none"}
    return base | declared.stats.chart(record.options, actions, list(seats))


class StatsCache:
    """:func:`summarise` over the journal's counted games, with each game's facts cached
    by ``(id, finished)``. Thread-safe. Games whose record no longer replays are skipped
    and listed under ``"skipped"``."""

    def __init__(self) -> None:
        self._facts: dict[int, tuple[float, GameFacts]] = {}
        self._lock = threading.Lock()

    def summary(self, journal: Games) -> Summary:
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
        summary = summarise(facts)
        summary["skipped"] = skipped
        return summary
