"""The referee's roster, and who sits in each seat of a game.

A roster player is a name (1-24 characters, the free-text policy of
:mod:`controller.text`; emoji welcome) and a mark: a colour ``#rrggbb`` or one emoji.
Names are unique, case aside.

A game's seats are kept with the game (the journal's per-game setting ``seats``), one
per seat key of its kind (:attr:`GameKind.seat_keys`: ``p1``/``p2``, Teufel's colours,
the tail-tile game's ``0``..``n-1``). A seat is a roster player, a guest (a name typed
for this game only) or, where the game has a computer player, the computer at a level.
The name is kept in the seat as it was when the game started, so a game's history
reads the same after the roster changes.

Every failure is a :class:`Refused` with a code and its parameters (nothing changed).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from .games import registry
from .games.base import Refused
from .journal import DuplicateName, Journal, Player
from .text import NAME_MAX, TextRefused, _is_emoji, clean_text, looks_alike

SEATS_SETTING = "seats"
"""The journal's per-game setting that holds a game's seats."""
LEVELS = ("random", "heuristic", "optimal", "adaptive")
"""The computer's levels (the Diable sauteur's; ``computer`` is ``heuristic``)."""
_COLOUR = re.compile(r"#[0-9a-fA-F]{6}")
MARK_MAX = 8
"""An emoji mark's most code points (a flag, a skin tone or a ZWJ family)."""


def _refused(exc: TextRefused) -> Refused:
    return Refused(exc.said, exc.code)


def clean_name(value: object) -> str:
    """A person's name under the free-text policy, 1-24 characters; raises :class:`Refused`."""
    try:
        return clean_text(value, field="name", max_len=NAME_MAX)
    except TextRefused as exc:
        raise _refused(exc) from None


def clean_mark(value: object) -> str:
    """A colour ``#rrggbb`` (lower-cased) or one emoji; raises :class:`Refused` ``bad-mark``."""
    if isinstance(value, str):
        mark = value.strip()
        if _COLOUR.fullmatch(mark):
            return mark.lower()
        if 0 < len(mark) <= MARK_MAX and all(_is_emoji(ch) or ch == "\u200d" for ch in mark):
            return mark
    raise Refused(
        "a mark is a colour like #d94f30 or one emoji, not {mark!r}",
        "bad-mark",
        mark=str(value)[:20],
    )


def save_player(journal: Journal, data: Mapping[str, object]) -> Player:
    """Add a roster player from ``{"name", "mark"}``, or change one with ``"id"``; raises
    :class:`Refused` (``text-*``, ``bad-mark``, ``name-taken``, ``name-confusable``: it looks
    like another player's name, :func:`controller.text.looks_alike`; ``bad-player``: an
    ``id`` that is not a whole number; ``no-player``)."""
    if not isinstance(data, Mapping):
        raise Refused("a player is a JSON object with a name and a mark", "bad-player")
    unknown = set(data) - {"id", "name", "mark"}
    if unknown:
        raise Refused("a player has no field {field!r}", "bad-player", field=sorted(unknown)[0])
    name = clean_name(data.get("name"))
    mark = clean_mark(data.get("mark", "#6b7280"))
    given = data.get("id")
    if "id" in data and (not isinstance(given, int) or isinstance(given, bool)):
        raise Refused(
            "a player's id is a whole number (leave it out to add a player)", "bad-player"
        )
    player_id = given if isinstance(given, int) else None
    if player_id is not None and not journal.player(player_id):
        raise Refused("there is no player {id}", "no-player", id=str(player_id)[:20])
    for other in journal.players():
        if other.id != player_id and looks_alike(name, other.name):
            if other.name.casefold() == name.casefold():  # SQLite's NOCASE folds ASCII only
                raise Refused("there is already a player called {name}", "name-taken", name=name)
            raise Refused(
                "{name} looks like {other}, already in the roster: choose a name that reads "
                "differently",
                "name-confusable",
                name=name,
                other=other.name,
            )
    try:
        saved = journal.save_player(name, mark, player_id)
    except DuplicateName:
        raise Refused("there is already a player called {name}", "name-taken", name=name) from None
    player = journal.player(saved)
    assert player is not None
    return player


def player_dict(player: Player) -> dict[str, object]:
    return {"id": player.id, "name": player.name, "mark": player.mark}


def resolve_seats(
    journal: Journal, kind: str, options: Mapping[str, object], seats: object
) -> list[dict[str, object]]:
    """The seats of a new game of ``kind`` from what the referee chose: a list with one
    entry per seat key, each ``{"player": id}``, ``{"guest": name}``, ``{"computer":
    level}`` or ``null`` (nobody named: the page shows the seat's own label). Returns
    ``[{"key", "name", "mark", "player", "computer"}]``; raises :class:`Refused`
    ``bad-seats`` (wrong shape or count, a computer where the game has none, a player
    twice), ``no-player`` or a name's ``text-*``."""
    game = registry.get(kind)
    keys = game.seat_keys(options)
    if seats is None:
        seats = [None] * len(keys)
    if not isinstance(seats, Sequence) or isinstance(seats, str) or len(seats) != len(keys):
        raise Refused(
            "this game has {count} seats: give one entry for each", "bad-seats", count=len(keys)
        )
    out: list[dict[str, object]] = []
    for key, seat in zip(keys, seats, strict=True):
        out.append({"key": key} | _one_seat(journal, game, seat))
    taken = [seat["player"] for seat in out if seat["player"] is not None]
    if len(taken) != len(set(taken)):
        raise Refused("a player can sit in one seat only", "bad-seats")
    names = [str(seat["name"]) for seat in out if seat["name"]]
    folded = [name.casefold() for name in names]
    for name in names:  # a guest "Élodie" beside the roster's Élodie: one name, two people
        if folded.count(name.casefold()) > 1:
            raise Refused(
                "two seats are named {name}: give the guest another name, or choose {name} "
                "from the players",
                "bad-seats",
                name=name,
            )
    return out


def _one_seat(journal: Journal, game: registry.GameKind, seat: object) -> dict[str, object]:
    empty: dict[str, object] = {"name": None, "mark": None, "player": None, "computer": None}
    if seat is None:
        return empty
    if not isinstance(seat, Mapping) or len(seat) != 1:
        raise Refused(
            'a seat is {{"player": id}}, {{"guest": name}} or {{"computer": level}}',
            "bad-seats",
        )
    ((how, value),) = seat.items()
    if how == "player":
        player = (
            journal.player(value)
            if isinstance(value, int) and not isinstance(value, bool)
            else None
        )
        if player is None:
            raise Refused("there is no player {id}", "no-player", id=str(value)[:20])
        return empty | {"name": player.name, "mark": player.mark, "player": player.id}
    if how == "guest":
        return empty | {"name": clean_name(value)}
    if how == "computer" and game.computer:
        level = "heuristic" if value == "computer" else value
        if level not in LEVELS:
            raise Refused(
                "the computer plays at one of {levels}, not {level!r}",
                "bad-seats",
                levels=", ".join(LEVELS),
                level=str(value)[:20],
            )
        return empty | {"computer": level}
    raise Refused(
        'a seat is {{"player": id}}, {{"guest": name}} or {{"computer": level}}', "bad-seats"
    )


def seat_names(seats: Sequence[Mapping[str, object]]) -> dict[str, str]:
    """``{seat key: name}`` for the seats that have a name."""
    return {str(seat["key"]): str(seat["name"]) for seat in seats if seat.get("name")}
