"""The start-up attacks of the attack part: ``diablotin serve`` must refuse to start, with a
message and no traceback, on a bad config, on a data dir another ``serve`` holds, and on a
journal truncated to 0 bytes (:func:`refuses_to_start`; server G's data attacks use it too)."""

from __future__ import annotations

import re
import subprocess
import sys
import threading
import time
from pathlib import Path

from .attack_plan import ATTACKS, START_TIMEOUT_S, Attack
from .common import PIN, ServeProcess, free_port
from .loopback import request


def serve_config(port: int, data: Path, seed: int, extra: str = "") -> str:
    """The config text :class:`ServeProcess` writes, with ``extra`` appended."""
    return (
        f'[server]\nhost = "127.0.0.1"\nport = {port}\nreferee_pin = "{PIN}"\n'
        f'[data]\ndir = "{data}"\n[box]\nbackend = "simulated"\nseed = {seed}\n{extra}'
    )


def refuses_to_start(name: str, config: Path, port: int, log_path: Path, expect: str) -> Attack:
    """``diablotin --config config serve`` must exit non-zero, without a traceback, with a
    message matching the regular expression ``expect``, and never answer on ``port``."""
    attack = Attack(name)
    with log_path.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "controller.cli", "--config", str(config), "serve"],
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    started = time.monotonic()
    served = False
    while proc.poll() is None and time.monotonic() - started < START_TIMEOUT_S:
        if request(port, "GET", "/api/games", timeout=1).status == 200:
            served = True
            break
        time.sleep(0.05)
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    output = log_path.read_text("utf-8", "replace")
    lines = [line for line in output.splitlines() if line.strip()]
    said = lines[-1].strip() if lines else ""
    if served:
        attack.figures = "started and served /api/games"
        attack.problems.append("it started")
        return attack
    attack.figures = f"exit {proc.returncode}: {said[:100]}"
    if proc.returncode in (0, None):
        attack.problems.append(f"exit status {proc.returncode}")
    if "Traceback" in output:
        attack.problems.append("a traceback")
        attack.figures = f"exit {proc.returncode} with a traceback: {said[:80]}"
    if not re.search(expect, output):
        attack.problems.append(f"the message does not match {expect!r}")
    return attack


def bad_configs(workdir: Path, seed: int) -> list[Attack]:
    """``serve`` with each bad config, all at once (each its own port and data dir)."""
    workdir.mkdir(parents=True, exist_ok=True)
    runs = []
    for name, extra, expect in (
        ("config: min_gap_ms = nan", "[limits]\nmin_gap_ms = nan\n", "min_gap_ms"),
        ("config: duty_window_s = inf", "[limits]\nduty_window_s = inf\n", "duty_window_s"),
        ("config: duty_window_s = 3600", "[limits]\nduty_window_s = 3600\n", "duty_window_s"),
        ("config: not UTF-8", "# caf\udce9\n", "not-utf8.toml"),
    ):
        port = free_port()
        index = ATTACKS.index(name)
        path = workdir / ("not-utf8.toml" if index == 21 else f"config-{index}.toml")
        text = serve_config(port, workdir / f"data-{index}", seed, extra)
        path.write_bytes(text.encode("utf-8", "surrogateescape"))  # \udce9: the byte 0xE9
        runs.append((name, path, port, workdir / f"serve-{index}.log", expect))
    results: dict[str, Attack] = {}

    def run(args: tuple[str, Path, int, Path, str]) -> None:
        results[args[0]] = refuses_to_start(*args)

    threads = [threading.Thread(target=run, args=(args,)) for args in runs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return [results[name] for name, *_ in runs]


def second_serve(server: ServeProcess, workdir: Path) -> Attack:
    """A second ``serve`` on the running server's data dir (another port)."""
    workdir.mkdir(parents=True, exist_ok=True)
    port = free_port()
    config = workdir / "second.toml"
    config.write_text(serve_config(port, server.data, 1))
    expect = rf"(?i)lock|in use|already|another|{re.escape(str(server.data))}"
    return refuses_to_start(
        "second serve on the same data dir", config, port, workdir / "serve.log", expect
    )


def truncated_journal(server: ServeProcess) -> Attack:
    """The stopped server's journal (which holds games) cut to 0 bytes, then ``serve``."""
    server.journal_path.write_bytes(b"")
    log_path = server.workdir / "serve-truncated.log"
    expect = r"(?i)journal|sqlite3|empty|truncat"
    return refuses_to_start(
        "journal truncated to 0 bytes", server.config, server.port, log_path, expect
    )
