"""Part 4, ``attack``: hostile clients against a real ``diablotin serve`` (issue 10).

Every attack runs against ``diablotin serve`` processes started here (simulated box,
temporary data dir, the default 128 threads) on 127.0.0.1, from loopback source addresses
(a client socket is bound to 127.0.0.2 …, 127.1.x.y before it connects), bounded in count
and time. Each attack ends *held* or *failed* with its figures (docs/reliability.md,
"Attacks", has the list and the bounds):

- **server A, live streams** (:mod:`.attack_streams`): a 5th stream from one address is
  refused; a stream's slot is freed when its client closes the socket; under a flood of idle
  streams (4 per address) and slow-header connections a referee's actions answer with
  p99 < 100 ms and a new phone's stream connects;
- **server B, requests**: logout ends the session; hostile requests (deep JSON, huge
  game ids, lone surrogates, nested lists, NaN, huge bodies, wrong Host, cross-site
  Origin) answer 4xx, never 5xx; the server's RSS over thousands of them; a hostile
  title comes back escaped in the game's page; PIN guessing from rotating addresses is
  held to :data:`GUESSES_PER_MINUTE` checked guesses while a logged-in referee plays on;
- **start-up** (:mod:`.attack_startup`): ``serve`` with a bad config, a second ``serve`` on
  B's data dir, and B's journal truncated to 0 bytes each refuse to start, with a message and
  no traceback;
- **server G** (:mod:`.attack_data`, issue 26): data, text and config.
"""

from __future__ import annotations

import http.client
import random
import re
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from .attack_data import run_data
from .attack_plan import (
    ATTACK_RSS_GROWTH_MB,
    ATTACKS,
    DATA_ATTACKS,
    FULL_ATTACK,
    GUESS_ATTACKS,
    GUESSES_PER_MINUTE,
    LOGOUT_ADDRESS,
    REQUEST_ATTACKS,
    SESSION_ADDRESS,
    SHORT_ATTACK,
    SIEGE_ATTACKS,
    STREAM_ATTACKS,
    Attack,
    AttackPlan,
    new_walk_game,
    quantile_ms,
)
from .attack_startup import (
    bad_configs,
    refuses_to_start,
    second_serve,
    serve_config,
    truncated_journal,
)
from .attack_streams import run_streams
from .common import PIN, Log, ServeProcess, rss_mb
from .hostile import (
    HOST,
    ORIGIN,
    Hostile,
    Rotation,
    holds,
    hostile_requests,
    kind_hostiles,
    send_hostile,
)
from .live import walk_body
from .loopback import (
    CLOSED,
    NO_ANSWER,
    Referee,
    log_in,
    request,
    status_text,
)
from .siege import run_cpu, run_fuzz, run_idle

__all__ = [  # with the names __init__.py, report.py and the tests read here
    "ATTACKS",
    "DATA_ATTACKS",
    "FULL_ATTACK",
    "SHORT_ATTACK",
    "Attack",
    "AttackPlan",
    "quantile_ms",
    "refuses_to_start",
    "run_attack",
    "serve_config",
]

# --- server B: requests ------------------------------------------------------------------------


def _logout(port: int) -> Attack:
    attack = Attack("logout ends the session")
    referee, answer = log_in(port, LOGOUT_ADDRESS)
    if referee is None:
        attack.problems.append(f"the login answered {answer.status}")
        return attack
    before = new_walk_game(port, referee, LOGOUT_ADDRESS).status
    out = request(
        port, "DELETE", "/api/session", headers=referee.headers, source=LOGOUT_ADDRESS
    ).status
    after = new_walk_game(port, referee, LOGOUT_ADDRESS).status
    attack.figures = f"a game before the logout {before}, logout {out}, old cookie after {after}"
    if before != 201 or out != 200:
        attack.problems.append("the session did not work before the logout")
    if after not in (401, 403):
        attack.problems.append(f"the old cookie still changes things after the logout ({after})")
    return attack


def _hostile(
    port: int, cases: Sequence[Hostile], referee: Referee, rotation: Rotation
) -> list[Attack]:
    """Each case once; one attack per group: how many held, and each that did not."""
    attacks = {name: Attack(name) for name in dict.fromkeys(c.attack for c in cases)}
    held: dict[str, int] = dict.fromkeys(attacks, 0)
    for case in cases:
        status = send_hostile(port, case, referee, rotation)
        if holds(case, status):
            held[case.attack] += 1
        else:
            attacks[case.attack].problems.append(f"{case.label[:70]} -> {status_text(status)}")
    for name, attack in attacks.items():
        total = sum(case.attack == name for case in cases)
        want = "403" if name in (HOST, ORIGIN) else "4xx"
        attack.figures = f"{held[name]}/{total} answered {want}"
    return list(attacks.values())


def _memory(
    port: int, pid: int, cases: Sequence[Hostile], count: int, referee: Referee, rotation: Rotation
) -> Attack:
    """``count`` requests cycling through the mix (4 at a time); the server's RSS before,
    after each quarter (growth that levels off is a high-water mark, growth that goes on
    a leak) and 0.5 s after the end."""
    attack = Attack("RSS over the hostile mix")
    mix = [case for case in cases if case.mix]
    statuses: dict[int, int] = {}
    quarters: list[float] = []
    lock = threading.Lock()
    silent_run = [0]

    def worker(offset: int) -> None:
        for i in range(offset, count, 4):
            if silent_run[0] >= 20:
                return  # the server stopped answering: do not wait 5 s for each of the rest
            status = send_hostile(port, mix[i % len(mix)], referee, rotation)
            with lock:
                statuses[status] = statuses.get(status, 0) + 1
                silent_run[0] = silent_run[0] + 1 if status in (NO_ANSWER, CLOSED) else 0
                if sum(statuses.values()) % max(1, count // 4) == 0 and len(quarters) < 3:
                    quarters.append(rss_mb(pid))

    start = rss_mb(pid)
    started = time.monotonic()
    threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    seconds = time.monotonic() - started
    time.sleep(0.5)
    end = rss_mb(pid)
    sent = sum(statuses.values())
    errors = sum(n for status, n in statuses.items() if status >= 500)
    silent = statuses.get(NO_ANSWER, 0) + statuses.get(CLOSED, 0)
    steps = "".join(f" -> {mb:.1f}" for mb in quarters)
    attack.figures = (
        f"{sent} requests in {seconds:.0f} s ({errors} 5xx, {silent} unanswered): "
        f"RSS {start:.1f}{steps} -> {end:.1f} MB by quarters "
        f"(+{end - start:.1f}, limit {ATTACK_RSS_GROWTH_MB:g})"
    )
    if not end - start <= ATTACK_RSS_GROWTH_MB:
        attack.problems.append(f"RSS grew {end - start:.1f} MB")
    if sent < count:
        attack.problems.append(f"the server stopped answering after {sent} requests")
    return attack


HOSTILE_TITLE = '<!--<script>alert("diablotin")</script><!--'


def _hostile_title(port: int, referee: Referee) -> Attack:
    attack = Attack("hostile title escaped in its page")
    body = walk_body(2) | {"title": HOSTILE_TITLE}
    answer = request(port, "POST", "/api/games", body, headers=referee.headers)
    if 400 <= answer.status < 500:
        attack.figures = f"title refused ({answer.status}): nothing stored"
        return attack
    if answer.status != 201:
        attack.problems.append(f"creating the game answered {answer.status}")
        return attack
    gid = answer.json()["view"]["id"]
    checked = []
    for path in (f"/games/{gid}", f"/history/{gid}"):
        page = request(port, "GET", path)
        if page.status != 200:
            continue
        checked.append(path)
        html = page.body.decode("utf-8", "replace")
        for script in re.findall(r"<script\b[^>]*>(.*?)</script\s*>", html, re.S | re.I):
            if "<!--" in script or re.search(r"</script", script, re.I):
                attack.problems.append(f"{path}: a <script> holds a raw <!-- or </script")
                break
        if HOSTILE_TITLE in html:
            attack.problems.append(f"{path}: the title is in the page unescaped")
    if not checked:
        attack.problems.append(f"no page of game {gid} answered 200")
    attack.figures = f"stored as game {gid}; checked {', '.join(checked) or 'no page'}"
    return attack


def _pin_guessing(
    port: int, plan: AttackPlan, gid: int, referee: Referee, rotation: Rotation
) -> tuple[Attack, Attack]:
    """Wrong PINs from a new address each, ``guess_rate`` a second for ``guess_s``, half
    by logging in, half in the PIN header; meanwhile ``referee`` (logged in at
    :data:`SESSION_ADDRESS` before any wrong PIN was sent) creates a game every 0.25 s."""
    guessing, session = (
        Attack("PIN guessing from many addresses"),
        Attack("referee session during PIN guessing"),
    )
    rng = random.Random(7)
    statuses: dict[int, int] = {}
    done = threading.Event()

    def guess() -> None:
        started = time.monotonic()
        count = round(plan.guess_s * plan.guess_rate)
        for i in range(count):
            delay = started + i / plan.guess_rate - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            pin = f"{rng.randrange(100_000):05d}"
            if pin == PIN:
                continue
            source = rotation.next()
            if i % 2:
                status = request(port, "POST", "/api/session", {"pin": pin}, source=source).status
            else:
                headers = {"X-Referee-Pin": pin}
                status = request(
                    port, "GET", f"/api/games/{gid}", headers=headers, source=source
                ).status
            statuses[status] = statuses.get(status, 0) + 1
        done.set()

    guesser = threading.Thread(target=guess, name="pin-guesses")
    started = time.monotonic()
    guesser.start()
    plays: list[float] = []
    failed: list[int] = []
    while not done.wait(0.25):
        answer = new_walk_game(port, referee, SESSION_ADDRESS)
        if answer.status == 201:
            plays.append(answer.ms)
        else:
            failed.append(answer.status)
    guesser.join()
    seconds = time.monotonic() - started
    sent = sum(statuses.values())
    checked, refused = statuses.get(401, 0), statuses.get(429, 0)
    others = {s: n for s, n in statuses.items() if s not in (401, 429)}
    allowed = GUESSES_PER_MINUTE * max(1, round(seconds / 60))
    guessing.figures = (
        f"{sent} wrong PINs from {sent} addresses in {seconds:.0f} s: {checked} checked (401), "
        f"{refused} refused (429)" + (f", others {others}" if others else "")
    )
    if checked > allowed:
        guessing.problems.append(f"{checked} guesses checked, at most {allowed} allowed")
    if any(status >= 500 or status <= 0 for status in others):
        guessing.problems.append(f"answers other than 401/429: {others}")
    session.figures = (
        f"{len(plays)}/{len(plays) + len(failed)} games created with the session, "
        f"p99 {quantile_ms(plays, 0.99):.1f} ms"
    )
    if failed:
        session.problems.append(f"{len(failed)} refused: {sorted(set(failed))}")
    if not plays and not failed:
        session.problems.append("no action was tried")
    return guessing, session


def run_guessing(plan: AttackPlan, workdir: Path, seed: int, log: Log) -> list[Attack]:
    """Server C, fresh (no wrong PIN before): a referee logs in, then the guessing starts."""
    server = ServeProcess(workdir / "attack-pin", seed=seed)
    server.start()
    try:
        game = server.api.call("POST", "/api/games", walk_body(2))
        referee = _log_in(server.port, SESSION_ADDRESS)
        log(f"  PIN guessing for {plan.guess_s:g} s")
        gid = int(game["view"]["id"])
        return list(_pin_guessing(server.port, plan, gid, referee, Rotation(3)))
    finally:
        server.stop()


def run_requests(plan: AttackPlan, workdir: Path, seed: int, log: Log) -> list[Attack]:
    """Server B: logout, hostile requests, memory, the hostile title; then, while it
    runs, the start-up attacks (a second ``serve`` on its data dir), and after it
    stopped, its journal truncated."""
    server = ServeProcess(workdir / "attack-requests", seed=seed)
    server.start()
    attacks: list[Attack] = []
    try:
        port = server.port
        contexts = {  # the games each kind's own hostile requests go to
            name: module.prepare(server.api)
            for name, module in kind_hostiles()
            if hasattr(module, "prepare")
        }
        game = int(server.api.call("POST", "/api/games", walk_body(2))["view"]["id"])
        referee = _log_in(port, "127.0.0.1")
        attacks.append(_logout(port))
        cases = hostile_requests(port, game, contexts, referee)
        log(f"  {len(cases)} hostile requests, then {plan.hostile} in a mix")
        rotation = Rotation(2)
        attacks += _hostile(port, cases, referee, rotation)
        attacks.append(_memory(port, server.pid, cases, plan.hostile, referee, rotation))
        attacks.append(_hostile_title(port, referee))
        attacks += bad_configs(workdir / "attack-configs", seed)
        attacks.append(second_serve(server, workdir / "attack-second"))
    finally:
        server.stop()
    attacks.append(truncated_journal(server))
    return attacks


def _log_in(port: int, source: str) -> Referee:
    """A referee's session from ``source``; ``RuntimeError`` if the login is refused."""
    referee, answer = log_in(port, source)
    if referee is None:
        raise RuntimeError(f"the referee's login from {source} answered {answer.status}")
    return referee


SERVERS: tuple[tuple[Callable[[AttackPlan, Path, int, Log], list[Attack]], Sequence[str]], ...] = (
    (run_streams, STREAM_ATTACKS),
    (run_guessing, GUESS_ATTACKS),
    (run_requests, REQUEST_ATTACKS[: -len(SIEGE_ATTACKS)]),
    (run_idle, SIEGE_ATTACKS[:2]),
    (run_cpu, SIEGE_ATTACKS[2:3]),
    (run_fuzz, SIEGE_ATTACKS[3:]),
    (run_data, DATA_ATTACKS),
)
"""Each server's run and the attacks it reports, in the order of :data:`ATTACKS`."""


def run_attack(plan: AttackPlan, workdir: Path, seed: int = 1, log: Log = print) -> list[Attack]:
    """Every attack of :data:`ATTACKS`, in order; an attack that could not run fails with
    the reason."""
    attacks: list[Attack] = []
    for part, names in SERVERS:
        try:
            attacks += part(plan, workdir, seed, log)
        except (OSError, http.client.HTTPException, RuntimeError, ValueError) as exc:
            log(f"  {part.__name__} stopped: {type(exc).__name__}: {exc}")
            reason = f"not run: {type(exc).__name__}: {exc}"
            done = {a.name for a in attacks}
            attacks += [Attack(name, problems=[reason]) for name in names if name not in done]
    return attacks
