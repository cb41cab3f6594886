"""Every game at once: a zip of ``diablotin-game/1`` files, or a CSV with one row per game
(``diablotin export --all``)."""

from __future__ import annotations

import csv
import json
import time
import zipfile
from pathlib import Path
from typing import TextIO

from .games.base import Refused
from .journal import Journal, effective_actions
from .stats import game_facts, seat_names

CSV_COLUMNS = ("id", "kind", "title", "players", "winner", "started", "finished", "actions")
"""``winner``: the winners' names joined with ``; `` (empty while in play, for a draw,
or for a game that no longer replays); times are ISO 8601, local time."""


def write_zip(journal: Journal, target: Path) -> int:
    """Write ``game-<id>.json`` for every game into the zip ``target``; returns how many."""
    games = journal.games()
    partial = target.with_name(target.name + ".partial")
    with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for game in games:
            text = json.dumps(journal.export(game.id), indent=1, ensure_ascii=False) + "\n"
            archive.writestr(f"game-{game.id}.json", text)
    partial.replace(target)
    return len(games)


def write_csv(journal: Journal, out: TextIO) -> None:
    """One row per game, :data:`CSV_COLUMNS`."""
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)
    for game in journal.games():
        entries = journal.entries(game.id)
        seats = seat_names(game)
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


def _iso(moment: float | None) -> str:
    return "" if moment is None else time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(moment))
