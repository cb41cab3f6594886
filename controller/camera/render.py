"""Rendered photos of a popped die, seen from above (real OpenCV drawing, RGB uint8 arrays).

A :class:`DieStyle` is one toy's dice: die colour, pip colour and size, and its own devil
drawing. :func:`render` draws one die (and optionally dice popped earlier) anywhere in a
640×480 frame, at any rotation, on wood, felt, a grey table or the toy's red lid, with
uneven light, slight blur, sensor noise; :func:`jpeg_roundtrip` adds JPEG compression.

Styles ``ivory`` and ``ebony`` are the development styles; ``azure`` is held out: the
reader was never tuned on it, and the accuracy figures in docs/camera.md are measured on it.
"""

from __future__ import annotations

import math
import os
import random
from dataclasses import dataclass

import cv2
import numpy as np

from .on_edge import LENS_F

WIDTH, HEIGHT = 640, 480
BACKGROUNDS = ("wood", "felt", "grey", "lid", "white", "cloth")
DEVIL = "devil"
FACES: tuple[int | str, ...] = (1, 2, 3, 4, 5, 6, DEVIL)

# pip centres in units of the die side, (0,0) the die's centre
_PIPS: dict[int, list[tuple[float, float]]] = {
    1: [(0, 0)],
    2: [(-0.25, -0.25), (0.25, 0.25)],
    3: [(-0.25, -0.25), (0, 0), (0.25, 0.25)],
    4: [(-0.25, -0.25), (0.25, -0.25), (-0.25, 0.25), (0.25, 0.25)],
    5: [(-0.25, -0.25), (0.25, -0.25), (0, 0), (-0.25, 0.25), (0.25, 0.25)],
    6: [(-0.25, y) for y in (-0.27, 0, 0.27)] + [(0.25, y) for y in (-0.27, 0, 0.27)],
}


@dataclass(frozen=True)
class DieStyle:
    """One toy's dice. Colours are RGB; ``pip`` is the pip radius in units of the side."""

    name: str
    die: tuple[int, int, int]
    pips: tuple[int, int, int]
    pip: float
    devil: str
    devil_colour: tuple[int, int, int]
    alpha: float = 1.0
    """Below 1: a translucent die (the background shows through)."""


STYLES: dict[str, DieStyle] = {
    "ivory": DieStyle("ivory", (236, 226, 200), (25, 25, 25), 0.085, "head", (200, 30, 30)),
    "ebony": DieStyle("ebony", (35, 33, 38), (240, 240, 235), 0.08, "trident", (235, 235, 230)),
    "azure": DieStyle(
        "azure", (40, 95, 190), (250, 215, 60), 0.095, "horns", (250, 215, 60), alpha=0.88
    ),
    "slate": DieStyle("slate", (150, 150, 155), (60, 60, 66), 0.075, "trident", (45, 45, 50)),
    "ruby": DieStyle(
        "ruby", (175, 20, 35), (245, 245, 245), 0.1, "head", (245, 240, 235), alpha=0.9
    ),
}
DEV_STYLES = ("ivory", "ebony", "slate")
HELD_OUT = "azure"
UNSEEN = ("azure", "ruby")
"""Styles the reader was never tuned on (``azure`` since the first reader, ``ruby`` added
with the shape-based reader and only ever evaluated)."""


def _draw_face(style: DieStyle, face: int | str, size: int) -> tuple[np.ndarray, np.ndarray]:
    """The die's top (size×size RGB) and its mask (rounded corners)."""
    img = np.zeros((size, size, 3), np.uint8)
    img[:] = style.die
    mask = np.zeros((size, size), np.uint8)
    r = size // 8
    cv2.rectangle(mask, (r, 0), (size - 1 - r, size - 1), 255, -1)
    cv2.rectangle(mask, (0, r), (size - 1, size - 1 - r), 255, -1)
    for cx, cy in ((r, r), (size - 1 - r, r), (r, size - 1 - r), (size - 1 - r, size - 1 - r)):
        cv2.circle(mask, (cx, cy), r, 255, -1, cv2.LINE_AA)
    c = size / 2
    if face == DEVIL:
        _draw_devil(img, style, size)
    else:
        assert isinstance(face, int)
        for px, py in _PIPS[face]:
            centre = (round(c + px * size), round(c + py * size))
            cv2.circle(img, centre, max(2, round(style.pip * size)), style.pips, -1, cv2.LINE_AA)
    return img, mask


def _draw_devil(img: np.ndarray, style: DieStyle, size: int) -> None:
    col, s = style.devil_colour, size
    c = s // 2
    t = max(2, s // 22)
    if style.devil == "head":  # a red devil's face: round head, two horns, dark eyes and grin
        cv2.circle(img, (c, round(c + 0.06 * s)), round(0.26 * s), col, -1, cv2.LINE_AA)
        for side in (-1, 1):
            horn = np.array(
                [
                    (c + side * 0.10 * s, c - 0.12 * s),
                    (c + side * 0.30 * s, c - 0.38 * s),
                    (c + side * 0.24 * s, c - 0.04 * s),
                ],
                np.int32,
            )
            cv2.fillPoly(img, [horn], col, cv2.LINE_AA)
            eye = (round(c + side * 0.10 * s), round(c + 0.0 * s))
            cv2.ellipse(
                img, eye, (max(2, s // 18), max(1, s // 40)), side * 20, 0, 360, (20, 20, 20), -1
            )
        cv2.ellipse(
            img,
            (c, round(c + 0.14 * s)),
            (round(0.12 * s), round(0.06 * s)),
            0,
            0,
            180,
            (20, 20, 20),
            t,
            cv2.LINE_AA,
        )
    elif style.devil == "trident":  # a pitchfork: shaft and three prongs
        cv2.line(img, (c, round(0.85 * s)), (c, round(0.3 * s)), col, t, cv2.LINE_AA)
        cv2.ellipse(
            img,
            (c, round(0.3 * s)),
            (round(0.22 * s), round(0.14 * s)),
            0,
            0,
            180,
            col,
            t,
            cv2.LINE_AA,
        )
        for x in (c - round(0.22 * s), c, c + round(0.22 * s)):
            cv2.line(img, (x, round(0.3 * s)), (x, round(0.12 * s)), col, t, cv2.LINE_AA)
            tip = np.array(
                [(x - 2 * t, round(0.16 * s)), (x + 2 * t, round(0.16 * s)), (x, round(0.08 * s))],
                np.int32,
            )
            cv2.fillPoly(img, [tip], col, cv2.LINE_AA)
    elif style.devil.startswith("doodle:"):  # training only: any drawing that is no die face
        _draw_doodle(img, col, s, t, int(style.devil.removeprefix("doodle:")))
    else:  # "horns": a face outline with big horns and a pointed beard
        cv2.circle(img, (c, c), round(0.24 * s), col, t, cv2.LINE_AA)
        for side in (-1, 1):
            cv2.ellipse(
                img,
                (c + side * round(0.2 * s), round(c - 0.22 * s)),
                (round(0.12 * s), round(0.2 * s)),
                side * 25,
                180,
                360,
                col,
                t,
                cv2.LINE_AA,
            )
            cv2.line(
                img,
                (c + side * round(0.09 * s), round(c - 0.03 * s)),
                (c + side * round(0.03 * s), round(c + 0.02 * s)),
                col,
                t,
                cv2.LINE_AA,
            )
        beard = np.array(
            [(c - 0.1 * s, c + 0.2 * s), (c + 0.1 * s, c + 0.2 * s), (c, c + 0.42 * s)], np.int32
        )
        cv2.fillPoly(img, [beard], col, cv2.LINE_AA)


def _draw_doodle(img: np.ndarray, col: tuple[int, int, int], s: int, t: int, seed: int) -> None:
    """A random drawing (strokes, arcs, a filled shape, dots) on a die's top, from ``seed``:
    what a toy's devil might be, for the learned reader's training (:mod:`.train`)."""
    rng = random.Random(seed)

    def pt() -> tuple[int, int]:
        return round(rng.uniform(0.2, 0.8) * s), round(rng.uniform(0.2, 0.8) * s)

    for _ in range(rng.randint(2, 5)):
        kind = rng.random()
        if kind < 0.35:
            cv2.line(img, pt(), pt(), col, t, cv2.LINE_AA)
        elif kind < 0.65:
            axes = (round(rng.uniform(0.08, 0.3) * s), round(rng.uniform(0.05, 0.25) * s))
            start = rng.uniform(0, 360)
            end = start + rng.uniform(90, 360)
            cv2.ellipse(img, pt(), axes, rng.uniform(0, 180), start, end, col, t, cv2.LINE_AA)
        elif kind < 0.85:
            poly = np.array([pt() for _ in range(rng.randint(3, 5))], np.int32)
            cv2.fillPoly(img, [poly], col, cv2.LINE_AA)
        else:
            cv2.circle(img, pt(), max(2, round(rng.uniform(0.03, 0.07) * s)), col, -1, cv2.LINE_AA)


def background(kind: str, rng: random.Random) -> np.ndarray:
    """A 640×480 RGB surface: ``wood``, ``felt``, ``grey`` or ``lid``."""
    nrng = np.random.default_rng(rng.getrandbits(32))
    h, w = HEIGHT, WIDTH
    if kind == "wood":
        base = np.array([150, 105, 60]) * rng.uniform(0.8, 1.15)
        y = np.arange(h, dtype=np.float32)[:, None]
        x = np.arange(w, dtype=np.float32)[None, :]
        grain = np.sin((y + 8 * np.sin(x / 70 + rng.random() * 6)) / rng.uniform(3, 7))
        shade = 1 + 0.12 * grain + 0.05 * nrng.standard_normal((h, w)).astype(np.float32)
        img = base[None, None, :] * shade[:, :, None]
    elif kind == "felt":
        base = np.array([30, 110, 55]) * rng.uniform(0.8, 1.2)
        noise = cv2.GaussianBlur(nrng.standard_normal((h, w)).astype(np.float32), (0, 0), 1.5)
        img = base[None, None, :] * (1 + 0.15 * noise)[:, :, None]
    elif kind == "grey":
        v = rng.uniform(110, 175)
        img = np.full((h, w, 3), v, np.float32) + 3 * nrng.standard_normal((h, w, 1))
    elif kind == "white":  # paper or a light table: a white die on it is hard to see
        v = rng.uniform(205, 240)
        img = np.full((h, w, 3), v, np.float32) + 2.5 * nrng.standard_normal((h, w, 1))
    elif kind == "cloth":  # a coloured check pattern
        a = np.array([rng.randrange(40, 220) for _ in range(3)], np.float32)
        b = np.array([rng.randrange(40, 220) for _ in range(3)], np.float32)
        cell = rng.randint(14, 40)
        y, x = np.mgrid[0:h, 0:w]
        check = (((x // cell) + (y // cell)) % 2).astype(np.float32)[:, :, None]
        img = a * check + b * (1 - check) + 3 * nrng.standard_normal((h, w, 1))
    elif kind == "lid":
        base = np.array([190, 30, 35]) * rng.uniform(0.85, 1.1)
        img = np.broadcast_to(base, (h, w, 3)).astype(np.float32).copy()
        # the lid's moulded ribs
        for x0 in range(rng.randrange(40), w, 80):
            cv2.line(img, (x0, 0), (x0, h), tuple(float(v) * 0.8 for v in base), 3)
    else:
        raise ValueError(f"no background {kind!r}: one of {', '.join(BACKGROUNDS)}")
    return np.clip(img, 0, 255).astype(np.uint8)


def _paste(
    frame: np.ndarray,
    style: DieStyle,
    face: int | str,
    side: int,
    centre: tuple[float, float],
    angle: float,
) -> None:
    top, mask = _draw_face(style, face, side)
    big = int(side * 1.6)
    off = (big - side) // 2
    canvas = np.zeros((big, big, 3), np.uint8)
    cmask = np.zeros((big, big), np.uint8)
    canvas[off : off + side, off : off + side] = top
    cmask[off : off + side, off : off + side] = mask
    m = cv2.getRotationMatrix2D((big / 2, big / 2), angle, 1.0)
    m[0, 2] += centre[0] - big / 2
    m[1, 2] += centre[1] - big / 2
    h, w = frame.shape[:2]
    warped = cv2.warpAffine(canvas, m, (w, h), flags=cv2.INTER_LINEAR)
    wmask = cv2.warpAffine(cmask, m, (w, h), flags=cv2.INTER_LINEAR).astype(np.float32) / 255
    # a soft shadow below and to the right
    shadow = cv2.GaussianBlur(np.roll(wmask, (side // 14, side // 12), (0, 1)), (0, 0), side / 14)
    out = frame.astype(np.float32) * (1 - 0.35 * shadow[:, :, None])
    a = (wmask * style.alpha)[:, :, None]
    out = out * (1 - a) + warped.astype(np.float32) * a
    frame[:] = np.clip(out, 0, 255).astype(np.uint8)


@dataclass(frozen=True)
class Scene:
    """Where the die lies and how it is lit (to draw the same die in successive frames)."""

    side: int
    centre: tuple[float, float]
    angle: float
    surface: str
    seed: int


def random_scene(rng: random.Random, surface: str | None = None) -> Scene:
    side = rng.randint(78, 104)
    margin = side * 0.75
    centre = (rng.uniform(margin, WIDTH - margin), rng.uniform(margin, HEIGHT - margin))
    return Scene(
        side, centre, rng.uniform(0, 360), surface or rng.choice(BACKGROUNDS), rng.getrandbits(32)
    )


def render(
    style: DieStyle,
    face: int | str,
    rng: random.Random,
    *,
    scene: Scene | None = None,
    others: list[tuple[int | str, Scene]] | None = None,
    light_seed: int | None = None,
) -> np.ndarray:
    """One 640×480 RGB frame of ``face`` (plus ``others``: dice popped earlier, in view).

    Light is drawn from ``light_seed`` when given (the same light for a series of frames),
    else from ``rng``; blur and noise always from ``rng`` (new in every frame).
    """
    scene = scene or random_scene(rng)
    frame = background(scene.surface, random.Random(scene.seed))
    for other_face, other in others or []:
        _paste(frame, style, other_face, other.side, other.centre, other.angle)
    _paste(frame, style, face, scene.side, scene.centre, scene.angle)
    lrng = random.Random(light_seed) if light_seed is not None else rng
    return _camera(frame, lrng, rng)


def _camera(frame: np.ndarray, rng: random.Random, noise_rng: random.Random) -> np.ndarray:
    """Uneven light (a gradient and a spot), slight blur, sensor noise."""
    h, w = frame.shape[:2]
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    theta = rng.uniform(0, 2 * math.pi)
    ramp = (x - w / 2) * math.cos(theta) + (y - h / 2) * math.sin(theta)
    light = rng.uniform(0.75, 1.05) + rng.uniform(0.0, 0.35) * ramp / (w / 2)
    sx, sy = rng.uniform(0, w), rng.uniform(0, h)
    light += rng.uniform(0, 0.25) * np.exp(-((x - sx) ** 2 + (y - sy) ** 2) / (2 * 150.0**2))
    out = frame.astype(np.float32) * np.clip(light, 0.45, 1.4)[:, :, None]
    sigma = noise_rng.uniform(0.3, 1.3)
    out = cv2.GaussianBlur(out, (0, 0), sigma)
    nrng = np.random.default_rng(noise_rng.getrandbits(32))
    out += nrng.normal(0, noise_rng.uniform(2, 6), out.shape).astype(np.float32)
    return np.clip(out, 0, 255).astype(np.uint8)


def jpeg_roundtrip(rgb: np.ndarray, quality: int) -> np.ndarray:
    ok, buf = cv2.imencode(
        ".jpg", cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, quality]
    )
    assert ok
    decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    assert decoded is not None
    return cv2.cvtColor(decoded, cv2.COLOR_BGR2RGB)


def write_image(path: str | os.PathLike[str], rgb: np.ndarray, quality: int = 85) -> None:
    """Write ``rgb`` to ``path`` (.jpg/.jpeg with ``quality``, else PNG)."""
    bgr = cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR)
    params = (
        [cv2.IMWRITE_JPEG_QUALITY, quality] if str(path).lower().endswith((".jpg", ".jpeg")) else []
    )
    if not cv2.imwrite(str(path), bgr, params):
        raise OSError(f"could not write {path}")


def write_dataset(
    root: str | os.PathLike[str],
    style: DieStyle,
    per_face: int,
    seed: int,
    faces: tuple[int | str, ...] = FACES,
) -> None:
    """A calibration/test folder: ``root/<face>/<n>.jpg`` (JPEG quality 60–92)."""
    from pathlib import Path

    rng = random.Random(seed)
    for face in faces:
        folder = Path(root) / str(face)
        folder.mkdir(parents=True, exist_ok=True)
        for n in range(per_face):
            write_image(folder / f"{n:03d}.jpg", render(style, face, rng), rng.randint(60, 92))


CONDITIONS = (
    "brightness x0.5",
    "brightness x0.7",
    "brightness x1.3",
    "brightness x1.6",
    "colour cast",
    "shadow",
    "glare",
    "motion blur",
)
"""Light and motion applied to a rendered frame by :func:`condition` (issue 22's list)."""


def condition(rgb: np.ndarray, name: str, scene: Scene, rng: random.Random) -> np.ndarray:
    """``rgb`` under one of :data:`CONDITIONS`: the whole frame darker or brighter (clipped
    at white, as a camera does), a colour cast (warm or cool light), a shadow's edge across
    the die, a specular highlight on its top (a glossy die under a lamp), or the blur of a
    die still settling."""
    f = rgb.astype(np.float32)
    h, w = rgb.shape[:2]
    if name.startswith("brightness x"):
        f *= float(name.removeprefix("brightness x"))
    elif name == "colour cast":
        warm = rng.random() < 0.5
        f *= np.array((1.2, 1.0, 0.7) if warm else (0.75, 0.95, 1.25), np.float32)
    elif name == "shadow":  # a straight shadow edge through the die, the far side at 45 %
        theta = rng.uniform(0, 2 * math.pi)
        y, x = np.mgrid[0:h, 0:w].astype(np.float32)
        off = rng.uniform(-0.25, 0.25) * scene.side
        d = (x - scene.centre[0]) * math.cos(theta) + (y - scene.centre[1]) * math.sin(theta)
        shade = np.clip((d - off) / 3.0 + 0.5, 0, 1)
        f *= (1 - 0.55 * shade)[:, :, None]
    elif name == "glare":  # a white highlight on the die's top, saturating at its core
        r = scene.side * rng.uniform(0.08, 0.16)
        ang = rng.uniform(0, 2 * math.pi)
        dist = rng.uniform(0, 0.3) * scene.side
        cx = scene.centre[0] + dist * math.cos(ang)
        cy = scene.centre[1] + dist * math.sin(ang)
        y, x = np.mgrid[0:h, 0:w].astype(np.float32)
        spot = np.exp(-((x - cx) ** 2 + (y - cy) ** 2) / (2 * r * r))
        f += (230 * spot)[:, :, None]
    elif name == "motion blur":
        length = rng.randint(5, 9)
        kernel = np.zeros((length, length), np.float32)
        kernel[length // 2, :] = 1 / length
        m = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), rng.uniform(0, 180), 1)
        turned = cv2.warpAffine(kernel, m, (length, length))
        turned = (turned / max(float(turned.sum()), 1e-6)).astype(np.float32)
        f = np.asarray(cv2.filter2D(f, -1, turned), np.float32)
    else:
        raise ValueError(f"no condition {name!r}: one of {', '.join(CONDITIONS)}")
    return np.clip(f, 0, 255).astype(np.uint8)


def render_leaning(
    style: DieStyle, face: int | str, rng: random.Random, shade: float = 0.7
) -> np.ndarray:
    """A die resting on its edge (tilted 38–52°), seen from above: two faces show, each
    foreshortened to 0.6–0.8 of a side (the reader must answer ``None``). ``shade``: the
    other face's light, a share of ``face``'s (1: a lamp straight above lights both
    alike). A die leaning only a little shows one face nearly square; it is read as that
    face."""
    scene = random_scene(rng)
    side = scene.side
    tilt = rng.uniform(38, 52)
    a = max(8, round(side * math.cos(math.radians(tilt))))
    b = max(8, round(side * math.sin(math.radians(tilt))))
    top, _ = _draw_face(style, face, side)
    other, _ = _draw_face(style, rng.choice([f for f in FACES if f != face]), side)
    shaded = np.clip(other.astype(np.float32) * shade, 0, 255).astype(np.uint8)
    image = np.vstack(
        [cv2.resize(top, (side, a), interpolation=cv2.INTER_AREA), cv2.resize(shaded, (side, b))]
    )
    frame = background(scene.surface, random.Random(scene.seed))
    big = int(max(image.shape) * 1.6)
    canvas = np.zeros((big, big, 3), np.uint8)
    cmask = np.zeros((big, big), np.float32)
    oy, ox = (big - image.shape[0]) // 2, (big - image.shape[1]) // 2
    canvas[oy : oy + image.shape[0], ox : ox + image.shape[1]] = image
    cmask[oy : oy + image.shape[0], ox : ox + image.shape[1]] = 1
    m = cv2.getRotationMatrix2D((big / 2, big / 2), scene.angle, 1.0)
    m[0, 2] += scene.centre[0] - big / 2
    m[1, 2] += scene.centre[1] - big / 2
    warped = cv2.warpAffine(canvas, m, (WIDTH, HEIGHT)).astype(np.float32)
    wmask = cv2.warpAffine(cmask, m, (WIDTH, HEIGHT))[:, :, None]
    out = frame.astype(np.float32) * (1 - wmask) + warped * wmask
    return _camera(np.clip(out, 0, 255).astype(np.uint8), rng, rng)


def render_oblique(
    style: DieStyle,
    face: int | str,
    rng: random.Random,
    scene: Scene | None = None,
    f: float = LENS_F,
) -> np.ndarray:
    """A die lying flat, seen through the box's lens (focal length ``f`` pixels, its axis
    straight down through the frame's centre) rather than from straight above everywhere
    as :func:`render` sees it. Its top is still a true square, but off the frame's centre
    the side faces that face the lens show between the top and the centre, each
    ``side × distance / f`` wide at most (a die as tall as wide): about 0.2 of a side
    100 pixels from the centre, 0.6 at the frame's edge. They bear an adjacent face's pips,
    shaded."""
    scene = scene or random_scene(rng)
    side, (cx, cy) = scene.side, scene.centre
    frame: np.ndarray = background(scene.surface, random.Random(scene.seed)).astype(np.float32)
    t = math.radians(scene.angle)
    axes = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
    local = np.array([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]]) * side
    top = local @ axes.T + (cx, cy)
    shift = -np.array([cx - WIDTH / 2, cy - HEIGHT / 2]) * side / f  # the bottom, seen
    opposite = 7 - face if isinstance(face, int) else 0
    sides = [k for k in range(1, 7) if k not in (face, opposite)]
    square = np.array([[0, 0], [side, 0], [side, side], [0, side]], np.float32)
    for k in range(4):
        a, b = top[k], top[(k + 1) % 4]
        if float(np.dot((a + b) / 2 - (cx, cy), shift)) <= 0:
            continue  # a side face turned away from the lens
        image, _ = _draw_face(style, rng.choice(sides), side)
        quad = np.array([a, b, b + shift, a + shift], np.float32)
        m = cv2.getPerspectiveTransform(square, quad)
        warped = cv2.warpPerspective(image, m, (WIDTH, HEIGHT)).astype(np.float32)
        mask = cv2.warpPerspective(np.ones((side, side), np.float32), m, (WIDTH, HEIGHT))
        frame = frame * (1 - mask[:, :, None]) + 0.72 * warped * mask[:, :, None]
    image, rounded = _draw_face(style, face, side)
    m = cv2.getPerspectiveTransform(square, top.astype(np.float32))
    warped = cv2.warpPerspective(image, m, (WIDTH, HEIGHT)).astype(np.float32)
    mask = cv2.warpPerspective(rounded, m, (WIDTH, HEIGHT)).astype(np.float32) / 255
    a = (mask * style.alpha)[:, :, None]
    frame = frame * (1 - a) + warped * a
    return _camera(np.clip(frame, 0, 255).astype(np.uint8), rng, rng)


def with_hand(rgb: np.ndarray, rng: random.Random) -> np.ndarray:
    """``rgb`` with a hand reaching in from an edge (a skin-coloured palm and fingers)."""
    out = rgb.copy()
    skin = tuple(int(v * rng.uniform(0.7, 1.1)) for v in (225, 180, 150))
    x = rng.randint(150, WIDTH - 150)
    cv2.ellipse(out, (x, HEIGHT - 20), (110, 150), rng.uniform(-20, 20), 0, 360, skin, -1)
    for k in range(4):
        fx = x - 75 + 50 * k
        cv2.ellipse(out, (fx, HEIGHT - 190), (20, 75), 0, 0, 360, skin, -1)
    return cv2.GaussianBlur(out, (5, 5), 0)
