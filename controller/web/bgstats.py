"""A finished game as a play for BG Stats, the app many board gamers log their plays in.

BG Stats documents, on its own page "Push plays to BG Stats from other apps or websites",
a link that opens its import dialog, pre-filled, on the phone:
``https://app.bgstatsapp.com/createPlay.html?data=<url-encoded JSON>`` (its example is in
tests/data/bgstats/; docs/dashboard.md lists the fields and where each is described). The
JSON is :func:`play`; the box sends nothing anywhere: the phone opens the link.

Only a finished game is a play (not one in play, not an abandoned one): :func:`play`
raises :class:`Refused` ``not-finished`` otherwise.
"""

from __future__ import annotations

import json
import time
from collections.abc import Collection, Mapping, Sequence
from urllib.parse import quote

from controller.games import registry
from controller.games.base import Refused
from controller.journal import Journal
from controller.stats import game_facts, game_scores

from .i18n import translate

CREATE_PLAY = "https://app.bgstatsapp.com/createPlay.html"
SOURCE_NAME = "Diablotin"
"""``sourceName``: the app the play comes from (not in BG Stats' example; apps that use the
link send it, see docs/dashboard.md)."""
PLAY_DATE = "%Y-%m-%d %H:%M:%S"
"""``playDate``: UTC, ``yyyy-MM-dd HH:mm:ss``."""


def play(journal: Journal, game_id: int, lang: str = "en") -> dict[str, object]:
    """The BG Stats play of finished game ``game_id``: source, date (its start, UTC),
    duration (whole minutes, first move to last), the game, and per seat its name, score
    (games with points), winner and start player. Unnamed seats are labelled in ``lang``.
    Raises :class:`Refused` ``no-game`` or ``not-finished`` (in play, or abandoned)."""
    from controller.journal import GameNotFound

    try:
        record = journal.game(game_id)
    except GameNotFound:
        raise Refused("there is no game {game_id}", "no-game", game_id=game_id) from None
    if record.finished is None or record.abandoned is not None:
        raise Refused("only a finished game can be logged in BG Stats", "not-finished")
    entries = journal.entries(game_id)
    facts = game_facts(record, entries)
    scores = game_scores(record, entries)
    stored = record.seats or [{} for _ in facts.seats]
    rank = ranks(list(facts.seats), facts.winners, scores)
    players = []
    for (key, _name), seat in zip(facts.seats.items(), stored, strict=False):
        person: dict[str, object] = {
            "name": _name_of(record.kind, key, seat, lang),
            "sourcePlayerId": _player_id(key, seat),
            "winner": key in facts.winners,
            "startPlayer": key == facts.first,
            "rank": rank[key],
        }
        if scores is not None:
            person["score"] = scores[key]
        players.append(person)
    started = min((e.at for e in entries), default=record.created)
    return {
        "sourceName": SOURCE_NAME,
        "sourcePlayId": f"diablotin-{int(record.created)}-{record.id}",
        "playDate": time.strftime(PLAY_DATE, time.gmtime(started)),
        "durationMin": round(facts.duration_s / 60),
        "game": {
            "name": registry.get(record.kind).title.english(),
            "sourceGameId": f"diablotin-{record.kind}",
            "highestWins": True,
            "noPoints": scores is None,
        },
        "players": players,
    }


def ranks(
    seats: Sequence[str], winners: Collection[str], scores: Mapping[str, float] | None
) -> dict[str, int]:
    """Seat -> BG Stats ``rank``: 1 for the winner(s); then by score, highest first (no
    points: all the others together); equal places share a rank, the next skips (1, 2, 2, 4)."""

    def place(seat: str) -> tuple[int, float]:
        if seat in winners:
            return (0, 0.0)
        return (1, -scores[seat] if scores is not None else 0.0)

    return {seat: 1 + sum(place(other) < place(seat) for other in seats) for seat in seats}


def link(play_data: dict[str, object]) -> str:
    """The documented link: ``createPlay.html?data=`` + the play as URL-encoded JSON."""
    text = json.dumps(play_data, ensure_ascii=False, separators=(",", ":"))
    return f"{CREATE_PLAY}?data={quote(text, safe='')}"


def _name_of(kind: str, key: str, seat: dict[str, object], lang: str) -> str:
    """The seat's person, or the seat's own label in ``lang``."""
    if seat.get("name"):
        return str(seat["name"])
    if seat.get("computer"):
        level = translate(lang, f"level.{seat['computer']}")
        return translate(lang, "seat.computer", level=level)
    stats = registry.get(kind).stats
    if stats is None or stats.seat_word is None:
        return key
    word, params = stats.seat_word(key)
    return translate(lang, word, **params)


def _player_id(key: str, seat: dict[str, object]) -> str:
    """BG Stats re-matches a player by ``sourcePlayerId``: the roster id, a guest's name,
    the computer's level, or the seat."""
    if seat.get("player") is not None:
        return f"player-{seat['player']}"
    if seat.get("name"):
        return f"guest-{str(seat['name']).casefold()}"
    if seat.get("computer"):
        return f"computer-{seat['computer']}"
    return f"seat-{key}"
