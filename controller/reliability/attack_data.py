"""Part 4, ``attack``, server G: the data, text and config attacks of issue 26 (items 6-13).

One ``diablotin serve`` (simulated box, temporary data dir) whose sessions file cannot be
written; hostile free text and look-alike roster names; thousands of renames (the WAL must be
checkpointed); then the server killed with SIGKILL and its write-ahead log deleted (it must
refuse to start, with the way out); then rows damaged inside a sound file (it must start,
quarantine those games, export the others, and ``games``/``doctor`` must say so). Bad configs
and ``replay FIFO --import`` run beside it. docs/reliability.md, "Attacks", has the table.
"""

from __future__ import annotations

import http.client
import os
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..games import registry
from .attack_plan import SERVER_G
from .common import PIN, HttpError, Log, ServeProcess, free_port
from .live import walk_body
from .loopback import log_in, request

if TYPE_CHECKING:
    from .attack_plan import Attack, AttackPlan

SESSION_SOURCE = "127.0.0.220"
TEXT_SOURCE = "127.0.0.221"
CLI_TIMEOUT_S = 20.0
"""A CLI command of these attacks that has not ended within this fails (it hung)."""
WAL_BYTES_LIMIT = 8 * 1024 * 1024
"""After the renames the WAL must be below this: 200 renames between checkpoints fill ~3.4 MB;
before the fix 3,000 renames left 12.4 MB, growing."""

HOSTILE_TITLES = (
    "\u061c",
    "a\u2028b",
    "a\u2029b",
    "\u3164",
    "\u115f",
    "\u1160",
    "\uffa0",
    "\u2800",
    "a\u206ab",
    "a\u206fb",
    "a\ufff9b",
    "a\ufffbb",
    "a\U000e0041\U000e0042b",
)
"""Titles that look empty or hide characters (issue 26, item 11): each must be refused."""
LOOK_ALIKES = ("Zoé\u3164", "Zo\u061cé", "ZOÉ", "Zое́")
"""Roster names that look like "Zoé" (Hangul filler, Arabic letter mark, case, Cyrillic)."""


def run_data(plan: AttackPlan, workdir: Path, seed: int, log: Log) -> list[Attack]:
    """Server D's attacks, in the order of :data:`.attack.DATA_ATTACKS`."""
    from .attack_plan import Attack

    server = ServeProcess(workdir / "attack-data", seed=seed)
    server.data.mkdir(parents=True, exist_ok=True)
    (server.data / "web-sessions.tmp").mkdir()  # web-sessions.json can never be written
    attacks: list[Attack] = []
    try:
        server.start()
        attacks.append(_sessions(server.port))
        attacks.append(_free_text(server))
        log(f"  {plan.renames} renames")
        attacks.append(_renames(server, plan.renames))
        _wal_deleted(server, attacks)
        attacks += _damaged_rows(server)
    except (OSError, http.client.HTTPException, RuntimeError, HttpError) as exc:
        log(f"  server G stopped: {type(exc).__name__}: {exc}")
        done = {a.name for a in attacks}
        reason = f"not run: {type(exc).__name__}: {exc}"
        attacks += [Attack(n, problems=[reason]) for n in SERVER_G if n not in done]
    finally:
        if server.proc is not None and server.proc.poll() is None:
            server.stop()
    attacks += _configs(workdir / "attack-data-configs", seed)
    attacks.append(_fifo(workdir / "attack-fifo"))
    return attacks


def _sessions(port: int) -> Attack:
    from .attack_plan import Attack, new_walk_game

    attack = Attack("sessions: web-sessions.json unwritable")
    referee, answer = log_in(port, SESSION_SOURCE)
    if referee is None:
        attack.figures = f"login {answer.status}"
        attack.problems.append(f"the login answered {answer.status}")
        return attack
    game = new_walk_game(port, referee, SESSION_SOURCE).status
    out = request(port, "DELETE", "/api/session", headers=referee.headers, source=SESSION_SOURCE)
    after = new_walk_game(port, referee, SESSION_SOURCE).status
    attack.figures = f"login {answer.status}, a game {game}, logout {out.status}, then {after}"
    if game != 201 or out.status != 200 or after not in (401, 403):
        attack.problems.append("the session did not work as it does with a writable disk")
    return attack


def _free_text(server: ServeProcess) -> Attack:
    from .attack_plan import Attack

    attack = Attack("free text: invisible, look-alike names")
    refused = 0
    for title in HOSTILE_TITLES:
        answer = request(
            server.port,
            "POST",
            "/api/games",
            walk_body(2) | {"title": title},
            headers={"X-Referee-Pin": server.api.pin},
            source=TEXT_SOURCE,
        )
        if 400 <= answer.status < 500:
            refused += 1
        else:
            attack.problems.append(f"title {title!a} answered {answer.status}")
    first = request(
        server.port,
        "POST",
        "/api/players",
        {"name": "Zoé", "mark": "#ff0000"},
        headers={"X-Referee-Pin": server.api.pin},
        source=TEXT_SOURCE,
    ).status
    if first != 201:
        attack.problems.append(f"the first Zoé answered {first}")
    for name in LOOK_ALIKES:
        answer = request(
            server.port,
            "POST",
            "/api/players",
            {"name": name, "mark": "#00ff00"},
            headers={"X-Referee-Pin": server.api.pin},
            source=TEXT_SOURCE,
        )
        if 400 <= answer.status < 500:
            refused += 1
        else:
            attack.problems.append(f"player {name!a} answered {answer.status}")
    total = len(HOSTILE_TITLES) + len(LOOK_ALIKES)
    attack.figures = f"{refused}/{total} refused 4xx; the first Zoé {first}"
    return attack


def _renames(server: ServeProcess, renames: int) -> Attack:
    from .attack_plan import Attack

    attack = Attack("WAL: renames are checkpointed")
    api = server.api
    gid = int(api.call("POST", "/api/games", walk_body(2))["view"]["id"])
    before = api.call("GET", "/api/box")["journal"]
    for n in range(renames):
        api.call("PATCH", f"/api/games/{gid}", {"title": f"rename {n}"})
    time.sleep(0.5)  # the checkpoint runs on its own thread
    journal = api.call("GET", "/api/box")["journal"]
    checkpoints = journal["checkpoints"] - before["checkpoints"]
    attack.figures = (
        f"{renames} renames: {checkpoints} checkpoint(s), WAL {journal['wal_bytes'] / 1e6:.2f} MB"
    )
    if checkpoints < 1:
        attack.problems.append("no checkpoint")
    if journal["wal_bytes"] > WAL_BYTES_LIMIT:
        attack.problems.append(f"the WAL is over {WAL_BYTES_LIMIT / 1e6:.1f} MB")
    return attack


def _wal_deleted(server: ServeProcess, attacks: list[Attack]) -> None:
    """Twice: 30 moves, SIGKILL, the WAL deleted (then also the -shm), ``serve`` again; each
    verdict goes to ``attacks``. After each, the way out is taken (the named file deleted) and
    the server restarts (a ``RuntimeError`` if it cannot)."""
    from .attack_startup import refuses_to_start

    for name, suffixes in (
        ("WAL deleted after kill -9", ("-wal",)),
        ("WAL and -shm deleted after kill -9", ("-wal", "-shm")),
    ):
        api = server.api
        view = api.call("POST", "/api/games", walk_body(2))
        gid = int(view["view"]["id"])
        for move in walk_moves(30):
            api.call("POST", f"/api/games/{gid}/actions", move)
        time.sleep(1.0)  # the versions file is written 0.5 s after a write
        server.kill9()
        for suffix in suffixes:
            Path(f"{server.journal_path}{suffix}").unlink(missing_ok=True)
        attack = refuses_to_start(
            name,
            server.config,
            server.port,
            server.workdir / f"serve-{suffixes[-1]}.log",
            r"holds less than it did",
        )
        attacks.append(attack)
        for way_out in (Path(f"{server.journal_path}-shm"), versions(server.journal_path)):
            way_out.unlink(missing_ok=True)  # start from what the file holds, on purpose
        server.start()


def walk_moves(n: int) -> list[dict[str, object]]:
    """The first ``n`` moves of a 2-player game of :func:`walk_body`, each the first legal
    one."""
    body = walk_body(2)
    rules = registry.get(body["kind"]).rules()
    state, moves = rules.setup(body["options"]), []
    for _ in range(n):
        move = rules.legal_actions(state)[0]
        state = rules.apply(state, move)
        moves.append(move)
    return moves


def versions(journal: Path) -> Path:
    return Path(f"{journal}.versions")


def _damaged_rows(server: ServeProcess) -> list[Attack]:
    """Server D stopped; one byte 0xFF in an entry of one game, ``options = '[[['`` in
    another; then ``serve``, the exports and the CLI."""
    from .attack_plan import Attack

    api = server.api
    ids = []
    for _ in range(2):
        view = api.call("POST", "/api/games", walk_body(2))
        gid = int(view["view"]["id"])
        api.call("POST", f"/api/games/{gid}/actions", walk_moves(1)[0])
        ids.append(gid)
    server.stop()
    db = sqlite3.connect(server.journal_path)
    with db:
        db.execute(
            "UPDATE entries SET action = CAST(? AS TEXT) WHERE game_id = ? AND seq = 1",
            (b'{"type":"\xff"}', ids[0]),
        )
        db.execute("UPDATE games SET options = '[[[' WHERE id = ?", (ids[1],))
    db.close()
    starts = Attack("damaged rows: serve starts")
    exports = Attack("damaged rows: exports leave them out")
    cli = Attack("damaged rows: games and doctor")
    try:
        server.start(timeout=15)
    except RuntimeError as exc:
        for attack in (starts, exports, cli):
            attack.figures = "serve did not start"
            attack.problems.append(str(exc))
        return [starts, exports, cli]
    games = {g["id"]: g for g in api.call("GET", "/api/games")["games"]}
    damaged = [gid for gid in ids if "damaged" in games.get(gid, {})]
    starts.figures = f"started; {len(damaged)}/2 damaged games set aside of {len(games)}"
    if len(damaged) != 2:
        starts.problems.append("a damaged game is not shown as damaged")
    pin = {"X-Referee-Pin": api.pin}
    csv = request(server.port, "GET", "/api/export.csv", headers=pin)
    zipped = request(server.port, "GET", "/api/export.zip", headers=pin)
    skipped = f"{ids[0]} {ids[1]}"
    cli_csv = _cli(server, "export", "--all", "--format", "csv")
    exports.figures = (
        f"export.csv {csv.status} (skipped {csv.headers.get('x-skipped-games')}), "
        f"export.zip {zipped.status}, CLI csv exit {cli_csv.returncode}"
    )
    if csv.status != 200 or zipped.status != 200:
        exports.problems.append("an export did not answer 200")
    if csv.headers.get("x-skipped-games") != skipped:
        exports.problems.append("the CSV does not name the games it left out")
    if (
        cli_csv.returncode != 0
        or "Traceback" in cli_csv.stderr
        or "is left out" not in cli_csv.stderr
    ):
        exports.problems.append("the CLI export did not say what it left out")
    server.stop()
    listing = _cli(server, "games")
    doctor = _cli(server, "doctor")
    found = "row(s) cannot be read" in doctor.stdout
    cli.figures = (
        f"games exit {listing.returncode}, "
        f"{sum('(damaged' in line for line in listing.stdout.splitlines())} listed damaged; "
        f"doctor {'finds' if found else 'misses'} the rows"
    )
    if listing.returncode != 0 or "Traceback" in listing.stderr + listing.stdout:
        cli.problems.append("diablotin games failed")
    if not found:
        cli.problems.append("doctor does not find the damaged rows")
    return [starts, exports, cli]


def _cli(server: ServeProcess, *args: str) -> subprocess.CompletedProcess[str]:
    return _run([sys.executable, "-m", "controller.cli", "--config", str(server.config), *args])


def _run(argv: list[str]) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            argv,
            capture_output=True,
            text=True,
            timeout=CLI_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(argv, -1, "", f"hung for {CLI_TIMEOUT_S:g} s")


def _configs(workdir: Path, seed: int) -> list[Attack]:
    """``serve`` with a config nested 500 deep, ``/dev/zero`` and an Arabic-Indic PIN, all
    at once."""
    from .attack_startup import refuses_to_start, serve_config

    workdir.mkdir(parents=True, exist_ok=True)
    attacks: list[Attack] = []
    cases: list[tuple[str, Callable[[int], Path], str]] = [
        (
            "config: array nested 500 deep",
            lambda port: _write(
                workdir / "deep.toml",
                serve_config(port, workdir / "d1", seed) + "x = " + "[" * 500 + "]" * 500 + "\n",
            ),
            "nested more than",
        ),
        ("config: /dev/zero", lambda port: Path("/dev/zero"), "larger than"),
        (
            "config: Arabic-Indic referee_pin",
            lambda port: _write(
                workdir / "pin.toml",
                serve_config(port, workdir / "d2", seed).replace(
                    f'referee_pin = "{PIN}"', 'referee_pin = "\u0661\u0662\u0663\u0664"'
                ),
            ),
            "ASCII digits",
        ),
    ]
    results: dict[str, Attack] = {}

    def run(index: int, name: str, make: Callable[[int], Path], expect: str) -> None:
        port = free_port()
        log_path = workdir / f"serve-{index}.log"
        results[name] = refuses_to_start(name, make(port), port, log_path, expect)

    threads = [threading.Thread(target=run, args=(i, *case)) for i, case in enumerate(cases)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    attacks += [results[name] for name, *_ in cases]
    return attacks


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def _fifo(workdir: Path) -> Attack:
    from .attack_plan import Attack

    attack = Attack("replay FIFO --import")
    workdir.mkdir(parents=True, exist_ok=True)
    fifo = workdir / "game.json"
    if not fifo.exists():
        os.mkfifo(fifo)
    started = time.monotonic()
    done = _run(
        [
            sys.executable,
            "-m",
            "controller.cli",
            "--data-dir",
            str(workdir / "data"),
            "replay",
            str(fifo),
            "--import",
        ]
    )
    took = time.monotonic() - started
    said = (done.stderr.strip().splitlines() or [""])[-1]
    attack.figures = f"exit {done.returncode} in {took:.1f} s: {said[:80]}"
    if done.returncode != 2 or "not a regular file" not in done.stderr:
        attack.problems.append("it did not refuse the pipe at once")
    return attack
