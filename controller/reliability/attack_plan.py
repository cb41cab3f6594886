"""The attack part's plan, verdicts and shared measures (:mod:`.attack` runs them)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from .hostile import HOSTILE_GROUPS
from .live import walk_body
from .loopback import Answer, Referee, request

IDLE_ACTIONS = "idle: referee actions p99 < 100 ms"
IDLE_PHONE = "idle: a new phone's stream"
CPU_ACTIONS = "cpu: referee actions p99 < 200 ms"
FUZZ = "schemathesis: 0 5xx, 0 schema errors"
SIEGE_ATTACKS = (IDLE_ACTIONS, IDLE_PHONE, CPU_ACTIONS, FUZZ)
"""The sieges' attacks (:mod:`.siege`, servers D, E and F), in the order they run."""
SERVER_G = (
    "sessions: web-sessions.json unwritable",
    "free text: invisible, look-alike names",
    "WAL: renames are checkpointed",
    "WAL deleted after kill -9",
    "WAL and -shm deleted after kill -9",
    "damaged rows: serve starts",
    "damaged rows: exports leave them out",
    "damaged rows: games and doctor",
)
"""The attacks that need server G (:mod:`.attack_data`; the rest of :data:`DATA_ATTACKS` run
beside it)."""

ACTION_TARGET_MS = 100.0
"""A referee's action under the stream flood must answer within this (p99)."""
ACTION_TIMEOUT_S = 1.0
"""An action (or the login) not answered within this counts as not answered."""
PHONE_TIMEOUT_S = 2.0
"""A new phone's stream must bring the game's snapshot within this."""
STREAMS_PER_ADDRESS = 4
"""Live streams one address may hold; the next one is refused (429 or 503)."""
FREED_WITHIN_S = 1.0
"""After a client closes a stream, a new one from its address is served within this."""
GUESSES_PER_MINUTE = 10
"""Wrong PINs the server may check (answer 401) per minute, from all addresses together."""
ATTACK_RSS_GROWTH_MB = 10.0
"""The server's RSS may grow at most this over the hostile-request mix."""
START_TIMEOUT_S = 15.0
"""A ``serve`` that should refuse to start and neither exits nor answers within this fails."""

STREAM_FLOOD_FIRST = 2
"""Flood addresses are 127.0.0.2, 127.0.0.3, …; fresh ones (referee, phone) 127.0.0.200 …"""
REFEREE_ADDRESS = "127.0.0.200"
PHONE_ADDRESS = "127.0.0.201"
CAP_ADDRESS = "127.0.0.202"
FREED_ADDRESS = "127.0.0.203"
SESSION_ADDRESS = "127.0.0.204"
LOGOUT_ADDRESS = "127.0.0.205"


@dataclass(frozen=True)
class AttackPlan:
    streams: int
    addresses: int
    slow: int
    actions: int
    action_budget_s: float
    """The referee's actions stop after this long (the rest count as not answered)."""
    guess_s: float
    guess_rate: float
    """PIN guesses sent per second (each from a new address)."""
    hostile: int
    """Requests in the memory mix."""
    renames: int = 3000
    """Game renames in a row (the WAL must still be checkpointed)."""
    idle: int = 1024
    """Silent connections held on server D (issue 26), from :attr:`idle_addresses`."""
    idle_addresses: int = 32
    hammers: int = 32
    """Clients asking the most expensive read on server E."""
    fuzz_s: float = 300.0
    """Seconds of schemathesis on server F."""


FULL_ATTACK = AttackPlan(
    streams=300,
    addresses=75,
    slow=200,
    actions=50,
    action_budget_s=20.0,
    guess_s=60.0,
    guess_rate=40.0,
    hostile=10_000,
)
SHORT_ATTACK = AttackPlan(
    streams=300,
    addresses=75,
    slow=200,
    actions=20,
    action_budget_s=4.0,
    guess_s=4.0,
    guess_rate=40.0,
    hostile=2_000,
    renames=250,
    fuzz_s=5.0,
)


@dataclass
class Attack:
    """One attack's outcome: ``figures`` (what was measured), ``problems`` (empty: held)."""

    name: str
    figures: str = ""
    problems: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.name not in ATTACKS:
            raise ValueError(f"{self.name!r} is not one of ATTACKS")

    @property
    def held(self) -> bool:
        return not self.problems


ATTACKS = (
    "streams: 5th from one address refused",
    "streams: slot freed on close",
    "flood: referee actions p99 < 100 ms",
    "flood: a new phone's stream",
    "PIN guessing from many addresses",
    "referee session during PIN guessing",
    "logout ends the session",
    *HOSTILE_GROUPS,
    "RSS over the hostile mix",
    "hostile title escaped in its page",
    "config: min_gap_ms = nan",
    "config: duty_window_s = inf",
    "config: duty_window_s = 3600",
    "config: not UTF-8",
    "second serve on the same data dir",
    "journal truncated to 0 bytes",
    *SIEGE_ATTACKS,
    # server G: data, text and config (issue 26, items 6-13; attack_data.py)
    *SERVER_G,
    "config: array nested 500 deep",
    "config: /dev/zero",
    "config: Arabic-Indic referee_pin",
    "replay FIFO --import",
)
"""Every attack, in the order they run and are reported."""
DATA_ATTACKS = ATTACKS[ATTACKS.index("sessions: web-sessions.json unwritable") :]
STREAM_ATTACKS, GUESS_ATTACKS = ATTACKS[:4], ATTACKS[4:6]
REQUEST_ATTACKS = ATTACKS[6 : len(ATTACKS) - len(DATA_ATTACKS)]
"""The attacks on server A (streams), server C (PIN guessing), server B (requests, then
start-up, then the sieges of :mod:`.siege` on servers D, E and F), server G (data, text and
config: :mod:`.attack_data`)."""


# --- HTTP from any loopback address ------------------------------------------------------------


def new_walk_game(port: int, referee: Referee, source: str, timeout: float = 5.0) -> Answer:
    """A new two-player game of the walked kind (:func:`.live.walk_body`), as ``referee``."""
    body = walk_body(2)
    return request(
        port, "POST", "/api/games", body, headers=referee.headers, source=source, timeout=timeout
    )


def quantile_ms(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (nearest rank) of ``values``; ``inf`` values count (not answered)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def _ms(value: float) -> str:
    return f">{ACTION_TIMEOUT_S * 1000:.0f}" if value == float("inf") else f"{value:.1f}"
