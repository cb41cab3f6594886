"""The ``adaptive`` level: it reads where a hider puts the devil die, and replies.

**Belief.** Per hider (and per rule: a game plays one rule), a Dirichlet over the four
slots, kept as counts ``alpha`` (:data:`PRIOR`: one each). It learns only what the table
reveals (:func:`hidings_seen`, :func:`learn`):

- a devil that popped from key ``k`` shows the slot: ``alpha[k] += 1``;
- a hiding whose devil stayed hidden (the popper stopped or asked for a new hiding after
  numbers from the keys ``P``) is a censored observation: each slot not in ``P`` gets
  ``1 / (4 - |P|)``.

A hiding the box re-made (``new-hiding``) teaches nothing. The belief at a game's start
comes from the caller (the match so far, earlier matches of a roster player); the belief
now is that plus this game's complete hidings (:func:`belief_now`), so a replay is exact.

**Play** (:func:`adaptive_plan`). While fewer than :data:`MIN_EVIDENCE` observations are
in, or while the best reply to the belief's mean ``p`` would gain (against ``p``) less than
it could lose (against the hiding's equilibrium placement) plus :data:`MARGIN`, it plays
``optimal``'s equilibrium mixture; otherwise the best reply to ``p`` (``p`` rounded to
:data:`BUCKET` so replies are cached). Pure: no I/O.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from controller.games.sauteur import hider
from controller.games.sauteur.levels import Tables, plan_draw, reply_action, uniform_action
from controller.games.sauteur.rules import (
    DEVIL,
    HIDING,
    OVER,
    SauteurConfig,
    SauteurState,
    other,
)
from controller.games.sauteur.state import History, entries_of

PRIOR = (1.0, 1.0, 1.0, 1.0)
MIN_EVIDENCE = 6.0
"""Observations (revealed or censored) before the belief may be used."""
MARGIN = 0.01
"""What the best reply to the belief must gain beyond what it may lose (win chance)."""
BUCKET = 20
"""The belief's mean is rounded to multiples of 1/BUCKET before a reply is sought."""

Counts = list[float]
Beliefs = dict[str, Counts]
"""Counts per hider (a seat ``p1``/``p2``, or a roster player's key)."""


class Seen(NamedTuple):
    """One complete hiding: who hid, the keys that showed numbers, the devil's key
    (``None``: it stayed hidden)."""

    hider: str
    popped: tuple[int, ...]
    devil: int | None


def hidings_seen(state: SauteurState) -> list[Seen]:
    """The match's complete hidings, oldest first, from its history (the hiding being
    played is left out until it ends)."""
    return list(_seen(state))


def _seen(state: SauteurState) -> list[Seen]:
    """:func:`hidings_seen`, the memoised list itself (do not change it)."""
    link = state.history
    if state.phase not in (HIDING, OVER):  # in play: what came before this hiding
        while link is not None and (link[0][0], link[0][1]) == (state.round, state.hidings):
            link = link[1]
    return _closed(state.config, link)


_CLOSED: OrderedDict[int, tuple[History, list[Seen]]] = OrderedDict()
_CLOSED_HELD = 8
_CLOSED_LOCK = threading.Lock()


def _closed(config: SauteurConfig, link: History) -> list[Seen]:
    """The complete hidings of the history ``link`` (newest first), oldest first; the
    last is complete too. Memoised for the last few histories (one hiding's decisions
    ask about the same one): do not change the list returned."""
    with _CLOSED_LOCK:
        found = _CLOSED.get(id(link))
        if found is not None and found[0] is link:  # one history node: one match
            return found[1]
    rule_b = config.rule == "B"
    seen: list[Seen] = []
    current: tuple[int, int] | None = None
    popped: list[int] = []
    devil: int | None = None
    remade = False
    hider_now = ""
    turn_popper = ""
    last_round = 0

    def close() -> None:
        if current is not None and not remade and (popped or devil is not None):
            seen.append(Seen(hider_now, tuple(popped), devil))

    for round_no, hiding, key, face, kind, _detail in entries_of(link):
        if round_no != last_round:
            first = config.first_hider if round_no % 2 else other(config.first_hider)
            turn_popper, last_round = other(first), round_no
        if (round_no, hiding) != current:
            close()
            current, popped, devil, remade = (round_no, hiding), [], None, False
            hider_now = other(turn_popper)
        if kind == "new-hiding":
            remade = True
        elif face == DEVIL and key is not None:
            devil = key
        elif key is not None and kind in ("move", "pot", "bank"):
            popped.append(key)
        if rule_b and kind in ("lost", "bank"):
            turn_popper = other(turn_popper)
    close()
    with _CLOSED_LOCK:
        _CLOSED[id(link)] = (link, seen)
        while len(_CLOSED) > _CLOSED_HELD:
            _CLOSED.popitem(last=False)
    return seen


def learn(counts: Sequence[float], seen: Sequence[tuple[int, ...] | int | None]) -> Counts:
    """``counts`` after the observations ``seen``: a key (a devil popped there) or a
    tuple of the keys that showed numbers while the devil stayed hidden."""
    out = list(counts)
    for what in seen:
        if isinstance(what, int):
            out[what - 1] += 1.0
        elif what is not None:
            share = 1.0 / (4 - len(what))
            for slot in range(4):
                if slot + 1 not in what:
                    out[slot] += share
    return out


def belief_now(start: Mapping[str, Sequence[float]], state: SauteurState) -> Beliefs:
    """Each hider's counts now: ``start`` (the belief at the game's start; seats not in it
    start at :data:`PRIOR`) plus this game's complete hidings."""
    seen_all = _seen(state)
    key = (id(seen_all), tuple((name, tuple(counts)) for name, counts in start.items()))
    with _CLOSED_LOCK:
        found = _BELIEFS.get(key)
    if found is None or found[0] is not seen_all:
        out: Beliefs = {name: list(counts) for name, counts in start.items()}
        for seen in seen_all:
            counts = out.setdefault(seen.hider, list(PRIOR))
            observed = seen.devil if seen.devil is not None else seen.popped
            out[seen.hider] = learn(counts, [observed])
        found = (seen_all, out)
        with _CLOSED_LOCK:  # one hiding's decisions ask again: memoised
            _BELIEFS[key] = found
            while len(_BELIEFS) > _CLOSED_HELD:
                _BELIEFS.popitem(last=False)
    return {name: list(counts) for name, counts in found[1].items()}


_BELIEFS: OrderedDict[tuple[object, ...], tuple[list[Seen], Beliefs]] = OrderedDict()


def evidence(counts: Sequence[float]) -> float:
    """Observations behind ``counts`` (the prior's weight taken off)."""
    return sum(counts) - sum(PRIOR)


def mean(counts: Sequence[float]) -> hider.Vector:
    """The belief's mean rounded to multiples of 1/:data:`BUCKET` (then renormalised)."""
    total = sum(counts)
    rounded = [max(0, round(BUCKET * c / total)) for c in counts]
    whole = sum(rounded) or 1
    return (
        rounded[0] / whole,
        rounded[1] / whole,
        rounded[2] / whole,
        rounded[3] / whole,
    )


def adaptive_plan(
    tables: Tables, state: SauteurState, seed: int, counts: Sequence[float]
) -> tuple[hider.Vector, str]:
    """(the placement this hiding's plan replies to, why): ``"equilibrium"`` (a plan of
    the equilibrium mixture) or ``"read"`` (the best reply to the belief's mean)."""
    found = tables.equilibrium(state)
    equilibrium_plan = found.plan(plan_draw(seed, state))
    if evidence(counts) < MIN_EVIDENCE:
        return equilibrium_plan, "equilibrium"
    p = mean(counts)
    reply = tables.reply(state, p)[0]
    gain = hider.value(p, reply) - sum(
        weight * hider.value(p, payoff)
        for weight, payoff in zip(found.weights, found.payoffs, strict=True)
    )
    loss = found.value - sum(y * pay for y, pay in zip(found.y, reply, strict=True))
    if gain > loss + MARGIN:
        return p, "read"
    return equilibrium_plan, "equilibrium"


def adaptive_action(
    tables: Tables, state: SauteurState, seed: int, start: Mapping[str, Sequence[float]]
) -> dict[str, Any]:
    """The adaptive popper's move (phase ``pop`` or ``advance``) in the game of ``seed``
    whose hiders were believed ``start`` at its beginning."""
    if state.carried:
        return uniform_action(tables, state)
    counts = belief_now(start, state).get(state.hider, list(PRIOR))
    y, _ = adaptive_plan(tables, state, seed, counts)
    return reply_action(tables, state, y)


def read(
    tables: Tables, state: SauteurState, seed: int, start: Mapping[str, Sequence[float]]
) -> dict[str, Any]:
    """The coach's read of the hider now (the referee's eyes only): ``{"hider": seat,
    "seen": hidings of this game whose devil popped, "keys": {"1": count, ...} of those,
    "top_key", "top", "belief": {"1": mean share, ...} (all evidence, earlier matches
    and censored hidings included), "evidence", "mode": "read" | "equilibrium",
    "advice": the adaptive popper's move now or ``None`` when it is not the popper's
    move}``."""
    who = state.hider
    keys = dict.fromkeys(("1", "2", "3", "4"), 0)
    for seen in hidings_seen(state):
        if seen.hider == who and seen.devil is not None:
            keys[str(seen.devil)] += 1
    top_key = max(keys, key=lambda key: (keys[key], -int(key)))
    counts = belief_now(start, state).get(who, list(PRIOR))
    total = sum(counts)
    report: dict[str, Any] = {
        "hider": who,
        "seen": sum(keys.values()),
        "keys": keys,
        "top_key": int(top_key),
        "top": keys[top_key],
        "belief": {str(k): round(c / total, 4) for k, c in zip((1, 2, 3, 4), counts, strict=True)},
        "evidence": round(evidence(counts), 2),
        "mode": None,
        "advice": None,
    }
    if state.phase in ("pop", "advance") and not state.carried:
        _, report["mode"] = adaptive_plan(tables, state, seed, counts)
        report["advice"] = adaptive_action(tables, state, seed, start)
    return report
