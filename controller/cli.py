"""The ``diablotin`` command.

Every subcommand reads the config (``--config PATH``, ``$DIABLOTIN_CONFIG``,
``/etc/diablotin/diablotin.toml``, or defaults). Exit codes: 0 fine, 1 a fault
or failure, 2 bad input (usage, an illegal record), 78 a bad config, 141 when the reader
of the output went away (``| head``: quietly, like other Unix tools).

Logs go to stderr with one timestamp each, or, when stderr is systemd's journal, with a
``<N>`` priority prefix and no timestamp (journald stamps the time; ``journalctl -p warning``
finds the warnings).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from . import __version__
from .config import (
    BACKENDS,
    CONFIG_ORDER,
    EXIT_CONFIG,
    Config,
    ConfigError,
    find_config_path,
    load_config,
    to_toml,
)
from .datadir import DataDirBusy
from .games.base import Said, said_of
from .journal import JournalError
from .logs import complain, configure_logging

BENCH_AREAS = (
    "attack_load",
    "sauteur",
    "solver",
    "tails",
    "teufel",
    "box",
    "serial",
    "web",
    "stages",
    "service",
    "journal",
    "stats",
    "camera",
    "exploit",
    "all",
)


def _box_arg(value: str) -> tuple[str, str | None]:
    backend, _, port = value.partition(":")
    if backend not in BACKENDS:
        raise argparse.ArgumentTypeError(
            say(Said("--box must be one of {names}", names=", ".join(BACKENDS)))
        )
    if port and backend != "serial":
        raise argparse.ArgumentTypeError(
            say(Said("only --box serial takes a port: serial:/dev/ttyACM0"))
        )
    return backend, port or None


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="diablotin",
        description="A Raspberry Pi games box: the Diable sauteur played by solenoids, "
        "Teufel Teufel and the tail-tile game kept by a referee's phone.",
    )
    parser.add_argument("--version", action="version", version=f"diablotin {__version__}")
    parser.add_argument("--config", metavar="PATH", help=f"the config file (TOML): {CONFIG_ORDER}")
    parser.add_argument(
        "--data-dir", metavar="DIR", help="where the journal lives (overrides the config)"
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def box_option(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--box",
            type=_box_arg,
            help="simulated | gpio | serial[:PORT] | virtual (default: the config's, simulated)",
        )

    p = sub.add_parser("serve", help="run the box and its dashboard")
    box_option(p)
    p.add_argument(
        "--host", help="address to listen on (default 0.0.0.0: every phone on the Wi-Fi)"
    )
    p.add_argument("--port", type=int, help="port (default 8000)")
    p.add_argument(
        "--new-journal",
        action="store_true",
        help="start a new, empty journal when the old one is missing, empty or damaged "
        "(a damaged one is kept beside it; a journal with games is never replaced)",
    )
    p.add_argument(
        "--camera",
        help="none | simulated | picamera2 | usb[:N]: the camera reading popped dice "
        "(default: the config's, none; needs diablotin[camera])",
    )

    p = sub.add_parser("selftest", help="pulse each coil once and show each sensor")
    box_option(p)

    p = sub.add_parser(
        "doctor", help="check pins, sensors, port, data dir and the Pico; exit 1 on a problem"
    )
    box_option(p)
    sub.add_parser("coils-off", help="force every coil off (systemd runs it after the service)")

    p = sub.add_parser("play", help="play a game in the terminal")
    p.add_argument(
        "game",
        choices=["sauteur", "tails"],
        help="sauteur: the Diable sauteur; tails: the tail-tile game (2 players)",
    )
    p.add_argument(
        "--rule",
        choices=["A", "B"],
        default=None,
        help="A: the chase, B: the race (default: the config's)",
    )
    p.add_argument("--computer", action="store_true", help="the computer pops for both players")
    p.add_argument(
        "--lang",
        choices=["en", "fr", "de"],
        default=None,
        help="the language it speaks (default: the environment's, LANG and friends, else en)",
    )
    p.add_argument(
        "--level",
        choices=["random", "heuristic", "computer", "optimal", "adaptive"],
        default=None,
        help="the computer's level (default adaptive)",
    )
    p.add_argument(
        "--seed", type=int, default=None, help="the simulated toy's seed (default: random)"
    )
    p.add_argument(
        "--names",
        nargs=2,
        metavar=("P1", "P2"),
        default=None,
        help="the two players' names (a roster player's name seats that player; "
        "default: p1 and p2)",
    )
    p.add_argument(
        "--journal",
        type=Path,
        default=None,
        help="keep the match in this journal file (e.g. the data dir's diablotin.sqlite3); "
        "default: a throwaway journal, so the dashboard never sees a half-played match",
    )

    p = sub.add_parser("sim", help="computer games through the rules engine")
    p.add_argument(
        "game",
        choices=["sauteur", "tails"],
        help="sauteur: the Diable sauteur; tails: the tail-tile game (2 players)",
    )
    p.add_argument("--rule", choices=["A", "B"], default="A", help="A: the chase, B: the race")
    p.add_argument("--games", type=int, default=1000, help="how many games (default 1000)")
    p.add_argument("--seed", type=int, default=1, help="random seed of the first game (default 1)")
    p.add_argument(
        "--p1",
        default=None,
        help="seat p1: random|heuristic|optimal|adaptive|counter|oracle (sauteur, default "
        "heuristic); "
        "greedy|lookahead|rollouts (tails, default rollouts)",
    )
    p.add_argument("--p2", default=None, help="seat p2 (sauteur default random, tails lookahead)")
    p.add_argument(
        "--rollouts", type=int, default=None, help="tails: rollout rounds a move (reproducible)"
    )
    p.add_argument(
        "--budget", type=float, default=0.2, help="tails: seconds a move without --rollouts"
    )
    hiders = ["uniform", "random", "equilibrium"]
    hiders += [f"{habit}-{k}" for habit in ("devil-on", "biased") for k in range(1, 5)]
    p.add_argument("--hider", choices=hiders, default="uniform", help="how both seats hide")
    p.add_argument("--hider1", choices=hiders, default=None, help="how seat p1 hides")
    p.add_argument("--hider2", choices=hiders, default=None, help="how seat p2 hides")
    p.add_argument("--json", action="store_true", help="print only the JSON contract")
    p.add_argument(
        "--workers", type=int, default=None, help="processes (default: one per core; 1: serial)"
    )

    sub.add_parser("games", help="list the games in the journal")

    p = sub.add_parser(
        "export",
        help="write a game to a JSON file; --raw: save every readable game of a damaged journal",
    )
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

    p = sub.add_parser("replay", help="rebuild a game from an export file and print its final view")
    p.add_argument("file", help="an exported game (JSON, diablotin-game/1)")
    p.add_argument(
        "--import", dest="store", action="store_true", help="also store it as a new game"
    )

    p = sub.add_parser("tails", help="the tail-tile game's tools")
    tails = p.add_subparsers(dest="tails_command", required=True, metavar="COMMAND")
    ts = tails.add_parser("score", help="score a game record (see docs/rules-tails.md)")
    ts.add_argument("file", help="the record file (its format: docs/rules-tails.md)")

    p = sub.add_parser(
        "faces",
        help="the camera's face reader: calibrate, read, evaluate (diablotin[camera])",
        prefix_chars="+",  # every option goes to controller.camera.cli's own parser
        add_help=False,
    )
    p.add_argument("rest", nargs=argparse.REMAINDER, help="diablotin faces --help lists them")

    p = sub.add_parser("bench", help="print benchmark numbers")
    p.add_argument("area", choices=BENCH_AREAS, help="what to measure (all: the one table)")
    p.add_argument(
        "rest", nargs=argparse.REMAINDER, help="the area's options (diablotin bench AREA --help)"
    )

    p = sub.add_parser(
        "reliability",
        help="kill -9, live load and box faults, end to end (--short: under a minute)",
        prefix_chars="+",  # every option goes to controller.reliability's own parser
        add_help=False,
    )
    p.add_argument("rest", nargs=argparse.REMAINDER, help="diablotin reliability --help lists them")

    p = sub.add_parser("firmware", help="the Pico co-processor's firmware")
    fw = p.add_subparsers(dest="firmware_command", required=True, metavar="COMMAND")
    fl = fw.add_parser("flash", help="install or update the firmware on the Pico (mpremote)")
    fl.add_argument("--port", default=None, help="serial port (default: the config's)")
    fl.add_argument("--dry-run", action="store_true", help="print the mpremote commands only")

    sub.add_parser(
        "config", help="print the effective configuration as TOML (a config file that reads back)"
    )

    p = sub.add_parser(
        "backup", help="copy the journal (safe while the service runs; SQLite's backup API)"
    )
    p.add_argument(
        "file",
        nargs="?",
        type=Path,
        default=None,
        help="where to write the copy (default: <data dir>/backups/diablotin-<time>.sqlite3)",
    )
    p = sub.add_parser(
        "restore", help="put a backup in place of the journal (stop the service first)"
    )
    p.add_argument("file", type=Path, help="a copy made by `diablotin backup` (or a daily one)")

    p = sub.add_parser("pin", help="show the referee PIN (--reset: a new one, every session ends)")
    p.add_argument(
        "--reset", action="store_true", help="make a new PIN; every referee is logged out at once"
    )
    return parser


def load(args: argparse.Namespace) -> Config:
    config = load_config(find_config_path(args.config))
    if args.data_dir:
        config.data_dir = Path(args.data_dir).resolve()
    box = getattr(args, "box", None)
    if box:
        config.box.backend, port = box
        if port:
            config.box.serial_port = port
    return config


EXIT_BROKEN_PIPE = 128 + signal.SIGPIPE
"""Exit status when the reader of stdout went away (``diablotin games | head -1``): what a
shell reports for a tool killed by SIGPIPE."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns its exit status. A closed stdout pipe ends it quietly."""
    try:
        try:
            return _main(argv)
        finally:
            sys.stdout.flush()  # a closed pipe shows here rather than at exit
    except BrokenPipeError:
        # What Python's docs advise: point stdout at /dev/null so the flush at exit is quiet.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE


ARGPARSE_MESSAGES = (
    "usage: ",
    "%(prog)s: error: %(message)s\n",
    "argument %(argument_name)s: %(message)s",
    "the following arguments are required: %s",
    "unrecognized arguments: %s",
    "invalid choice: %(value)r (choose from %(choices)s)",
    "invalid %(type)s value: %(value)r",
    "expected one argument",
    "ambiguous option: %(option)s could match %(matches)s",
    "not allowed with argument %s",
    "one of the arguments %s is required",
    "ignored explicit argument %r",
    "positional arguments",
    "options",
    "show this help message and exit",
)
"""argparse's own words that a user meets (its usage line, its errors), in the catalogs:
argparse asks the standard :mod:`gettext` for them (domain ``messages``), which reads the
language from the same variables as :func:`environment_language`. A Python whose argparse
words them differently shows them in English."""


def _argparse_speaks_the_catalogs() -> None:
    import gettext
    from importlib import resources

    with resources.as_file(resources.files("controller") / "locales") as folder:
        gettext.bindtextdomain("messages", str(folder))


def _main(argv: Sequence[str] | None) -> int:
    _argparse_speaks_the_catalogs()
    args = build_parser().parse_args(argv)
    configure_logging(args.verbose)
    try:
        config = load(args)
        if config.box.backend == "gpio" and config.box.pin_factory == "lgpio":
            from .checks import prepare_lgpio_workdir

            prepare_lgpio_workdir(config.data_dir)  # import lgpio makes a pipe in the cwd
        return int(COMMANDS[args.command](args, config) or 0)
    except ConfigError as exc:
        fail(Said("config error: {reason}", reason=said_of(exc)))
        return EXIT_CONFIG
    except (DataDirBusy, JournalError) as exc:  # e.g. `play` while the service runs
        fail(exc)
        return 1
    except KeyboardInterrupt:
        return 130


def cmd_serve(args: argparse.Namespace, config: Config) -> int:
    from .box.base import BoxError
    from .server import serve
    from .service import Service

    if args.host:
        config.server.host = args.host
    if args.port is not None:
        config.server.port = args.port
    if args.camera:
        config.camera.kind = args.camera
    if config.camera.kind != "none":
        from .camera import CameraMissing, require

        try:
            if config.camera.kind.partition(":")[0] not in ("simulated", "picamera2", "usb"):
                raise ConfigError(Said("--camera must be none, simulated, picamera2 or usb[:N]"))
            require()
        except CameraMissing as exc:
            fail(exc)
            return 2
    from .checks import preflight

    if not preflight(config):  # logs failures and warnings, with the fix
        return 1
    from .datadir import DataDirBusy
    from .journal import JournalError
    from .server import limit_malloc_arenas

    limit_malloc_arenas()  # before any thread starts: bounded memory (controller/server.py)
    service = Service(config, new_journal=args.new_journal)
    try:
        service.start()
    except (BoxError, DataDirBusy, JournalError) as exc:
        service.stop()
        fail(exc)
        return 1
    from .watchdog import Watchdog, systemd_ready

    # systemd's WatchdogSec (deploy/): pings while the worker loop and the coils are well
    watchdog = Watchdog.from_environment(service.post, service.box)
    if watchdog is not None:
        watchdog.start()
    try:
        serve(
            service,
            config.server.host,
            config.server.port,
            config.server.threads,
            ready=systemd_ready,
        )
    finally:
        if watchdog is not None:
            watchdog.stop()
    return 0


def cmd_selftest(args: argparse.Namespace, config: Config) -> int:
    from .box.base import BoxError
    from .box.factory import make_box
    from .box.selftest import run_selftest
    from .clock import RealClock

    clock = RealClock()
    try:
        box, toy = make_box(config.box, clock)
    except BoxError as exc:
        fail(exc)
        return 1
    try:
        return 0 if run_selftest(box, toy, sys.stdout) else 1
    finally:
        box.close()
        clock.close()


def cmd_doctor(args: argparse.Namespace, config: Config) -> int:
    from .checks import doctor

    return doctor(config)


def cmd_coils_off(args: argparse.Namespace, config: Config) -> int:
    from .coils_off import coils_off

    return coils_off(config)


def fail(what: str | BaseException) -> None:
    """Say why the command stops, on stderr (:func:`~controller.logs.complain`), in the
    environment's language: a ``Said`` (or an error raised with one) is made from the
    catalogs; other text is shown as it is."""
    complain(say(what if isinstance(what, str) else said_of(what)))


def tell(said: str) -> None:
    """A line about what the command did, on stderr (stdout carries its data)."""
    print(say(said), file=sys.stderr)


def say(said: str) -> str:
    """``said`` in the environment's language (:func:`environment_language`)."""
    from .web.i18n import said_text

    return said_text(environment_language(), said)


def environment_language(environ: Mapping[str, str] | None = None) -> str:
    """en, fr or de, as gettext reads the environment: LANGUAGE (a list), LC_ALL,
    LC_MESSAGES, then LANG; the C/POSIX locale means no preference. Else en."""
    env = os.environ if environ is None else environ
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        for value in env.get(name, "").split(":"):
            lang = value.split(".")[0].split("_")[0].split("@")[0].lower()
            if lang in ("en", "fr", "de"):
                return lang
    return "en"


def cmd_play(args: argparse.Namespace, config: Config) -> int:
    import tempfile

    from .games.sauteur.config import SauteurSection
    from .journal import Journal, JournalError
    from .terminal import play_sauteur

    if args.rule:
        config.section("sauteur", SauteurSection).rule = args.rule
    if args.seed is not None:
        config.box.seed = args.seed
    with tempfile.TemporaryDirectory(prefix="diablotin-play-") as scratch:
        try:
            journal = Journal(args.journal or Path(scratch) / "play.sqlite3")
        except JournalError as exc:
            fail(exc)
            return 1
        return play_sauteur(
            config,
            computer=args.computer,
            level=args.level,
            journal=journal,
            names=args.names,
            lang=args.lang or environment_language(),
        )


def cmd_sim(args: argparse.Namespace, config: Config) -> int:
    from .sim import STRATEGIES, format_report, report_json, seat_hiders, simulate_parallel
    from .sim_tails import ADVISORS, duel

    if args.games < 1:
        fail(Said("{option} must be at least 1", option="--games"))
        return 2
    if args.game == "tails":
        p1, p2 = args.p1 or "rollouts", args.p2 or "lookahead"
        if args.rollouts is not None and args.rollouts < 1:
            fail(Said("{option} must be at least 1", option="--rollouts"))
            return 2
        for name in (p1, p2):
            if name not in ADVISORS:
                fail(
                    Said("unknown advisor {name!r}: {known}", name=name, known=", ".join(ADVISORS))
                )
                return 2
        result = duel(args.games, args.seed, p1, p2, args.rollouts, args.budget).as_json()
        if args.json:
            print(json.dumps(result))
        else:
            for seat, name in (("p1", p1), ("p2", p2)):
                wins, margin = result["wins"][seat], result["mean_scores"][seat]
                per_move = result["seconds_per_move"][seat]
                print(
                    f"{seat} {name:10} wins {wins:6}  margin {margin:+.2f}  {per_move:.4f} s a move"
                )
            print(f"draws {result['draws']} of {result['games']} games (p1 moves first)")
        return 0
    poppers = {"p1": args.p1 or "heuristic", "p2": args.p2 or "random"}
    for name in poppers.values():
        if name not in STRATEGIES:
            known = ", ".join(STRATEGIES)
            fail(Said("unknown level {name!r} for the sauteur: {known}", name=name, known=known))
            return 2
    hiders = seat_hiders(args.hider, args.hider1, args.hider2)
    report = simulate_parallel(
        args.rule, args.games, args.seed, poppers, hiders, workers=args.workers
    )
    print(json.dumps(report_json(report)) if args.json else format_report(report))
    return 0


def _journal(config: Config) -> Any:
    from .journal import Journal
    from .service import JOURNAL_NAME

    return Journal(config.data_dir / JOURNAL_NAME)


def _open_journal(config: Config) -> Any:
    """The data dir's journal, or ``None`` once the reason it cannot be opened is printed."""
    from .journal import JournalError

    try:
        return _journal(config)
    except JournalError as exc:
        fail(exc)
        return None


def cmd_games(args: argparse.Namespace, config: Config) -> int:
    from . import importing
    from .games.base import Refused
    from .journal import RowDamaged

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
    from .web.i18n import kind_title

    return kind_title(environment_language(), kind)


def _print_table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> None:
    """Columns padded to their widest cell; the first column right-aligned (ids)."""
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        cells = [row[0].rjust(widths[0])]
        cells += [cell.ljust(width) for cell, width in zip(row[1:], widths[1:], strict=True)]
        print("  ".join(cells).rstrip())


def cmd_export(args: argparse.Namespace, config: Config) -> int:
    from .journal import GameNotFound

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
    from . import exports

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
    from .journal import JournalError, salvage
    from .service import JOURNAL_NAME

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


def cmd_replay(args: argparse.Namespace, config: Config) -> int:
    from . import importing
    from .games.base import Refused
    from .journal import JournalError

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


def cmd_tails(args: argparse.Namespace, config: Config) -> int:
    from .tails_cli import score_main

    return score_main(args.file)


def cmd_bench(args: argparse.Namespace, config: Config) -> int:
    import importlib

    module = importlib.import_module(f"controller.bench.{args.area}")
    return int(module.main(args.rest) or 0)


def cmd_faces(args: argparse.Namespace, config: Config) -> int:
    from .camera import CameraMissing, require

    try:
        require()
    except CameraMissing as exc:
        fail(exc)
        return 2
    from .camera.cli import main as faces_main
    from .camera.profile import DEFAULT_NAME

    return faces_main(args.rest, config.data_dir / DEFAULT_NAME)


def cmd_firmware(args: argparse.Namespace, config: Config) -> int:
    import subprocess

    from .box.pins import load_pin_map
    from .box.serial import flash_firmware

    try:
        flash_firmware(
            args.port or config.box.serial_port,
            load_pin_map(config.box.pins, "pico"),
            config.box.limits,
            dry_run=args.dry_run,
        )
    except (ValueError, OSError, RuntimeError, subprocess.SubprocessError) as exc:
        fail(Said("firmware flash failed: {reason}", reason=said_of(exc)))
        return 1
    return 0


def cmd_reliability(args: argparse.Namespace, config: Config) -> int:
    from .reliability import main as reliability_main

    return int(reliability_main(args.rest) or 0)


def cmd_config(args: argparse.Namespace, config: Config) -> int:
    """The effective configuration (file, defaults and command-line options together) as a
    config file: ``diablotin config > my.toml`` then ``--config my.toml`` gives the same."""
    print(f"# Diablotin's effective configuration; from: {config.source or 'the defaults'}")
    sys.stdout.write(to_toml(config))
    return 0


def cmd_backup(args: argparse.Namespace, config: Config) -> int:
    """Copy the journal with SQLite's online backup API (consistent while the service runs)."""
    from . import backup
    from .service import JOURNAL_NAME

    target = args.file or backup.default_backup_path(config.data_dir)
    try:
        backup.backup(config.data_dir / JOURNAL_NAME, target)
    except backup.BackupError as exc:
        fail(exc)
        return 1
    print(say(Said("backup written to {path}", path=target)))
    return 0


def cmd_restore(args: argparse.Namespace, config: Config) -> int:
    """Replace the journal with a checked copy; the journal before is kept as ``.bak``."""
    from . import backup
    from .datadir import DataDirBusy, DataDirLock
    from .service import JOURNAL_NAME

    try:
        lock = DataDirLock(config.data_dir)
    except DataDirBusy as exc:
        fail(
            Said(
                "{reason}: stop it first (`sudo systemctl stop diablotin`), then restore",
                reason=said_of(exc),
            )
        )
        return 1
    try:
        kept = backup.restore(args.file, config.data_dir / JOURNAL_NAME)
    except backup.BackupError as exc:
        fail(Said("{reason}; nothing was changed", reason=said_of(exc)))
        return 2
    finally:
        lock.release()
    if kept:
        print(
            say(
                Said(
                    "restored {path}; the journal before is kept as {kept}",
                    path=args.file,
                    kept=kept,
                )
            )
        )
    else:
        print(say(Said("restored {path}", path=args.file)))
    return 0


def cmd_pin(args: argparse.Namespace, config: Config) -> int:
    """Print the referee PIN; ``--reset`` writes a new one to the data dir. A running service
    reads the file again when it changes, so every referee session ends at once."""
    from .system import PinFile

    if config.server.referee_pin:
        if args.reset:
            fail(
                Said(
                    "the PIN is set in {source} ([server] referee_pin): change it there and "
                    "restart the service (`sudo systemctl restart diablotin`)",
                    source=config.source or Said("the config"),
                )
            )
            return 2
        source = say(Said("from {source}", source=config.source or Said("the config")))
        print(f"{config.server.referee_pin}  ({source})")
        return 0
    pins = PinFile(config.data_dir)
    try:
        pin = pins.reset() if args.reset else pins.current()
    except OSError as exc:
        template = (
            "cannot write {path}: {reason} (run it as the service's user: "
            "`sudo -u diablotin diablotin pin`)"
            if args.reset
            else "cannot read {path}: {reason} (run it as the service's user: "
            "`sudo -u diablotin diablotin pin`)"
        )
        fail(Said(template, path=pins.path, reason=exc.strerror or str(exc)))
        return 1
    print(pin)
    if args.reset:
        print(
            say(
                Said(
                    "new PIN: every referee session has ended (the running service uses it at once)"
                )
            )
        )
    return 0


COMMANDS = {
    "serve": cmd_serve,
    "selftest": cmd_selftest,
    "doctor": cmd_doctor,
    "coils-off": cmd_coils_off,
    "play": cmd_play,
    "sim": cmd_sim,
    "games": cmd_games,
    "export": cmd_export,
    "replay": cmd_replay,
    "tails": cmd_tails,
    "faces": cmd_faces,
    "bench": cmd_bench,
    "reliability": cmd_reliability,
    "firmware": cmd_firmware,
    "config": cmd_config,
    "pin": cmd_pin,
    "backup": cmd_backup,
    "restore": cmd_restore,
}


if __name__ == "__main__":
    sys.exit(main())
