"""``diablotin bench solver``: the solvers' benches of the kinds that have one
(``controller.bench.<kind>_solver``, e.g. the Diable sauteur's solved tables), in the
registry's order; their options pass through (``diablotin bench solver --help``).

A package rather than a module so that the kind's bench keeps its history under its own
name."""

from __future__ import annotations


def main(argv: list[str] | None = None) -> int:
    """Run each kind's solver bench with ``argv``; 1 if one missed a target, 2 if no kind
    has one."""
    from controller.bench import kind_modules

    status = 2
    for bench in kind_modules("_solver"):
        status = max(0 if status == 2 else status, int(bench.main(argv) or 0))
    return status
