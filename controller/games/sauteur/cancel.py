"""Stopping a long solve from another thread (the service stopping while a table solves).

A solver takes an optional ``cancel`` flag (a :class:`threading.Event`, or anything with
``is_set()``) and calls :func:`check` in its loop: once the flag is set, the solve raises
:class:`Cancelled` within one step of its loop (a turn pair, a hiding's best reply, a level
of positions) and keeps nothing half made. Pure: the flag is set by the caller.
"""

from __future__ import annotations

from typing import Protocol


class Cancelled(Exception):
    """A solve was stopped by its cancel flag: nothing it was making is kept."""


class Flag(Protocol):
    def is_set(self) -> bool: ...


def check(cancel: Flag | None) -> None:
    """Raise :class:`Cancelled` when ``cancel`` is set (``None``: never)."""
    if cancel is not None and cancel.is_set():
        raise Cancelled
