"""One running service per data dir: an exclusive ``flock`` on ``<data dir>/diablotin.lock``.

Two services on one journal would each acknowledge moves the other never saw, and the
game would no longer replay. The lock is taken when the service starts and held for its
life; the kernel drops it when the process ends, even after ``kill -9``. The file keeps
the holder's pid, so a second service can say who holds it.
"""

from __future__ import annotations

import errno
import fcntl
import os
from pathlib import Path

from .games.base import Said

LOCK_NAME = "diablotin.lock"


class DataDirBusy(BlockingIOError):
    """Another process holds the data dir; the message names the dir and its pid."""

    def __str__(self) -> str:
        return str(self.strerror)


class DataDirLock:
    """Take the lock on ``data_dir`` (created if missing); raises :class:`DataDirBusy`."""

    def __init__(self, data_dir: Path) -> None:
        data_dir.mkdir(parents=True, exist_ok=True)
        self.path = data_dir / LOCK_NAME
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            holder = os.read(fd, 32).decode("ascii", "replace").strip()
            os.close(fd)
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):
                raise
            who = Said("pid {pid}", pid=holder) if holder.isdigit() else Said("its pid is unknown")
            raise DataDirBusy(
                errno.EWOULDBLOCK,
                Said(
                    "another diablotin ({who}) is using the data dir {data_dir}: only one may "
                    "run on it at a time. Stop the other one first (`sudo systemctl stop "
                    "diablotin`, or Ctrl-C in its terminal), or give this one another --data-dir",
                    who=who,
                    data_dir=data_dir,
                ),
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd: int | None = fd

    def release(self) -> None:
        """Drop the lock (safe to call twice)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
