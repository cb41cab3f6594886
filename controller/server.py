"""Run the dashboard for a started :class:`~controller.service.Service` under cheroot.

cheroot (CherryPy's pure-Python WSGI server) was chosen over waitress by measurement
(``docs/dashboard.md``, ``diablotin bench web --server waitress|cheroot``): a thread
per live stream writes each event straight to its socket, which gave the lower
tail latency with 50 phones; idle keep-alive sockets wait in its selector without
a thread. Never the Flask development server, never debug mode.

``serve`` blocks until SIGINT or SIGTERM, then always calls ``service.stop()``
(coils off first) on the way out, whatever happened.
"""

from __future__ import annotations

import contextlib
import signal
import socket
import threading
from collections.abc import Callable
from types import FrameType
from typing import Any

import segno

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
WILDCARD_HOSTS = ("0.0.0.0", "", "::")


def lan_address() -> str | None:
    """This machine's address on the local network, or ``None`` if it has none.

    Asks the kernel which source address a UDP socket *would* use; connecting a
    UDP socket sends no packet.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: a routing lookup only
            address = probe.getsockname()[0]
        except OSError:
            return None
    return None if address.startswith("127.") or address == "0.0.0.0" else str(address)


def dashboard_url(host: str, port: int) -> str:
    """The address to give phones: the LAN address when listening on every interface."""
    if host in WILDCARD_HOSTS:
        host = lan_address() or "127.0.0.1"
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"http://{host}:{port}/"


def banner(url: str, pin: str) -> str:
    """What the console shows at start: the address, a QR code of it, and the PIN."""
    qr = segno.make(url, error="m")
    lines = [
        "",
        f"Diablotin dashboard: {url}",
        "Scan with a phone on the same Wi-Fi:",
        _terminal_qr(qr),
        f"Referee PIN: {pin}",
        "Stop with Ctrl+C (coils are switched off on the way out).",
        "",
    ]
    return "\n".join(lines)


def _terminal_qr(qr: Any) -> str:
    """The QR code as text: two modules per character cell, dark on light."""
    rows = [list(row) for row in qr.matrix_iter(scale=1, border=2)]
    if len(rows) % 2:
        rows.append([0] * len(rows[0]))
    blocks = {(1, 1): " ", (1, 0): "▄", (0, 1): "▀", (0, 0): "█"}
    return "\n".join(
        "".join(blocks[(bool(top), bool(bottom))] for top, bottom in zip(upper, lower, strict=True))
        for upper, lower in zip(rows[::2], rows[1::2], strict=True)
    )


def make_server(app: Any, host: str, port: int, threads: int) -> Any:
    """A cheroot server bound to ``host:port`` (port 0: any free port; see
    :func:`bound_port`). Run it with ``server.serve()``, stop it with ``server.stop()``.
    Raises ``OSError`` if the address cannot be bound."""
    from cheroot.wsgi import Server

    server = Server(
        (host, port),
        app,
        numthreads=threads,
        server_name="diablotin",
        request_queue_size=64,  # the listen backlog: a room full of phones arriving at once
        timeout=30,  # s a socket may block; live streams write a ping every 15 s
        shutdown_timeout=3,
    )
    server.prepare()
    return server


def bound_port(server: Any) -> int:
    """The TCP port a server from :func:`make_server` listens on."""
    return int(server.bind_addr[1])


def serve(
    service: Any,
    host: str,
    port: int,
    threads: int,
    log: Callable[[str], None] = print,
    *,
    ready: Callable[[Any], None] | None = None,
) -> None:
    """Serve the dashboard for ``service`` until SIGINT/SIGTERM (or ``server.close()``).

    ``service`` must be started. Prints the address, a QR code of it and the
    referee PIN through ``log``. ``ready(server)`` is called once listening (tests
    use it to learn the port; :func:`stop_server` stops it from another thread). Always ends with
    ``service.stop()``. Raises ``OSError`` if the address cannot be bound (after
    stopping the service).
    """
    from web import create_app

    try:
        url = dashboard_url(host, port)
        app = create_app(service, public_url=url)
        server = make_server(app, host, port, threads)
        if port == 0:
            url = dashboard_url(host, bound_port(server))
            app.config["PUBLIC_URL"] = url
        log(banner(url, service.referee_pin))
        restore = _install_signal_handlers(service)
        try:
            if ready is not None:
                ready(server)
            with contextlib.suppress(KeyboardInterrupt):
                server.serve()
        finally:
            restore()
            service.hub.close_all()  # end the live streams so their threads can finish
            with contextlib.suppress(Exception):
                server.stop()
    finally:
        service.stop()
        log("Diablotin stopped: coils off.")


def stop_server(server: Any) -> None:
    """Stop a server started by :func:`serve` from another thread (tests, embedding)."""
    server.stop()


def _install_signal_handlers(service: Any) -> Callable[[], None]:
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
