"""Logging and error lines, for a terminal and for systemd's journal.

On a terminal or in a file each log line carries one timestamp and its level. When stderr is
the journal (``$JOURNAL_STREAM``), a line starts with its syslog priority instead (``<4>`` for
a warning: sd-daemon(3)) and carries no timestamp, since journald stamps the time; so
``journalctl -p warning`` finds the warnings and errors.
"""

from __future__ import annotations

import logging
import os
import sys

JOURNAL_PRIORITY = {"DEBUG": 7, "INFO": 6, "WARNING": 4, "ERROR": 3, "CRITICAL": 2}
"""syslog priorities of the logging levels (sd-daemon(3): ``<N>`` at the start of a line)."""


class JournalFormatter(logging.Formatter):
    """``<N>logger: message`` on every line: journald reads the priority N from the prefix and
    stamps the time itself, so there is no timestamp of our own."""

    def format(self, record: logging.LogRecord) -> str:
        priority = JOURNAL_PRIORITY.get(record.levelname, 6)
        return "\n".join(f"<{priority}>{line}" for line in super().format(record).splitlines())


def stderr_is_journal() -> bool:
    """True when stderr is systemd's journal stream: ``$JOURNAL_STREAM`` names its device and
    inode (systemd.exec(5)), not merely set by a parent process."""
    device, _, inode = os.environ.get("JOURNAL_STREAM", "").partition(":")
    try:
        status = os.fstat(sys.stderr.fileno())
        return (status.st_dev, status.st_ino) == (int(device), int(inode))
    except (ValueError, OSError, AttributeError):
        return False


def journal_prefix(priority: int) -> str:
    """``<priority>`` when stderr is the journal (a line written there gets that priority),
    else nothing."""
    return f"<{priority}>" if stderr_is_journal() else ""


def complain(message: str, program: str = "diablotin") -> None:
    """``program: message`` on stderr, for an error that ends the command; under systemd's
    journal at the error priority (``<3>``), so ``journalctl -p warning`` shows why."""
    print(f"{journal_prefix(3)}{program}: {message}", file=sys.stderr)


def configure_logging(verbose: bool) -> None:
    """Log to stderr: one timestamp a line on a terminal or in a file; under systemd, the
    priority prefix instead (see the module doc). ``warnings.warn`` logs as a warning. Does
    nothing when the root logger has handlers already (tests, a program embedding this)."""
    root = logging.getLogger()
    if root.handlers:
        return
    handler = logging.StreamHandler(sys.stderr)
    if stderr_is_journal():
        handler.setFormatter(JournalFormatter("%(name)s: %(message)s"))
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root.addHandler(handler)
    root.setLevel(logging.DEBUG if verbose else logging.INFO)
    logging.captureWarnings(True)
