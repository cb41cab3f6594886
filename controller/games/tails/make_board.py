"""Build the default board description from the geometry fixed in spec/tails.md.

The engine never calls this: it loads ``board.json``. This module is how that
file was written, and the tests check the file still equals it. Regenerate with
``python -m controller.games.tails.make_board > controller/games/tails/board.json``.
"""

from __future__ import annotations

import json

WIDTHS = (7, 9, 11, 11, 9, 7)
"""Cells per row, top to bottom (flat-top hexagon of side 3)."""

ROW_X0 = (1.0, 0.5, 0.0, 0.0, 0.5, 1.0)
"""x of each row's leftmost corner, in side lengths (the widest rows start at 0)."""

Cell = tuple[int, int]


def is_up(row: int, col: int) -> bool:
    """Rows 0–2: even columns point up; rows 3–5: odd columns point up."""
    return col % 2 == 0 if row <= 2 else col % 2 == 1


def image(cell: Cell) -> Cell:
    """The cell's 180° image about the board's centre."""
    row, col = cell
    return 5 - row, WIDTHS[row] - 1 - col


def cell_id(cell: Cell) -> str:
    """``"14n"``: upper half numbered 1–27 in reading order; lower half takes its image's number."""
    row, col = cell
    if row <= 2:
        return f"{sum(WIDTHS[:row]) + col + 1}n"
    top_row, top_col = image(cell)
    return f"{sum(WIDTHS[:top_row]) + top_col + 1}s"


def _sectors() -> list[list[Cell]]:
    top = [(0, c) for c in range(1, 6)] + [(1, c) for c in range(3, 6)] + [(2, 5)]
    upper_right = [(0, 6)] + [(1, c) for c in range(6, 9)] + [(2, c) for c in range(6, 11)]
    upper_left = [(0, 0)] + [(1, c) for c in range(3)] + [(2, c) for c in range(5)]
    return [
        top,
        upper_right,
        [image(cell) for cell in upper_left],
        [image(cell) for cell in top],
        [image(cell) for cell in upper_right],
        upper_left,
    ]


# (letter, cell, edge) clockwise from the top-left corner; body on point 2*edge.
_DEVILS: tuple[tuple[str, Cell, int], ...] = (
    ("A", (0, 1), 0),
    ("B", (0, 3), 0),
    ("C", (0, 5), 0),
    ("D", (0, 6), 2),
    ("E", (1, 8), 2),
    ("F", (2, 10), 2),
    ("G", (3, 10), 1),
    ("H", (4, 8), 1),
    ("I", (5, 6), 1),
    ("K", (5, 5), 0),
    ("L", (5, 3), 0),
    ("M", (5, 1), 0),
    ("N", (5, 0), 2),
    ("P", (4, 0), 2),
    ("Q", (3, 0), 2),
    ("R", (2, 0), 1),
    ("S", (1, 0), 1),
    ("T", (0, 0), 1),
)


def default_board_data() -> dict[str, object]:
    """The default board as the JSON-ready dict stored in ``board.json``."""
    rows = [
        {
            "x0": ROW_X0[row],
            "first": "up" if is_up(row, 0) else "down",
            "cells": [cell_id((row, col)) for col in range(width)],
        }
        for row, width in enumerate(WIDTHS)
    ]
    letters = [letter for letter, _, _ in _DEVILS]
    return {
        "name": "default",
        "description": (
            "Auf Teufel komm raus! / Le Diable par la queue, as fixed by spec/tails.md: "
            "flat-top hexagon of side 3, 54 cells numbered 1-27 twice (n = upper half, "
            "s = lower half), 18 devils A-T without J and O."
        ),
        "rows": rows,
        "sectors": [[cell_id(cell) for cell in sector] for sector in _sectors()],
        "devils": [
            {
                "name": letter,
                "body": [cell_id(cell), 2 * edge],
                "tail": [cell_id(cell), 2 * edge + 1],
            }
            for letter, cell, edge in _DEVILS
        ],
        "sides": {
            "2": [letters[:9], letters[9:]],
            "3": [letters[:6], letters[6:12], letters[12:]],
            "4": [letters[:9], letters[9:]],
        },
    }


def dumps(data: dict[str, object]) -> str:
    """JSON text with one row, sector, devil or side per line (valid JSON, easy to edit)."""
    lines = ["{"]
    for index, (key, value) in enumerate(data.items()):
        comma = "," if index < len(data) - 1 else ""
        if isinstance(value, list | dict):
            pairs = value.items() if isinstance(value, dict) else enumerate(value)
            items = [
                (f"{json.dumps(k)}: " if isinstance(value, dict) else "") + json.dumps(v)
                for k, v in pairs
            ]
            opening, closing = ("{", "}") if isinstance(value, dict) else ("[", "]")
            lines.append(f"  {json.dumps(key)}: {opening}")
            lines.extend(f"    {item}," for item in items[:-1])
            lines.append(f"    {items[-1]}")
            lines.append(f"  {closing}{comma}")
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(value)}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(dumps(default_board_data()), end="")
