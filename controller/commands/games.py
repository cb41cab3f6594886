"""The journal's games: ``diablotin games``, ``export`` and ``replay``."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from ..config import Config
from ..console import environment_language, fail, say, tell
from ..sentences import Said, said_of
from .base import Command

if TYPE_CHECKING:
    from ..journal import Journal


def _journal(config: Config) -> Journal:
    from ..journal import Journal
    from ..service import JOURNAL_NAME

    return Journal(config.data_dir / JOURNAL_NAME)


def _open_journal(config: Config) -> Journal | None:
    """The data dir's journal, or ``None`` once the reason it cannot be opened is printed."""
    from ..journal import JournalError

    try:
        return _journal(config)
    except JournalError as exc:
        fail(exc)
        return None


def cmd_games(args: argparse.Namespace, config: Config) -> int:
    from .. import importing
    from ..journal import RowDamaged
    from ..sentences import Refused

    journal = _open_journal(config)
    if journal is None:
        return 1
    try:
        rows: list[tuple[str, ...]] = []
        for game in journal.games():
            state = say(
                Said("abandoned")
                if game.abandoned
                else Said("finished")
                if game.finished
                else Said("in progress")
            )
            damage = ""
            try:
                importing.replay_export(importing.check(journal.export(game.id)), config)
            except Refused as exc:  # RowDamaged too: a row of it cannot be read
                state = say(Said("damaged"))
                reason = exc.what if isinstance(exc, RowDamaged) else said_of(exc)
                why = _one_line(say(reason), 120)
                damage = "  " + say(Said("(damaged: {reason})", reason=why))
            started = time.strftime("%Y-%m-%d %H:%M", time.localtime(game.created))
            named = [s["name"] or s["computer"] for s in game.seats or []]
            players = ", ".join(n for n in named if n) or "-"
            title = game.title + damage
            rows.append((str(game.id), _kind_title(game.kind), state, started, players, title))
        if not rows:
            print(say(Said("no games yet: start one on the dashboard (diablotin serve)")))
        else:
            header = (
                Said("id"),
                Said("game"),
                Said("state"),
                Said("started"),
                Said("players"),
                Said("title"),
            )
            _print_table(tuple(map(say, header)), rows)
    finally:
        journal.close()
    return 0


def _kind_title(kind: str) -> str:
    """A game kind's title in the environment's language (the kind itself for one this
    install does not know)."""
    from ..web.i18n import kind_title

    return kind_title(environment_language(), kind)


def _print_table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> None:
    """Columns padded to their widest cell; the first column right-aligned (ids)."""
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        cells = [row[0].rjust(widths[0])]
        cells += [cell.ljust(width) for cell, width in zip(row[1:], widths[1:], strict=True)]
        print("  ".join(cells).rstrip())


def export_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("game_id", type=int, nargs="?", help="the game's number (`diablotin games`)")
    p.add_argument("-o", "--output", help="file (default: stdout); with --raw a folder")
    p.add_argument(
        "--raw",
        action="store_true",
        help="read the journal file as it is, even damaged, and write game-<id>.json per "
        "readable game into the -o folder (each for `replay FILE --import`)",
    )
    p.add_argument(
        "--all",
        action="store_true",
        help="every game: a zip of diablotin-game/1 files (-o FILE.zip), or with --format csv "
        "one row per game (id, kind, title, players, winner, started, finished, actions)",
    )
    p.add_argument(
        "--format", choices=["zip", "csv"], default="zip", help="with --all: zip (default) or csv"
    )


def cmd_export(args: argparse.Namespace, config: Config) -> int:
    from ..journal import GameNotFound

    if args.raw:
        return _export_raw(args, config)
    if args.all:
        return _export_all(args, config)
    if args.game_id is None:
        fail(Said("export needs a game id (or --raw -o FOLDER)"))
        return 2
    journal = _open_journal(config)
    if journal is None:
        return 1
    try:
        data = journal.export(args.game_id)
    except GameNotFound as exc:
        fail(exc)
        return 2
    finally:
        journal.close()
    text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
        tell(Said("game {game_id} written to {path}", game_id=args.game_id, path=args.output))
    else:
        sys.stdout.write(text)
    return 0


def _export_all(args: argparse.Namespace, config: Config) -> int:
    """``export --all``: every game as ``game-<id>.json`` in a zip (``-o FILE.zip``), or one
    CSV row per game (``--format csv``; stdout without ``-o``). A game whose rows cannot be
    read is left out with a note on stderr (the rest is exported: exit 0). Exit 1 if the
    journal cannot be read, 2 for bad arguments."""
    from .. import exports

    if args.game_id is not None or (args.format == "zip" and not args.output):
        fail(Said("export --all takes no game id; a zip needs -o FILE.zip"))
        return 2
    journal = _open_journal(config)
    if journal is None:
        return 1
    try:
        if args.format == "zip":
            skipped = exports.write_zip(journal, Path(args.output))
            count = len(journal.games()) - len(skipped)
            tell(Said("{n} game(s) written to {path}", n=count, path=args.output))
        elif args.output:
            with open(args.output, "w", encoding="utf-8", newline="") as file:
                skipped = exports.write_csv(journal, file)
        else:
            skipped = exports.write_csv(journal, sys.stdout)
    finally:
        journal.close()
    for left_out in skipped:
        tell(left_out.note())
    return 0


def _export_raw(args: argparse.Namespace, config: Config) -> int:
    """``export --raw -o FOLDER``: every readable game of the journal file, even a damaged
    one, as ``game-<id>.json``; what could not be read is listed. Exit 1 if anything was
    lost, 2 for bad arguments."""
    from ..journal import JournalError, salvage
    from ..service import JOURNAL_NAME

    if not args.output or args.game_id is not None:
        fail(Said("export --raw takes no game id and needs -o FOLDER"))
        return 2
    folder = Path(args.output)
    try:
        saved = salvage(config.data_dir / JOURNAL_NAME)
        folder.mkdir(parents=True, exist_ok=True)
        for game_id, data in saved.games.items():
            text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
            (folder / f"game-{game_id}.json").write_text(text, encoding="utf-8")
    except (JournalError, OSError) as exc:
        fail(exc)
        return 1
    for problem in saved.problems:
        fail(problem)
    tell(Said("{n} game(s) written to {path}", n=len(saved.games), path=folder))
    return 1 if saved.problems else 0


def replay_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="an exported game (JSON, diablotin-game/1)")
    p.add_argument(
        "--import", dest="store", action="store_true", help="also store it as a new game"
    )


def cmd_replay(args: argparse.Namespace, config: Config) -> int:
    from .. import importing
    from ..journal import JournalError
    from ..sentences import Refused

    try:
        data = importing.read_export(args.file)
        rules, state = importing.replay_export(data, config)
    except Refused as exc:
        fail(_one_line(f"{args.file}: {say(said_of(exc))}"))
        return 2
    print(json.dumps(rules.view(state, "public"), indent=1, ensure_ascii=False))
    if args.store:
        try:
            journal = _journal(config)
            try:
                game_id = importing.store(journal, data, config)
            finally:
                journal.close()
        except JournalError as exc:
            fail(_one_line(say(said_of(exc)), 2000))
            return 1
        tell(Said("stored as game {game_id}", game_id=game_id))
    return 0


def _one_line(text: str, limit: int = 300) -> str:
    """``text`` on one line, cut at ``limit`` characters (a hostile file's reasons)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


GAMES = Command("games", "list the games in the journal", cmd_games)
EXPORT = Command(
    "export",
    "write a game to a JSON file; --raw: save every readable game of a damaged journal",
    cmd_export,
    export_arguments,
)
REPLAY = Command(
    "replay",
    "rebuild a game from an export file and print its final view",
    cmd_replay,
    replay_arguments,
)
