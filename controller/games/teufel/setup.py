"""Setup options, sled placement and starting from a position."""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

from ...text import TextRefused, clean_text
from ..base import Refused, Said
from . import flow
from .board import DEFAULT_VINES, DEVIL_FACE, SQUARES, distance, name, names, parse
from .cards import DEFAULT_COLOURS, DEVIL_PEGS, LETTERS, deck, parse_card
from .knowledge import initial
from .state import FACE_DOWN, Decision, Player, State

MIN_GAP = 4
"""Sleds start at least this many orthogonal steps apart (three free squares between)."""

OPTIONS = {"players", "colours", "vines", "first", "position"}
POSITION_KEYS = {"sleds", "face_up", "letters", "devils", "left", "empty"}


def setup(options: Mapping[str, Any]) -> State:
    """The state after setup; raises :class:`Refused` (``bad-option``) on bad options."""
    if not isinstance(options, Mapping):
        raise _bad(Said("setup options are a JSON object"))
    extra = set(options) - OPTIONS
    if extra:
        raise _bad(Said("unknown setup option(s): {names}", names=", ".join(sorted(extra))))
    colours = _colours(options.get("colours", list(DEFAULT_COLOURS)))
    players = _players(options.get("players"), colours)
    vines = _squares(options.get("vines", list(DEFAULT_VINES)), "vines")
    first = options.get("first", players[0])
    if first not in players:
        raise _bad(
            Said(
                "first must be one of the players ({names}), not {first!r}",
                names=", ".join(players),
                first=first,
            )
        )
    empty = set(vines) | {DEVIL_FACE}
    cards = tuple(None if square in empty else FACE_DOWN for square in range(SQUARES))
    state = State(
        colours=colours,
        vines=vines,
        players=tuple(Player(colour) for colour in players),
        first=players.index(first),
        cards=cards,
        knowledge=initial(deck(colours)),
        pending=Decision("place", players.index(first)),
    )
    if "position" in options:
        return _position(state, options["position"])
    return state


def placement_order(state: State) -> list[int]:
    """Seat order starting with the first player."""
    count = len(state.players)
    return [(state.first + offset) % count for offset in range(count)]


def placement_problem(state: State, player: int, square: int) -> Said | None:
    """Why ``player`` may not place their sled on ``square`` now (``None``: they may)."""
    where = name(square)
    if square == DEVIL_FACE:
        return Said("d4 is the devil face: no sled may start there")
    placed = [(i, p.square) for i, p in enumerate(state.players) if p.square is not None]
    for other, at in placed:
        gap = distance(square, at)
        if gap < MIN_GAP:
            return Said(
                "{square} is only {gap} steps from {other}'s sled on {there}: sleds start "
                "at least {n} steps apart (three free squares between)",
                f"{where} is only {gap} step{'s' if gap != 1 else ''} from "
                f"{state.players[other].colour}'s sled on {name(at)}: sleds start at least "
                f"{MIN_GAP} steps apart (three free squares between)",
                square=where,
                gap=gap,
                other=state.players[other].colour,
                there=name(at),
                n=MIN_GAP,
            )
    later = [i for i in placement_order(state) if state.players[i].square is None and i != player]
    taken = frozenset([at for _, at in placed] + [square])
    if later and not can_fit(taken, len(later)):
        return Said(
            "a sled on {square} would leave no room for {colours}: every sled needs {n} "
            "steps between it and the others",
            f"a sled on {where} would leave no room for {flow.colours(state, later)}: "
            f"every sled needs {MIN_GAP} steps between it and the others",
            square=where,
            colours=[state.players[i].colour for i in later],
            n=MIN_GAP,
        )
    return None


def place(state: State, player: int, square: int, log: list[str]) -> State:
    """Place a sled (already checked) and hand over to the next player or the first turn."""
    state = flow.set_player(state, player, square=square)
    log.append(
        Said(
            "{who} places their sled on {square}",
            who=state.players[player].colour,
            square=name(square),
        )
    )
    for nxt in placement_order(state):
        if state.players[nxt].square is None:
            return flow.wait(state, Decision("place", nxt))
    return flow.begin_turn(state, state.first, log)


_APART = tuple(
    frozenset(t for t in range(SQUARES) if t != DEVIL_FACE and distance(s, t) >= MIN_GAP)
    for s in range(SQUARES)
)
"""For each square, the squares (but d4) far enough from it for another sled."""


@functools.lru_cache(maxsize=8192)
def can_fit(taken: frozenset[int], count: int) -> bool:
    """Whether ``count`` more sleds can still be placed apart from ``taken`` and each other."""
    free = frozenset(s for s in range(SQUARES) if s != DEVIL_FACE)
    for square in taken:
        free &= _APART[square]
    return _spread(tuple(sorted(free)), count)


def _spread(candidates: tuple[int, ...], count: int) -> bool:
    if count == 0:
        return True
    for index, square in enumerate(candidates):
        if len(candidates) - index < count:
            return False
        apart = _APART[square]
        if _spread(tuple(t for t in candidates[index + 1 :] if t in apart), count - 1):
            return True
    return False


# ----------------------------------------------------------------- options


def _bad(reason: str) -> Refused:
    return Refused(reason, "bad-option")


def _colours(value: object) -> tuple[str, ...]:
    if not isinstance(value, (list, tuple)) or len(value) != len(DEFAULT_COLOURS):
        raise _bad(Said("colours: give exactly six colour names (there are letter cards for six)"))
    for colour in value:
        if (
            not isinstance(colour, str)
            or not colour
            or len(colour) > 20
            or "-" in colour
            or any(ch.isspace() for ch in colour)
            or colour in ("devil", "tower")
        ):
            raise _bad(
                Said(
                    "colours: {colour!r} is not a usable name (a short word without '-')",
                    colour=colour,
                )
            )
        try:
            clean_text(colour, field="colour", max_len=20)  # the one free-text policy
        except TextRefused as refused:
            raise _bad(Said("colours: {reason}", reason=refused.said)) from None
    if len(set(value)) != len(value):
        raise _bad(Said("colours: the six names must differ"))
    return tuple(value)


def _players(value: object, colours: tuple[str, ...]) -> tuple[str, ...]:
    if not isinstance(value, (list, tuple)) or not 2 <= len(value) <= 6:
        raise _bad(Said("players: give 2 to 6 colours in seat order (clockwise)"))
    for colour in value:
        if colour not in colours:
            raise _bad(
                Said(
                    "players: {colour!r} is not one of the colours ({names})",
                    colour=colour,
                    names=", ".join(colours),
                )
            )
    if len(set(value)) != len(value):
        raise _bad(Said("players: each player needs a different colour"))
    return tuple(value)


def _squares(value: object, what: str) -> tuple[int, ...]:
    if not isinstance(value, (list, tuple)) or len(value) != 6:
        raise _bad(Said("{what}: give exactly six squares (42 cards fill the other 42)", what=what))
    try:
        squares = tuple(parse(text) for text in value)
    except ValueError as error:
        raise _bad(Said("{what}: {error}", what=what, error=error)) from None
    if DEVIL_FACE in squares:
        raise _bad(Said("{what}: d4 is the devil face, it never holds a card anyway", what=what))
    if len(set(squares)) != len(squares):
        raise _bad(Said("{what}: the six squares must differ", what=what))
    return squares


PlayerOf = Callable[[object, str], int]
"""A position's colour to its player's index; ``what`` names the field in a refusal."""


def _player_of(index: Mapping[str, int], colour: object, what: str) -> int:
    if not isinstance(colour, str) or colour not in index:
        raise _bad(Said("position: {what}: {colour!r} is not playing", what=what, colour=colour))
    return index[colour]


def _position(state: State, value: object) -> State:
    """Start from a game already under way (see docs/rules-teufel.md, "Position")."""
    if not isinstance(value, Mapping):
        raise _bad(
            Said("position: a JSON object with sleds, face_up, letters, devils, left, empty")
        )
    extra = set(value) - POSITION_KEYS
    if extra:
        raise _bad(Said("position: unknown key(s): {names}", names=", ".join(sorted(extra))))
    player_of = functools.partial(_player_of, {p.colour: i for i, p in enumerate(state.players)})
    left = [player_of(c, "left") for c in _list(value.get("left", []), "left")]
    devils = {player_of(c, "devils") for c in _list(value.get("devils", []), "devils")}
    if len(devils) > DEVIL_PEGS or devils & set(left):
        raise _bad(Said("position: devils: at most four holders, none of them off the board"))
    letters = _position_letters(value.get("letters", {}), player_of, left)
    squares = _position_sleds(state, value.get("sleds", {}), player_of, left)
    _check_sleds(state, squares, letters, devils)
    cards, shown = _position_cards(state, value)
    players = tuple(
        Player(
            p.colour,
            square=squares.get(i),
            letters=letters.get(i, frozenset()),
            devil=i in devils,
            left=i in left,
        )
        for i, p in enumerate(state.players)
    )
    return flow.begin_turn(
        State(
            colours=state.colours,
            vines=state.vines,
            players=players,
            first=state.first,
            cards=tuple(cards),
            knowledge=initial(deck(state.colours) - shown),
            pending=Decision("over", None),
            exit_order=tuple(left),
        ),
        state.first,
        [],
    )


def _position_letters(
    raw: object, player_of: PlayerOf, left: list[int]
) -> dict[int, frozenset[str]]:
    """A position's letters by player; one who left holds all six."""
    letters: dict[int, frozenset[str]] = {i: frozenset(LETTERS) for i in left}
    if not isinstance(raw, Mapping):
        raise _bad(Said('position: letters: an object like {{"blue": ["A", "C"]}}'))
    for colour, held in raw.items():
        who = player_of(colour, "letters")
        items = _list(held, f"letters of {colour}")
        if (
            not all(isinstance(item, str) for item in items)
            or not set(items) <= set(LETTERS)
            or len(set(items)) != len(items)
        ):
            raise _bad(
                Said("position: letters of {colour}: distinct letters among A-F", colour=colour)
            )
        if who in left and set(items) != set(LETTERS):
            raise _bad(
                Said(
                    "position: {colour} has left the board, so holds all six letters", colour=colour
                )
            )
        letters[who] = frozenset(items)
    return letters


def _position_sleds(
    state: State, sleds: object, player_of: PlayerOf, left: list[int]
) -> dict[int, int]:
    """A position's sled squares by player: every player still on the board has one."""
    if not isinstance(sleds, Mapping):
        raise _bad(Said('position: sleds: an object like {{"blue": "c3"}}'))
    squares: dict[int, int] = {}
    for colour, text in sleds.items():
        who = player_of(colour, "sleds")
        if who in left:
            raise _bad(
                Said("position: {colour} has left the board and has no sled on it", colour=colour)
            )
        try:
            squares[who] = parse(text)
        except ValueError as error:
            raise _bad(
                Said("position: sled of {colour}: {error}", colour=colour, error=error)
            ) from None
    missing = [
        state.players[i].colour
        for i in range(len(state.players))
        if i not in squares and i not in left
    ]
    if missing:
        raise _bad(
            Said("position: sleds: place {names} (or list them as left)", names=", ".join(missing))
        )
    return squares


def _check_sleds(
    state: State, squares: dict[int, int], letters: dict[int, frozenset[str]], devils: set[int]
) -> None:
    """The sleds' squares against the rules: two a square, d4 closed while pegs are on it,
    two still on the board, and none whose player has already won."""
    crowded = [sq for sq, n in Counter(squares.values()).items() if n > 2]
    if crowded:
        raise _bad(
            Said("position: sleds: at most two sleds per square ({value})", value=names(crowded)[0])
        )
    if DEVIL_FACE in squares.values() and len(devils) < DEVIL_PEGS:
        raise _bad(Said("position: sleds: d4 is closed while devil pegs are on the face"))
    if len(squares) < 2:
        raise _bad(Said("position: at least two sleds must still be on the board"))
    for who in squares:
        if len(letters.get(who, ())) == len(LETTERS) and who not in devils:
            raise _bad(
                Said(
                    "position: {colour} holds all six letters and no devil, so has left the "
                    "board: list them under left",
                    colour=state.players[who].colour,
                )
            )


def _position_cards(
    state: State, value: Mapping[str, object]
) -> tuple[list[str | None], Counter[str]]:
    """A position's cards by square (``None`` empty, else face down or the card shown) and
    how many of each card are face up."""
    empty = (
        set(_squares(value["empty"], "position: empty")) if "empty" in value else set(state.vines)
    )
    empty.add(DEVIL_FACE)
    cards: list[str | None] = [None if s in empty else FACE_DOWN for s in range(SQUARES)]
    up = value.get("face_up", {})
    if not isinstance(up, Mapping):
        raise _bad(Said('position: face_up: an object like {{"c4": "blue-A"}}'))
    shown: Counter[str] = Counter()
    for text, card_text in up.items():
        try:
            square = parse(text)
            card = parse_card(card_text, state.colours)
        except ValueError as error:
            raise _bad(Said("position: face_up: {error}", error=error)) from None
        if cards[square] is None:
            raise _bad(Said("position: face_up: {text} holds no card", text=text))
        cards[square] = card
        shown[card] += 1
    full = deck(state.colours)
    too_many = [card for card, n in shown.items() if n > full[card]]
    if too_many:
        raise _bad(
            Said("position: face_up: more {too_many} cards than the game has", too_many=too_many[0])
        )
    if FACE_DOWN not in cards:
        raise _bad(Said("position: at least one card must still be face down"))
    return cards, shown


def _list(value: object, what: str) -> list[Any]:
    if not isinstance(value, (list, tuple)):
        raise _bad(Said("position: {what}: a list", what=what))
    return list(value)
