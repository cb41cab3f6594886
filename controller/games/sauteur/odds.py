"""The odds the dashboard shows, and the computer popper that plays by them.

Odds model: the hider's arrangement is unknown, so every arrangement of the four
dice is taken as equally likely, i.e. the devil die is equally likely under any
slot. A die that showed a number is a number die, so after ``n`` numbers in this
hiding the devil die is under each of the ``4 - n`` unpopped slots with chance
``1 / (4 - n)``. When the number dice also carry devil faces (a fraction ``q`` of
their faces), a key shows a devil with chance ``p + (1 - p) * q``. Number faces
are equally likely.

The computer popper (:func:`choose`), in one paragraph: *rule A* — pop key 1 (at the
table: key 1 or 2 at random, so a hider cannot count on it) and, after a number,
always ask for a new hiding. A fresh hiding puts the devil
chance back at its lowest (1/4, against 1/3 and 1/2 for a second and third pop)
for the same possible gains, and numbers and devil jumps both grow with the key,
so the popper, who gains more on average than the devil (3/4 x 3.5 against
1/4 x 3 squares per key point), does best with the smallest steps, where luck
counts least. A number moves the figure nearest the devil. *Rule B* — pop the
unpopped key that, playing on this way, gives the most squares expected this
turn (at the table: any key within 80 % of the best, at random), and stop as soon as
stopping is worth at least as much; squares past the
end of the lap count for nothing, so it stops as soon as the pot finishes the lap.
"""

from __future__ import annotations

import random
from fractions import Fraction
from functools import lru_cache
from typing import Any

from controller.games.base import Refused
from controller.games.sauteur.rules import (
    ADVANCE,
    DEVIL,
    FACE,
    HIDING,
    IN_PLAY,
    KEYS,
    MAX_NUMBERS,
    OVER,
    POP,
    SauteurState,
)

MODEL = "every arrangement of the four dice equally likely; number faces equally likely"


def devil_slot_chance(state: SauteurState) -> Fraction:
    """Chance the devil die is under one given unpopped slot (0 once the game is over)."""
    if state.phase == OVER:
        return Fraction(0)
    if state.phase == HIDING:
        return Fraction(1, 4)
    return Fraction(1, len(KEYS) - state.numbers)


@lru_cache(maxsize=64)
def _face_shares(faces: tuple[int | str, ...]) -> tuple[Fraction, dict[int, Fraction]]:
    """(share of devil faces, share of each number) on one number die. Cached: do not
    change the dict returned."""
    count = len(faces)
    numbers: dict[int, Fraction] = {}
    for face in faces:
        if isinstance(face, int):
            numbers[face] = numbers.get(face, Fraction(0)) + Fraction(1, count)
    return Fraction(faces.count(DEVIL), count), numbers


def _unpopped(state: SauteurState) -> tuple[int, ...]:
    if state.phase == OVER:
        return ()
    if state.phase == HIDING:
        return KEYS
    return tuple(key for key in KEYS if key not in state.popped)


def odds(state: SauteurState) -> dict[str, Any]:
    """What each unpopped key may give, JSON-ready (floats rounded to 4 places).

    For each key: ``devil_chance``, ``can_pop`` (False after three numbers), the
    number outcomes (``squares`` -> chance) and ``expected_squares`` for the number;
    rule A adds ``devil_squares`` and ``devil_captures`` (figures a devil from that
    key would take); rule B adds ``if_pop_then_stop`` and ``if_play_on`` (expected
    squares banked this turn). Rule B also gives ``stop_value`` and ``advice``. In
    the ``hiding`` phase the odds are those of the coming hiding.
    """
    config = state.config
    slot = devil_slot_chance(state)
    devil_face, number_shares = _face_shares(config.number_faces)
    shows_devil = slot + (1 - slot) * devil_face
    keys = _unpopped(state)
    can_pop = state.phase == HIDING or (state.phase == POP and state.counted < MAX_NUMBERS)
    report: dict[str, Any] = {
        "rule": config.rule,
        "phase": state.phase,
        "model": MODEL,
        "keys": [],
    }
    for key in keys:
        outcomes = {key * value: (1 - slot) * share for value, share in number_shares.items()}
        entry: dict[str, Any] = {
            "key": key,
            "can_pop": can_pop,
            "devil_chance": _num(shows_devil),
            "number_squares": {str(squares): _num(p) for squares, p in outcomes.items()},
            "expected_squares": _num(sum((s * p for s, p in outcomes.items()), Fraction(0))),
        }
        if config.rule == "A":
            reach = min(state.devil + config.devil_multiplier * key, config.track_length)
            entry["devil_squares"] = config.devil_multiplier * key
            entry["devil_captures"] = [
                name
                for name, position, status in zip(
                    config.figure_names, state.figures, state.status, strict=True
                )
                if status == IN_PLAY and position <= reach
            ]
        report["keys"].append(entry)
    if config.rule == "B" and state.phase in (HIDING, POP):
        _add_race_values(state, report, keys, can_pop)
    return report


def _num(value: Fraction) -> float:
    return round(float(value), 4)


def _remaining(state: SauteurState) -> int:
    index = 0 if state.popper == "p1" else 1
    return state.config.circuit_length - state.laps[index]


def _add_race_values(
    state: SauteurState, report: dict[str, Any], keys: tuple[int, ...], can_pop: bool
) -> None:
    pot = state.pot if state.phase == POP else 0
    left = _remaining(state)
    stop_value = min(pot, left) if pot else None
    report["pot"] = pot
    report["squares_to_finish"] = left
    report["stop_value"] = stop_value
    values = {}
    for entry in report["keys"]:
        key = entry["key"]
        if not can_pop:
            continue
        entry["if_pop_then_stop"] = _num(
            sum((p * min(pot + squares, left) for squares, p in _outcomes(state, key)), Fraction(0))
        )
        values[key] = _pop_value(state, key, pot, left)
        entry["if_play_on"] = _num(values[key])
    best = max(values, key=lambda k: (values[k], k)) if values else None
    if best is not None and (stop_value is None or values[best] > stop_value):
        report["advice"] = {"action": "pop", "key": best, "expected": _num(values[best])}
    else:
        report["advice"] = {"action": "stop", "expected": stop_value}


def _outcomes(state: SauteurState, key: int) -> list[tuple[int, Fraction]]:
    slot = devil_slot_chance(state)
    _, shares = _face_shares(state.config.number_faces)
    return [(key * value, (1 - slot) * share) for value, share in shares.items()]


def _mask(keys: tuple[int, ...]) -> int:
    mask = 0
    for key in keys:
        mask |= 1 << key
    return mask


def _pop_value(state: SauteurState, key: int, pot: int, left: int) -> Fraction:
    unpopped = _mask(_unpopped(state))
    return _race_pop(unpopped, key, pot, left, state.config.number_faces, state.carried)


@lru_cache(maxsize=65536)
def _race_pop(
    unpopped: int, key: int, pot: int, left: int, faces: tuple[int | str, ...], carried: int = 0
) -> Fraction:
    """Expected squares banked this turn if ``key`` is popped now and play goes on
    by :func:`_race_value` (rule B). ``unpopped`` is a bit mask of keys (bit k = key k);
    ``carried``: numbers counted from earlier hidings of the turn (the box's new hiding)."""
    count = bin(unpopped).count("1")
    slot = Fraction(1, count)
    _, shares = _face_shares(faces)
    rest = unpopped & ~(1 << key)
    numbers_after = carried + len(KEYS) - count + 1
    total = Fraction(0)
    for value, share in shares.items():
        new_pot = min(pot + key * value, left)
        if numbers_after >= MAX_NUMBERS:
            worth = Fraction(new_pot)
        else:
            worth = _race_value(rest, new_pot, left, faces, carried)
        total += (1 - slot) * share * worth
    return total


@lru_cache(maxsize=65536)
def _race_value(
    unpopped: int, pot: int, left: int, faces: tuple[int | str, ...], carried: int = 0
) -> Fraction:
    """Best expected squares banked this turn with ``pot`` > 0 in hand (rule B)."""
    if pot >= left:
        return Fraction(left)
    best = Fraction(pot)
    for key in KEYS:
        if unpopped >> key & 1:
            best = max(best, _race_pop(unpopped, key, pot, left, faces, carried))
    return best


def clear_cache() -> None:
    """Forget the cached rule-B values (benchmarks use it to time a cold call)."""
    _race_pop.cache_clear()
    _race_value.cache_clear()


CLOSE = 0.8
"""Rule B: keys worth at least this share of the best key's squares are "close"."""

SMALL_KEYS = (1, 2)
"""Rule A: the keys a hiding's first pop is drawn from when the popper has a generator."""


def choose(state: SauteurState, rng: random.Random | None = None) -> dict[str, Any]:
    """The computer popper's next action (see the module docstring).

    With ``rng`` the popper has no fixed key order a hider could learn: rule A draws
    the hiding's first key among :data:`SMALL_KEYS`, rule B among the keys within
    :data:`CLOSE` of the best. Without it, the deterministic choice (ties to the
    highest key).

    Raises :class:`Refused` (``not-popper-turn``) when the game waits for a hiding,
    a face or nothing: the computer only plays the popper.
    """
    popper = state.popper
    if state.phase == ADVANCE:
        return {"type": "advance", "figure": nearest_figure(state), "by": popper}
    if state.phase != POP:
        waiting = {HIDING: "a hiding", FACE: "a face", OVER: "nothing: the match is over"}
        raise Refused(
            "the computer only plays the popper; the game waits for {waiting}",
            "not-popper-turn",
            waiting=waiting[state.phase],
        )
    if state.config.rule == "A":
        if state.popped:
            return {"type": "rehide", "by": popper}
        return {"type": "pop", "key": rng.choice(SMALL_KEYS) if rng else 1, "by": popper}
    return _choose_race(state, rng)


def nearest_figure(state: SauteurState) -> str:
    """Rule A: the name of the figure in play nearest the devil (the first one on a tie)."""
    status = state.status
    best = -1
    for index, position in enumerate(state.figures):
        if status[index] == IN_PLAY and (best < 0 or position < state.figures[best]):
            best = index
    return state.config.figure_names[best]


def _choose_race(state: SauteurState, rng: random.Random | None) -> dict[str, Any]:
    popper = state.popper
    left = _remaining(state)
    keys = _unpopped(state)
    values = {key: _pop_value(state, key, state.pot, left) for key in keys}
    best = max(keys, key=lambda k: (values[k], k))
    if (state.popped or state.carried) and values[best] <= min(state.pot, left):
        return {"type": "stop", "by": popper}
    if rng is not None:
        close = [key for key in keys if values[key] >= CLOSE * values[best]]
        best = rng.choice(close)
    return {"type": "pop", "key": best, "by": popper}
