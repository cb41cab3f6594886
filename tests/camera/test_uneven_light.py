"""The reader under a shadow's edge and a highlight (issue 22, point 6): the light evened
out over the face before the pips are counted, and over the table before the die is looked
for. Coverage per condition is measured by ``diablotin faces evaluate`` (docs/camera.md);
these tests prove the mechanism on a few frames, cheaply."""

from __future__ import annotations

import random
from pathlib import Path

import cv2
import numpy as np
import pytest

from controller.camera.calibrate import calibrate
from controller.camera.highlight import centre_lost
from controller.camera.reader import PATCH, find_pips, flat_light, read_face
from controller.camera.render import (
    FACES,
    STYLES,
    condition,
    jpeg_roundtrip,
    random_scene,
    render,
    render_leaning,
    write_dataset,
)
from controller.camera.shadow import lift, shadow_edges
from tests.camera.conftest import evaluated_frame

DATA = Path(__file__).parent.parent / "data" / "camera"


def _five_in_half_shadow() -> np.ndarray:
    """A white face with five black pips, its right half at 40 % (a shadow's edge)."""
    patch = np.full((PATCH, PATCH, 3), 215, np.uint8)
    for x, y in ((-1, -1), (1, -1), (-1, 1), (1, 1), (0, 0)):
        centre = (PATCH // 2 + x * 12, PATCH // 2 + y * 12)
        cv2.circle(patch, centre, 4, (30, 30, 30), -1)
    patch[:, PATCH // 2 + 6 :] = (patch[:, PATCH // 2 + 6 :] * 0.4).astype(np.uint8)
    return patch


def test_a_shadow_edge_across_the_face_is_evened_out():
    light = cv2.cvtColor(_five_in_half_shadow(), cv2.COLOR_RGB2LAB)[..., 0].astype(np.float32)
    flat = flat_light(light)
    face_bright, face_dark = flat[6, 10], flat[6, PATCH - 10]
    assert abs(float(face_bright) - float(face_dark)) < 12  # the shade is gone
    assert float(flat[PATCH // 2, PATCH // 2]) < 0.5 * float(face_bright)  # the pip is not


def test_the_five_in_half_shadow_is_counted_only_once_the_light_is_evened():
    patch = _five_in_half_shadow()
    assert find_pips(patch, dark=True).face != 5  # the defect: the shaded half is one "pip"
    assert find_pips(patch, dark=True, flat=True).face == 5


def _read_under(light: str, seed: int, profiles) -> tuple[int, list[tuple[str, object, object]]]:
    """14 renders under ``light`` (ivory: dark pips; ebony: light), read: how many were
    answered, and the wrong answers."""
    rng = random.Random(seed)
    read, wrong = 0, []
    for n in range(14):
        style = ("ivory", "ebony")[n % 2]
        face = (1, 2, 3, 4, 5, 6, "devil")[n % 7]
        scene = random_scene(rng)
        frame = condition(render(STYLES[style], face, rng, scene=scene), light, scene, rng)
        got = read_face(jpeg_roundtrip(frame, 85), profiles[style]).face
        read += got is not None
        if got is not None and got != face:
            wrong.append((style, face, got))
    return read, wrong


def test_shadowed_dice_are_read_and_never_wrong(profiles):
    """14 renders with a shadow's edge through the die: at first about a third were read,
    then 10 (the light evened out); with the shade of the edge lifted, 13. None wrong."""
    read, wrong = _read_under("shadow", 2207, profiles)
    assert not wrong
    assert read >= 12, f"only {read} of 14 shadowed dice read"


def test_dice_under_a_highlight_are_read_where_it_hides_nothing(profiles):
    """14 renders with a white highlight on the die: 3 were read before a pale dark pip
    under it was counted, 5 before light pips beside a soft highlight were counted with it
    left out; now 6. None wrong (a highlight over a place where a pip would make another
    face: null)."""
    read, wrong = _read_under("glare", 2208, profiles)
    assert not wrong
    assert read >= 6, f"only {read} of 14 dice under a highlight read"


def _half_shaded(width: int = 320, height: int = 240) -> np.ndarray:
    """A grey table (150) whose part beyond a slanted straight edge is at 45 %."""
    yy, xx = np.mgrid[0:height, 0:width]
    table = np.full((height, width), 150.0)
    table[xx > 140 + 0.4 * yy] *= 0.45
    return table.astype(np.uint8)


def test_a_straight_shadow_edge_is_found_and_its_shade_lifted():
    light = _half_shaded()
    edges = shadow_edges(light, 90, 0.5)
    assert len(edges) == 1
    lifted = lift(light, edges[0], 0.5, 45)
    lit, shaded = float(lifted[100, 40]), float(lifted[100, 300])
    assert abs(lit - shaded) < 8, (lit, shaded)  # the shade is gone
    assert abs(lit - 150) < 3  # the lit side is untouched


def test_a_long_shallow_shadow_edge_is_found():
    """An edge 1.6 degrees off the frame's rows: its pixels step every 35, and with whole
    degrees and gaps of 4 the transform cut it into pieces too short (none was found)."""
    yy, xx = np.mgrid[0:240, 0:320]
    light = np.full((240, 320), 160.0)
    light[yy < 57 - 9 * xx / 320] *= 0.45
    light = cv2.GaussianBlur(light.astype(np.uint8), (3, 3), 0)
    edges = shadow_edges(light, 99, 0.5)
    assert len(edges) == 1
    (x1, y1), (x2, y2) = edges[0].a, edges[0].b
    assert abs((y2 - y1) / (x2 - x1) + 9 / 320) < 0.01  # the edge's own slope


# Grey dice on grey tables crossed by a shadow's edge that the reader left to the referee:
# no outline, and its pips' square was refused for the shadow's seam across the face, or
# the edge was not found (the frame drawn from random.Random(seed); the face it shows).
SLATE_SHADOW_ONCE_MISSED = [(5002, 5), (5017, 6), (5052, 6), (5067, "devil"), (5084, 3)]


@pytest.mark.parametrize(("seed", "face"), SLATE_SHADOW_ONCE_MISSED)
def test_a_grey_die_across_a_shadows_edge_is_read(profiles, seed, face):
    rng = random.Random(seed)
    assert (1, 2, 3, 4, 5, 6, "devil")[seed % 7] == face
    scene = random_scene(rng)
    frame = condition(render(STYLES["slate"], face, rng, scene=scene), "shadow", scene, rng)
    assert read_face(jpeg_roundtrip(frame, 85), profiles["slate"]).face == face


# Dice across a shadow's edge whose outline the frame breaks in two, and whose square shows
# once the shade is lifted (frames of `faces evaluate --seed 216 --light shadow`: style,
# frame, the face it shows): left to the referee ("no die seen") before.
OUTLINE_ONLY_LIFTED = [("slate", 15, 2), ("ruby", 6, "devil"), ("ruby", 13, "devil")]


@pytest.mark.parametrize(("style", "index", "face"), OUTLINE_ONLY_LIFTED)
def test_a_die_whose_outline_shows_only_with_the_shade_lifted_is_read(
    tmp_path: Path, style: str, index: int, face: object
) -> None:
    image, shown, profile = evaluated_frame(tmp_path, style, 216, "shadow", index)
    assert shown == face
    assert read_face(image, profile).face == face


def test_a_line_between_two_alike_sides_is_no_shadow():
    """A thin dark line (a table's seam, a lid's rib): both sides alike, nothing lifted."""
    light = np.full((240, 320), 150, np.uint8)
    cv2.line(light, (160, 0), (200, 239), 60, 2)
    assert shadow_edges(light, 90, 0.5) == []


def _four_with_highlight(at: tuple[int, int], sigma: float) -> np.ndarray:
    """A white face with four black corner pips and a white highlight centred ``at``."""
    patch = np.full((PATCH, PATCH, 3), 215, np.float32)
    for x, y in ((-1, -1), (1, -1), (-1, 1), (1, 1)):
        cv2.circle(patch, (PATCH // 2 + x * 12, PATCH // 2 + y * 12), 4, (30, 30, 30), -1)
    yy, xx = np.mgrid[0:PATCH, 0:PATCH]
    spot = np.exp(-((xx - at[0]) ** 2 + (yy - at[1]) ** 2) / (2 * sigma * sigma))
    return np.clip(patch + 230 * spot[:, :, None], 0, 255).astype(np.uint8)


def test_a_highlight_where_no_pip_could_hide_leaves_the_count_trusted():
    """A highlight at the middle of an edge: no pip hidden there makes another face (a 4
    and one edge pip is no face), so the 4 is read (it was refused before)."""
    patch = _four_with_highlight((PATCH // 2, PATCH // 2 - 12), 3.5)
    assert int(np.count_nonzero(patch.min(axis=2) >= 248)) > 10  # it does saturate
    assert find_pips(patch, dark=True).face == 4


def test_a_highlight_over_the_centre_of_a_four_is_not_trusted():
    """The centre pip of a 5 could be lost in it: never 4, the referee is asked."""
    patch = _four_with_highlight((PATCH // 2, PATCH // 2), 3.5)
    assert find_pips(patch, dark=True).face == 0
    assert find_pips(patch, dark=True, flat=True).face == 0


def test_a_half_lit_centre_pip_under_a_highlight_is_counted():
    """A 5 whose centre pip is half under a highlight: paler and smaller than the others,
    it is still a pip (a highlight only adds light); it was refused (4 or 5?) before."""
    patch = _four_with_highlight((PATCH // 2 + 4, PATCH // 2), 3.5).astype(np.float32)
    yy, xx = np.mgrid[0:PATCH, 0:PATCH]
    spot = np.exp(-((xx - PATCH // 2 - 4) ** 2 + (yy - PATCH // 2) ** 2) / (2 * 3.5**2))
    pip = (xx - PATCH // 2) ** 2 + (yy - PATCH // 2) ** 2 <= 16
    patch[pip] = np.clip(30 + 230 * spot[pip], 0, 255)[:, None]
    assert find_pips(patch.astype(np.uint8), dark=True, pip_area=0.0177, pale=True).face == 5


def test_a_faint_centre_pip_on_a_face_white_all_over_is_not_read_as_four():
    """A glossy white die whose top is white all over, the 5's centre pip showing only as a
    faint grey ring (found on the tuning renders: it was read as 4)."""
    patch = np.full((PATCH, PATCH, 3), 255, np.uint8)
    for x, y in ((-1, -1), (1, -1), (-1, 1), (1, 1)):
        cv2.circle(patch, (PATCH // 2 + x * 12, PATCH // 2 + y * 12), 4, (30, 30, 30), -1)
    cv2.circle(patch, (PATCH // 2, PATCH // 2), 3, (228, 228, 228), 1)
    assert find_pips(patch, dark=True).face == 0


def test_a_pip_lost_in_a_highlights_core_is_never_left_out(profiles):
    """Three renders whose centre pip is white under a highlight's core but for a faint
    ring (a 5, and a 3 twice): read as 4 and 2 when a place counted as lost only once half
    its disc was white. Now: not read at all, or read right."""
    for seed, n in ((27, 4), (508, 2), (520, 2)):
        rng = random.Random(seed)
        for k in range(n + 1):
            style = ("ivory", "ebony")[k % 2]
            face = (1, 2, 3, 4, 5, 6, "devil")[k % 7]
            scene = random_scene(rng)
            frame = condition(render(STYLES[style], face, rng, scene=scene), "glare", scene, rng)
        got = read_face(jpeg_roundtrip(frame, 85), profiles[style]).face
        assert got in (None, face), (seed, face, got)


def test_a_count_untrusted_under_a_highlight_stays_untrusted_at_higher_levels():
    """A 3 whose centre pip is lost in a highlight's core (ivory, seed 71's glare renders,
    the die's top as the reader warped it). Its two corner pips, found at the lowest level,
    were rightly untrusted (a pip hidden at the centre makes a 3); at the highest level
    they are smaller, so the disc a hidden pip would fill was smaller and less white, and
    the 2 was trusted: read as 2. A count untrusted at one level now stays so."""
    patch = cv2.imread(str(DATA / "glare-3-centre-in-core.png"))
    patch = cv2.cvtColor(patch, cv2.COLOR_BGR2RGB)
    assert find_pips(patch, dark=True, pip_area=0.026, pale=True).face == 0


def test_white_pips_some_clipped_to_white_by_the_light_are_no_highlight():
    """A plain ebony 6 (seed 71, no light condition): the light brighter on one side clips
    some of its white pips to white (peaks 246-251). That was taken for a highlight among
    the pips, and the die was not read (7 of 70 plain ebony renders). Pips all this white
    are white pips."""
    patch = cv2.imread(str(DATA / "white-pips-some-clipped-6.png"))
    patch = cv2.cvtColor(patch, cv2.COLOR_BGR2RGB)
    assert find_pips(patch, dark=False, pip_area=0.0236).face == 6


def test_a_highlight_among_white_pips_is_never_a_pip():
    """A dark face with four white pips and a white highlight at its centre, where a 5's
    pip would be: never read as 5."""
    for sigma in (2.5, 3.5, 4.5, 6.0):
        patch = np.full((PATCH, PATCH, 3), 35, np.float32)
        for x, y in ((-1, -1), (1, -1), (-1, 1), (1, 1)):
            cv2.circle(patch, (PATCH // 2 + x * 12, PATCH // 2 + y * 12), 4, (240, 240, 235), -1)
        yy, xx = np.mgrid[0:PATCH, 0:PATCH]
        spot = np.exp(-((xx - PATCH // 2) ** 2 + (yy - PATCH // 2) ** 2) / (2 * sigma * sigma))
        patch = np.clip(patch + 230 * spot[:, :, None], 0, 255).astype(np.uint8)
        for flat in (False, True):
            assert find_pips(patch, dark=False, pip_area=0.0236, flat=flat).face != 5, sigma


def _white_pips_under(pips, spot: tuple[int, int], sigma: float) -> np.ndarray:
    """A dark face with white pips (places -1..1, 12 pixels apart) and a soft white
    highlight centred ``spot`` pixels from the face's centre, slightly blurred."""
    patch = np.full((PATCH, PATCH, 3), 35, np.float32)
    for x, y in pips:
        cv2.circle(patch, (PATCH // 2 + x * 12, PATCH // 2 + y * 12), 4, (240, 240, 235), -1)
    yy, xx = np.mgrid[0:PATCH, 0:PATCH]
    sx, sy = PATCH // 2 + spot[0], PATCH // 2 + spot[1]
    glow = np.exp(-((xx - sx) ** 2 + (yy - sy) ** 2) / (2 * sigma * sigma))
    patch = np.clip(patch + 230 * glow[:, :, None], 0, 255).astype(np.uint8)
    return cv2.GaussianBlur(patch, (3, 3), 0)


FOUR = ((-1, -1), (1, -1), (-1, 1), (1, 1))
TWO = ((-1, -1), (1, 1))


def test_white_pips_beside_a_highlight_that_hides_no_face_are_counted():
    """A soft highlight between a 4's top pips (a pip there makes no face) or on a 2's
    empty corner: the pips are counted with the highlight left out. Before, any highlight
    among light pips gave no face (4: 1 of 3 highlight sizes read, 2: none)."""
    for sigma in (3.5, 4.5, 6.0):
        assert find_pips(_white_pips_under(FOUR, (0, -12), sigma), False, 0.0236).face == 4
        assert find_pips(_white_pips_under(TWO, (12, -12), sigma), False, 0.0236).face == 2


def test_white_pips_with_a_highlight_where_a_pip_would_make_another_face_are_unsure():
    """The same highlight over the centre of a 4 (a 5's pip may hide there) or of a 2 (a
    3's): no face, with the highlight left out or not."""
    for sigma in (3.5, 4.5, 6.0):
        assert find_pips(_white_pips_under(FOUR, (0, 0), sigma), False, 0.0236).face == 0
        assert find_pips(_white_pips_under(TWO, (0, 0), sigma), False, 0.0236).face == 0


def test_a_one_whose_pip_is_lost_in_a_highlight_is_never_the_devil(tmp_path):
    """Held-out azure, seed 97, the 29th glare render of ``faces evaluate``: a 1 whose pip
    lies under a highlight's white core. Nothing else shows, and the blank face with its
    white spot lay within that profile's devil threshold: read as the devil (a
    devil/number confusion). A face like the devil whose centre, where a 1's pip would
    be, is lost in a highlight is not answered."""
    write_dataset(tmp_path, STYLES["azure"], 6, 97)
    profile = calibrate(tmp_path)
    rng = random.Random(98)
    for n in range(29):
        face = FACES[n % len(FACES)]
        scene = random_scene(rng)
        frame = condition(render(STYLES["azure"], face, rng, scene=scene), "glare", scene, rng)
        image = jpeg_roundtrip(frame, rng.randint(60, 92))
    assert face == 1
    assert read_face(image, profile).face is None
    patch = cv2.cvtColor(cv2.imread(str(DATA / "glare-1-pip-lost-azure.png")), cv2.COLOR_BGR2RGB)
    assert centre_lost(patch, profile.pip_area)


def test_a_one_whose_yellow_pip_is_lost_in_a_highlight_is_never_the_devil(tmp_path):
    """Tuning seed 219, azure, the 64th glare render of ``faces evaluate``: a 1 whose yellow
    pip lies under a highlight. Over the pip the highlight is pale yellow, its blue a few
    levels short of white, so under half the pip's disc counted as white and the blank face
    was read as the devil (confidence 0.65, a devil/number confusion). The core's lightness
    is white (L 250 and up): the centre is lost, the face is not answered."""
    image, shown, profile = evaluated_frame(tmp_path, "azure", 219, "glare", 63)
    assert shown == 1
    assert read_face(image, profile).face is None


def test_a_face_clipped_white_by_bright_light_is_no_highlight_over_its_centre():
    patch = np.full((PATCH, PATCH, 3), 255, np.uint8)
    cv2.circle(patch, (PATCH // 2, PATCH // 2 + 6), 10, (230, 30, 30), -1)  # a devil's head
    patch[PATCH // 2 - 4 : PATCH // 2 + 4, PATCH // 2 - 4 : PATCH // 2 + 4] = 255
    assert not centre_lost(patch, 0.026)  # the white reaches the face's rim


def test_a_white_drawing_clipped_by_the_light_over_the_centre_is_no_highlight():
    """A dark face with a white disc (a drawing) over its centre, clipped to white and
    ending sharply: no highlight (a devil drawn in white is still answered); the same white
    fading out into the face is one."""
    sharp = np.full((PATCH, PATCH, 3), 40, np.uint8)
    cv2.circle(sharp, (PATCH // 2, PATCH // 2), 7, (255, 255, 255), -1)
    assert not centre_lost(sharp, 0.026)
    yy, xx = np.mgrid[0:PATCH, 0:PATCH]
    spot = np.exp(-((xx - PATCH // 2) ** 2 + (yy - PATCH // 2) ** 2) / (2 * 6.0**2))
    soft = np.clip(40 + 300 * spot[:, :, None], 0, 255).astype(np.uint8).repeat(3, axis=2)
    assert centre_lost(soft, 0.026)


def test_an_azure_3_beside_a_highlight_is_not_read_as_a_2(tmp_path):
    """Glare, azure, frame 9 of ``faces evaluate --seed 241`` (held out; the reader at the
    session's start read it so too): a 3 whose centre pip, beside the highlight, is paled
    by its glow and not counted; the two corner pips made a 2 on the die's own outline.
    Light pips with a soft highlight on the face are now answered only by the count made
    beside the highlight (``pips.find_pips``), which sees the place a pip may hide."""
    image, face, profile = evaluated_frame(tmp_path, "azure", 241, "glare", 9)
    assert face == 3
    assert read_face(image, profile).face in (None, 3)


def test_an_azure_3_with_a_pip_in_the_highlight_is_not_read_as_a_2(tmp_path):
    """Glare, azure, frame 9 of ``faces evaluate --seed 243`` (held out; the session's
    starting reader read it so too): a 3 whose corner pip is merged with the highlight;
    the other corner pip and the centre one made a 2 on the die's own outline, though
    their middle is far off the die's centre. A count whose pips' middle is off the
    centre is no face now (``reader.OFF_CENTRE``)."""
    image, face, profile = evaluated_frame(tmp_path, "azure", 243, "glare", 9)
    assert face == 3
    assert read_face(image, profile).face in (None, 3)


@pytest.mark.parametrize(("seed", "index", "shown"), [(275, 18, 5), (275, 53, 5), (213, 58, 3)])
def test_a_ruby_centre_pip_merged_with_a_highlight_is_not_lost(tmp_path, seed, index, shown):
    """Glare, ruby: frames 18 and 53 of ``faces evaluate --seed 275`` (held out, run once in
    session 24; 53 was read so by the code of session 22 too), 5s read as 4s; frame 58 of
    tuning seed 213 (the same before and after), a 3 read as a 2. The white centre pip
    merged with the highlight beside it; the other pips made a 4 or a 2. A 2 or a 4 whose
    middle is white may be a 3 or a 5 (``highlight.centre_white``): unsure."""
    image, face, profile = evaluated_frame(tmp_path, "ruby", seed, "glare", index)
    assert face == shown
    assert read_face(image, profile).face in (None, shown)


# Flat dice crossed by a shadow's edge that the reader took for dice on their edge: the lit
# (or the shaded) part of the die is a rectangle as long as a die on its edge, inside the
# die's own square outline (random.Random(seed) draws the frame; the face it shows).
FLAT_IN_SHADOW_ONCE_ON_EDGE = [("ivory", 6063, 2), ("ivory", 6081, 6)]


@pytest.mark.parametrize(("style", "seed", "face"), FLAT_IN_SHADOW_ONCE_ON_EDGE)
def test_a_flat_die_cut_by_a_shadows_edge_is_not_taken_for_one_on_its_edge(
    profiles, style, seed, face
):
    rng = random.Random(seed)
    scene = random_scene(rng)
    frame = condition(render(STYLES[style], face, rng, scene=scene), "shadow", scene, rng)
    assert read_face(jpeg_roundtrip(frame, 85), profiles[style]).face == face


# Flat dice across a shadow's edge on a sand table that the reader took for dice on their
# edge: the light's step along the edge made a pip-like blob just beyond the die's side
# (frames of `faces evaluate --seed 216 --light shadow`, ruby: frame, the face it shows).
FLAT_WITH_A_BLOB_ON_THE_EDGE = [(18, 5), (24, 4)]


@pytest.mark.parametrize(("index", "face"), FLAT_WITH_A_BLOB_ON_THE_EDGE)
def test_a_blob_along_a_shadows_edge_beside_a_flat_die_is_no_second_face(
    tmp_path: Path, index: int, face: int
) -> None:
    image, shown, profile = evaluated_frame(tmp_path, "ruby", 216, "shadow", index)
    assert shown == face
    assert read_face(image, profile).face == face


def _leaning_in_shadow(style: str, seed: int, top: int) -> np.ndarray:
    """A die on its edge (``top`` up) with a shadow's edge across it, from random.Random(seed)."""
    rng = random.Random(seed)
    state = rng.getstate()
    scene = random_scene(rng)  # the scene render_leaning draws first
    rng.setstate(state)
    frame = render_leaning(STYLES[style], top, rng)
    return jpeg_roundtrip(condition(frame, "shadow", scene, rng), 85)


# Dice on their edge with a shadow's edge across them that the reader answered: the shadow
# broke the die's long outline, so nothing said "on its edge", and a face was read (slate
# 8271, a 4 up, as the 6 of its side face: a wrong score).
LEANING_IN_SHADOW_ONCE_READ = [("ivory", 8248, 5), ("ivory", 8264, 3), ("slate", 8271, 4)]


@pytest.mark.parametrize(("style", "seed", "top"), LEANING_IN_SHADOW_ONCE_READ)
def test_a_die_on_its_edge_across_a_shadows_edge_is_not_answered(profiles, style, seed, top):
    read = read_face(_leaning_in_shadow(style, seed, top), profiles[style])
    assert read.face is None, f"a die on its edge ({top} up) read as {read.face}"
    # "two faces show", or since session 21 "a face seen at a slant (a die on its edge?)":
    # the shadow left one face's outline, not square, its pips not round
    assert "a die on its edge" in read.reason, read.reason


def test_a_die_on_its_edge_whose_side_face_is_in_shadow_is_not_answered(profiles):
    """Its side face, in the shade, shows a devil, no pips beside the 3 to say "on its edge"
    (docs/camera.md, *A die on its edge across a shadow's edge*): read as a 3 until the pips
    of a group had to be round (a face tilted 38-52 degrees shows them 0.6-0.8 round)."""
    assert read_face(_leaning_in_shadow("ivory", 8288, 3), profiles["ivory"]).face is None


def test_the_networks_never_read_a_face_of_a_die_on_its_edge_on_a_square_smaller_than_the_die(
    profiles,
) -> None:
    """Ivory, seed 9002 of a sweep of 1,500 dice on their edge (docs/camera.md): a 3 up, a
    shadow's edge across it; the learned second reader read the 2 of its shaded side face
    on an outline 0.6 × 0.7 of the die. It reads only die-sized squares now."""
    read = read_face(_leaning_in_shadow("ivory", 9002, 3), profiles["ivory"])
    assert read.face is None, f"a die on its edge (3 up) read as {read.face}"


def test_a_die_on_its_edge_whose_two_faces_pips_make_a_6_is_not_read(profiles) -> None:
    """Ruby, seed 9009 of the same sweep: a 4 up was read as a 6 from two pips of its side
    face (shaded and in shadow) and the four of its top, a layout within the 1.45 spread of
    spacings a real 6's columns need; until the pips of a group had to be round (both faces
    are tilted, so their pips are not)."""
    read = read_face(_leaning_in_shadow("ruby", 9009, 4), profiles["ruby"])
    assert read.face is None, f"a die on its edge (4 up) read as {read.face}"


def test_a_slate_3_whose_centre_pip_is_in_a_small_highlight_is_not_read_as_a_2(tmp_path):
    """Glare, slate, frame 93 of ``faces evaluate --seed 211`` (a tuning seed): a 3 whose
    centre pip lies under a small highlight's core. Only a few pixels are white (a dark pip
    under the light is white only at its middle), under a tenth of the ring around the
    pip's place, so the place was taken as clear of the highlight and the two corner pips
    were read as 2 (confidence 1). A place a sixth of whose own disc is white is under the
    highlight, however small it is (``highlight.hidden_faces``)."""
    image, face, profile = evaluated_frame(tmp_path, "slate", 211, "glare", 93)
    assert face == 3
    assert read_face(image, profile).face in (None, 3)


def test_an_ivory_3_whose_centre_pip_is_a_pale_ring_in_a_small_highlight_is_not_read_as_a_2(
    tmp_path,
):
    """Glare, ivory, frame 23 of ``faces evaluate --seed 261`` (a held-out seed: this wrong
    read is why it is no longer untouched). The highlight's core lies on the centre pip,
    which shows as a grey ring with a light middle; the white around it is only 29 pixels,
    under a tenth of the ring twice a pip's radius around the place (0.097), so the place was
    taken as clear of the highlight and the two corner pips were read as 2 (confidence 1).
    A twentieth is enough now (``highlight.NEAR_WHITE_SHARE``); a faint pip must still show
    there for the place to count as covered."""
    image, face, profile = evaluated_frame(tmp_path, "ivory", 261, "glare", 23)
    assert face == 3
    assert read_face(image, profile).face in (None, 3)


def test_an_ivory_5_whose_centre_pip_is_bleached_on_a_face_white_all_over_is_not_read_as_a_4(
    tmp_path,
):
    """Glare, ivory, frame 179 of ``faces evaluate --seed 213`` (a tuning seed): the face is
    clipped white nearly all over (an ivory die under a lamp), so no highlight can be told
    from it, and the centre pip is white under the lamp's core but for a faint ring (a tenth
    of the pips' response). It was read as 4 (confidence 0.995). On a face white all over a
    faint ring at a place where a pip would make another face is now taken for a pip."""
    image, face, profile = evaluated_frame(tmp_path, "ivory", 213, "glare", 179)
    assert face == 5
    assert read_face(image, profile).face in (None, 5)


def test_a_ruby_4_two_of_whose_pips_merge_with_a_highlight_is_not_read_as_a_2(tmp_path):
    """Glare, ruby on the toy's red lid, frame 10 of ``faces evaluate --seed 213`` (a tuning
    seed): the die's outline is lost on the red lid, and two of its four white pips merge
    with a pink highlight (not white in every channel: red dice stay pink). The square put
    on the other two pips (``pipgrid``) read as 2 (confidence 1). A square on a pip group
    with a spot as bright as its pips beside them, none of its pips, is not read now."""
    image, face, profile = evaluated_frame(tmp_path, "ruby", 213, "glare", 10)
    assert face == 4
    assert read_face(image, profile).face in (None, 4)


def test_a_ruby_2_with_a_pink_highlight_at_its_centre_is_not_read_as_a_3(tmp_path):
    """Glare, ruby on the red lid, frame 155 of ``faces evaluate --seed 215`` (a tuning
    seed): a 2 with a highlight at its centre. On a red die the highlight stays pink (never
    white in every channel), but its core is far lighter than the white pips (L* 247
    against 161 and 170). The rules read nothing, and the learned reader read the
    highlight as a 3's centre pip (0.997). The networks' number now stands only if the
    pips beside a blob far lighter than they are make that number too, or no face
    (``highlight.face_beside_highlight``)."""
    image, face, profile = evaluated_frame(tmp_path, "ruby", 215, "glare", 155)
    assert face == 2
    assert read_face(image, profile).face in (None, 2)


@pytest.mark.parametrize("seed", [9203, 9334, 9395, 9442])
def test_a_ruby_die_on_its_edge_with_a_1_up_across_a_shadow_is_not_the_devil(
    profiles, seed
) -> None:
    """Ruby, four of a sweep of dice on their edge with a 1 up (seeds 9150-9449): the shaded
    side face's devil was read as the devil on the die's whole outline, 1.21-1.25 times as
    long as wide. A devil is not read on an outline that is not square now
    (:func:`.on_edge.seen_at_a_slant`; found in session 21, fixed in session 22)."""
    read = read_face(_leaning_in_shadow("ruby", seed, 1), profiles["ruby"])
    assert read.face is None, f"a die on its edge (1 up) read as {read.face}"


@pytest.mark.xfail(
    strict=True,
    reason="known: a die on its edge at the frame's edge, a devil on its side face, is read as "
    "the devil (docs/camera.md, A devil beside a face of pips); found in session 22",
)
def test_the_devil_beside_a_face_of_pips_is_a_die_on_its_edge_not_the_devil(tmp_path) -> None:
    """Held-out seed 271's *on its edge* row, ruby, frame 3 (run once for session 22's
    figures, so no longer untouched): a die on its edge at the frame's top, a 4 up and a
    devil on its shaded side face, read as the devil on a square over the devil's face (its
    whole outline, cut by the frame's edge, was not seen as a die on its edge)."""
    folder = tmp_path / "ruby"
    write_dataset(folder, STYLES["ruby"], 6, 271)
    rng = random.Random(272)
    for n in range(4):  # as ``faces evaluate`` draws its on-its-edge row
        face = FACES[n % len(FACES)]
        random_scene(rng)
        frame = render_leaning(STYLES["ruby"], face, rng, rng.uniform(0.6, 1.0))
        image = jpeg_roundtrip(frame, rng.randint(60, 92))
    assert face == 4
    read = read_face(image, calibrate(folder))
    assert read.face is None, f"a die on its edge (4 up, a devil beside) read as {read.face}"
