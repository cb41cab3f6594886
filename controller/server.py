"""Run the dashboard for a started :class:`~controller.service.Service` under waitress.

waitress was chosen over cheroot by measurement under attack (``docs/dashboard.md``,
*Under attack*; ``diablotin bench attack_load --server waitress|cheroot``): it reads
requests on its event loop, so a phone sending its headers a byte a second costs no
thread, where cheroot held one per such connection and the referee's API stopped.
On top of waitress: header and body deadlines, a cap on connections per address, two
worker pools (live streams on demand, the API fixed) and a hook that frees a stream's
slot the moment its phone leaves. Never the Flask development server, never debug mode.

``serve`` blocks until SIGINT or SIGTERM, then always calls ``service.stop()``
(coils off first) on the way out, whatever happened.
"""

from __future__ import annotations

import contextlib
import ctypes
import resource
import signal
import socket
import threading
import time
from collections.abc import Callable
from types import FrameType
from typing import TYPE_CHECKING, Protocol
from wsgiref.types import WSGIApplication

import segno
from waitress.channel import HTTPChannel
from waitress.server import TcpWSGIServer
from waitress.task import ThreadedTaskDispatcher, WSGITask

from . import startup
from .config import ServerConfig
from .games.base import Said
from .pushed_stream import PUSH_MOST_BEHIND as PUSH_MOST_BEHIND
from .pushed_stream import PushedStream
from .web.costly import RefereeGate
from .web.security import lan_address

if TYPE_CHECKING:
    from .service import Service

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
WILDCARD_HOSTS = ("0.0.0.0", "", "::")


def dashboard_url(host: str, port: int) -> str:
    """The address to give phones: the LAN address when listening on every interface."""
    if host in WILDCARD_HOSTS:
        host = lan_address() or "127.0.0.1"
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"http://{host}:{port}/"


def banner(url: str, pin: str) -> str:
    """What the console shows at start: the address, a QR code of it, and the PIN."""
    from .console import say  # in the console's language (LANGUAGE, LANG ...)

    qr = segno.make(url, error="m")
    lines = [
        "",
        say(Said("Diablotin dashboard: {url}", url=url)),
        say(Said("Scan with a phone on the same Wi-Fi:")),
        _terminal_qr(qr),
        say(Said("Referee PIN: {pin}", pin=pin)),
        say(Said("Stop with Ctrl+C (coils are switched off on the way out).")),
        "",
    ]
    return "\n".join(lines)


def _terminal_qr(qr: segno.QRCode) -> str:
    """The QR code as text: two modules per character cell, dark on light."""
    rows = [list(row) for row in qr.matrix_iter(scale=1, border=2)]
    if len(rows) % 2:
        rows.append([0] * len(rows[0]))
    blocks = {(1, 1): " ", (1, 0): "▄", (0, 1): "▀", (0, 0): "█"}
    return "\n".join(
        "".join(blocks[(bool(top), bool(bottom))] for top, bottom in zip(upper, lower, strict=True))
        for upper, lower in zip(rows[::2], rows[1::2], strict=True)
    )


STREAM_PATH = "/stream"
_STREAM_THREAD = "diablotin-stream-"


class _Job(Protocol):
    """What a worker pool runs: a connection's request (a waitress channel) or a wrapper."""

    def service(self) -> None: ...

    def cancel(self) -> None: ...


class _Pool(ThreadedTaskDispatcher):  # type: ignore[misc]  # waitress has no type hints: an untyped base class
    """waitress's worker pool, its threads named after the pool; ``add_task`` starts threads
    on demand up to ``most`` instead of all at once. With ``keep_idle``, a thread with
    nothing to do ends when that many others are idle already (a burst's threads, and
    those started for a task another thread took)."""

    def __init__(self, name: str, most: int, keep_idle: int | None = None) -> None:
        super().__init__()
        self.name = name
        self.most = most
        self.keep_idle = keep_idle

    def handler_thread(self, thread_no: int) -> None:
        """waitress's worker loop (3.0), and a thread that would wait beside
        ``keep_idle`` idle ones ends instead."""
        if self.keep_idle is None:
            super().handler_thread(thread_no)
            return
        while True:
            with self.lock:
                while not self.queue and self.stop_count == 0:
                    idle = len(self.threads) - self.stop_count - self.active_count
                    if idle >= self.keep_idle:  # enough wait already: this one ends
                        self.stop_count += 1
                        break
                    self.active_count -= 1
                    self.queue_cv.wait()
                    self.active_count += 1
                if self.stop_count > 0:
                    self.active_count -= 1
                    self.stop_count -= 1
                    self.threads.discard(thread_no)
                    self.thread_exit_cv.notify()
                    return
                task = self.queue.popleft()
            try:
                task.service()
            except BaseException:
                self.logger.exception("Exception when servicing %r", task)

    def start_new_thread(self, target: Callable[[int], None], thread_no: int) -> None:
        thread = threading.Thread(target=target, name=f"{self.name}{thread_no}", args=(thread_no,))
        thread.daemon = True
        thread.start()

    def add_task(self, task: _Job) -> None:
        with self.lock:
            idle = len(self.threads) - self.stop_count - self.active_count
            running = len(self.threads) - self.stop_count
        if idle <= len(self.queue) and running < self.most:
            self.set_thread_count(running + 1)
        with self.lock:
            self.queue.append(task)
            self.queue_cv.notify()


REFEREE_THREADS = 4
"""Workers only the referee's requests (a live session cookie) are served by."""
STREAM_THREADS_IDLE = 4
"""Stream threads kept idle once a crowd of phones has its snapshots (the rest end)."""


class _Deferred:
    """A spectator's request: it starts once no referee request is being served (or after
    the gate's longest wait)."""

    def __init__(self, channel: HTTPChannel, gate: RefereeGate) -> None:
        self.channel, self.gate = channel, gate

    def service(self) -> None:
        self.gate.wait_quiet()
        self.channel.service()

    def cancel(self) -> None:
        self.channel.cancel()


class _Priority(_Deferred):
    """A referee's request: spectators' requests and expensive reads wait while it runs."""

    def service(self) -> None:
        with self.gate.serving():
            self.channel.service()


class _Pools:
    """Three pools: live streams (a thread each until its snapshot is out, then none:
    :class:`PushedStream`; started on demand, at most the stream cap plus a few), the
    referee's (:data:`REFEREE_THREADS`, for requests with a live referee session:
    capacity spectators cannot take) and everything else (``threads`` workers). While a
    referee request is served, spectators' requests wait to start (priority by session),
    so hammering clients cannot slow the referee's actions; the API's threads are the only
    ones that see spectators' hostile bodies (bounded memory)."""

    def __init__(
        self,
        threads: int,
        streams: int,
        gate: RefereeGate | None = None,
        is_referee: Callable[[str], bool] | None = None,
    ) -> None:
        self.api = _Pool("diablotin-api-", threads)
        self.api.set_thread_count(threads)
        self.referee = _Pool("diablotin-referee-", REFEREE_THREADS)
        self.referee.set_thread_count(REFEREE_THREADS)
        self.streams = _Pool(_STREAM_THREAD, streams, STREAM_THREADS_IDLE)
        self.gate = gate or RefereeGate()
        self.is_referee = is_referee or (lambda cookie: False)

    def add_task(self, channel: HTTPChannel) -> None:
        requests = getattr(channel, "requests", None)
        first = requests[0] if requests else None
        if getattr(first, "path", None) == STREAM_PATH:
            self.streams.add_task(channel)
            return
        headers = getattr(first, "headers", None) or {}
        if self.is_referee(str(headers.get("COOKIE", ""))):
            self.referee.add_task(_Priority(channel, self.gate))
        else:
            self.api.add_task(_Deferred(channel, self.gate))

    def shutdown(self, cancel_pending: bool = True, timeout: float = 5) -> bool:
        done = self.streams.shutdown(cancel_pending, timeout)
        done = self.referee.shutdown(cancel_pending, timeout) and done
        return bool(self.api.shutdown(cancel_pending, timeout) and done)


class _Task(WSGITask):  # type: ignore[misc]  # waitress has no type hints: an untyped base class
    pushed: PushedStream | None = None

    def get_environment(self) -> dict[str, object]:
        environ: dict[str, object] = super().get_environment()
        environ["diablotin.on_disconnect"] = self.channel.on_disconnect
        environ["diablotin.stream_thread"] = threading.current_thread().name.startswith(
            _STREAM_THREAD
        )
        environ["diablotin.push"] = self.push
        return environ

    def push(self, heartbeat: bytes, every_s: float) -> PushedStream:
        """Serve this response thread-less once its body's first chunks are written: the
        returned stream's ``write`` adds to it from any thread (see :class:`PushedStream`).
        The body must not be of a known length (a generator)."""
        self.pushed = PushedStream(
            self.channel, lambda: bool(self.chunked_response), heartbeat, every_s
        )
        return self.pushed

    def finish(self) -> None:
        if self.pushed is None:
            super().finish()
        elif not self.wrote_header:
            self.write(b"")  # the head; no last chunk: the response goes on

    def service(self) -> None:
        super().service()
        pushed, channel = self.pushed, self.channel
        if pushed is None or not self.wrote_header or channel.will_close:
            return  # not a stream, or it failed: waitress ends it as any response
        with channel.requests_lock:
            if not channel.connected:
                return
            self.close_on_finish = False  # the connection stays open, its thread does not
            for later in channel.requests[1:]:  # nothing may follow a stream on its connection
                later.close()
            del channel.requests[1:]
            channel.request = None  # nor a request still arriving (no 100 Continue)
            channel.pushed = pushed
        pushed.start()


class _Channel(HTTPChannel):  # type: ignore[misc]  # waitress has no type hints: an untyped base class
    """A waitress connection that remembers since when it has been waiting for a request
    (``idle_since``: its accept, or the end of its last answer; for the header and body
    deadlines) and tells the app when the phone has gone."""

    task_class = _Task
    pushed: PushedStream | None = None
    """Set once this connection is a thread-less live stream."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        self.idle_since = time.monotonic()
        self.close_hooks: list[Callable[[], None]] = []
        self.hooks_lock = threading.Lock()
        super().__init__(*args, **kwargs)

    def received(self, data: bytes) -> bool:
        if self.pushed is not None:
            return False  # nothing may follow a live stream on its connection: ignored
        return bool(super().received(data))

    def _flush_some(self, do_close: bool = True) -> bool:
        """Send what the socket takes; a live stream's buffer only under its lock, also
        when waitress thought no request was running: the stream's thread may have pushed
        it between the loop's two reads (``pushed``, then ``requests``)."""
        if self.pushed is None:
            return bool(super()._flush_some(do_close=do_close))
        with self.outbuf_lock:  # re-entrant: waitress's locked path holds it already
            return bool(super()._flush_some(do_close=do_close))

    def handle_write(self) -> None:
        if self.pushed is None:
            super().handle_write()
            return
        # other threads write to a live stream's buffer: send under its lock (waitress
        # sends without it when no request is running), close outside it
        with self.outbuf_lock:
            self._flush_exception(self._flush_some, do_close=False)
            if self.close_when_flushed and not self.total_outbufs_len:
                self.will_close = True
        if self.will_close:
            self.handle_close()

    def service(self) -> None:
        try:
            super().service()
        finally:
            self.idle_since = time.monotonic()  # the next request's deadlines start now

    @property
    def busy(self) -> bool:
        """Is a request of this connection being served, or its answer still leaving?"""
        return bool(self.requests or self.total_outbufs_len or self.pushed)

    def del_channel(self, map: dict[int, object] | None = None) -> None:
        super().del_channel(map)
        held = self.server.by_address.get(self.addr[0])
        if held is not None:
            held.discard(self)
            if not held:
                del self.server.by_address[self.addr[0]]

    def on_disconnect(self, hook: Callable[[], None]) -> None:
        """Call ``hook`` (from the server's loop thread) once the client has gone."""
        with self.hooks_lock:
            if self.connected:
                self.close_hooks.append(hook)
                return
        hook()

    def handle_close(self) -> None:
        super().handle_close()
        with self.hooks_lock:
            hooks, self.close_hooks = self.close_hooks, []
        for hook in hooks:
            with contextlib.suppress(Exception):
                hook()


ACCEPTS_PER_EVENT = 256
"""Connections the server accepts each time its listening socket is readable."""


class _Server(TcpWSGIServer):  # type: ignore[misc]  # waitress has no type hints: an untyped base class
    """waitress's TCP server plus caps on connections (``max_connections`` in all,
    ``max_connections_per_client`` per address) and deadlines for a request's headers and
    body, counted from the accept (or the end of the connection's last answer).

    A connection over a cap does not wait in the kernel's queue: it takes the place of a
    connection that is waiting for its request (none being served), the oldest of the
    address that holds the most, if that is more than the new one's address would (its
    own address's oldest, for the per-address cap). So silent sockets can neither fill
    the server nor keep a new phone or the referee out; a new connection is closed when
    its address already holds the most, or when every connection is being served."""

    channel_class = _Channel

    def __init__(self, *args: object, settings: ServerConfig, **kwargs: object) -> None:
        self.settings = settings
        self.refused_connections = 0
        self.shed_connections = 0
        self.by_address: dict[str, set[_Channel]] = {}
        super().__init__(*args, **kwargs)

    def handle_accept(self) -> None:
        """Take every waiting connection (up to :data:`ACCEPTS_PER_EVENT`), not one per
        turn of the loop: under a flood of reconnections, a turn over a thousand
        connections costs a millisecond or two, and the referee's connection waited
        behind hundreds of others in the listen queue (p50 213 ms measured)."""
        for _ in range(ACCEPTS_PER_EVENT):
            try:
                accepted = self.accept()
                if accepted is None:
                    return
                conn, addr = accepted
            except OSError:
                return
            try:
                self.set_socket_options(conn)  # TCP_NODELAY: each event leaves at once
            except OSError:
                conn.close()
                continue
            self._take(conn, self.fix_addr(addr))

    def _take(self, conn: socket.socket, addr: tuple[str, int]) -> None:
        """A new connection: a channel for it, or closed when there is no room."""
        mine = self.by_address.get(addr[0], set())
        if len(mine) >= self.settings.max_connections_per_client:
            room = self._shed(mine)
        elif len(self.active_channels) >= self.settings.max_connections:
            room = self._shed_heavier(len(mine))
        else:
            room = True
        if not room:
            self.refused_connections += 1
            conn.close()  # no waiting connection to give way (or its address holds most)
            return
        channel = self.channel_class(self, conn, addr, self.adj, map=self._map)
        self.by_address.setdefault(addr[0], set()).add(channel)

    def _shed_heavier(self, held: int) -> bool:
        """Make room for a connection from an address holding ``held``: shed from an
        address that would still hold more than it, the one holding the most first.
        False when none can give way (the new connection's address holds as many as
        any: it is the one refused, so a flood's reconnections cost a close, not churn)."""
        for channels in sorted(self.by_address.values(), key=len, reverse=True):
            if len(channels) <= held + 1:
                return False
            if self._shed(channels):
                return True
        return False

    def _shed(self, channels: set[_Channel]) -> bool:
        """Close the oldest of ``channels`` waiting for its request; False if every one is
        being served."""
        waiting = [ch for ch in channels if not ch.busy and not ch.will_close]
        if not waiting:
            return False
        self.shed_connections += 1
        min(waiting, key=lambda ch: ch.idle_since).handle_close()
        return True

    def maintenance(self, now: float) -> None:
        super().maintenance(now)
        mono = time.monotonic()
        for channel in list(self.active_channels.values()):
            if channel.pushed is not None:
                if channel.will_close:  # dropped: a stalled phone's socket never polls writable
                    channel.handle_close()
                else:
                    channel.pushed.beat(mono)
                continue
            if channel.busy or channel.will_close:
                continue
            request = channel.request
            if request is not None and request.headers_finished:
                limit = self.settings.body_timeout_s
            else:
                limit = self.settings.header_timeout_s
            if mono - channel.idle_since > limit:
                channel.will_close = True  # a silent or slow sender loses its connection


class DashboardServer:
    """The dashboard's HTTP server (waitress, tuned): ``serve()`` blocks, ``stop()`` ends it
    from another thread, ``port`` is the bound port."""

    def __init__(
        self, app: WSGIApplication, host: str, port: int, threads: int, settings: ServerConfig
    ):
        _raise_open_files_limit(4096)
        limit_malloc_arenas(2)
        self.settings = settings
        connection_limit = settings.max_connections + 16  # not reached: _Server sheds first
        self.server = _Server(
            app,
            settings=settings,
            host=host,
            port=port,
            dispatcher=_pools_for(app, threads, settings.max_streams + 8),
            connection_limit=connection_limit,
            asyncore_use_poll=True,  # select() stops at 1024 descriptors
            channel_timeout=30,  # s of silence before an idle connection is closed
            cleanup_interval=1,  # s between deadline checks
            channel_request_lookahead=1,  # keep reading: notice a phone that leaves
            max_request_header_size=32 * 1024,
            max_request_body_size=MAX_REQUEST_BYTES,
            inbuf_overflow=64 * 1024,
            outbuf_high_watermark=256 * 1024,  # a stalled phone blocks, then is cut off
            ident="diablotin",
            expose_tracebacks=False,
            clear_untrusted_proxy_headers=True,
        )
        self.port = int(self.server.effective_port)
        self._stopped = threading.Event()

    def serve(self) -> None:
        try:
            self.server.run()
        finally:
            self._stopped.set()

    def stop(self) -> None:
        """Close every connection and the listening socket; end the worker threads."""

        def close_all() -> None:
            for channel in list(self.server._map.values()):
                with contextlib.suppress(Exception):
                    channel.close()

        with contextlib.suppress(Exception):
            self.server.trigger.pull_trigger(close_all)
        if not self._stopped.wait(5):
            close_all()
        self.server.task_dispatcher.shutdown(timeout=3)


MAX_REQUEST_BYTES = 1024 * 1024 + 4096
"""The largest request body the server reads (an exported game: 1 MiB, see web)."""


M_ARENA_MAX = -8
"""glibc's ``mallopt`` parameter for the number of malloc arenas."""
M_MMAP_THRESHOLD = -3
"""glibc's ``mallopt`` parameter: blocks from this size up are mmap'ed (and given back)."""


def limit_malloc_arenas(arenas: int = 2) -> bool:
    """Let glibc's malloc use at most ``arenas`` arenas (as ``MALLOC_ARENA_MAX`` would).

    By default each thread that allocates may get an arena of its own (up to 8 per core)
    and each keeps its high-water mark: after a few hundred large request bodies spread
    over the worker threads, RSS had grown by 25-55 MB and stayed there (measured:
    docs/dashboard.md, *Under attack*). Also fixes the mmap threshold at 128 KiB: glibc
    otherwise raises it after the first large block is freed, so later request bodies
    (an import's 1 MiB and what it parses into) land in the heap and keep it high.
    Call before the worker threads start. Returns False where there is no glibc
    ``mallopt`` (nothing changes)."""
    try:
        libc = ctypes.CDLL(None)
        fixed_mmap = libc.mallopt(ctypes.c_int(M_MMAP_THRESHOLD), ctypes.c_int(128 * 1024))
        return bool(libc.mallopt(ctypes.c_int(M_ARENA_MAX), ctypes.c_int(arenas)) and fixed_mmap)
    except (OSError, AttributeError):
        return False


def _pools_for(app: WSGIApplication, threads: int, streams: int) -> _Pools:
    """The worker pools, told by ``app`` (the dashboard) who the referee is, and sharing
    its gate with its expensive reads (:mod:`controller.web.costly`)."""
    from flask import Flask

    from controller.web.security import referee_cookie

    if not isinstance(app, Flask) or "diablotin" not in app.extensions:
        return _Pools(threads, streams)  # another WSGI app (benchmarks): no referee
    dashboard = app

    def is_referee(cookie: str) -> bool:
        return bool(cookie) and referee_cookie(dashboard, cookie)

    return _Pools(threads, streams, app.extensions["diablotin.referee_gate"], is_referee)


def _raise_open_files_limit(wanted: int) -> None:
    """Each connection is a file descriptor: allow ``wanted`` if the hard limit does."""
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        if soft != resource.RLIM_INFINITY and soft < target:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    except (OSError, ValueError):
        pass


def make_server(
    app: WSGIApplication,
    host: str,
    port: int,
    threads: int,
    settings: ServerConfig | None = None,
) -> DashboardServer:
    """The dashboard server bound to ``host:port`` (port 0: any free port; see
    :func:`bound_port`), with ``threads`` workers for requests besides the live streams.
    ``settings`` (caps and deadlines) default to the app's service's ``[server]`` config.
    Run it with ``server.serve()``, stop it with ``server.stop()``. Raises ``OSError`` if
    the address cannot be bound."""
    if settings is None:
        service = getattr(app, "extensions", {}).get("diablotin")
        settings = service.config.server if service is not None else ServerConfig()
    return DashboardServer(app, host, port, threads, settings)


def bound_port(server: DashboardServer) -> int:
    """The TCP port a server from :func:`make_server` listens on."""
    return int(server.port)


def serve(
    service: Service,
    host: str,
    port: int,
    threads: int,
    log: Callable[[str], None] = print,
    *,
    ready: Callable[[DashboardServer], None] | None = None,
) -> None:
    """Serve the dashboard for ``service`` until SIGINT/SIGTERM (or ``server.close()``).

    ``service`` must be started. Prints the address, a QR code of it and the
    referee PIN through ``log``. ``ready(server)`` is called once listening (tests
    use it to learn the port; :func:`stop_server` stops it from another thread). Always ends with
    ``service.stop()``. Raises ``OSError`` if the address cannot be bound (after
    stopping the service).
    """
    from controller.web import create_app

    try:
        url = dashboard_url(host, port)
        app = create_app(service, public_url=url)
        server = make_server(app, host, port, threads)
        if port == 0:
            url = dashboard_url(host, bound_port(server))
            app.config["PUBLIC_URL"] = url
        log(banner(url, service.referee_pin))
        restore = _install_signal_handlers(service)
        startup.release()  # started: what start-up made is kept out of the collector's way
        try:
            with contextlib.suppress(KeyboardInterrupt):  # a signal may come during ready()
                if ready is not None:
                    ready(server)
                server.serve()
        finally:
            restore()
            service.hub.close_all()  # end the live streams so their threads can finish
            with contextlib.suppress(Exception):
                server.stop()
    finally:
        service.stop()
        log("Diablotin stopped: coils off.")


def stop_server(server: DashboardServer) -> None:
    """Stop a server started by :func:`serve` from another thread (tests, embedding)."""
    server.stop()


def _install_signal_handlers(service: Service) -> Callable[[], None]:
    """SIGINT/SIGTERM: stop the service at once (coils off, streams ended), then leave
    the server's loop. Only possible on the main thread; elsewhere nothing is installed."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None

    def on_signal(signum: int, frame: FrameType | None) -> None:
        service.stop()
        raise KeyboardInterrupt

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}

    def restore() -> None:
        for sig, handler in previous.items():
            signal.signal(sig, handler)

    return restore
