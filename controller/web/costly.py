"""Expensive reads (odds with lookahead, the coach, stats, a game's export and chart):
cached per game version, rate-limited per address, computed off the request threads.

One :class:`Costly` per app. :meth:`Costly.answer` gives a read's answer:

1. from the cache when this read was made at this version (the key holds the game's
   version, so an action makes the next read compute again); cached answers are free;
2. otherwise, for a spectator, one of ``burst`` tokens of their address (refilled at
   ``per_s`` a second) is spent; none left: the last answer to the same read at an older
   version, marked ``"stale": true``, or 429 with ``Retry-After``;
3. the computation goes into a bounded queue (``queue`` jobs; full: 503 with
   ``Retry-After`` for spectators) served by one worker thread at a lower OS priority,
   the referee's jobs first; a spectator's job waits while a referee action is being
   served (:class:`RefereeGate`), before it starts and, in a long computation that calls
   :func:`yield_to_referee`, between its steps. Identical reads share one computation.

The request thread waits for the answer (at most ``wait_s``, then 503).
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import math
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field

from controller.games.base import Said

from .security import ApiError

WORKER_NICE = 10
"""How much nicer than the server the worker thread runs (Linux: per thread)."""


_worker_state = threading.local()


def yield_to_referee() -> None:
    """For long computations to call now and then: on the worker, in a spectator's job,
    wait while a referee request is being served (at most the gate's longest wait); a
    no-op anywhere else."""
    gate: RefereeGate | None = getattr(_worker_state, "gate", None)
    if gate is not None:
        gate.wait_quiet()


class RefereeGate:
    """Counts the referee's requests being served; spectators' work waits for none to be
    (at most ``max_wait_s`` at a time, so it is never starved)."""

    def __init__(self, max_wait_s: float = 0.5) -> None:
        self.max_wait_s = max_wait_s
        self._serving = 0
        self._quiet = threading.Condition()

    @contextlib.contextmanager
    def serving(self) -> Iterator[None]:
        with self._quiet:
            self._serving += 1
        try:
            yield
        finally:
            with self._quiet:
                self._serving -= 1
                if not self._serving:
                    self._quiet.notify_all()

    def wait_quiet(self) -> None:
        """Return once no referee request is being served, or after ``max_wait_s``."""
        with self._quiet:
            self._quiet.wait_for(lambda: not self._serving, self.max_wait_s)

    @property
    def busy(self) -> bool:
        return self._serving > 0


@dataclass(order=True)
class _Job:
    priority: int
    order: int
    key: tuple[Hashable, Hashable] = field(compare=False)
    compute: Callable[[], tuple[object, bool]] = field(compare=False)
    done: Future[object] = field(compare=False)


class _Buckets:
    """A token bucket per client address (at most ``clients`` remembered)."""

    def __init__(self, burst: float, per_s: float, clock: Callable[[], float], clients: int = 4096):
        self.burst, self.per_s, self.clock, self.clients = burst, per_s, clock, clients
        self._tokens: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def take(self, client: str) -> float:
        """Spend a token of ``client``: 0, or the seconds until one is there."""
        now = self.clock()
        tokens, then = self._tokens.pop(client, (self.burst, now))
        tokens = min(self.burst, tokens + (now - then) * self.per_s)
        if tokens >= 1:
            self._tokens[client] = (tokens - 1, now)
            wait = 0.0
        else:
            self._tokens[client] = (tokens, now)
            wait = (1 - tokens) / self.per_s
        while len(self._tokens) > self.clients:
            self._tokens.popitem(last=False)
        return wait


class Costly:
    """The expensive reads' cache, rate limit and worker (see the module doc).

    ``gate``: the referee's requests in flight (spectators' jobs wait for it to be quiet).
    ``clock``: monotonic seconds (the rate limit)."""

    def __init__(
        self,
        gate: RefereeGate | None = None,
        *,
        queue: int = 4,
        burst: float = 10.0,
        per_s: float = 1.0,
        entries: int = 512,
        wait_s: float = 20.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.gate = gate or RefereeGate()
        self.queue_size = queue
        self.wait_s = wait_s
        self.entries = entries
        self._buckets = _Buckets(burst, per_s, clock)
        self._cache: OrderedDict[Hashable, object] = OrderedDict()
        self._latest: OrderedDict[Hashable, object] = OrderedDict()
        self._pending: dict[Hashable, Future[object]] = {}
        self._jobs: list[_Job] = []
        self._order = itertools.count()
        self._lock = threading.Condition()
        self.computed = 0
        self._worker: threading.Thread | None = None  # started by the first job

    def answer(
        self,
        read: Hashable,
        version: Hashable,
        compute: Callable[[], tuple[object, bool]],
        *,
        client: str,
        referee: bool,
        wait_s: float | None = None,
    ) -> object:
        """The answer to ``read`` (what is asked, without the version) at ``version``.
        ``compute()`` returns ``(answer, cacheable)``; its exceptions reach the caller.
        ``wait_s``: how long the request waits for it (default: the queue's ``wait_s``).
        Raises :class:`ApiError` 429 (spectators only, see the module doc) or 503 (a
        spectator's full queue, or no answer within ``wait_s``)."""
        key = (read, version)
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
            pending = self._pending.get(key)
            if pending is None:
                pending = self._submit(key, read, compute, client, referee)
        try:
            return pending.result(self.wait_s if wait_s is None else wait_s)
        except FutureTimeout:
            raise ApiError(
                503,
                "busy",
                Said("too many requests: wait a moment and try again"),
                {"Retry-After": "2"},
            ) from None

    def _submit(
        self,
        key: tuple[Hashable, Hashable],
        read: Hashable,
        compute: Callable[[], tuple[object, bool]],
        client: str,
        referee: bool,
    ) -> Future[object]:
        """Queue ``compute`` (the lock held). Spectators: rate and queue limits first."""
        if not referee:
            wait = self._buckets.take(client)
            if wait > 0:
                stale = self._latest.get(read)
                if isinstance(stale, dict):
                    done: Future[object] = Future()
                    done.set_result(stale | {"stale": True})
                    return done
                seconds = max(1, math.ceil(wait))
                raise ApiError(
                    429,
                    "too-many-requests",
                    Said("too many requests: wait a moment and try again"),
                    {"Retry-After": str(seconds)},
                )
            if len(self._jobs) >= self.queue_size:
                raise ApiError(
                    503,
                    "busy",
                    Said("too many requests: wait a moment and try again"),
                    {"Retry-After": "2"},
                )
        if self._worker is None:
            self._worker = threading.Thread(target=self._work, name="diablotin-costly", daemon=True)
            self._worker.start()
        job = _Job(0 if referee else 1, next(self._order), key, compute, Future())
        job.done.add_done_callback(lambda done: self._store(key, read, done))
        self._pending[key] = job.done
        heapq.heappush(self._jobs, job)
        self._lock.notify()
        return job.done

    def _store(self, key: Hashable, read: Hashable, done: Future[object]) -> None:
        with self._lock:
            self._pending.pop(key, None)

    def _work(self) -> None:
        with contextlib.suppress(OSError, AttributeError):  # Linux: a thread's own nice value
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), WORKER_NICE)
        while True:
            with self._lock:
                self._lock.wait_for(lambda: bool(self._jobs))
                job = heapq.heappop(self._jobs)
            if job.priority:
                self.gate.wait_quiet()
            _worker_state.gate = self.gate if job.priority else None
            try:
                answer, cacheable = job.compute()
            except BaseException as exc:  # handed to the request that asked
                job.done.set_exception(exc)
                continue
            finally:
                _worker_state.gate = None
            read = job.key[0]
            with self._lock:
                self.computed += 1
                if cacheable:
                    for table in (self._cache, self._latest):
                        table[job.key if table is self._cache else read] = answer
                        while len(table) > self.entries:
                            table.popitem(last=False)
            job.done.set_result(answer)
