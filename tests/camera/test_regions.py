"""A die found as a region of one colour (``controller/camera/regions.py``): where the
thresholded masks lose its outline, the die's face is one colour between the table's
edges. docs/camera.md, *A die as a region of one colour*."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2")

from controller.camera import regions  # noqa: E402
from controller.camera.reader import read_face  # noqa: E402
from tests.camera.conftest import evaluated_frame  # noqa: E402


@pytest.mark.parametrize(("index", "shown"), [(7, 1), (61, 6)])
def test_a_die_whose_outline_no_threshold_finds_is_read(
    tmp_path: Path, index: int, shown: int
) -> None:
    """Two slate dice in dim light (tuning seed 211, brightness x0.5), unread before the
    regions of one colour (``null``), read right with them."""
    image, face, profile = evaluated_frame(tmp_path, "slate", 211, "brightness x0.5", index)
    assert face == shown
    assert read_face(image, profile).face == shown


def test_a_region_of_one_colour_stops_inside_the_dies_edge_by_its_inset() -> None:
    """A flat square on a check cloth of near colours: its region is the square less about
    :data:`regions.INSET` on each side, so an outline grown by twice that is the die's."""
    lab = np.zeros((120, 120, 3), np.uint8)
    squares = (np.indices((120, 120)) // 15).sum(axis=0) % 2
    lab[..., 0] = np.where(squares, 150, 110)
    lab[..., 1:] = 128
    lab[30:90, 40:100] = (130, 140, 120)  # the die: 60 x 60
    lab = cv2.GaussianBlur(lab, (3, 3), 0)  # as reader.outlines blurs before Lab
    mask = regions.one_colour(lab)[0]
    _, labels, stats, _ = cv2.connectedComponentsWithStats(mask)
    die = labels[60, 70]
    width, height = stats[die, cv2.CC_STAT_WIDTH], stats[die, cv2.CC_STAT_HEIGHT]
    assert (
        abs(width + 2 * regions.INSET - 60) <= 1.5 and abs(height + 2 * regions.INSET - 60) <= 1.5
    )


@pytest.mark.parametrize(
    ("light", "index", "shown"), [("glare", 66, 4), ("shadow", 4, 5), ("shadow", 43, 2)]
)
def test_a_bare_plank_of_the_table_is_never_read_as_the_devil(
    tmp_path: Path, light: str, index: int, shown: int
) -> None:
    """Ruby, tuning seed 214 (``faces evaluate --seed 214``): red dice on red planks. The
    regions of one colour found a plank beside the die, a die-sized square of bare table
    between two joints; stretched to full contrast its noise came close enough to the
    devil's drawing to be read as the devil (0.74-0.82), three devil/number confusions in
    play. The devil is a drawing: a square with nothing drawn on it is no devil."""
    image, face, profile = evaluated_frame(tmp_path, "ruby", 214, light, index)
    assert face == shown
    assert read_face(image, profile).face in (None, shown)
