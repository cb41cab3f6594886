"""Start-up without the cyclic garbage collector.

A command's start-up makes about 70,000 objects (modules, classes, functions, the app)
that live as long as the process. While they load, the collector would walk them about a
hundred times for nothing: about 10 % of ``diablotin serve``'s start-up (measured in
docs/reliability.md, *Session 12*). :func:`hold` stops it; :func:`release` moves everything
made so far out of its reach for good (``gc.freeze``: later collections, the full ones
too, skip it) and starts it again. Garbage cycles made during start-up are kept (a few
kilobytes).
"""

from __future__ import annotations

import gc

_held = False
"""Whether :func:`hold` stopped the collector (and :func:`release` should start it)."""


def hold() -> None:
    """Stop the cyclic collector until :func:`release` (reference counting still frees
    almost everything at once). A collector someone else stopped is left to them."""
    global _held
    if gc.isenabled():
        gc.disable()
        _held = True


def release() -> None:
    """Freeze what start-up made and start the collector again, if :func:`hold` stopped
    it; otherwise nothing happens."""
    global _held
    if _held:
        _held = False
        gc.freeze()
        gc.enable()
