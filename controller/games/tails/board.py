"""The board as data: cells, numbers, halves, sectors, devils, sides, geometry.

A board file (JSON) describes the printed board; nothing about a particular
board is in code. :func:`Board.from_data` checks the description and builds
flat lookup tables; :func:`load_board` reads a file (the packaged default,
another packaged name, or a path) and caches the result.

Indices used everywhere in the engine:
- a *cell* is an index 0…n−1 in reading order (the file's rows, top to bottom);
- a *point* is 0…5 on a cell: edge ``i`` (0 = horizontal, then clockwise)
  carries points ``2i`` and ``2i+1`` in clockwise order;
- a *flat point* is ``cell * 6 + point``.

Geometry unit: the side of a cell is 1; x grows to the right, y downwards,
a row is ``HEIGHT`` = √3/2 tall.

File format (see ``board.json``)::

    {"name": ..., "description": ...,
     "rows": [{"x0": <x of the row's leftmost corner, a multiple of 0.5>,
               "first": "up" | "down", "cells": ["1n", "2n", ...]}, ...],
     "sectors": [[cell ids of sector 0], [sector 1], ...],
     "devils": [{"name": "A", "body": ["2n", 0], "tail": ["2n", 1]}, ...],
     "sides": {"2": [[devil names], [devil names]], "3": [...], "4": [...]}}

Cell ids are ``<number><half>``; each number names exactly two cells (twins).
Cells alternate up/down along a row. Neighbours are the cells that share an
edge. Every boundary point must be exactly one devil's body or tail end.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import TypeVar

from ..base import Said
from .cards import PAIRS, SYMMETRIC

HEIGHT = math.sqrt(3) / 2
"""Height of a cell (and of a row) when the side is 1."""

POINT_FRACTIONS = (1 / 3, 2 / 3)
"""Where an edge's two points sit, as fractions of the edge from its clockwise start."""

BODY = 1
TAIL_END = 2
"""Values of :attr:`Board.end_kind` for boundary points (0 elsewhere)."""

_CELL_ID = re.compile(r"^([1-9][0-9]*)([a-z]+)$")
_BOARD_NAME = re.compile(r"^[a-z0-9_-]+$")
_TOP_KEYS = {"name", "description", "rows", "sectors", "devils", "sides"}
_T = TypeVar("_T")


class BoardError(ValueError):
    """A board description that cannot be used; the message says what is wrong."""


Point2 = tuple[float, float]


@dataclass(frozen=True, eq=False)
class Board:
    """A checked board. Compare boards by identity (:func:`load_board` caches them)."""

    name: str
    description: str
    cell_ids: tuple[str, ...]
    index: Mapping[str, int]
    rows: tuple[int, ...]
    cols: tuple[int, ...]
    up: tuple[bool, ...]
    left_x: tuple[float, ...]
    numbers: tuple[int, ...]
    halves: tuple[str, ...]
    twin: tuple[int, ...]
    sector: tuple[int, ...]
    sector_count: int
    neighbour: tuple[int, ...]
    """Flat point → the flat point across the edge, or −1 on the boundary."""
    devils: tuple[str, ...]
    body: tuple[int, ...]
    """Flat point of each devil's body (devil index order = file order)."""
    tail: tuple[int, ...]
    end_kind: tuple[int, ...]
    """Flat point → BODY, TAIL_END, or 0 (not a boundary point)."""
    end_devil: tuple[int, ...]
    """Flat point → the devil whose body or tail end it is, or −1."""
    sides: Mapping[int, tuple[tuple[int, ...], ...]]
    """Player count → the devils (indices) of each side."""
    devil_side: Mapping[int, tuple[int, ...]]
    """Player count → side index of each devil."""
    forbidden: Mapping[int, tuple[frozenset[int], ...]]
    """Player count → per side, the cells it may not choose (exception rule)."""

    @property
    def cell_count(self) -> int:
        return len(self.cell_ids)

    @property
    def player_counts(self) -> tuple[int, ...]:
        return tuple(sorted(self.sides))

    def cell(self, cell_id: str) -> int:
        """Index of ``cell_id``; raises KeyError for an unknown id."""
        return self.index[cell_id]

    def position(self, cell: int) -> tuple[int, int]:
        """(row, column) of a cell."""
        return self.rows[cell], self.cols[cell]

    def cell_at(self, row: int, col: int) -> int:
        """The cell at (row, column); raises KeyError if there is none."""
        for cell in range(self.cell_count):
            if self.rows[cell] == row and self.cols[cell] == col:
                return cell
        raise KeyError((row, col))

    def corners(self, cell: int) -> tuple[Point2, Point2, Point2]:
        """The cell's corners; corner ``i`` is where edge ``i`` starts (clockwise)."""
        x, y = self.left_x[cell], self.rows[cell] * HEIGHT
        if self.up[cell]:  # bottom-right, bottom-left, apex
            return (x + 1, y + HEIGHT), (x, y + HEIGHT), (x + 0.5, y)
        return (x, y), (x + 1, y), (x + 0.5, y + HEIGHT)  # top-left, top-right, bottom

    def point_xy(self, cell: int, point: int) -> Point2:
        """Where point ``point`` (0–5) of ``cell`` sits."""
        corners = self.corners(cell)
        edge, second = divmod(point, 2)
        (x0, y0), (x1, y1) = corners[edge], corners[(edge + 1) % 3]
        t = POINT_FRACTIONS[second]
        return x0 + (x1 - x0) * t, y0 + (y1 - y0) * t

    def side_label(self, players: int, side: int) -> str:
        """``"A–I"``: first and last devil of a side."""
        devils = self.sides[players][side]
        return f"{self.devils[devils[0]]}–{self.devils[devils[-1]]}"

    def body_devils_in(self, cell: int) -> list[int]:
        """Devils whose body is on one of the cell's points."""
        return [d for d, flat in enumerate(self.body) if flat // 6 == cell]

    @classmethod
    def from_data(cls, data: object) -> Board:
        """Check a board description (parsed JSON) and build it; raises BoardError."""
        return _build(data)


def _require(
    data: Mapping[str, object], key: str, kind: type[_T] | tuple[type[_T], ...], where: str
) -> _T:
    """``data[key]``, checked to be a ``kind`` (never a bool); raises BoardError."""
    if key not in data:
        raise BoardError(Said("{where}: missing {key!r}", where=where, key=key))
    value = data[key]
    if not isinstance(value, kind) or isinstance(value, bool):
        raise BoardError(Said("{where}: {key!r} has the wrong type", where=where, key=key))
    return value


def _build(data: object) -> Board:
    if not isinstance(data, dict):
        raise BoardError(Said("a board file holds a JSON object"))
    unknown = set(data) - _TOP_KEYS
    if unknown:
        raise BoardError(Said("unknown keys {value}", value=sorted(unknown)))
    name = _require(data, "name", str, "board")
    description = data.get("description", "")
    if not isinstance(description, str):
        raise BoardError(Said("board: 'description' must be text"))

    cells = _read_rows(_require(data, "rows", list, "board"))
    cell_ids = tuple(c[0] for c in cells)
    index = {cell_id: i for i, cell_id in enumerate(cell_ids)}
    numbers, halves = _read_numbers(cell_ids)
    twin = _twins(numbers)
    neighbour = _neighbours(cells)
    sector = _read_sectors(_require(data, "sectors", list, "board"), index)
    devils, body, tail, end_kind, end_devil = _read_devils(
        _require(data, "devils", list, "board"), index, neighbour
    )
    sides, devil_side = _read_sides(_require(data, "sides", dict, "board"), devils)
    forbidden = _forbidden_cells(len(cells), body, sides)
    for players, per_side in forbidden.items():
        nobody = frozenset.intersection(*per_side)
        if nobody:
            bad = ", ".join(cell_ids[c] for c in sorted(nobody))
            raise BoardError(
                Said(
                    "{players} players: no side may choose {bad} (each borders bodies of every "
                    "side)",
                    players=players,
                    bad=bad,
                )
            )
    return Board(
        name=name,
        description=description,
        cell_ids=cell_ids,
        index=index,
        rows=tuple(c[1] for c in cells),
        cols=tuple(c[2] for c in cells),
        up=tuple(c[3] for c in cells),
        left_x=tuple(c[4] for c in cells),
        numbers=numbers,
        halves=halves,
        twin=twin,
        sector=sector,
        sector_count=max(sector) + 1,
        neighbour=neighbour,
        devils=devils,
        body=body,
        tail=tail,
        end_kind=end_kind,
        end_devil=end_devil,
        sides=sides,
        devil_side=devil_side,
        forbidden=forbidden,
    )


_RawCell = tuple[str, int, int, bool, float]  # id, row, col, up, left x


def _read_rows(rows: list[object]) -> list[_RawCell]:
    if not rows:
        raise BoardError(Said("board: 'rows' is empty"))
    cells: list[_RawCell] = []
    seen: set[str] = set()
    for r, row in enumerate(rows):
        where = f"row {r}"
        if not isinstance(row, dict) or set(row) != {"x0", "first", "cells"}:
            raise BoardError(Said("{where}: expected an object with x0, first, cells", where=where))
        x0 = _require(row, "x0", (int, float), where)
        if not math.isfinite(x0) or (2 * x0) != int(2 * x0):
            raise BoardError(Said("{where}: x0 must be a multiple of 0.5", where=where))
        first = row["first"]
        if first not in ("up", "down"):
            raise BoardError(Said("{where}: first must be 'up' or 'down'", where=where))
        ids = _require(row, "cells", list, where)
        if not ids:
            raise BoardError(Said("{where}: no cells", where=where))
        for c, cell_id in enumerate(ids):
            if not isinstance(cell_id, str) or not _CELL_ID.match(cell_id):
                raise BoardError(
                    Said(
                        "{where}: bad cell id {cell_id!r} (expected like '14n')",
                        where=where,
                        cell_id=cell_id,
                    )
                )
            if cell_id in seen:
                raise BoardError(Said("cell {cell_id} appears twice", cell_id=cell_id))
            seen.add(cell_id)
            up = (first == "up") == (c % 2 == 0)
            cells.append((cell_id, r, c, up, float(x0) + 0.5 * c))
    return cells


def _read_numbers(cell_ids: Sequence[str]) -> tuple[tuple[int, ...], tuple[str, ...]]:
    numbers: list[int] = []
    halves: list[str] = []
    for cell_id in cell_ids:
        match = _CELL_ID.match(cell_id)
        assert match is not None  # checked in _read_rows
        numbers.append(int(match.group(1)))
        halves.append(match.group(2))
    return tuple(numbers), tuple(halves)


def _twins(numbers: Sequence[int]) -> tuple[int, ...]:
    by_number: dict[int, list[int]] = {}
    for cell, number in enumerate(numbers):
        by_number.setdefault(number, []).append(cell)
    twin = [0] * len(numbers)
    for number, group in by_number.items():
        if len(group) != 2:
            raise BoardError(
                Said(
                    "number {number} is on {count} cells; each number needs exactly 2",
                    number=number,
                    count=len(group),
                )
            )
        twin[group[0]], twin[group[1]] = group[1], group[0]
    return tuple(twin)


def _integer_corners(cell: _RawCell) -> tuple[tuple[int, int], ...]:
    """Corners in (2x, row) integer coordinates, corner i = start of edge i."""
    _, row, _, up, left_x = cell
    x = int(2 * left_x)
    if up:
        return (x + 2, row + 1), (x, row + 1), (x + 1, row)
    return (x, row), (x + 2, row), (x + 1, row + 1)


def _neighbours(cells: Sequence[_RawCell]) -> tuple[int, ...]:
    """Flat point → flat point across the shared edge (−1 on the boundary); self-inverse."""
    edges: dict[tuple[tuple[int, int], tuple[int, int]], tuple[int, int]] = {}
    grid = sum(_integer_corners(cells[0])[0]) % 2
    for cell, raw in enumerate(cells):
        corners = _integer_corners(raw)
        if any(sum(corner) % 2 != grid for corner in corners):
            # Cells on one triangular grid either share whole edges or do not touch.
            raise BoardError(
                Said(
                    "cell {raw} is off the triangular grid of cell {cells}",
                    raw=raw[0],
                    cells=cells[0][0],
                )
            )
        for edge in range(3):
            edges[(corners[edge], corners[(edge + 1) % 3])] = (cell, edge)
    neighbour = [-1] * (6 * len(cells))
    for (start, end), (cell, edge) in edges.items():
        across = edges.get((end, start))
        if across is None:
            continue
        other, other_edge = across
        # The order reverses across an edge: 2i ↔ 2j+1 and 2i+1 ↔ 2j.
        neighbour[cell * 6 + 2 * edge] = other * 6 + 2 * other_edge + 1
        neighbour[cell * 6 + 2 * edge + 1] = other * 6 + 2 * other_edge
    for flat, across_flat in enumerate(neighbour):
        if across_flat >= 0 and neighbour[across_flat] != flat:
            raise BoardError(
                Said("neighbour table is not its own inverse at point {flat}", flat=flat)
            )
    return tuple(neighbour)


def _read_sectors(sectors: list[object], index: Mapping[str, int]) -> tuple[int, ...]:
    sector = [-1] * len(index)
    for s, members in enumerate(sectors):
        if not isinstance(members, list) or not members:
            raise BoardError(Said("sector {s}: expected a non-empty list of cell ids", s=s))
        for cell_id in members:
            if cell_id not in index:
                raise BoardError(Said("sector {s}: unknown cell {cell_id!r}", s=s, cell_id=cell_id))
            if sector[index[cell_id]] >= 0:
                raise BoardError(Said("cell {cell_id} is in two sectors", cell_id=cell_id))
            sector[index[cell_id]] = s
    missing = [cell_id for cell_id, cell in index.items() if sector[cell] < 0]
    if missing:
        raise BoardError(Said("cells in no sector: {names}", names=", ".join(missing)))
    return tuple(sector)


def _read_point(value: object, index: Mapping[str, int], where: str) -> int:
    if not (
        isinstance(value, list)
        and len(value) == 2
        and value[0] in index
        and isinstance(value[1], int)
        and not isinstance(value[1], bool)
        and 0 <= value[1] <= 5
    ):
        raise BoardError(
            Said("{where}: expected [cell id, point 0-5], got {value!r}", where=where, value=value)
        )
    return int(index[value[0]] * 6 + value[1])


def _read_devils(
    devils: list[object], index: Mapping[str, int], neighbour: Sequence[int]
) -> tuple[tuple[str, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    names: list[str] = []
    body: list[int] = []
    tail: list[int] = []
    end_kind = [0] * len(neighbour)
    end_devil = [-1] * len(neighbour)
    for d, devil in enumerate(devils):
        where = f"devil {d}"
        if not isinstance(devil, dict) or set(devil) != {"name", "body", "tail"}:
            raise BoardError(Said("{where}: expected an object with name, body, tail", where=where))
        name = _require(devil, "name", str, where)
        if not name or name in names:
            raise BoardError(
                Said("{where}: name {name!r} is empty or repeated", where=where, name=name)
            )
        names.append(name)
        for role, store, value in ((BODY, body, devil["body"]), (TAIL_END, tail, devil["tail"])):
            label = "body" if role == BODY else "tail end"
            flat = _read_point(value, index, f"devil {name} {label}")
            if neighbour[flat] >= 0:
                raise BoardError(
                    Said(
                        "devil {name}: {label} {value!r} is not on the boundary",
                        name=name,
                        label=label,
                        value=value,
                    )
                )
            if end_kind[flat]:
                raise BoardError(
                    Said(
                        "devil {name}: {label} {value!r} is already used",
                        name=name,
                        label=label,
                        value=value,
                    )
                )
            end_kind[flat] = role
            end_devil[flat] = d
            store.append(flat)
    bare = [flat for flat, across in enumerate(neighbour) if across < 0 and not end_kind[flat]]
    if bare:
        cell, point = divmod(bare[0], 6)
        cell_id = next(k for k, v in index.items() if v == cell)
        raise BoardError(
            Said(
                "{count} boundary points have no devil, e.g. {cell_id} point {point}",
                count=len(bare),
                cell_id=cell_id,
                point=point,
            )
        )
    return tuple(names), tuple(body), tuple(tail), tuple(end_kind), tuple(end_devil)


def _read_sides(
    sides: dict[str, object], devils: Sequence[str]
) -> tuple[dict[int, tuple[tuple[int, ...], ...]], dict[int, tuple[int, ...]]]:
    if not sides:
        raise BoardError(Said("board: 'sides' is empty"))
    expected = {"2": 2, "3": 3, "4": 2}
    by_players: dict[int, tuple[tuple[int, ...], ...]] = {}
    devil_side: dict[int, tuple[int, ...]] = {}
    for key, groups in sides.items():
        if key not in expected:
            raise BoardError(Said("sides: unknown player count {key!r} (2, 3 or 4)", key=key))
        if not isinstance(groups, list) or len(groups) != expected[key]:
            raise BoardError(
                Said(
                    "sides {key}: expected {expected} lists of devil names",
                    key=key,
                    expected=expected[key],
                )
            )
        owner = [-1] * len(devils)
        result: list[tuple[int, ...]] = []
        for s, group in enumerate(groups):
            if not isinstance(group, list) or not group:
                raise BoardError(
                    Said(
                        "sides {key}: side {s} must be a non-empty list of devil names",
                        key=key,
                        s=s,
                    )
                )
            members: list[int] = []
            for name in group:
                if name not in devils:
                    raise BoardError(
                        Said("sides {key}: unknown devil {name!r}", key=key, name=name)
                    )
                d = devils.index(name)
                if owner[d] >= 0:
                    raise BoardError(
                        Said("sides {key}: devil {name} is on two sides", key=key, name=name)
                    )
                owner[d] = s
                members.append(d)
            result.append(tuple(members))
        if -1 in owner:
            raise BoardError(
                Said(
                    "sides {key}: devil {devils} has no side",
                    key=key,
                    devils=devils[owner.index(-1)],
                )
            )
        by_players[int(key)] = tuple(result)
        devil_side[int(key)] = tuple(owner)
    return by_players, devil_side


def _forbidden_cells(
    cell_count: int, body: Sequence[int], sides: Mapping[int, Sequence[Sequence[int]]]
) -> dict[int, tuple[frozenset[int], ...]]:
    """Exception rule: a side may not choose a cell holding an opponent's devil body."""
    result: dict[int, tuple[frozenset[int], ...]] = {}
    for players, groups in sides.items():
        per_side = []
        for own in groups:
            per_side.append(frozenset(body[d] // 6 for d in range(len(body)) if d not in own))
        result[players] = tuple(per_side)
    return result


DEFAULT_BOARD = "default"
_PACKAGE = "controller.games.tails"


def board_file(ref: str | None) -> Path:
    """The file a board reference names: ``None``/``"default"``/another packaged name
    (``<name>.json`` next to this module), or a path. Raises BoardError if missing."""
    name = ref or DEFAULT_BOARD
    if _BOARD_NAME.match(name):
        filename = "board.json" if name == DEFAULT_BOARD else f"{name}.json"
        packaged = resources.files(_PACKAGE).joinpath(filename)
        if packaged.is_file():
            return Path(str(packaged))
    path = Path(name).expanduser()
    if not path.is_file():
        raise BoardError(
            Said("no board named {name!r} and no board file at {path}", name=name, path=path)
        )
    return path


def load_board(ref: str | None = None) -> Board:
    """Read and check a board (see :func:`board_file`); cached while the file is unchanged.

    Raises BoardError for a missing, unreadable or invalid file.
    """
    path = board_file(ref).resolve()
    return _load_cached(str(path), path.stat().st_mtime_ns)


@lru_cache(maxsize=16)
def _load_cached(path: str, mtime_ns: int) -> Board:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise BoardError(
            Said("cannot read board file {path}: {error}", path=path, error=error)
        ) from None
    try:
        return Board.from_data(data)
    except BoardError as error:
        raise BoardError(Said("board file {path}: {error}", path=path, error=error)) from None


def layout(board: Board) -> dict[str, object]:
    """JSON-ready static geometry for drawing the board (send once, not with every view)."""
    return {
        "name": board.name,
        "unit": "side length 1, x right, y down",
        "row_height": HEIGHT,
        "point_fractions": list(POINT_FRACTIONS),
        "cells": [
            {
                "id": board.cell_ids[c],
                "row": board.rows[c],
                "col": board.cols[c],
                "up": board.up[c],
                "number": board.numbers[c],
                "half": board.halves[c],
                "sector": board.sector[c],
                "twin": board.cell_ids[board.twin[c]],
                "corners": [list(xy) for xy in board.corners(c)],
                "points": [list(board.point_xy(c, p)) for p in range(6)],
            }
            for c in range(board.cell_count)
        ],
        "devils": [
            {
                "name": name,
                "body": [board.cell_ids[board.body[d] // 6], board.body[d] % 6],
                "tail": [board.cell_ids[board.tail[d] // 6], board.tail[d] % 6],
                "body_xy": list(board.point_xy(board.body[d] // 6, board.body[d] % 6)),
                "tail_xy": list(board.point_xy(board.tail[d] // 6, board.tail[d] % 6)),
            }
            for d, name in enumerate(board.devils)
        ],
        "sides": {
            str(players): [[board.devils[d] for d in group] for group in groups]
            for players, groups in board.sides.items()
        },
        "kinds": {
            kind: {"pairs": [list(pair) for pair in pairs], "symmetric": kind in SYMMETRIC}
            for kind, pairs in PAIRS.items()
        },
    }
