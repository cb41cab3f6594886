"""Le Diable sauteur's setup options: :func:`parse_options` checks them (``bad-option``)
into a :class:`~controller.games.sauteur.state.SauteurConfig`; :func:`round_start` gives the
fields a round (rule A) or race (rule B) starts with."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from controller.games.base import Refused, Said

from .state import (
    DEFAULT_OPTIONS,
    DEFAULT_ROUNDS,
    DEVIL,
    HIDING,
    IN_PLAY,
    MAX_LENGTH,
    MAX_ROUNDS,
    PLAYERS,
    Face,
    SauteurConfig,
    other,
)


def _bad(option: str, why: str) -> Refused:
    return Refused("option {option!r}: {why}", "bad-option", option=option, why=why)


def _int_option(options: Mapping[str, object], name: str, low: int, high: int) -> int:
    value = options.get(name, DEFAULT_OPTIONS.get(name))
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise _bad(
            name,
            Said(
                "must be a whole number from {low} to {high}, got {value!r}",
                low=low,
                high=high,
                value=value,
            ),
        )
    return value


def _player_option(options: Mapping[str, object], name: str) -> str:
    value = options.get(name, DEFAULT_OPTIONS[name])
    if value not in PLAYERS:
        raise _bad(name, Said('must be "p1" or "p2", got {value!r}', value=value))
    return str(value)


def _faces_option(options: Mapping[str, object]) -> tuple[Face, ...]:
    faces = options.get("number_faces", DEFAULT_OPTIONS["number_faces"])
    if not isinstance(faces, list | tuple) or not 1 <= len(faces) <= 20:
        raise _bad("number_faces", Said("must be a list of 1 to 20 faces"))
    for face in faces:
        is_number = isinstance(face, int) and not isinstance(face, bool) and 1 <= face <= 99
        if not is_number and face != DEVIL:
            raise _bad(
                "number_faces", Said('faces are numbers 1-99 or "devil", got {face!r}', face=face)
            )
    if DEVIL in faces and all(face == DEVIL for face in faces):
        raise _bad("number_faces", Said("a number die needs at least one number face"))
    return tuple(faces)


def _figures_option(
    options: Mapping[str, object], track: int
) -> tuple[tuple[str, ...], tuple[int, ...]]:
    figures = options.get("figures", DEFAULT_OPTIONS["figures"])
    if not isinstance(figures, Mapping) or len(figures) != 3:
        raise _bad(
            "figures", Said('must map three figure names to start squares, e.g. {{"blue": 5}}')
        )
    for name, start in figures.items():
        if not isinstance(name, str) or not name.strip():
            raise _bad("figures", Said("figure names are non-empty text, got {name!r}", name=name))
        if not isinstance(start, int) or isinstance(start, bool) or not 0 <= start < track:
            raise _bad(
                "figures",
                Said(
                    "{name} must start on a square from 0 to {value} ('track_length' is {track})",
                    name=name,
                    value=track - 1,
                    track=track,
                ),
            )
    return tuple(figures), tuple(figures.values())


def parse_options(options: Mapping[str, object]) -> SauteurConfig:
    """Validate setup options; raises :class:`Refused` (code ``bad-option``) naming the option.

    An option set to ``None`` counts as not given. Options of the other rule are
    validated too, then unused.
    """
    if not isinstance(options, Mapping):
        raise Refused("setup options must be a JSON object", "bad-option")
    options = {name: value for name, value in options.items() if value is not None}
    unknown = sorted(
        str(name) for name in options if name not in DEFAULT_OPTIONS and name != "rounds"
    )
    if unknown:
        raise _bad(
            unknown[0],
            Said("unknown option; known ones: {names}, rounds", names=", ".join(DEFAULT_OPTIONS)),
        )
    rule = options.get("rule", "A")
    if rule not in ("A", "B"):
        raise _bad("rule", Said('must be "A" or "B", got {rule!r}', rule=rule))
    rounds = options.get("rounds", DEFAULT_ROUNDS[rule])
    if not isinstance(rounds, int) or isinstance(rounds, bool) or not 1 <= rounds <= MAX_ROUNDS:
        raise _bad(
            "rounds",
            Said(
                "must be a whole number from 1 to {limit}, got {rounds!r}",
                limit=MAX_ROUNDS,
                rounds=rounds,
            ),
        )
    if rule == "A" and rounds % 2:
        raise _bad(
            "rounds",
            Said("rule A plays an even number of rounds (roles swap), got {rounds}", rounds=rounds),
        )
    track = _int_option(options, "track_length", 2, MAX_LENGTH)
    names, starts = _figures_option(options, track)
    devil_start = _int_option(options, "devil_start", 0, track - 1)
    if devil_start >= min(starts):
        raise _bad(
            "devil_start",
            Said("the devil must start behind every figure (before {value})", value=min(starts)),
        )
    multiplier = _int_option(options, "devil_multiplier", 1, 20)
    circuit = _int_option(options, "circuit_length", 2, MAX_LENGTH)
    lap_starts = options.get("starts", {"p1": 0, "p2": circuit // 2})
    if not isinstance(lap_starts, Mapping) or set(lap_starts) != set(PLAYERS):
        raise _bad("starts", Said('must give both start squares, e.g. {{"p1": 0, "p2": 20}}'))
    for player in PLAYERS:
        square = lap_starts[player]
        if not isinstance(square, int) or isinstance(square, bool) or not 0 <= square < circuit:
            raise _bad(
                "starts",
                Said(
                    "{player} must start on a square from 0 to {value} ('circuit_length' is "
                    "{circuit})",
                    player=player,
                    value=circuit - 1,
                    circuit=circuit,
                ),
            )
    faces = _faces_option(options)
    values = sorted({face for face in faces if isinstance(face, int)})
    return SauteurConfig(
        rule=rule,
        rounds=rounds,
        track_length=track,
        figure_names=names,
        figure_starts=starts,
        devil_start=devil_start,
        devil_multiplier=multiplier,
        circuit_length=circuit,
        starts=(lap_starts["p1"], lap_starts["p2"]),
        number_faces=faces,
        first_hider=_player_option(options, "first_hider"),
        face_choices=(*values, DEVIL),
        number_values=frozenset(values),
    )


def round_start(config: SauteurConfig, round_no: int, scores: tuple[int, int]) -> dict[str, Any]:
    """Fields that reset at the start of a round (rule A) or race (rule B)."""
    hider = config.first_hider if round_no % 2 else other(config.first_hider)
    return {
        "round": round_no,
        "hider": hider,
        "popper": other(hider),
        "phase": HIDING,
        "figures": config.figure_starts,
        "status": (IN_PLAY,) * len(config.figure_starts),
        "devil": config.devil_start,
        "laps": (0, 0),
        "popped": (),
        "pending": 0,
        "pot": 0,
        "scores": scores,
        "hidings": 0,
        "carried": 0,
        "idle": 0,
    }
