"""Every game at once: a zip of ``diablotin-game/1`` files, or a CSV with one row per game
(``diablotin export --all``). A game one of whose rows cannot be read is left out, with a
note (:class:`Skipped`); the others are exported."""

from __future__ import annotations

import csv
import json
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from .games.base import Refused, Said, said_of
from .journal import Journal, RowDamaged, effective_actions
from .stats import game_facts, seat_names

CSV_COLUMNS = ("id", "kind", "title", "players", "winner", "started", "finished", "actions")
"""``winner``: the winners' names joined with ``; `` (empty while in play, for a draw,
or for a game that no longer replays); times are ISO 8601, local time."""


@dataclass(frozen=True)
class Skipped:
    """A game an export left out, and why (a row of it cannot be read)."""

    game_id: int
    why: str
    """A ``Said`` where the reason is one (translated where it is read)."""

    def note(self) -> Said:
        return Said(
            "game {game_id} is left out: {why} (`diablotin doctor`; `diablotin export --raw` "
            "saves what can be read)",
            game_id=self.game_id,
            why=self.why,
        )


SKIPPED_NAME = "skipped.txt"
"""In a zip that left games out: one line per game, why (in English)."""


def write_zip(journal: Journal, target: Path) -> list[Skipped]:
    """Write ``game-<id>.json`` for every game into the zip ``target``; returns the games
    left out (their rows cannot be read), also listed in :data:`SKIPPED_NAME` inside."""
    skipped = []
    partial = target.with_name(target.name + ".partial")
    with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for game in journal.games():
            try:
                data = journal.export(game.id)
            except RowDamaged as exc:
                skipped.append(Skipped(game.id, exc.what))
                continue
            text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
            archive.writestr(f"game-{game.id}.json", text)
        if skipped:
            archive.writestr(SKIPPED_NAME, "".join(f"{s.note()}\n" for s in skipped))
    partial.replace(target)
    return skipped


def write_csv(journal: Journal, out: TextIO) -> list[Skipped]:
    """One row per game, :data:`CSV_COLUMNS`; returns the games left out (a row of theirs
    cannot be read, or their setup no longer makes seats: a board file moved)."""
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)
    skipped = []
    for game in journal.games():
        try:
            if game.damaged is not None:
                raise RowDamaged(game.id, game.damaged)
            entries = journal.entries(game.id)
            seats = seat_names(game)
        except RowDamaged as exc:
            skipped.append(Skipped(game.id, exc.what))
            continue
        except Refused as exc:
            skipped.append(Skipped(game.id, said_of(exc)))
            continue
        winner = ""
        if game.finished is not None:
            try:
                winner = "; ".join(seats.get(w, w) for w in game_facts(game, entries).winners)
            except Refused:
                winner = ""  # no longer replays: `diablotin games` says why
        writer.writerow(
            (
                game.id,
                game.kind,
                game.title,
                "; ".join(seats.values()),
                winner,
                _iso(game.created),
                _iso(game.finished),
                len(effective_actions(entries)),
            )
        )
    return skipped


def _iso(moment: float | None) -> str:
    return "" if moment is None else time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(moment))
