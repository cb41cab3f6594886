"""Pips under a highlight told from the face by colour (controller/camera/tinted.py): a
highlight adds the same light to every channel, so a yellow pip on a blue face stays yellow
wherever a channel is unclipped (docs/camera.md, *Pips under a highlight, by their tint*)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("cv2")

from controller.camera.layout import COVER, PATCH
from controller.camera.reader import read_face
from controller.camera.tinted import tinted_pips
from tests.camera.conftest import evaluated_frame

BLUE, YELLOW, GREY, WHITE = (40, 90, 180), (230, 200, 50), (120, 120, 120), (235, 235, 235)
CORNERS = [(-0.25, -0.25), (0.25, -0.25), (-0.25, 0.25), (0.25, 0.25)]


def _patch(face, pip, places, highlight_sigma: float) -> np.ndarray:
    """A PATCH×PATCH top of colour ``face`` with round pips of colour ``pip`` at ``places``
    (die sides from the centre), and a white highlight added at its centre (a Gaussian of
    ``highlight_sigma`` patch pixels, 230 levels at its peak, clipped as a camera clips)."""
    yy, xx = np.mgrid[0:PATCH, 0:PATCH] + 0.5
    out = np.zeros((PATCH, PATCH, 3), np.float32) + face
    for x, y in places:
        px, py = (np.array((x, y)) * PATCH / COVER) + PATCH / 2
        out[(xx - px) ** 2 + (yy - py) ** 2 <= 4.2**2] = pip
    d2 = (xx - PATCH / 2) ** 2 + (yy - PATCH / 2) ** 2
    out += (230 * np.exp(-d2 / (2 * highlight_sigma**2)))[..., None]
    return np.clip(out, 0, 255).astype(np.uint8)


def test_a_highlight_at_a_4s_centre_is_no_pip_and_a_5s_centre_pip_shows_around_it():
    """A small highlight (its clipped core smaller than a pip): on a 4 the face's blue shows
    all round the core, on a 5 the pip's yellow does."""
    assert tinted_pips(_patch(BLUE, YELLOW, CORNERS, 2.5), None).face == 4
    assert tinted_pips(_patch(BLUE, YELLOW, [*CORNERS, (0.0, 0.0)], 2.5), None).face == 5


def test_a_core_as_big_as_a_pip_where_a_pip_would_make_another_face_is_not_answered():
    """A wider highlight clips every channel over most of the centre place (32 pixels, a
    pip's disc 55): a 5's centre pip may lie under it, so the 4 seen around it is not
    answered (hidden)."""
    pips = tinted_pips(_patch(BLUE, YELLOW, CORNERS, 8.0), None)
    assert pips.face == 0 and pips.hidden


def test_pips_that_differ_from_the_face_only_in_light_are_not_read_here():
    """White pips on a grey face: a highlight's light cannot be told from a pip's, by tint."""
    assert len(tinted_pips(_patch(GREY, WHITE, CORNERS, 2.5), None).centres) == 0
    assert len(tinted_pips(_patch(BLUE, YELLOW, CORNERS, 0.01), None).centres) == 0  # no core


@pytest.mark.parametrize(("seed", "index", "face"), [(212, 2, 3), (212, 3, 4), (212, 8, 2)])
def test_an_azure_face_under_glare_is_read_by_the_tint_of_its_pips(tmp_path, seed, index, face):
    """Glare rows of ``faces evaluate --seed 212`` (a tuning seed): azure dice, yellow pips,
    a highlight at the face's centre; none was read before (no pip layout on the lightness)."""
    image, truth, profile = evaluated_frame(tmp_path, "azure", seed, "glare", index)
    assert truth == face
    assert read_face(image, profile).face == face
