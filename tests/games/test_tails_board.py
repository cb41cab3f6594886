"""The board as data: the packaged file, the neighbour table, geometry, validation."""

from __future__ import annotations

import copy
import itertools
import json
import math
from pathlib import Path
from typing import Any

import pytest

from controller.games.base import Refused
from controller.games.tails import TailsRules, layout, load_board
from controller.games.tails.board import BODY, TAIL_END, Board, BoardError, board_file
from controller.games.tails.make_board import default_board_data

from .test_tails_support import RULES, random_game

WIDTHS = (7, 9, 11, 11, 9, 7)


def is_up(row: int, col: int) -> bool:
    return col % 2 == 0 if row <= 2 else col % 2 == 1


def spec_neighbour_cells() -> dict[tuple[int, int, int], tuple[int, int]]:
    """(row, col, edge) → (row, col) across it, written straight from the spec's bullets."""
    table: dict[tuple[int, int, int], tuple[int, int]] = {}
    for row, width in enumerate(WIDTHS):
        for col in range(width):
            up = is_up(row, col)
            left_edge, right_edge = (1, 2) if up else (2, 1)
            if col > 0:
                table[(row, col, left_edge)] = (row, col - 1)
            if col < width - 1:
                table[(row, col, right_edge)] = (row, col + 1)
            other: tuple[int, int] | None
            if up:
                if row <= 1:
                    other = (row + 1, col + 1)
                elif row == 2:
                    other = (3, col)
                elif row <= 4:
                    other = (row + 1, col - 1)
                else:
                    other = None
            elif row == 0:
                other = None
            elif row <= 2:
                other = (row - 1, col - 1)
            elif row == 3:
                other = (2, col)
            else:
                other = (row - 1, col + 1)
            if other is not None:
                table[(row, col, 0)] = other
    return table


@pytest.fixture(scope="module")
def board() -> Board:
    return load_board()


def test_packaged_board_is_the_spec_geometry() -> None:
    text = board_file(None).read_text(encoding="utf-8")
    assert json.loads(text) == default_board_data()


def test_counts(board: Board) -> None:
    assert board.cell_count == 54
    assert len(board.devils) == 18
    assert "".join(board.devils) == "ABCDEFGHIKLMNPQRST"
    assert sum(1 for across in board.neighbour if across < 0) == 36
    assert sorted(board.numbers) == sorted(list(range(1, 28)) * 2)
    assert [len(board.cell_ids[:7]), board.cell_ids[0], board.cell_ids[6]] == [7, "1n", "7n"]
    assert board.cell_ids[27:38] == tuple(f"{n}s" for n in range(27, 16, -1))


def test_neighbour_table_is_its_own_inverse(board: Board) -> None:
    for flat, across in enumerate(board.neighbour):
        if across < 0:
            continue
        assert board.neighbour[across] == flat
        assert across // 6 != flat // 6


def test_neighbour_table_matches_the_spec_rules(board: Board) -> None:
    expected = [-1] * (54 * 6)
    for (row, col, edge), (row2, col2) in spec_neighbour_cells().items():
        here, there = board.cell_at(row, col), board.cell_at(row2, col2)
        # the same edge index on both sides; the order of the two points reverses
        expected[here * 6 + 2 * edge] = there * 6 + 2 * edge + 1
        expected[here * 6 + 2 * edge + 1] = there * 6 + 2 * edge
    assert list(board.neighbour) == expected


def test_points_across_an_edge_are_at_the_same_place(board: Board) -> None:
    for flat, across in enumerate(board.neighbour):
        if across >= 0:
            here = board.point_xy(flat // 6, flat % 6)
            there = board.point_xy(across // 6, across % 6)
            assert here == pytest.approx(there)


def test_up_and_down_cells(board: Board) -> None:
    for cell in range(54):
        row, col = board.position(cell)
        assert board.up[cell] == is_up(row, col)
        corners = board.corners(cell)
        ys = sorted(y for _, y in corners)
        if board.up[cell]:  # apex above a flat bottom
            assert ys[0] < ys[1] == ys[2]
        else:
            assert ys[0] == ys[1] < ys[2]
        # equilateral with side 1, corners clockwise (positive signed area with y down)
        for a, b in itertools.combinations(corners, 2):
            assert math.dist(a, b) == pytest.approx(1.0)
        (x0, y0), (x1, y1), (x2, y2) = corners
        assert (x1 - x0) * (y2 - y0) - (y1 - y0) * (x2 - x0) > 0


def test_edge_zero_is_horizontal(board: Board) -> None:
    for cell in range(54):
        (_, y0), (_, y1), _ = board.corners(cell)
        assert y0 == y1


def test_twins_are_point_symmetric(board: Board) -> None:
    for cell in range(54):
        twin = board.twin[cell]
        row, col = board.position(cell)
        assert board.position(twin) == (5 - row, WIDTHS[row] - 1 - col)
        assert board.numbers[twin] == board.numbers[cell]
        assert {board.halves[cell], board.halves[twin]} == {"n", "s"}
        assert board.up[twin] != board.up[cell]


def test_sectors(board: Board) -> None:
    members = [[board.cell_ids[c] for c in range(54) if board.sector[c] == s] for s in range(6)]
    assert [len(m) for m in members] == [9] * 6
    assert set(members[0]) == {"2n", "3n", "4n", "5n", "6n", "11n", "12n", "13n", "22n"}
    for cell in range(54):  # sectors 3, 4, 5 are the images of 0, 1, 2
        assert board.sector[board.twin[cell]] == (board.sector[cell] + 3) % 6


def test_devils_sit_clockwise_body_first(board: Board) -> None:
    first = {
        "A": (0, 1), "B": (0, 3), "C": (0, 5), "D": (0, 6), "E": (1, 8), "F": (2, 10),
        "G": (3, 10), "H": (4, 8), "I": (5, 6), "K": (5, 5), "L": (5, 3), "M": (5, 1),
        "N": (5, 0), "P": (4, 0), "Q": (3, 0), "R": (2, 0), "S": (1, 0), "T": (0, 0),
    }  # fmt: skip
    for d, name in enumerate(board.devils):
        body, tail = board.body[d], board.tail[d]
        assert board.position(body // 6) == first[name]
        assert tail == body + 1 and body % 2 == 0
        assert board.end_kind[body] == BODY and board.end_kind[tail] == TAIL_END
        assert board.end_devil[body] == board.end_devil[tail] == d
    # walking clockwise round the hexagon the devils come in letter order
    centre = (3.0, 3 * math.sqrt(3) / 2)
    angles = [
        math.atan2(y - centre[1], x - centre[0])
        for x, y in (board.point_xy(f // 6, f % 6) for f in board.body)
    ]
    start = angles[0]
    unwrapped = [(a - start) % (2 * math.pi) for a in angles]
    assert unwrapped == sorted(unwrapped)  # y is down, so growing angle is clockwise


def test_sides_and_exception_cells(board: Board) -> None:
    assert [board.side_label(2, s) for s in range(2)] == ["A–I", "K–T"]
    assert [board.side_label(3, s) for s in range(3)] == ["A–F", "G–M", "N–T"]
    assert [board.side_label(4, s) for s in range(2)] == ["A–I", "K–T"]
    forbidden = board.forbidden[2]
    assert {board.cell_ids[c] for c in forbidden[0]} == {
        "2s", "4s", "6s", "7s", "16s", "27s", "17n", "8n", "1n"
    }  # fmt: skip
    assert len(forbidden[1]) == 9 and not forbidden[0] & forbidden[1]
    assert [len(f) for f in board.forbidden[3]] == [12, 12, 12]


def test_layout_is_json_ready(board: Board) -> None:
    data = json.loads(json.dumps(layout(board)))
    assert len(data["cells"]) == 54 and len(data["devils"]) == 18
    first = data["cells"][0]
    assert first["id"] == "1n" and first["twin"] == "1s" and first["up"] is True
    assert first["corners"] == [
        [2.0, pytest.approx(math.sqrt(3) / 2)],
        [1.0, pytest.approx(math.sqrt(3) / 2)],
        [1.5, 0.0],
    ]
    assert data["kinds"]["E"] == {"pairs": [[0, 1], [2, 5], [3, 4]], "symmetric": False}


# -- validation: a differently printed board is data, and bad data is refused --------


def tiny_board() -> dict[str, Any]:
    """A hexagon of side 1: 6 cells, 3 numbers, 6 devils; twins are NOT point-symmetric."""
    return {
        "name": "tiny",
        "rows": [
            {"x0": 0.0, "first": "up", "cells": ["1n", "2n", "3n"]},
            {"x0": 0.0, "first": "down", "cells": ["1s", "2s", "3s"]},
        ],
        "sectors": [["1n", "2n", "3n"], ["1s"], ["2s"], ["3s"]],
        "devils": [
            {"name": "U", "body": ["2n", 0], "tail": ["2n", 1]},
            {"name": "V", "body": ["3n", 4], "tail": ["3n", 5]},
            {"name": "W", "body": ["3s", 2], "tail": ["3s", 3]},
            {"name": "X", "body": ["2s", 0], "tail": ["2s", 1]},
            {"name": "Y", "body": ["1s", 4], "tail": ["1s", 5]},
            {"name": "Z", "body": ["1n", 2], "tail": ["1n", 3]},
        ],
        "sides": {
            "2": [["U", "V", "W"], ["X", "Y", "Z"]],
            "3": [["U", "V"], ["W", "X"], ["Y", "Z"]],
        },
    }


def test_a_differently_printed_board_plays_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps(tiny_board()), encoding="utf-8")
    rules = TailsRules()
    state = rules.setup({"players": 2, "board": str(path), "stock": 1})
    assert state.board.name == "tiny" and state.board.cell_count == 6
    state = rules.apply(state, {"type": "place", "cell": "2n", "kind": "A", "rotation": 0})
    view = rules.view(state, "public")
    assert view["devils"][0] == {
        "name": "U", "side": 0, "length": 1, "end": "tail", "end_devil": "U", "points": 1,
        "provisional": False, "cells": ["2n"], "segments": [["2n", 0, 1]],
    }  # fmt: skip
    with pytest.raises(Refused) as refused:
        rules.setup({"players": 4, "board": str(path)})
    assert refused.value.reason == "players must be one of 2, 3, not 4"


def test_the_default_board_is_cached_and_named() -> None:
    assert load_board() is load_board("default")
    assert load_board().name == "default"
    with pytest.raises(BoardError, match="no board named 'nowhere'"):
        load_board("nowhere")


def test_board_file_errors(tmp_path: Path) -> None:
    bad_json = tmp_path / "bad.json"
    bad_json.write_text("{not json", encoding="utf-8")
    with pytest.raises(BoardError, match="cannot read board file"):
        load_board(str(bad_json))
    with pytest.raises(Refused) as refused:
        RULES.setup({"board": str(bad_json)})
    assert refused.value.code == "bad-board"


def mutated(change: str) -> dict[str, Any]:
    data = copy.deepcopy(tiny_board())
    if change == "unknown key":
        data["colour"] = "red"
    elif change == "off grid":
        data["rows"][1]["x0"] = 0.5
    elif change == "odd x0":
        data["rows"][0]["x0"] = 0.25
    elif change == "number once":
        data["rows"][1]["cells"][2] = "4s"
    elif change == "bad id":
        data["rows"][0]["cells"][0] = "n1"
    elif change == "duplicate id":
        data["rows"][1]["cells"][0] = "1n"
    elif change == "sector missing":
        data["sectors"].pop()
    elif change == "sector twice":
        data["sectors"][1].append("1n")
    elif change == "inner point":
        data["devils"][0]["body"] = ["2n", 2]
    elif change == "bare boundary":
        data["devils"].pop()
        for groups in data["sides"].values():
            for group in groups:
                if "Z" in group:
                    group.remove("Z")
    elif change == "point reused":
        data["devils"][1]["tail"] = ["2n", 1]
    elif change == "side missing devil":
        data["sides"]["2"][1].remove("Z")
    elif change == "wrong side count":
        data["sides"]["3"] = data["sides"]["2"]
    elif change == "nobody may choose":
        data["devils"][0]["tail"], data["devils"][3]["body"] = ["2s", 0], ["2n", 1]
    return data


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("unknown key", "unknown keys"),
        ("off grid", "cell 1s is off the triangular grid of cell 1n"),
        ("odd x0", "multiple of 0.5"),
        ("number once", "number 3 is on 1 cells; each number needs exactly 2"),
        ("bad id", "bad cell id 'n1'"),
        ("duplicate id", "cell 1n appears twice"),
        ("sector missing", "cells in no sector: 3s"),
        ("sector twice", "cell 1n is in two sectors"),
        ("inner point", "is not on the boundary"),
        ("bare boundary", "boundary points have no devil"),
        ("point reused", "is already used"),
        ("side missing devil", "devil Z has no side"),
        ("wrong side count", "sides 3: expected 3 lists"),
        ("nobody may choose", "no side may choose 2n"),
    ],
)
def test_bad_boards_are_refused_with_a_reason(change: str, message: str) -> None:
    Board.from_data(tiny_board())  # the unchanged board is fine
    with pytest.raises(BoardError, match=message):
        Board.from_data(mutated(change))


def test_random_games_on_the_tiny_board(tmp_path: Path) -> None:
    import random

    path = tmp_path / "tiny.json"
    path.write_text(json.dumps(tiny_board()), encoding="utf-8")
    rng = random.Random(5)
    for players in (2, 3):
        for _ in range(50):
            state = random_game(rng, players, board=str(path))
            assert state.finished and len(state.placed) == 6
