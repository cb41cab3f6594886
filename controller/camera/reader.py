"""The face reader: an RGB image in, ``(face, confidence)`` out (classic OpenCV rules, and
optionally a learned second reader where they answer ``None``: step 4).

1. **Find the die by its shape.** On the frame at half size, the lightness is evened out
   (CLAHE) and thresholded against its neighbourhood (adaptive thresholds, both ways: a die
   lighter or darker than the table), and so are the two colour channels (a coloured die on a
   table of the same lightness). Every outline that is square (its sides within 25 %), fills
   its rotated rectangle, and is a die's size (the calibrated side is a preference, not a
   gate) is a candidate. A shadow's straight edge across the table is lifted first
   (:mod:`.shadow`), and when nothing reads the candidates are read again on the lifted frame.
   When still nothing reads, a die-sized square is put on each group of pip-like blobs
   (:mod:`.pipgrid`: a die whose outline is lost); it must count exactly its group's pips,
   round (a face seen from above), with nothing else on the face. A die on its edge shows as
   a rectangle 1.25–1.75 times as long as wide: no candidate inside it is read (``None``,
   issue 22 point 7), but a die lying flat off the lens's axis, whose side faces show, is
   such a rectangle too: its top is cut out by the lens's geometry
   (:func:`.on_edge.tops_seen_at_an_angle`) and a number on it must be one shade with round
   pips. Where a shadow's edge crosses the frame, such a rectangle inside a die-sized square
   is the lit or shaded part of a flat die; and the shadow may break the long outline of a
   die on its edge, so a read with pips beyond one of its edges is ``None`` too.
2. **Count the pips by their layout.** Each candidate's top is warped to a 48×48 patch. Pips
   are blobs darker (or lighter) than their surroundings (a black-hat / top-hat, so a shadow
   across the die does not matter), of one size and one colour. A number is answered only
   when the blobs sit where a real die face puts them (1–6, in a 3×3 grid, any rotation).
   No face found: counted again with the face's light evened out (a shadow's edge). With
   dark pips a white highlight makes the count untrusted only where a pip hidden in it would
   make another face (:mod:`.highlight`); light pips beside a soft highlight are counted
   with it left out, on the same terms. The pip counting is :mod:`.pips`.
3. **The devil** has no pip layout; its drawing is compared (HOG, gradient histograms: light,
   colour and contrast do not change them; 4 rotations of each example) with the calibration
   photos of the devil and with number faces. It is answered only when it is close to the
   devil examples and clearly closer to them than to any number; a patch with a pip layout is
   never the devil, and a patch like the devil is never a number. Unsure: ``None``.
4. **The learned second reader** (:mod:`.learned`; ``learned=True``, default
   :data:`LEARNED`): when no candidate reads, a small trained network classifies each outline
   candidate's top; it answers a number only when it is sure and the calibrated devil
   examples agree that it is no devil, and the devil only when the calibration finds it
   close to the devil examples too.

Candidates that read differently (two dice, no frame difference to say which is new) give
``None``. Read time: about 5–15 ms for 640×480 on one core (``diablotin bench camera``).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from dataclasses import dataclass

import cv2
import numpy as np

from .highlight import centre_lost, centre_white, spot_beside_pips
from .hog import hog
from .layout import (
    _INNER,
    COVER,
    LAYOUT_TOL,
    PATCH,
    drawn_on,
    layout_face,
    patch_light,
    square_patch,
)
from .learned import ModelError, load_cnn, load_model, second_read
from .on_edge import (
    LENS_DEG,
    ON_EDGE_REACH,
    SLANT,
    flat_top,
    inside_any,
    part_of_a_flat_die,
    round_pips,
    second_face_beside,
    seen_at_a_slant,
    tops_seen_at_an_angle,
)
from .pipgrid import ALONE, pip_blobs, pip_boxes, third_in_line, tops_on_pips
from .pips import NO_PIPS, Pips, find_pips, flat_light, light_of
from .profile import DEVIL, FACES, Profile, pip_darks
from .read import Box, Read
from .regions import INSET, SPREADS, one_colour, without_specks
from .shadow import Edge, lift, seam, shadow_edges, shadow_free
from .tinted import tinted_pips

WORK_SCALE = 0.5
"""Die finding runs on the frame scaled by this (320×240 for 640×480)."""
LEARNED = True
"""Whether :func:`read_face` uses the learned second reader by default (docs/camera.md,
"Fifth pass"): on since it read the held-out seed 229 (every style and light condition,
azure and ruby included) with no wrong answer."""
LEANING = (1.25, 1.75)
"""A die on its edge, seen from above, is a rectangle this many times as long as wide
(1.41 at 45°: its top and a side face, each foreshortened, show; one face alone is 1.3–1.6
times as wide as long)."""
WHOLE_TOP = 0.75
"""The learned second reader reads only squares at least this many calibrated die sides
long: a flat die's top seen from above is die-sized; a smaller square is part of a die (an
ivory 3 on its edge was read as the 2 of its side face on a square 0.6 × 0.7 of the die).
On tuning seeds 211 and 213 no read without pips (536) came from a square under 0.81."""
MIN_SIDE, MAX_SIDE = 28.0, 240.0
"""Die sides (pixels of a 640-wide frame) looked for when no size is calibrated."""

_CLAHE = cv2.createCLAHE(clipLimit=2.0, tileGridSize=(6, 6))


def as_rgb(image: np.ndarray) -> np.ndarray:
    """An 8-bit RGB image from RGB/RGBA/grey, 8- or 16-bit; ``ValueError`` otherwise."""
    if not isinstance(image, np.ndarray) or image.size == 0:
        raise ValueError("not an image (empty)")
    if image.dtype == np.uint16:
        image = (image >> 8).astype(np.uint8)
    elif image.dtype != np.uint8:
        raise ValueError(f"unsupported pixel type {image.dtype}: 8- or 16-bit images")
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2RGB)
    if image.ndim == 3 and image.shape[2] == 3:
        return image
    if image.ndim == 3 and image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_RGBA2RGB)
    raise ValueError(f"unsupported image shape {image.shape}")


# -- 1. candidates: square outlines of a die's size ---------------------------------------


def square_candidates(
    rgb: np.ndarray,
    side_hint: float | None = None,
    within: np.ndarray | None = None,
    edges: list[Edge] | None = None,
) -> list[Box]:
    """Rotated rectangles (frame pixels) of the square outlines of a die's size in ``rgb``,
    best first (squarest, fullest, nearest the hint). Similar outlines are merged.
    ``within``: a 0/255 mask (frame size); outlines are cut to it (a die touching others
    that lay there before). ``edges``: shadow edges to lift (default: those found)."""
    return outlines(rgb, side_hint, within, edges)[0]


def outlines(
    rgb: np.ndarray,
    side_hint: float | None = None,
    within: np.ndarray | None = None,
    edges: list[Edge] | None = None,
    lifted: bool = False,
) -> tuple[list[Box], list[Box]]:
    """The square outlines of :func:`square_candidates`, and (with ``side_hint``) the
    outlines of a die leaning on its edge (:func:`_leaning`). ``lifted``: ``rgb`` is a
    frame with a shadow's shade lifted (:func:`_masks`)."""
    small = cv2.resize(rgb, None, fx=WORK_SCALE, fy=WORK_SCALE, interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(cv2.GaussianBlur(small, (3, 3), 0), cv2.COLOR_RGB2LAB)
    lo, hi = MIN_SIDE * WORK_SCALE, MAX_SIDE * WORK_SCALE
    if side_hint:
        lo, hi = max(lo, side_hint * 0.45 * WORK_SCALE), min(hi, side_hint * 2.0 * WORK_SCALE)
    blocks = _neighbourhoods(side_hint)
    if edges is None:
        edges = shadow_edges(lab[..., 0], blocks[0], WORK_SCALE)
    masks = _masks(lab, blocks, edges, lifted)
    grown = [0.0] * len(masks) + [2 * INSET] * len(SPREADS)  # an outline's growth (pixels)
    masks += one_colour(lab)
    found: list[tuple[float, Box]] = []
    leaning: list[Box] = []
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
    if within is not None:
        cut = cv2.resize(within, (small.shape[1], small.shape[0]), interpolation=cv2.INTER_NEAREST)
        masks, grown = [cv2.bitwise_and(m, cut) for m in masks] + masks, grown + grown
    for mask, grow in zip(masks, grown, strict=True):
        # pips are holes: fill them, so that opening (which cuts thin lines and specks of
        # the table away) cannot break the thin rim between a pip and the die's edge
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        contours = without_specks(contours, lo * lo * 0.8)
        mask = cv2.drawContours(np.zeros_like(mask), contours, -1, 255, -1)
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, kernel)
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        for contour in contours:
            area = cv2.contourArea(contour)
            if not lo * lo * 0.8 < area < hi * hi:
                continue
            (cx, cy), (w, h), angle = cv2.minAreaRect(contour)
            fill = area / (w * h)
            w, h = w + grow, h + grow
            if min(w, h) < lo or max(w, h) > hi * LEANING[1]:
                continue
            hull = cv2.contourArea(cv2.convexHull(contour))
            if fill < 0.8 or area < 0.93 * hull:
                continue
            s = 1 / WORK_SCALE
            if max(w, h) > 1.25 * min(w, h):
                # not from a region of one colour: a shadow's edge splits a face in two
                if side_hint and not grow and _leaning(w * s, h * s, side_hint, not edges):
                    leaning.append(((cx * s, cy * s), (w * s, h * s), angle))
                continue
            if max(w, h) > hi:
                continue
            side = (w + h) / 2 / WORK_SCALE
            score = fill - (max(w, h) / min(w, h) - 1)
            if side_hint:
                score -= 0.8 * abs(math.log(side / side_hint))
            found.append((score, ((cx * s, cy * s), (w * s, h * s), angle)))
    found.sort(key=lambda item: -item[0])
    kept: list[Box] = []
    for _, box in found:
        (cx, cy), (w, _h), _a = box
        near = [k for k in kept if math.hypot(k[0][0] - cx, k[0][1] - cy) < 0.25 * w]
        if len(near) < 2:  # at most two outlines per place (the best two)
            kept.append(box)
    return kept[:40], leaning


# -- 2. the top of a candidate, and its pips ---------------------------------------------


def _leaning(w: float, h: float, side: float, one_face: bool) -> bool:
    """Whether a full ``w`` × ``h`` rectangle (frame pixels) is a die of ``side`` on its
    edge: :data:`LEANING` times as long as wide, and as wide as the die (its top and a side
    face show) or, when ``one_face``, as long (one face shows, foreshortened; the other is
    lost in the table). Not ``one_face`` where a shadow's edge crosses the frame: the lit
    part of a die lying flat is such a rectangle too."""
    short, long = sorted((w, h))
    die_sized = 0.8 < short / side < 1.3 or (one_face and 0.8 < long / side < 1.3)
    return die_sized and LEANING[0] < long / short < LEANING[1]


def _masks(
    lab: np.ndarray, blocks: tuple[int, int], edges: list[Edge] | None, lifted: bool = False
) -> list[np.ndarray]:
    """The thresholded masks a die's outline is looked for in (``lab``: the frame at
    WORK_SCALE): see :func:`square_candidates`. ``lifted`` (a frame with a shadow's shade
    lifted, :func:`_read_lifted`): only its evened light, a*, b* and edges, not CLAHE's
    (7 of the 15 masks; in 2,100 shadow frames they missed 1 of the 31 dice all 15 found)."""
    light = lab[..., 0]
    channels: list[tuple[np.ndarray, tuple[int, ...], tuple[int, ...]]] = [
        (shadow_free(light, blocks[0]), (10,), blocks[:1]),
        (lab[..., 1], (4,), blocks[:1]),
        (lab[..., 2], (4,), blocks[:1]),
    ]
    if not lifted:
        channels.insert(0, (_CLAHE.apply(light), (7, 20), blocks))
    if edges is None:
        edges = shadow_edges(light, blocks[0], WORK_SCALE)
    channels += [(lift(light, e, WORK_SCALE, blocks[0] / 2), (7,), blocks[:1]) for e in edges]
    masks = []
    for channel, offsets, sizes in channels:
        for c, block in itertools.product(offsets, sizes):
            for kind, offset in ((cv2.THRESH_BINARY, -c), (cv2.THRESH_BINARY_INV, c)):
                # lighter than its surroundings by c, or darker by c
                masks.append(
                    cv2.adaptiveThreshold(
                        channel, 255, cv2.ADAPTIVE_THRESH_MEAN_C, kind, block, offset
                    )
                )
    # and the regions that edges enclose (a die against a table of its own shade)
    outline = cv2.Canny(light, 12, 36)
    masks.append(cv2.bitwise_not(cv2.dilate(outline, np.ones((3, 3), np.uint8))))
    return masks


def _neighbourhoods(side_hint: float | None) -> tuple[int, int]:
    """The adaptive thresholds' two neighbourhoods (pixels at WORK_SCALE): about twice and
    four times the die (a die filling its neighbourhood is no contrast)."""
    if not side_hint:
        return 61, 121
    return int(side_hint * WORK_SCALE * 2.2) | 1, int(side_hint * WORK_SCALE * 4) | 1


# -- 3. one candidate's read ------------------------------------------------------------


@dataclass(frozen=True)
class Candidate:
    box: Box
    face: int | str | None
    confidence: float
    pips: Pips
    why: str = ""


OFF_CENTRE = 0.12
"""Every face's pips are symmetric about the die's centre: a count whose pips' middle lies
further than this (die sides) from the square's centre has lost a pip on one side (a 3's
corner pip in a highlight left a corner and the centre, a quarter of a diagonal off, read
as a 2)."""


def read_patch(patch: np.ndarray, profile: Profile) -> tuple[int | str | None, float, Pips, str]:
    """Face, confidence, the pips, and why it is None, for one die's top."""
    polarities = pip_darks(profile.pip_polarity)
    pale = profile.pip_polarity == "dark"  # known dark pips: one under a highlight is paler
    found = [find_pips(patch, dark, profile.pip_area or None, False, pale) for dark in polarities]
    unlit = not bool(((patch.min(axis=2) >= 248) & _INNER).any())  # evening out a highlight
    if unlit and not any(p.face for p in found):  # a shadow across the face? even its light
        found += [
            find_pips(patch, dark, profile.pip_area or None, True, pale) for dark in polarities
        ]
    if not any(p.face for p in found):  # a highlight on a die whose pips differ in colour?
        found.append(tinted_pips(patch, profile.pip_area or None))
    numbers = {p.face for p in found if p.face}
    pips = next((p for p in found if p.face), found[0])
    d_devil, d_number = profile.devil_distances(hog(patch_light(patch)))
    devilish = d_devil <= profile.devil_threshold and d_devil < 0.85 * d_number
    devilish = devilish and drawn_on(patch)  # a bare square of table is no drawing
    if len(numbers) > 1:
        return None, 0.0, pips, "two pip layouts"
    if numbers:
        if devilish:
            return None, 0.0, pips, "pips, and like the devil"
        if float(np.hypot(*pips.centres.mean(axis=0))) > OFF_CENTRE:
            return None, 0.0, pips, "the pips' middle is off the die's centre (one lost?)"
        middle = (float(pips.centres[:, 0].mean()), float(pips.centres[:, 1].mean()))
        if pips.face in (2, 4) and centre_white(patch, float(np.median(pips.areas)), middle):
            return None, 0.0, pips, "a highlight on the centre, where a 3's or 5's pip would be"
        conf = 0.75 + 0.25 * max(0.0, 1 - pips.error / LAYOUT_TOL)
        return pips.face, conf, pips, ""
    if devilish and centre_lost(patch, profile.pip_area):
        return None, 0.0, pips, "like the devil, under a highlight (a 1's pip may be lost in it)"
    if devilish:
        margin = 1 - d_devil / max(d_number, 1e-6)
        closeness = 1 - d_devil / max(profile.devil_threshold, 1e-6)
        conf = float(np.clip(0.55 + 1.5 * margin * (0.3 + closeness), 0, 1))
        return DEVIL, conf, pips, ""
    return None, 0.0, pips, "no die face's pip layout, not like the devil"


View = tuple[np.ndarray, np.ndarray | None]
"""A frame to read (RGB), and where a lifted shadow's seam runs in it (a 0/255 mask), if
it is one."""
SEAM_MARGIN = 3.0
"""How far each side of a lifted shadow's edge its seam is left out of the check that a
face bears nothing but its pips (frame pixels; the lift's own ramp is ±1.5)."""


def find_die(
    rgb: np.ndarray,
    profile: Profile,
    changed: np.ndarray | None = None,
    learned: bool = False,
    lens_deg: float = LENS_DEG,
) -> tuple[list[Candidate], str]:
    """The readable dice in ``rgb``: candidates that read, one per place, best first; and
    the reason when there is none. ``changed`` (a 0/255 mask of where the frame changed
    since before the press) keeps only candidates that lie mostly where it changed. When
    none reads and a shadow's edge crosses the frame, they are read again with its shade
    lifted (:func:`.shadow.lift`: a die half in shadow). ``learned``: when still none
    reads, the learned second reader may read a number on the outline candidates.
    ``lens_deg``: the lens's field of view across the frame (a die off its axis shows its
    side faces: :func:`.on_edge.tops_seen_at_an_angle`)."""
    hint = profile.die_side or None
    small = cv2.resize(rgb, None, fx=WORK_SCALE, fy=WORK_SCALE, interpolation=cv2.INTER_AREA)
    light = cv2.cvtColor(cv2.GaussianBlur(small, (3, 3), 0), cv2.COLOR_RGB2LAB)[..., 0]
    window = _neighbourhoods(hint)[0]
    edges = shadow_edges(light, window, WORK_SCALE)
    boxes, leaning = outlines(rgb, hint, changed, edges)
    if changed is not None:
        boxes = [b for b in boxes if _overlaps(b, changed)]
    if edges:  # a shadow's edge may cut a flat die into a die-on-its-edge shape
        leaning = [r for r in leaning if not part_of_a_flat_die(r, boxes, hint)]
    boxes = [b for b in boxes if not inside_any(b, leaning, ON_EDGE_REACH)]
    lifted: list[View] = []  # the frame with each edge's shade lifted, made once

    def views() -> Iterator[View]:
        yield rgb, None
        for k, edge in enumerate(edges):
            if k == len(lifted):
                shade = lift(rgb, edge, 1.0, window / WORK_SCALE / 2)
                lifted.append((shade, seam(rgb.shape[:2], edge, SEAM_MARGIN)))
            yield lifted[k]

    why = "a die on its edge (two faces show)" if leaning else "no die seen"
    reads, why = _read_views(views(), boxes, profile) if boxes else ([], why)
    if not reads:  # a die off the lens's axis: its side faces show beside its top
        tops = tops_seen_at_an_angle(leaning + boxes, rgb.shape[:2], hint, lens_deg)
        if tops:
            reads = [
                r
                for r in _read_views(views(), tops, profile)[0]
                if flat_top(square_patch(rgb, r.box), r.face, r.pips)
            ]
    if not reads and edges:  # outlines looked for again with the longest edge's shade lifted
        reads = _read_lifted(
            edges[0], next(itertools.islice(views(), 1, 2)), hint, changed, leaning, profile
        )
    if not reads and hint:  # no outline read: a die whose outline is lost, by its pips?
        groups = _pip_groups(light, profile, changed, boxes)
        groups = [g for g in groups if not inside_any(g[0], leaning, ON_EDGE_REACH)]
        if groups:
            group_boxes, sizes = [b for b, _ in groups], [n for _, n in groups]
            reads, _ = _read_views(views(), group_boxes, profile, sizes)
    if not reads and boxes:  # a die seen at a slant: its top put on the pips in its outline
        counts = dict(tops_on_pips(rgb, boxes, profile, OFF_CENTRE))
        reads = [
            r
            for r in _read_views(views(), list(counts), profile)[0]
            if r.face == counts[r.box] and flat_top(square_patch(rgb, r.box), r.face, r.pips)
        ]
    if not reads and learned and boxes:  # the learned second reader, numbers only
        read, because = _second_read(rgb, boxes, profile)
        reads, why = ([read] if read else []), (why if read else f"{why}; {because}")
    if reads and edges:  # a die on its edge whose outline a shadow's edge broke?
        beside = [
            second_face_beside(r.box, light, WORK_SCALE, profile, changed, edges) for r in reads
        ]
        reads = [r for r, two in zip(reads, beside, strict=True) if not two]
        why = why if reads else "a die on its edge (two faces show)"
    return reads, "" if reads else why


def _read_lifted(
    edge: Edge,
    view: View,
    hint: float | None,
    changed: np.ndarray | None,
    leaning: list[Box],
    profile: Profile,
) -> list[Candidate]:
    """The squares that ``edge`` crosses, looked for and read in ``view`` (the frame with
    its shade lifted): a die straddling a shadow's edge whose outline the frame breaks in
    two (the masks' own lifted light keeps the frame's thresholds and misses it). Only a
    band :data:`LIFTED_REACH` die sides each side of the edge is searched (its bounding
    box): a die away from it was looked for in the frame already. The longest edge only:
    a second one read 2 more of 2,100 shadow frames and cost 5 ms at p99 (docs/camera.md)."""
    image, seam_mask = view
    x0, y0, x1, y1 = _band(edge, LIFTED_REACH * (hint or MAX_SIDE), image.shape[:2])
    within = None if changed is None else changed[y0:y1, x0:x1]
    found = [
        ((cx + x0, cy + y0), size, angle)
        for (cx, cy), size, angle in outlines(image[y0:y1, x0:x1], hint, within, [], True)[0]
    ]
    found = [
        b
        for b in found
        if edge.distance(*b[0]) < STRADDLES * (b[1][0] + b[1][1]) / 2
        and not inside_any(b, leaning, ON_EDGE_REACH)
        and (changed is None or _overlaps(b, changed))
    ]
    return _read_boxes(image, found, profile, None, seam_mask)[0] if found else []


def _band(edge: Edge, reach: float, shape: tuple[int, int]) -> tuple[int, int, int, int]:
    """The bounding box (x0, y0, x1, y1; pixels of a frame of ``shape``) of the points within
    ``reach`` pixels of ``edge``'s segment."""
    (ax, ay), (bx, by) = edge.a, edge.b
    x0, x1 = int(max(0, min(ax, bx) - reach)), int(min(shape[1], max(ax, bx) + reach + 1))
    y0, y1 = int(max(0, min(ay, by) - reach)), int(min(shape[0], max(ay, by) + reach + 1))
    return x0, y0, x1, y1


def _highlight_near(rgb: np.ndarray, read: Candidate, profile: Profile) -> bool:
    """Whether a highlight lies where a square put on a group of pips (``read``) could hide
    more of the die's pips (:func:`.highlight.spot_beside_pips`, within :data:`.pipgrid.ALONE`
    die sides of the square's centre). Such a square is not the die's own outline, so
    nothing else says whether its count is the whole face: a 4 whose other two pips were
    lost beside a highlight was read as a 2."""
    (cx, cy), (side, _), _ = read.box
    pips = _pip_points(read, 1.0)
    return spot_beside_pips(rgb, (cx, cy), side, ALONE * side, pips, profile.pip_area)


def _second_read(
    rgb: np.ndarray, boxes: list[Box], profile: Profile
) -> tuple[Candidate | None, str]:
    """The learned second reader (:mod:`.learned`) on the outline candidates of the die's size
    (:data:`WHOLE_TOP`, square within :data:`.on_edge.SLANT`), or ``None`` and why."""
    if profile.die_side:
        boxes = [b for b in boxes if WHOLE_TOP * profile.die_side <= max(b[1]) <= SLANT * min(b[1])]
        if not boxes:
            return None, "no square of the die's size for the networks"
    try:
        model, cnn = load_model(), load_cnn()
    except ModelError as exc:
        return None, str(exc)
    patches = [square_patch(rgb, box) for box in boxes]
    k, face, prob, why = second_read(model, patches, profile, cnn)
    if face is None:
        return None, why
    return Candidate(boxes[k], face, prob, NO_PIPS, "learned"), ""


def _read_views(
    views: Iterator[View],
    boxes: list[Box],
    profile: Profile,
    groups: list[int] | None = None,
) -> tuple[list[Candidate], str]:
    """:func:`_read_boxes` on the frame, and when none reads, on the frame with each shadow
    edge's shade lifted in turn (``views``: those frames); and why none read on the frame."""
    why = ""
    for n, (view, seam_mask) in enumerate(views):
        reads, because = _read_boxes(view, boxes, profile, groups, seam_mask)
        why = because if n == 0 else why
        if reads:
            return reads, ""
    return [], why


def _pip_groups(
    light: np.ndarray, profile: Profile, changed: np.ndarray | None, outlines: list[Box]
) -> list[tuple[Box, int]]:
    """Die-sized squares on groups of pip-like blobs (:mod:`.pipgrid`), where no die-sized
    outline lies (there the outline was read already), each with its group's size."""
    side = profile.die_side * WORK_SCALE
    found = []
    for dark in pip_darks(profile.pip_polarity):
        blobs = pip_blobs(light, side, profile.pip_area, dark)
        if changed is not None:
            small = cv2.resize(changed, light.shape[::-1], interpolation=cv2.INTER_NEAREST)
            blobs = np.array([b for b in blobs if small[int(b[1]), int(b[0])]], np.float32)
        found += pip_boxes(blobs.reshape(-1, 3), side, WORK_SCALE)
    return [
        (box, n)
        for box, n in found
        if not any(_same_place(box, o) and 0.8 < o[1][0] / box[1][0] < 1.25 for o in outlines)
    ]


def _read_boxes(
    rgb: np.ndarray,
    boxes: list[Box],
    profile: Profile,
    groups: list[int] | None = None,
    seam_mask: np.ndarray | None = None,
) -> tuple[list[Candidate], str]:
    """The candidates in ``boxes`` that read (a face or the devil), and why none did.
    ``groups``: boxes put on groups of pips (:mod:`.pipgrid`), the group's size each; such a
    box must read as a number of exactly that many pips, spaced as a die's pips are, and
    bear nothing else (but where ``seam_mask``, a lifted shadow's seam, runs)."""
    hint = profile.die_side or None
    reads: list[Candidate] = []
    for k, box in enumerate(boxes):
        patch = square_patch(rgb, box)
        face, conf, pips, why = read_patch(patch, profile)
        size = (box[1][0] + box[1][1]) / 2 / hint if hint else 1.0
        if face == 1 and not 0.6 < size < 1.6:  # one blob is the weakest cue: the die's size too
            face, conf, why = None, 0.0, "one blob, on a square not a die's size"
        if face is not None and not groups and seen_at_a_slant(box, patch, face, pips):
            face, conf, why = None, 0.0, "a face seen at a slant (a die on its edge?)"
        seam_patch = None if seam_mask is None else square_patch(seam_mask, box) > 0
        if (
            groups
            and face is not None
            and not _group_agrees(patch, pips, face, groups[k], seam_patch)
        ):
            face, conf, why = None, 0.0, "pips found in the frame and on the die disagree"
        read = Candidate(box, face, conf, pips, why)
        if face == 2 and third_in_line(rgb, _pip_points(read, 1.0), pips.areas, box):
            read = Candidate(box, None, 0.0, pips, "a third pip in line with the two (a 3?)")
        if groups and face is not None and _highlight_near(rgb, read, profile):
            read = Candidate(box, None, 0.0, pips, "a highlight beside pips found in the frame")
        reads.append(read)
    answered = [r for r in reads if r.face is not None]
    if not answered:
        return [], next((r.why for r in reads if r.why), "not sure")
    return answered, ""


GROUP_REACH = 0.17
"""How far (die sides, across or along) a group's pips lie from their middle at least: a
die's lie a quarter of a side away, a 3's end and middle pips 0.125. A small real die's may
lie a fifth of the taught die's side away (colour-dice-tray)."""
PAIR_REACH = 0.21
"""The same for a group of two: a 2's pips lie on a diagonal, a quarter of a side from their
middle each way; two neighbouring pips of a 4 or a 5 turned onto a diagonal, 0.18. Was
0.17: on held-out seed 265 a ruby 4 under glare whose two pips the glow paled was read as
a 2 from its other two (docs/camera.md)."""


def _group_agrees(
    patch: np.ndarray, pips: Pips, face: int | str, group: int, seam: np.ndarray | None = None
) -> bool:
    """Whether a square put on a group of ``group`` pips reads as that many pips, as far
    apart as a die's (a quarter of its side from their middle; at least :data:`GROUP_REACH`,
    so a 3's end and middle pips, 0.125, do not pass for a 2 when the other end is missed;
    a pair at least :data:`PAIR_REACH`, so two neighbouring pips of a 4 or a 5 turned onto
    a diagonal, 0.18, do not either), round (:func:`.on_edge.round_pips`: the faces of a die
    on its edge are tilted, their pips are not), with nothing else on the face: no response
    above a third of the pips' away from them (a devil's eyes are round and dark). ``seam``
    (a bool mask of the patch): a lifted shadow's seam, not looked at."""
    if face == DEVIL or face != group or len(pips.centres) != group:
        return False
    reach = float(np.median(np.abs(pips.centres - pips.centres.mean(axis=0)).max(axis=1)))
    if reach < (PAIR_REACH if group == 2 else GROUP_REACH) or not round_pips(patch, pips):
        return False
    radius = pips.radius
    flat = flat_light(light_of(patch))
    level = float(np.median(flat[_INNER]))
    off = cv2.medianBlur(np.clip(np.abs(flat - level), 0, 255).astype(np.uint8), 3)
    on_pips = np.zeros(off.shape, np.uint8)
    spots = [(round(x), round(y)) for x, y in pips.centres * PATCH / COVER + PATCH / 2]
    for spot in spots:
        cv2.circle(on_pips, spot, round(radius + 2), 1, -1)
    contrast = float(np.median([off[y, x] for x, y in spots]))
    away = (on_pips == 0) & _INNER
    if seam is not None:
        away &= ~seam
    return bool(float(off[away].max(initial=0.0)) < contrast / 3)


def _overlaps(box: Box, changed: np.ndarray) -> bool:
    """Whether at least 40 % of the rectangle ``box`` (frame pixels) lies where it changed."""
    region = np.zeros(changed.shape[:2], np.uint8)
    cv2.fillPoly(region, [cv2.boxPoints(box).astype(np.int32)], 255)
    inside = region > 0
    area = max(1, int(np.count_nonzero(inside)))
    return bool(int(np.count_nonzero(changed[inside])) >= 0.4 * area)


def too_much_moved(changed: np.ndarray, profile: Profile) -> bool:
    """Whether something far bigger than a die changed (a hand in the frame)."""
    side = profile.die_side or 90.0
    n, _, stats, _ = cv2.connectedComponentsWithStats((changed > 0).astype(np.uint8))
    return bool(n > 1 and int(stats[1:, cv2.CC_STAT_AREA].max()) > 4 * side * side)


STRADDLES = 0.72
"""A square whose centre lies within this many sides of a shadow's edge may be crossed by
it (half its diagonal)."""
LIFTED_REACH = 1.5
"""How far each side of a shadow's edge (die sides) a die straddling it is looked for in the
frame with its shade lifted: the die's own half, and the end of a segment it interrupts."""


def _same_place(a: Box, b: Box) -> bool:
    return math.hypot(a[0][0] - b[0][0], a[0][1] - b[0][1]) < 0.5 * (a[1][0] + b[1][0]) / 2


def read_face(
    image: np.ndarray,
    profile: Profile,
    changed: np.ndarray | None = None,
    learned: bool | None = None,
    lens_deg: float = LENS_DEG,
) -> Read:
    """Read the die in ``image`` (RGB or grey, 8/16-bit; ``ValueError`` for a non-image).

    ``changed``: where the frame differs from before the press (the new die is there);
    something much bigger than a die changing (a hand) gives no read. ``learned``: let the
    learned second reader (:mod:`.learned`) read a number where the rules read none
    (default :data:`LEARNED`). ``lens_deg``: the camera's field of view across the frame
    (degrees; ``[camera] lens_deg``), where a die off the lens's axis shows its side faces.
    Returns
    ``Read(None, 0, reason=...)`` when no die is read or two dice read differently, and
    ``face=None`` (with the confidence it had) below ``profile.answer_threshold``.
    """
    rgb = as_rgb(image)
    if rgb.shape[0] < 32 or rgb.shape[1] < 32:
        return Read(None, 0.0, reason="image too small")
    scale = 1.0
    if max(rgb.shape[:2]) > 1000:  # a big photo: read it at about 640 wide
        scale = 640 / rgb.shape[1]
        rgb = cv2.resize(rgb, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        if changed is not None:
            changed = cv2.resize(
                changed, (rgb.shape[1], rgb.shape[0]), interpolation=cv2.INTER_NEAREST
            )
    if changed is not None and too_much_moved(changed, profile):
        return Read(None, 0.0, reason="something big moves in view (a hand?)")
    use = LEARNED if learned is None else learned
    reads, why = find_die(rgb, profile, changed, use, lens_deg)
    if not reads:
        return Read(None, 0.0, reason=why)
    best = reads[0]
    for other in reads[1:]:
        if other.face != best.face:
            where = "here" if _same_place(other.box, best.box) else "elsewhere"
            return Read(
                None, 0.0, _unscale(best.box, scale), f"{best.face} and {other.face} {where}"
            )
    best = max(reads, key=lambda r: r.confidence)
    box = _unscale(best.box, scale)
    pips = _pip_points(best, scale)
    if best.confidence < profile.answer_threshold:
        return Read(None, best.confidence, box, f"unsure ({best.face}?)", pips)
    return Read(best.face, best.confidence, box, "", pips)


def _unscale(box: Box, scale: float) -> Box:
    (cx, cy), (w, h), a = box
    return ((cx / scale, cy / scale), (w / scale, h / scale), a)


def _pip_points(read: Candidate, scale: float) -> tuple[tuple[float, float], ...]:
    """The pip centres in frame pixels (inverse of :func:`square_patch`)."""
    if read.face == DEVIL or not len(read.pips.centres):
        return ()
    (cx, cy), (w, h), angle = read.box
    side = (w + h) / 2
    t = math.radians(angle)
    out = []
    for x, y in read.pips.centres:
        # square_patch turns the frame by cv2.getRotationMatrix2D's angle about the centre
        # (the matrix [[cos, sin], [-sin, cos]]); its inverse brings a pip back
        fx = cx + side * (x * math.cos(t) - y * math.sin(t))
        fy = cy + side * (x * math.sin(t) + y * math.cos(t))
        out.append((fx / scale, fy / scale))
    return tuple(out)


__all__ = ["COVER", "FACES", "PATCH", "Read", "layout_face", "read_face"]
