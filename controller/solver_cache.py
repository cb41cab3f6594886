"""The solved rule-B table, cached in the data dir so a Pi solves it once.

File: ``<data dir>/solver/race-<key>.bin``, ``<key>`` the first 16 hex digits of the
SHA-256 of the options the table depends on (:func:`cache_key`). Format
``diablotin-race-table/1``: one line of JSON (``format``, ``circuit``, ``faces``,
``tolerance``, ``count``, ``sha256`` of the payload), a newline, then ``count``
IEEE-754 doubles, little-endian: ``W[a][b]`` at ``a * (circuit + 1) + b``
(:class:`controller.games.sauteur.solve_b.RaceTable`).

Rule A's tables (:mod:`controller.games.sauteur.chase_table`), one file per utility:
``<data dir>/solver/chase-<key>.bin``, ``<key>`` from the format, the options the table
depends on and the utility. Format ``diablotin-chase-table/1``: a JSON line (``format``,
``options``, ``goal``, ``masks``, ``count`` per table, ``sha256``), a newline, then the
tables in the order of ``masks``, float32 little-endian.

A missing file is solved and written (atomically: a temp file, then a rename). A
file that does not check out (wrong format, options, size or checksum, a value outside
its utility's range) is ignored with a warning in the log and rebuilt.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sys
import threading
import time
from array import array
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from controller.games.base import words
from controller.games.sauteur.cancel import Cancelled
from controller.games.sauteur.levels import FALLBACK, level_in_words
from controller.games.sauteur.rules import SauteurConfig, SauteurState
from controller.games.sauteur.solve_b import TOLERANCE, RaceTable

if TYPE_CHECKING:  # numpy comes with the first rule-A table, not with the service
    from controller.games.sauteur.chase_table import ChaseTables
    from controller.games.sauteur.levels import Tables

log = logging.getLogger(__name__)

FORMAT = "diablotin-race-table/1"
CHASE_FORMAT = "diablotin-chase-table/1"
T = TypeVar("T")


def cache_key(circuit: int, faces: Sequence[int | str]) -> str:
    """16 hex digits naming a table: SHA-256 of the format, circuit and faces."""
    text = json.dumps({"format": FORMAT, "circuit": circuit, "faces": list(faces)})
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def cache_path(
    data_dir: Path, circuit: int, faces: Sequence[int | str], kind: str = "race"
) -> Path:
    """``kind``: ``race`` (uniform hider) or ``race-equilibrium`` (both at equilibrium)."""
    return data_dir / "solver" / f"{kind}-{cache_key(circuit, faces)}.bin"


def _payload(values: array[float]) -> bytes:
    if sys.byteorder == "little":
        return values.tobytes()
    swapped = array("d", values)
    swapped.byteswap()
    return swapped.tobytes()


def write(path: Path, table: RaceTable) -> None:
    """Write ``table`` to ``path`` atomically (raises ``OSError``)."""
    payload = _payload(table.values)
    header = {
        "format": FORMAT,
        "circuit": table.circuit,
        "faces": list(table.faces),
        "tolerance": TOLERANCE,
        "count": len(table.values),
    }
    _write_file(path, header, payload)


def _write_file(path: Path, header: dict[str, object], payload: bytes) -> None:
    """``header`` (with the payload's ``sha256``) as a JSON line, then ``payload``; written
    to a temp file, then renamed (raises ``OSError``)."""
    header = header | {"sha256": hashlib.sha256(payload).hexdigest()}
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_suffix(".tmp")
    with open(temp, "wb") as out:
        out.write(json.dumps(header).encode() + b"\n" + payload)
    os.replace(temp, path)


def _read_file(path: Path, form: str) -> tuple[dict[str, object], bytes]:
    """(header, payload) of a ``form`` file whose checksum matches; ``ValueError`` else."""
    line, _, payload = path.read_bytes().partition(b"\n")
    try:
        header = json.loads(line)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"unreadable header: {exc}") from None
    if not isinstance(header, dict) or header.get("format") != form:
        raise ValueError(f"not a {form} file")
    if hashlib.sha256(payload).hexdigest() != header.get("sha256"):
        raise ValueError("checksum does not match")
    return header, payload


def _load(
    path: Path, read: Callable[[], T], solve: Callable[[], T], write: Callable[[T], None]
) -> T:
    """The table cached in ``path``, or a fresh solve written there. A bad cache file is
    logged and replaced; a cache that cannot be written is logged, the table kept in memory."""
    if path.exists():
        try:
            return read()
        except (OSError, ValueError) as exc:
            log.warning("solver cache %s ignored (%s): solving again", path, exc)
    table = solve()
    try:
        write(table)
    except OSError as exc:
        log.warning("solver cache %s not written: %s", path, exc)
    return table


def read(path: Path, circuit: int, faces: Sequence[int | str]) -> RaceTable:
    """The table in ``path``; raises ``ValueError`` (or ``OSError``) if it does not check out."""
    header, payload = _read_file(path, FORMAT)
    if header.get("circuit") != circuit or header.get("faces") != list(faces):
        raise ValueError("made for other options")
    count = (circuit + 1) * (circuit + 1)
    if header.get("count") != count or len(payload) != 8 * count:
        raise ValueError(f"holds {len(payload)} bytes, expected {8 * count}")
    values = array("d")
    values.frombytes(payload)
    if sys.byteorder != "little":
        values.byteswap()
    if any(not 0.0 <= value <= 1.0 for value in values):
        raise ValueError("a chance outside 0-1")
    return RaceTable(circuit, faces, values)


def load_race_table(
    data_dir: Path,
    circuit: int,
    faces: Sequence[int | str],
    solve: Callable[[int, Sequence[int | str]], RaceTable],
    kind: str = "race",
) -> RaceTable:
    """The cached table for these options, or a fresh solve written to the cache
    (``kind``: the file's name, see :func:`cache_path`).

    A bad cache file is logged and replaced; a cache that cannot be written is logged
    and the table is used from memory."""
    path = cache_path(data_dir, circuit, faces, kind)
    return _load(
        path,
        lambda: read(path, circuit, faces),
        lambda: solve(circuit, faces),
        lambda table: write(path, table),
    )


def _chase_header(config: SauteurConfig, goal: Sequence[float]) -> dict[str, object]:
    return {
        "format": CHASE_FORMAT,
        "options": {
            "track_length": config.track_length,
            "devil_multiplier": config.devil_multiplier,
            "number_faces": list(config.number_faces),
        },
        "goal": [float(value) for value in goal],
    }


def chase_path(data_dir: Path, config: SauteurConfig, goal: Sequence[float]) -> Path:
    text = json.dumps(_chase_header(config, goal), sort_keys=True)
    return data_dir / "solver" / f"chase-{hashlib.sha256(text.encode()).hexdigest()[:16]}.bin"


def write_chase(
    path: Path, config: SauteurConfig, goal: Sequence[float], tables: ChaseTables
) -> None:
    """Write one utility's rule-A tables to ``path`` atomically (raises ``OSError``)."""
    masks = sorted(tables)
    payload = b"".join(tables[mask].astype("<f4").tobytes() for mask in masks)
    header = _chase_header(config, goal) | {"masks": masks, "count": len(tables[masks[0]])}
    _write_file(path, header, payload)


def read_chase(path: Path, config: SauteurConfig, goal: Sequence[float]) -> ChaseTables:
    """One utility's tables from ``path``; raises ``ValueError`` (or ``OSError``) if the file
    does not check out."""
    header, payload = _read_file(path, CHASE_FORMAT)
    expected = _chase_header(config, goal)
    if header.get("options") != expected["options"] or header.get("goal") != expected["goal"]:
        raise ValueError("made for other options")
    masks, count = header.get("masks"), header.get("count")
    if not isinstance(masks, list) or not isinstance(count, int) or count <= 0:
        raise ValueError("no table layout in the header")
    if len(payload) != 4 * count * len(masks):
        raise ValueError(f"holds {len(payload)} bytes, expected {4 * count * len(masks)}")
    import numpy as np

    values = np.frombuffer(payload, dtype="<f4").astype(np.float32).reshape(len(masks), count)
    low, high = min(goal) - 1e-5, max(goal) + 1e-5
    if not ((values >= low) & (values <= high)).all():
        raise ValueError("a value outside the utility's range")
    return {int(mask): values[i] for i, mask in enumerate(masks)}


def load_chase_table(
    data_dir: Path, config: SauteurConfig, goal: Sequence[float], solve: Callable[[], ChaseTables]
) -> ChaseTables:
    """The cached rule-A tables for ``goal``, or a fresh solve written to the cache (a bad file
    is logged and replaced; a cache that cannot be written is logged)."""
    path = chase_path(data_dir, config, goal)
    return _load(
        path,
        lambda: read_chase(path, config, goal),
        solve,
        lambda tables: write_chase(path, config, goal, tables),
    )


Notice = Callable[..., None]
"""``notice(template, **params)``: tell the referee (the service's Box notices)."""


INLINE_WAIT_S = 1.0
"""How long a computer's move waits for its tables before playing its fallback level: a
table read back from the cache is ready in milliseconds, a new circuit's takes minutes."""


class Solvers:
    """The service's solved tables: rule B cached in ``data_dir``; anything slow is
    solved on a background thread (:meth:`when_ready`), never on a request or the
    service's worker. :meth:`close` stops those threads (the service stopping).

    ``notice``, if given, is told when a circuit's tables start solving on a thread and
    when they are ready (it is called from that thread)."""

    def __init__(self, data_dir: Path, notice: Notice | None = None) -> None:
        self.data_dir = data_dir
        self._notice = notice
        self._tables: Tables | None = None
        self._ready: set[tuple[object, ...]] = set()
        self._warming: set[tuple[object, ...]] = set()
        self._threads: list[threading.Thread] = []
        self._cancel = threading.Event()
        self._lock = threading.Lock()

    @property
    def tables(self) -> Tables:
        """The levels' tables (made at first use: they bring numpy)."""
        from functools import partial

        from controller.games.sauteur.levels import Tables

        with self._lock:
            if self._tables is None:
                self._tables = Tables(
                    load_race=partial(load_race_table, self.data_dir),
                    load_chase=partial(load_chase_table, self.data_dir),
                    cancel=self._cancel,
                    progress=self._progress,
                )
            return self._tables

    def _progress(self, percent: int) -> None:
        if self._notice is not None and percent < 100:
            self._notice(words("the computer's tables: {percent} % solved"), percent=percent)

    @staticmethod
    def _key(state: SauteurState) -> tuple[object, ...]:
        from controller.games.sauteur.levels import chase_key, race_key

        config = state.config
        return ("B", race_key(config)) if config.rule == "B" else ("A", chase_key(config))

    def warm(self, state: SauteurState) -> None:
        """Solve what the optimal popper and the coach need for ``state``'s options
        (raises :class:`~controller.games.sauteur.cancel.Cancelled` after :meth:`close`)."""
        config = state.config
        if config.rule == "B":
            self.tables.race(config)
            self.tables.race_equilibrium(config)
        else:
            self.tables.chase(config).prepare()
        with self._lock:
            self._ready.add(self._key(state))

    def is_ready(self, state: SauteurState) -> bool:
        """Whether :meth:`warm` is done for ``state``'s options (answers at once)."""
        with self._lock:
            return self._key(state) in self._ready

    def when_hiding_ready(self, state: SauteurState, then: Callable[[], None]) -> bool:
        """True when this hiding's equilibrium is solved (the popper's mixture: about a
        second in rule A); otherwise solve it on a thread (once), call ``then()`` when
        done, and return False. Call once :meth:`when_ready` is True."""
        if self.tables.has_equilibrium(state):
            return True
        key = ("hiding", *self.tables.hiding_game(state)[2])
        self._start(key, "hiding", lambda: self.tables.equilibrium(state), then)
        return False

    def when_ready(self, state: SauteurState, then: Callable[[], None]) -> bool:
        """True when the tables for ``state`` are solved, or read from the cache within
        :data:`INLINE_WAIT_S`; otherwise go on solving them on a thread (once), call
        ``then()`` when done, and return False (the caller plays its fallback meanwhile)."""
        if self.is_ready(state):
            return True
        finished = threading.Event()
        decided = threading.Event()  # the caller has waited (at most INLINE_WAIT_S)
        claimed = threading.Lock()  # who goes on with the tables: this caller, or then()

        def work() -> None:
            self.warm(state)
            finished.set()

        def done() -> None:
            decided.wait()
            if not claimed.acquire(blocking=False):
                return  # the caller had them in time and went on by itself
            if self._notice is not None and self.is_ready(state):
                self._notice(words("the computer's tables for this game are solved"))
            then()

        started = self._start(self._key(state), "solver", work, done)
        in_time = started and finished.wait(INLINE_WAIT_S) and claimed.acquire(blocking=False)
        decided.set()
        if in_time:
            return True
        if started and self._notice:
            self._notice(
                words(
                    "the computer solves its tables for this game on the side (minutes on a"
                    " long circuit); it plays at level {level} meanwhile"
                ),
                level=level_in_words(FALLBACK),
            )
        return False

    def _start(
        self,
        key: tuple[object, ...],
        name: str,
        work: Callable[[], object],
        then: Callable[[], None],
    ) -> bool:
        """Run ``work`` on a thread unless ``key`` is already being solved (False then);
        ``then()`` after it ends, unless it was cancelled."""
        with self._lock:
            if key in self._warming or self._cancel.is_set():
                return False
            self._warming.add(key)

        def run() -> None:
            try:
                work()
            except Cancelled:
                return
            except Exception:  # a solver bug must not kill the box; logged, retried later
                log.exception("solving the Diable sauteur tables failed (%s)", name)
            finally:
                with self._lock:
                    self._warming.discard(key)
            then()

        thread = threading.Thread(target=run, name=name, daemon=True)
        with self._lock:
            self._threads = [t for t in self._threads if t.is_alive()] + [thread]
        thread.start()
        return True

    def close(self, timeout: float = 5.0) -> None:
        """Cancel every solve still running and wait for its thread (up to ``timeout`` s
        in all; a solve checks its flag at least every second or so). Safe to call twice."""
        self._cancel.set()
        with self._lock:
            threads, self._threads = self._threads, []
        deadline = time.monotonic() + timeout
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))
            if thread.is_alive():
                log.warning("a solver thread (%s) did not stop in %.0f s", thread.name, timeout)
