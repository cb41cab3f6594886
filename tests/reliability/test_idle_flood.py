"""The attack suite's idle flood counts what it opened, not what a server left open."""

from __future__ import annotations

import socket
import threading
import time

from controller.reliability.siege import IdleFlood


def test_connections_a_server_sheds_at_once_still_count_as_opened() -> None:
    listener = socket.create_server(("127.0.0.1", 0), backlog=128)
    port = listener.getsockname()[1]
    accepted = 0

    def shed_every_other() -> None:  # as a server at its connection limit closes the oldest
        nonlocal accepted
        listener.settimeout(0.2)
        while not done.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            accepted += 1
            if accepted % 2:
                conn.close()
            else:
                kept.append(conn)

    done, kept = threading.Event(), []
    server = threading.Thread(target=shed_every_other, daemon=True)
    server.start()
    flood = IdleFlood(port, ["127.0.0.1"], 40)
    assert flood.first_opened == -1  # not yet
    flood.start()
    try:
        deadline = time.monotonic() + 10
        while (flood.first_opened < 0 or flood.reopened < 10) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert flood.first_opened == 40  # every one was made
        assert flood.reopened >= 10  # and those shed were opened again
    finally:
        flood.stop.set()
        flood.join(5)
        done.set()
        server.join(5)
        listener.close()
        for conn in kept:
            conn.close()
