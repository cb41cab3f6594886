"""Le Diable sauteur's state: its constants, validated setup (:class:`SauteurConfig`),
the immutable :class:`SauteurState` and its history lines (:func:`history`). The engine is
:mod:`controller.games.sauteur.rules`, which re-exports every name here."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple, TypeAlias

from controller.games.base import words

PLAYERS = ("p1", "p2")
KEYS = (1, 2, 3, 4)
DEVIL = "devil"
IN_PLAY, ARRIVED, CAPTURED = "in-play", "arrived", "captured"
HIDING, POP, FACE, ADVANCE, OVER = "hiding", "pop", "face", "advance", "over"
MAX_NUMBERS = 3
"""Numbers a hiding can give: the fourth die is always the devil die."""

IDLE_LIMIT = 100
"""Table rule: after this many turns in a row with no figure moving the match is a draw
(rule B: every turn ending in a devil; rule A cannot stall, every pop moves a figure)."""

ROUND_POINTS = {3: 10, 2: 5, 1: 2, 0: 0}
"""Rule A: the popper's points for the number of figures arrived in a round."""

Face = int | str

DEFAULT_OPTIONS: dict[str, Any] = {
    "rule": "A",
    "track_length": 50,
    "figures": {"blue": 5, "orange": 10, "green": 15},
    "devil_start": 0,
    "devil_multiplier": 3,
    "circuit_length": 40,
    "starts": {"p1": 0, "p2": 20},
    "number_faces": [1, 2, 3, 4, 5, 6],
    "first_hider": "p1",
}
DEFAULT_ROUNDS = {"A": 2, "B": 1}
MAX_ROUNDS = 100
MAX_LENGTH = 1000


@dataclass(frozen=True)
class SauteurConfig:
    """Validated setup options, shared by every state of one game."""

    rule: str
    rounds: int
    track_length: int
    figure_names: tuple[str, ...]
    figure_starts: tuple[int, ...]
    devil_start: int
    devil_multiplier: int
    circuit_length: int
    starts: tuple[int, int]
    number_faces: tuple[Face, ...]
    first_hider: str
    face_choices: tuple[Face, ...]
    """Distinct faces a popped die can show: the number faces, then ``"devil"``."""
    number_values: frozenset[int]

    def options(self) -> dict[str, Any]:
        """The options as JSON, every default filled in (setup(options()) is this config)."""
        return {
            "rule": self.rule,
            "rounds": self.rounds,
            "track_length": self.track_length,
            "figures": dict(zip(self.figure_names, self.figure_starts, strict=True)),
            "devil_start": self.devil_start,
            "devil_multiplier": self.devil_multiplier,
            "circuit_length": self.circuit_length,
            "starts": {"p1": self.starts[0], "p2": self.starts[1]},
            "number_faces": list(self.number_faces),
            "first_hider": self.first_hider,
        }


class Pop(NamedTuple):
    """One line of history: a pop (``key``/``face``) or a stop (both ``None``).

    ``effect`` is the line's words in English; ``said`` the same as ``{"template",
    "params"}`` for a page to make them in its own language (the template is the gettext
    msgid; ``figure``/``figures`` and ``player`` parameters are names to translate)."""

    round: int
    hiding: int
    key: int | None
    face: Face | None
    effect: str
    said: dict[str, Any]


Entry: TypeAlias = tuple[int, int, int | None, Face | None, str, tuple[Any, ...]]
"""A history line as stored: (round, hiding, key, face, kind, detail); see :func:`_effect`."""
History: TypeAlias = tuple[Entry, "History"] | None


def entries(state: SauteurState) -> list[Entry]:
    """The match's history entries, oldest first (the state keeps them newest first)."""
    return entries_of(state.history)


def entries_of(link: History) -> list[Entry]:
    """The entries of the history ``link`` (newest first), oldest first."""
    found = []
    while link is not None:
        found.append(link[0])
        link = link[1]
    return found[::-1]


def history(state: SauteurState) -> list[Pop]:
    """The match's pops and stops, oldest first, each with its effect in words."""
    lines = []
    for entry in entries(state):
        template, params = _effect(entry[4], entry[5])
        english = template.format(**{k: _english(v) for k, v in params.items()})
        lines.append(Pop(*entry[:4], english, {"template": template, "params": params}))
    return lines


def _english(value: Any) -> Any:
    return ", ".join(value) if isinstance(value, list) else value


def _effect(kind: str, detail: tuple[Any, ...]) -> tuple[str, dict[str, Any]]:
    """The words for a stored history line: (template, parameters), formatted only when a
    view asks. Each template is marked with :func:`words` for the catalogs."""
    if kind == "move":
        name, squares, position, arrived = detail
        params = {"figure": name, "n": squares, "square": position}
        if arrived:
            return words("{figure} +{n} to {square}, arrived"), params
        return words("{figure} +{n} to {square}"), params
    if kind == "devil":
        squares, position, caught = detail
        if caught:
            return words("devil +{n} to {square}, captured {figures}"), {
                "n": squares,
                "square": position,
                "figures": list(caught),
            }
        return words("devil +{n} to {square}"), {"n": squares, "square": position}
    if kind == "pot":
        return words("pot {pot}"), {"pot": detail[0]}
    if kind == "lost":
        if detail[0]:
            return words("pot of {pot} lost"), {"pot": detail[0]}
        return words("devil at once: no move"), {}
    if kind == "idle":
        return words("{n} turns in a row without a figure moving: the match is a draw"), {
            "n": detail[0]
        }
    if kind == "new-hiding":
        if detail[0]:
            return words("the box's sensors saw other dice: a new hiding, the pot of {pot} kept"), {
                "pot": detail[0]
            }
        return words("the box's sensors saw other dice: a new hiding"), {}
    why, player, pot, done = detail
    params = {"player": player, "pot": pot}
    if why == "stop":
        if done:
            return words("{player} stops: {player} +{pot}, lap complete"), params
        return words("{player} stops: {player} +{pot}"), params
    if done:
        return words("pot {pot}, third number: {player} +{pot}, lap complete"), params
    return words("pot {pot}, third number: {player} +{pot}"), params


class RoundResult(NamedTuple):
    """Rule A: ``popper`` brought ``arrived`` figures home for ``points``.
    Rule B: ``popper`` is the race winner, ``arrived`` 1 and ``points`` 1."""

    round: int
    popper: str
    arrived: int
    points: int


class SauteurState(NamedTuple):
    """One moment of a match. Fields for the other rule keep their start values.

    ``phase``: ``hiding`` (waiting for the dice to be hidden), ``pop`` (the popper
    pops, or rehides / stops once a number came out), ``face`` (waiting for what the
    die from ``popped[-1]`` shows), ``advance`` (rule A: which figure takes
    ``pending`` squares), ``over``.
    """

    config: SauteurConfig
    round: int
    hider: str
    popper: str
    """Always the player who is not ``hider`` (kept as a field: it is read on every move)."""
    phase: str
    figures: tuple[int, ...]
    status: tuple[str, ...]
    devil: int
    laps: tuple[int, int]
    """Rule B: squares each player's figure has gone round (p1, p2), capped at the lap."""
    popped: tuple[int, ...]
    pending: int
    pot: int
    scores: tuple[int, int]
    """Rule A: points totals (p1, p2). Rule B: races won."""
    hidings: int
    history: History
    """Newest first, as nested pairs ``(entry, older)`` ending in ``None`` (appending
    is then O(1)); :func:`history` gives the readable list, oldest first."""
    results: tuple[RoundResult, ...]
    winner: str | None
    """``"p1"``, ``"p2"``, ``"draw"``, or ``None`` while the match goes on."""
    carried: int = 0
    """Rule B: numbers that came out in earlier hidings of this turn. Only the box's new
    hiding (``new-hiding``: the sensors disagreed with the game) keeps them; the turn
    still ends at the third number."""
    idle: int = 0
    """Turns in a row that ended with no figure moving (rule B: a devil); the match is
    drawn at :data:`IDLE_LIMIT`."""

    @property
    def numbers(self) -> int:
        """Numbers that came out in this hiding (a die waiting for its face excluded)."""
        return len(self.popped) - 1 if self.phase == FACE else len(self.popped)

    @property
    def counted(self) -> int:
        """Numbers toward the turn's three: this hiding's, and rule B's carried ones."""
        return self.carried + self.numbers


def other(player: str) -> str:
    return "p2" if player == "p1" else "p1"
