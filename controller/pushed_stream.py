"""A live stream served without a thread of its own (:class:`PushedStream`): the hub's
fan-out thread writes each frame into the phone's waitress connection, the server's loop
(:mod:`controller.server`) sends the rest and the heartbeats."""

from __future__ import annotations

import contextlib
import random
import time
from collections.abc import Callable

from waitress.channel import ClientDisconnected, HTTPChannel

PUSH_MOST_BEHIND = 128 * 1024
"""Bytes a live stream's phone may leave untaken (in the server's buffer, beyond what the
kernel's socket buffer holds), on top of twice the largest frame it was sent, before it is
dropped."""


class PushedStream:
    """A live stream whose request's thread has gone back to the pool: the frames are
    written into the connection's buffer by whoever has them (the hub's fan-out thread,
    one thread for every phone), which sends what the socket takes at once; the server's
    loop sends the rest and writes ``heartbeat`` after ``every_s`` s without a frame.

    A phone that leaves more than :data:`PUSH_MOST_BEHIND` bytes plus twice its largest
    frame untaken is dropped (no more frames; its connection closed by the server's
    maintenance within a second; it reconnects for a fresh snapshot), so a stalled phone
    blocks nobody and holds a bounded buffer, while one that reads at a Wi-Fi pace keeps
    its stream through a frame larger than its socket's buffer (a long games list). Frames
    written before the response's head has left wait for it (``start``)."""

    def __init__(
        self, channel: HTTPChannel, chunked: Callable[[], bool], heartbeat: bytes, every_s: float
    ) -> None:
        self.channel = channel
        self.chunked = chunked
        self.heartbeat, self.every_s = heartbeat, every_s
        self.last_write = time.monotonic() - random.uniform(0, every_s * 2 / 3)
        self._waiting: list[bytes] | None = []
        """Frames written before :meth:`start` (``None`` once started)."""
        self._ended = False
        self.largest = 0
        """The largest frame written (bytes; the snapshot counts, see :meth:`start`)."""

    def _too_far_behind(self) -> bool:
        return bool(self.channel.total_outbufs_len > PUSH_MOST_BEHIND + 2 * self.largest)

    def write(self, data: bytes) -> bool:
        """Queue ``data`` (whole SSE frames) for the phone and send what the socket takes
        now; never blocks on the phone. ``False``: it has gone, or was too far behind
        (and is being closed)."""
        channel = self.channel
        with channel.outbuf_lock:
            if not channel.connected or channel.will_close or self._ended:
                return False
            if self._waiting is not None:
                self._waiting.append(data)
                return True
            self.largest = max(self.largest, len(data))
            if self._too_far_behind():
                channel.will_close = True  # the server's maintenance closes it within 1 s
                return False
            self.last_write = time.monotonic()
            if self.chunked():
                data = b"%X\r\n%b\r\n" % (len(data), data)
            if not channel.total_outbufs_len:  # nothing waiting: straight to the socket
                try:
                    sent = channel.socket.send(data)  # non-blocking: what the kernel takes
                except BlockingIOError:
                    sent = 0
                except OSError:  # the phone has gone: the server's loop closes it
                    channel.will_close = True
                    return False
                if sent:
                    channel.last_activity = time.time()  # as waitress's own sends do
                    data = data[sent:]
                if not data:
                    return True
            try:
                channel.write_soon(data)  # below the high watermark: never waits
            except ClientDisconnected:
                return False
        return True

    def start(self) -> None:
        """The response's head and first frames have been written: send what waited."""
        with self.channel.outbuf_lock:
            self.largest = self.channel.total_outbufs_len  # the snapshot's part still here
            waiting, self._waiting = self._waiting or [], None
            if waiting:
                self.write(b"".join(waiting))
            if self._ended:
                self._last_chunk()

    def beat(self, now: float) -> None:
        """Write the heartbeat if nothing was written for ``every_s`` s (the loop's thread)."""
        if now - self.last_write >= self.every_s:
            self.write(self.heartbeat)

    def close(self) -> None:
        """End the stream (its last chunk, when there is room for it): the connection is
        closed once what is buffered has left."""
        with self.channel.outbuf_lock:
            ended, self._ended = self._ended, True
            if not ended and self._waiting is None:  # else start() ends it
                self._last_chunk()

    def _last_chunk(self) -> None:
        channel = self.channel
        if channel.connected and not channel.will_close:
            if not self._too_far_behind():
                with contextlib.suppress(ClientDisconnected):
                    channel.write_soon(b"0\r\n\r\n" if self.chunked() else b"")
            channel.close_when_flushed = True
        channel.server.pull_trigger()
