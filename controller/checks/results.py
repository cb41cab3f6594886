"""What a check finds (:class:`CheckResult`), and how a list of them is printed."""

from __future__ import annotations

import getpass
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class CheckResult:
    """One check: ``name``, ``ok``, what was found (``message``) and, if not ok, the ``fix``.

    ``hard``: when this check fails the service must not start; a failed soft check is a
    warning.
    """

    name: str
    ok: bool
    message: str
    fix: str = ""
    hard: bool = True

    @property
    def level(self) -> str:
        """``"ok"``, ``"FAIL"`` (hard) or ``"warn"`` (soft)."""
        if self.ok:
            return "ok"
        return "FAIL" if self.hard else "warn"


def safely(name: str, run: Callable[[], list[CheckResult]]) -> list[CheckResult]:
    """``run()``, or one failed check ``name`` saying what broke (a check never raises)."""
    try:
        return run()
    except Exception as exc:
        return [
            CheckResult(
                name,
                False,
                f"the check itself failed: {type(exc).__name__}: {exc}",
                "report it, with this message",
            )
        ]


def current_user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return str(os.getuid())


def format_results(results: Iterable[CheckResult]) -> str:
    """One line per check (``ok``/``warn``/``FAIL``), a ``fix:`` line under each problem."""
    results = list(results)
    width = max((len(r.name) for r in results), default=0)
    lines = []
    for result in results:
        lines.append(f"  {result.level:4s}  {result.name:{width}s}  {result.message}")
        if not result.ok and result.fix:
            lines.append(f"  {'':4s}  {'':{width}s}  fix: {result.fix}")
    return "\n".join(lines)


def summary(results: Iterable[CheckResult]) -> str:
    """``"7 checks: 6 ok, 1 warning, 0 failed"``."""
    results = list(results)
    failed = sum(1 for r in results if not r.ok and r.hard)
    warned = sum(1 for r in results if not r.ok and not r.hard)
    ok = len(results) - failed - warned
    plural = "" if warned == 1 else "s"
    return f"{len(results)} checks: {ok} ok, {warned} warning{plural}, {failed} failed"
