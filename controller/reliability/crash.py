"""Part 1, ``crash``: kill -9 during scripted games of every kind (see the package doc).

Each kind declares its scenario (:attr:`~controller.games.registry.GameKind.crash_script`,
in its package): a random legal game that is entered, with undos, until the kill; or no
actions at all, and the kind's computer plays every seat until the kill. This module
never names a kind."""

from __future__ import annotations

import http.client
import itertools
import json
import random
import signal
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..games import registry
from ..journal import Entry
from .common import KINDS, Api, HttpError, Log, Op, ServeProcess, StreamWatcher, send_op

OPS_CAP = 150
"""A scripted game is cut after this many entries (whole games run to thousands)."""
UNDO_CHANCE = 0.08
"""Chance that a scripted action is followed by an undo and the same action again."""
KILL_WINDOW_S = 0.006
"""The kill lands up to this long after the chosen request is sent: often mid-request."""
COMPUTER_KILL_S = (0.2, 6.0)
"""A game the computer plays runs this long (uniform, s) before the kill."""
RESUME_TIMEOUT_S = 15.0


# --- scripted games ---------------------------------------------------------------------------


def interleave_undos(actions: Sequence[Mapping[str, object]], rng: random.Random) -> list[Op]:
    """The actions, each followed now and then by an undo and the same action again."""
    ops: list[Op] = []
    for action in actions:
        ops.append(dict(action))
        if rng.random() < UNDO_CHANCE:
            ops += [None, dict(action)]
    return ops


def scenario(kind: str, rng: random.Random) -> tuple[dict[str, object], list[Op]]:
    """The kind's scripted game (options, entries), undos added, cut to :data:`OPS_CAP`;
    no entries: the computer plays every seat."""
    declared = registry.get(kind)
    if declared.crash_script is None:
        raise RuntimeError(f"{kind} declares no kill -9 scenario")
    options, actions = declared.crash_script(rng)
    return options, interleave_undos(actions, rng)[:OPS_CAP]


def ops_of(entries: Sequence[Entry]) -> list[Op]:
    """Journal entries as scripted entries (``None`` for an undo)."""
    return [None if e.undo else e.action for e in entries]


def entries_of_export(data: dict[str, Any]) -> list[Op]:
    return [None if e.get("undo") else e["action"] for e in data["entries"]]


def views_by_version(
    kind: str, options: Mapping[str, object], ops: Sequence[Op], versions: set[int]
) -> dict[int, tuple[object, bool]]:
    """The engine's public view (JSON round-tripped) and whether the game is over, after
    the first ``v`` journal entries, for each ``v`` in ``versions`` (one replay)."""
    rules = registry.get(kind).rules()
    stack = [rules.setup(options)]
    out: dict[int, tuple[object, bool]] = {}
    for version in range(len(ops) + 1):
        if version:
            op = ops[version - 1]
            if op is None:
                if len(stack) > 1:
                    stack.pop()
            else:
                stack.append(rules.apply(stack[-1], op))
        if version in versions:
            view = json.loads(json.dumps(rules.view(stack[-1], "public")))
            out[version] = (view, rules.is_over(stack[-1]))
    return out


def acked_problems(acked: Sequence[Op], stored: Sequence[Op], script: Sequence[Op]) -> list[str]:
    """What is wrong with a journal after a kill: every acknowledged entry must be there,
    in order, and beyond them at most the one request in flight (the next scripted one)."""
    problems = []
    if list(stored[: len(acked)]) != list(acked):
        same = next(
            (i for i, (a, b) in enumerate(zip(acked, stored, strict=False)) if a != b),
            min(len(acked), len(stored)),
        )
        problems.append(
            f"acknowledged entry #{same + 1} lost or changed "
            f"({len(acked)} acknowledged, {len(stored)} journaled)"
        )
    extra = list(stored[len(acked) :])
    if len(extra) > 1:
        problems.append(f"{len(extra)} entries journaled beyond the acknowledged ones")
    elif extra and (len(acked) >= len(script) or extra[0] != script[len(acked)]):
        problems.append("the entry journaled beyond the acknowledged ones was never sent")
    return problems


def stream_problems(
    kind: str, options: Mapping[str, object], events: Sequence[dict[str, Any]], ops: Sequence[Op]
) -> list[str]:
    """Every state a phone was sent must be journaled: its version at most the journal's
    length, versions never going back, and the state the engine's replay at that version."""
    problems: list[str] = []
    versions = [int(e["version"]) for e in events]
    if any(b < a for a, b in itertools.pairwise(versions)):
        problems.append(f"stream versions went back: {versions}")
    beyond = [v for v in versions if v > len(ops)]
    if beyond:
        problems.append(f"phones saw version {max(beyond)} but the journal has {len(ops)}")
    expected = views_by_version(kind, options, ops, {v for v in versions if v <= len(ops)})
    for event in events:
        version = int(event["version"])
        if version in expected and (event["state"], event["finished"]) != expected[version]:
            problems.append(f"the state sent at version {version} is not the journal's replay")
            break
    return problems


# --- part 1: kill -9 --------------------------------------------------------------------------


@dataclass
class CrashGame:
    """One scripted game killed and restarted. ``acked``: entries answered 200 (a scripted
    game) or versions the phones were sent (the computer's); ``journaled``: entries after
    the kill."""

    index: int
    kind: str
    computer: bool = False
    """The computer played every seat (the kind scripts no actions)."""
    game_id: int = 0
    acked: int = 0
    journaled: int = 0
    in_flight: bool = False
    streamed: int = 0
    """Game events a spectator's phone received before the kill (snapshot included)."""
    restart_s: float = 0.0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def run_crash(
    count: int,
    seed: int,
    workdir: Path,
    log: Log = print,
    kinds: Sequence[str] = KINDS,
) -> list[CrashGame]:
    """``count`` games (``kinds`` in turn), each killed with SIGKILL and checked after a
    restart."""
    server = ServeProcess(workdir / "crash", seed=seed)
    server.start()
    results = []
    try:
        for index in range(count):
            kind = kinds[index % len(kinds)]
            result = CrashGame(index + 1, kind)
            try:
                _crash_one(server, result, random.Random(seed * 100_003 + index))
            except (OSError, http.client.HTTPException, HttpError, RuntimeError) as exc:
                result.problems.append(f"{type(exc).__name__}: {exc}")
                if server.proc is None or server.proc.poll() is not None:
                    server.start()
            results.append(result)
            verdict = "ok" if result.ok else "FAILED: " + "; ".join(result.problems)
            log(
                f"  game {result.index:3d}/{count} {kind:7s} #{result.game_id:<4d} "
                f"acked {result.acked:3d} journaled {result.journaled:3d} "
                f"streamed {result.streamed:3d}{' (+1 in flight)' if result.in_flight else ''}"
                f"  {verdict}"
            )
    finally:
        status = server.stop()
        if status != 0 and results:
            results[-1].problems.append(f"SIGTERM exit status {status}, not 0")
    return results


def _crash_one(server: ServeProcess, result: CrashGame, rng: random.Random) -> None:
    api = server.api
    options, script = scenario(result.kind, rng)
    result.computer = not script
    game = api.call("POST", "/api/games", {"kind": result.kind, "options": options})
    gid = result.game_id = int(game["view"]["id"])
    watcher = StreamWatcher(server.port, f"game:{gid}")
    watcher.start()
    watcher.ready.wait(5)
    acked: list[Op] = []
    seats = registry.get(result.kind).seat_keys(options)
    if result.computer:
        for player in seats:
            api.call("PUT", f"/api/games/{gid}/computer", {"player": player, "on": True})
        time.sleep(rng.uniform(*COMPUTER_KILL_S))
        server.kill9()
    else:
        _enter_until_killed(server, gid, script, acked, rng, result)
    watcher.join(10)
    assert server.proc is not None
    if server.proc.returncode != -signal.SIGKILL:
        result.problems.append(f"the server ended with {server.proc.returncode}, not SIGKILL")
    journal = server.read_journal()
    try:
        record = journal.game(gid)
        stored = ops_of(journal.entries(gid))
        computer = journal.setting(gid, "computer", [])
    finally:
        journal.close()
    result.journaled = len(stored)
    if result.computer:
        result.acked = max((int(e["version"]) for e in watcher.events), default=0)
        if computer != seats:
            result.problems.append(f"acknowledged computer seats lost: journal has {computer}")
    else:
        result.acked = len(acked)
        result.in_flight = len(stored) > len(acked)
        result.problems += acked_problems(acked, stored, script)
    result.streamed = len(watcher.events)
    if not watcher.events:
        result.problems.append(f"the spectator's stream got nothing ({watcher.error})")
    result.problems += stream_problems(result.kind, record.options, watcher.events, stored)
    result.restart_s = server.start()
    _check_restarted(server, result, record.options, stored, script)


def _enter_until_killed(
    server: ServeProcess,
    gid: int,
    script: list[Op],
    acked: list[Op],
    rng: random.Random,
    result: CrashGame,
) -> None:
    """Enter the script until the kill, which lands just after entry number ``kill_at`` is sent."""
    kill_at = rng.randrange(len(script))
    killer = threading.Timer(rng.uniform(0, KILL_WINDOW_S), server.kill9)
    try:
        for index, op in enumerate(script):
            if index == kill_at:
                killer.start()
            try:
                send_op(server.api, gid, op)
            except HttpError as exc:
                result.problems.append(f"scripted entry #{index + 1} refused: {exc}")
                break
            except (OSError, http.client.HTTPException):
                break  # killed mid-request: not acknowledged
            acked.append(op)
    finally:
        if not killer.is_alive() and not killer.finished.is_set():
            killer.start()  # a refusal stopped the script before the kill point
        killer.join()


def _check_restarted(
    server: ServeProcess,
    result: CrashGame,
    options: Mapping[str, object],
    stored: list[Op],
    script: list[Op],
) -> None:
    """The restarted server shows the journal's replay and plays on."""
    api, gid = server.api, result.game_id
    payload = api.call("GET", f"/api/games/{gid}", referee=False)
    now = entries_of_export(api.call("GET", f"/api/games/{gid}/export"))
    view = payload["view"]
    version = int(view["version"])
    if now[: len(stored)] != stored:
        result.problems.append("the restarted server's journal differs from the file's")
    if not result.computer and version != len(stored):
        result.problems.append(f"restarted at version {version}, journal has {len(stored)}")
    expected = views_by_version(result.kind, options, now, {version}).get(version)
    if expected is None or expected[0] != view["state"]:
        result.problems.append(f"the restarted view (version {version}) is not the replay")
    elif expected[1] != view["finished"]:
        result.problems.append(
            f"restarted with finished={view['finished']} but the replay's game is "
            f"{'over' if expected[1] else 'not over'}"
        )
    if result.computer:
        seats = registry.get(result.kind).seat_keys(options)
        if payload["extras"]["computer"] != seats:
            result.problems.append(f"computer seats after restart: {payload['extras']['computer']}")
        if not view["finished"]:
            _wait_version(api, gid, len(stored) + 1, result)
    elif len(stored) < len(script):
        answer = send_op(api, gid, script[len(stored)])
        if answer["view"]["version"] != len(stored) + 1:
            result.problems.append("the first entry after the restart got a wrong version")


def _wait_version(api: Api, gid: int, version: int, result: CrashGame) -> None:
    deadline = time.monotonic() + RESUME_TIMEOUT_S
    while time.monotonic() < deadline:
        if api.call("GET", f"/api/games/{gid}", referee=False)["view"]["version"] >= version:
            return
        time.sleep(0.05)
    result.problems.append(f"the computer did not play on within {RESUME_TIMEOUT_S:g} s")
