"""The box as a computer: its clock, the referee PIN file, restarting and shutting down.

A Raspberry Pi has no real-time clock and this box has no internet, so its clock can be
hours off after a power cut. :class:`System` runs the few system commands the dashboard
may ask for, through one injectable ``run`` (tests fake it and check the command lines):

- ``timedatectl show -p NTPSynchronized --value`` (is the clock synchronised?), falling
  back to the file ``/run/systemd/timesync/synchronized`` that systemd-timesyncd keeps;
- ``timedatectl set-time "YYYY-MM-DD HH:MM:SS"`` (the box's local time) to take a phone's
  time; refused by systemd while NTP synchronisation is on, or without the permission;
- ``systemctl restart --no-block diablotin`` and ``systemctl poweroff --no-block`` (queued,
  so the dashboard's answer gets out before the service stops).

A command that fails raises :class:`SystemRefused` (a ``PermissionError``) with what
the command said and what to do.
"""

from __future__ import annotations

import os
import secrets
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from .games.base import Said

Runner = Callable[[Sequence[str]], "subprocess.CompletedProcess[str]"]

CLOCK_TOLERANCE_S = 60.0
"""The box offers to take the phone's time when the two differ by more than this."""
TIMESYNC_FLAG = Path("/run/systemd/timesync/synchronized")
SERVICE_NAME = "diablotin"
PIN_FILE = "referee-pin"


class SystemRefused(PermissionError):
    """A system command the box may not run or that failed; ``str()`` says why and how."""


def run_command(command: Sequence[str]) -> subprocess.CompletedProcess[str]:
    """Run ``command`` (no shell), capture its output, give up after 20 s."""
    return subprocess.run(list(command), capture_output=True, text=True, timeout=20, check=False)


class System:
    """The system commands, through ``run`` (default: :func:`run_command`, looked up when
    the System is made, so a test may replace the module's function; the same for
    ``timesync_flag``, default :data:`TIMESYNC_FLAG`)."""

    def __init__(self, run: Runner | None = None, timesync_flag: Path | None = None) -> None:
        self.run = run if run is not None else run_command
        self.timesync_flag = timesync_flag if timesync_flag is not None else TIMESYNC_FLAG

    def clock_synchronised(self) -> bool | None:
        """True/False as systemd says; ``None`` when it cannot tell (no systemd here)."""
        try:
            done = self.run(["timedatectl", "show", "-p", "NTPSynchronized", "--value"])
        except (OSError, subprocess.SubprocessError):
            done = None
        if done is not None and done.returncode == 0:
            answer = done.stdout.strip()
            if answer in ("yes", "no"):
                return answer == "yes"
        if self.timesync_flag.exists():
            return True
        return None

    def clock_report(self, phone_s: float, now_s: float | None = None) -> dict[str, object]:
        """How the box's clock compares with a phone's (both Unix seconds): ``offset_s``
        (phone minus box), ``synchronised`` and ``offer`` (more than a minute off and not
        synchronised by NTP)."""
        box = time.time() if now_s is None else now_s
        synced = self.clock_synchronised()
        offset = phone_s - box
        return {
            "box_s": box,
            "offset_s": round(offset, 1),
            "synchronised": synced,
            "offer": abs(offset) > CLOCK_TOLERANCE_S and synced is not True,
        }

    @staticmethod
    def set_time_command(when_s: float) -> list[str]:
        """``timedatectl set-time`` for Unix time ``when_s``, written in the box's time zone
        (which is how timedatectl reads it)."""
        stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(when_s))
        return ["timedatectl", "set-time", stamp]

    def set_time(self, when_s: float) -> list[str]:
        """Set the clock; returns the command run. Raises :class:`SystemRefused`."""
        command = self.set_time_command(when_s)
        self._check(command, "set the clock")
        return command

    def restart(self) -> list[str]:
        command = ["systemctl", "restart", "--no-block", SERVICE_NAME]
        self._check(command, "restart the service")
        return command

    def poweroff(self) -> list[str]:
        command = ["systemctl", "poweroff", "--no-block"]
        self._check(command, "shut the box down")
        return command

    def _check(self, command: list[str], what: str) -> None:
        try:
            done = self.run(command)
        except (OSError, subprocess.SubprocessError) as exc:
            raise SystemRefused(
                Said("cannot {what}: {names}: {exc}", what=what, names=" ".join(command), exc=exc)
            ) from None
        if done.returncode == 0:
            return
        said = (done.stderr or done.stdout or "").strip().splitlines()
        detail = said[-1] if said else f"exit status {done.returncode}"
        hint = ""
        lowered = detail.lower()
        if "ntp" in lowered or "automatic time synchronization" in lowered:
            hint = " (NTP synchronisation is on: the clock is kept by the network)"
        elif any(w in lowered for w in ("access denied", "authentication", "not permitted")):
            hint = (
                " (the service is not allowed to: see docs/install-pi.md, 'The clock, restart "
                f"and shut down'; or run `sudo {' '.join(command)}` on the box)"
            )
        raise SystemRefused(
            Said(
                "cannot {what}: {names}: {detail}{hint}",
                what=what,
                names=" ".join(command),
                detail=detail,
                hint=hint,
            )
        )


class PinFile:
    """The generated referee PIN kept in ``<data dir>/referee-pin`` (mode 0600).

    :meth:`current` re-reads the file when it changed (inode, mtime or size), so a PIN reset
    by ``diablotin pin --reset`` reaches a running service at once: sessions remember a
    keyed hash of the PIN, so every referee session ends.
    """

    def __init__(self, data_dir: Path) -> None:
        self.path = Path(data_dir) / PIN_FILE
        self._seen: tuple[int, int, int] | None = None
        self._pin = ""

    def current(self) -> str:
        """The PIN, made on first use. Raises ``OSError`` if the data dir is not writable."""
        try:
            st = self.path.stat()
            mark: tuple[int, int, int] | None = (st.st_ino, st.st_mtime_ns, st.st_size)
        except FileNotFoundError:
            mark = None
        if mark is not None and mark == self._seen:
            return self._pin
        pin = self.path.read_text().strip() if mark is not None else ""
        if not (pin.isascii() and pin.isdigit()):
            pin = self.reset()
            return pin
        self._pin, self._seen = pin, mark
        return pin

    def reset(self) -> str:
        """Write a new 6-digit PIN (atomically) and return it."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        pin = f"{secrets.randbelow(10**6):06d}"
        if pin == self._pin:
            pin = f"{(int(pin) + 1) % 10**6:06d}"
        tmp = self.path.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(pin + "\n")
        os.replace(tmp, self.path)
        st = self.path.stat()
        self._pin, self._seen = pin, (st.st_ino, st.st_mtime_ns, st.st_size)
        return pin
