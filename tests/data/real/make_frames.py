"""How the real-photo frames in this folder were made (run once; kept for the record).

Each source is a screenshot of a labelled dice dataset's folders (6 columns of thumbnails,
one die each, 4 rows). Every thumbnail is cut out, scaled so that the die is about 90
pixels wide (the box's camera at 640×480), and set in the middle of a 640×480 frame whose
rest is the thumbnail's own table colour, with a soft seam. Labels were checked by eye.

    python tests/data/real/make_frames.py SOURCE.jpg OUT_DIR COLUMN_FACES SCALE

COLUMN_FACES: the face of each column, left to right, e.g. ``123456``.

Other sources are whole photographs with one or more dice. ``crops`` cuts one die out of
each listed photo (a square 2.2 times the die's width around its centre), scales it so the
die's box is 110 pixels wide (its top face 80-95 pixels) and sets it in a frame as above.
LIST has one frame a line, ``FRAME PHOTO CENTRE_X CENTRE_Y DIE_WIDTH FACE`` (PHOTO relative
to PHOTO_DIR; centre and width in the photo's pixels, from the source's own boxes; FACE
checked by eye); ``#`` starts a comment. ``tfrecord`` writes out the JPEG photos kept
inside a TensorFlow TFRecord file (a source that holds its photos only there), each under
its own file name.

    python tests/data/real/make_frames.py crops PHOTO_DIR LIST OUT_DIR
    python tests/data/real/make_frames.py tfrecord RECORD OUT_DIR

``devil OUT_DIR DRAWING R,G,B PHOTOS...`` (see SOURCES.md) finds the die's top itself; a
photo written ``NAME@X,Y,SIDE,ANGLE`` has it given by eye instead (a light die on an
equally light table, where it cannot be found by brightness).
"""

from __future__ import annotations

import json
import re
import struct
import sys
from pathlib import Path

import cv2
import numpy as np


def thumbnails(sheet: np.ndarray) -> list[tuple[int, int, np.ndarray]]:
    """(row, column, image) of each thumbnail: the non-white boxes of the screenshot."""
    grey = cv2.cvtColor(sheet, cv2.COLOR_BGR2GRAY)
    mask = (grey < 245).astype(np.uint8)
    _n, _, stats, _ = cv2.connectedComponentsWithStats(mask)
    boxes = [s for s in stats[1:] if s[2] > 60 and s[3] > 60]
    ys = sorted({int(b[1]) // 40 for b in boxes})
    xs = sorted({int(b[0]) // 40 for b in boxes})
    out = []
    for x, y, w, h, _ in boxes:
        row, col = ys.index(int(y) // 40), xs.index(int(x) // 40)
        out.append((row, col, sheet[y + 4 : y + h - 4, x + 4 : x + w - 4]))
    return sorted(out, key=lambda t: (t[0], t[1]))


def frame(thumb: np.ndarray, scale: float) -> np.ndarray:
    """The thumbnail scaled by ``scale`` in the middle of a 640×480 frame; the rest of the
    frame is the thumbnail's table carried on outwards (inpainted from its border, with a
    little noise), the seam feathered, so no square edge is left around the die."""
    big = cv2.resize(thumb, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC)
    h, w = big.shape[:2]
    y0, x0 = (480 - h) // 2, (640 - w) // 2
    canvas = np.zeros((480, 640, 3), np.uint8)
    canvas[y0 : y0 + h, x0 : x0 + w] = big
    unknown = np.full((480, 640), 255, np.uint8)
    unknown[y0 + 2 : y0 + h - 2, x0 + 2 : x0 + w - 2] = 0
    small = cv2.inpaint(
        cv2.resize(canvas, (160, 120), interpolation=cv2.INTER_AREA),
        cv2.resize(unknown, (160, 120), interpolation=cv2.INTER_NEAREST),
        9,
        cv2.INPAINT_TELEA,
    )
    out = cv2.GaussianBlur(cv2.resize(small, (640, 480), interpolation=cv2.INTER_CUBIC), (0, 0), 6)
    out = out.astype(np.float32) + np.random.default_rng(0).normal(0, 2, out.shape)
    edge = max(6, h // 6)
    ramp = np.minimum(np.arange(w)[None, :], np.arange(w)[::-1][None, :])
    ramp = np.minimum(ramp, np.minimum(np.arange(h)[:, None], np.arange(h)[::-1][:, None]))
    feather = np.clip(ramp / edge, 0, 1)[:, :, None]
    region = out[y0 : y0 + h, x0 : x0 + w]
    out[y0 : y0 + h, x0 : x0 + w] = region * (1 - feather) + big * feather
    return np.clip(out, 0, 255).astype(np.uint8)


def main(argv: list[str]) -> int:
    if argv[0] == "devil":  # devil OUT_DIR DRAWING R,G,B FACE-1 PHOTOS...
        out_dir, drawing = Path(argv[1]), argv[2]
        colour = tuple(int(v) for v in argv[3].split(","))
        labels = json.loads((out_dir / "labels.json").read_text())
        for n, photo in enumerate(argv[4:]):
            # PHOTO@X,Y,SIDE,ANGLE gives the die's top by eye where _die_box cannot find it
            # (a light die on an equally light table)
            name, _, given = photo.partition("@")
            box = tuple(float(v) for v in given.split(",")) if given else None
            paint_devil(out_dir / name, out_dir / f"devil{n}.jpg", drawing, colour, box)  # type: ignore[arg-type]
            labels[f"devil{n}.jpg"] = "devil"
        (out_dir / "labels.json").write_text(json.dumps(labels, indent=1, sort_keys=True) + "\n")
        return 0
    if argv[0] == "crops":  # crops PHOTO_DIR LIST OUT_DIR
        return crops(Path(argv[1]), Path(argv[2]), Path(argv[3]))
    if argv[0] == "tfrecord":  # tfrecord RECORD OUT_DIR
        return tfrecord_photos(Path(argv[1]), Path(argv[2]))
    source, out_dir, faces, scale = argv[0], Path(argv[1]), argv[2], float(argv[3])
    out_dir.mkdir(parents=True, exist_ok=True)
    labels = {}
    for row, col, thumb in thumbnails(cv2.imread(source)):
        name = f"r{row}c{col}.jpg"
        cv2.imwrite(str(out_dir / name), frame(thumb, scale), [cv2.IMWRITE_JPEG_QUALITY, 88])
        labels[name] = int(faces[col])
    (out_dir / "labels.json").write_text(json.dumps(labels, indent=1, sort_keys=True) + "\n")
    return 0


def crops(photo_dir: Path, listing: Path, out_dir: Path) -> int:
    """One frame per line of ``listing`` (see the module's docstring): the die cut out of its
    photo, its box scaled to 110 pixels, set in a frame by :func:`frame`; labels.json written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    labels = {}
    for line in listing.read_text().splitlines():
        if not line.split("#")[0].strip():
            continue
        name, photo, cx, cy, width, face = line.split("#")[0].split()
        x, y, w = float(cx), float(cy), float(width)
        image = cv2.imread(str(photo_dir / photo))
        half = round(1.1 * w)
        padded = cv2.copyMakeBorder(image, half, half, half, half, cv2.BORDER_REPLICATE)
        x0, y0 = round(x), round(y)  # the crop's corner in the padded photo
        thumb = padded[y0 : y0 + 2 * half, x0 : x0 + 2 * half]
        # scaled to a side that is a multiple of 8, so the thumb sits on the 4-pixel grid
        # of frame()'s quarter-size inpainting and no black creeps into the table's colour
        side = 8 * round(2 * half * 110 / w / 8)
        thumb = cv2.resize(thumb, (side, side), interpolation=cv2.INTER_CUBIC)
        cv2.imwrite(str(out_dir / name), frame(thumb, 1.0), [cv2.IMWRITE_JPEG_QUALITY, 88])
        labels[name] = int(face)
    (out_dir / "labels.json").write_text(json.dumps(labels, indent=1, sort_keys=True) + "\n")
    return 0


def tfrecord_photos(record: Path, out_dir: Path) -> int:
    """The JPEG photos inside a TFRecord file (records of length, CRC, bytes, CRC), each
    written under the IMG_*.jpg file name stored in its record."""
    out_dir.mkdir(parents=True, exist_ok=True)
    data, at = record.read_bytes(), 0
    while at < len(data):
        (length,) = struct.unpack("<Q", data[at : at + 8])
        body = data[at + 12 : at + 12 + length]
        at += 12 + length + 4
        name = re.search(rb"IMG_\d{8}_\d{6}\.jpg", body)
        start, end = body.find(b"\xff\xd8\xff"), body.rfind(b"\xff\xd9")
        if name and start >= 0:
            (out_dir / name.group(0).decode()).write_bytes(body[start : end + 2])
    return 0


def _die_box(rgb: np.ndarray) -> tuple[tuple[float, float], tuple[float, float], float]:
    """The light die in the middle of a frame (Otsu on the centre, the blob at the centre,
    pips filled): independent of the reader."""
    grey = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY)
    y0, x0 = 240 - 110, 320 - 110
    centre = grey[y0 : y0 + 220, x0 : x0 + 220]
    level, _ = cv2.threshold(centre, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    level = max(level, float(np.percentile(centre, 88)) - 12)  # a white die on a light table
    binary = ((centre > level) * 255).astype(np.uint8)
    binary = cv2.morphologyEx(binary, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
    contours, _ = cv2.findContours(binary, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    inside = [c for c in contours if cv2.pointPolygonTest(c, (110, 110), False) >= 0]
    (cx, cy), size, angle = cv2.minAreaRect(max(inside or contours, key=cv2.contourArea))
    return (cx + x0, cy + y0), size, angle


def paint_devil(
    path: Path,
    out: Path,
    drawing: str,
    colour: tuple[int, int, int],
    box: tuple[float, float, float, float] | None = None,
) -> None:
    """A devil drawn onto the real die of ``path`` (a face-1 photo): the pip is painted
    over in the face's own colour, then the drawing (one of the renderer's devils) is
    warped onto the die's top. No public photo of the toy's devil die exists. ``box``
    (centre x, centre y, side, angle of the die's top) is found by :func:`_die_box`
    unless given."""
    from controller.camera.render import DieStyle, _draw_devil

    bgr = cv2.imread(str(path))
    rgb = cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)
    if box is None:
        (cx, cy), (w, h), angle = _die_box(rgb)
    else:
        cx, cy, w, angle = box
        h = w
    side = round((w + h) / 2)
    patch_size = 96
    face_colour = np.median(
        cv2.getRectSubPix(rgb, (side // 2, side // 2), (cx + side / 3, cy)).reshape(-1, 3),
        axis=0,
    )
    top = np.empty((patch_size, patch_size, 3), np.uint8)
    top[:] = face_colour
    style = DieStyle("real", tuple(int(v) for v in face_colour), (0, 0, 0), 0.1, drawing, colour)
    _draw_devil(top, style, patch_size)
    mask = np.zeros((patch_size, patch_size), np.float32)
    inset = patch_size // 12
    mask[inset:-inset, inset:-inset] = 1
    mask = cv2.GaussianBlur(mask, (0, 0), 2)
    scale = side * 0.98 / patch_size
    m = cv2.getRotationMatrix2D((patch_size / 2, patch_size / 2), -angle, scale)
    m[0, 2] += cx - patch_size / 2
    m[1, 2] += cy - patch_size / 2
    warped = cv2.warpAffine(top, m, (rgb.shape[1], rgb.shape[0]))
    alpha = cv2.warpAffine(mask, m, (rgb.shape[1], rgb.shape[0]))[:, :, None]
    # the photo's own grain over the drawing, so it is not cleaner than the die
    grain = cv2.GaussianBlur(rgb, (0, 0), 1.0).astype(np.float32) - np.median(face_colour)
    mixed = warped.astype(np.float32) + 0.3 * grain
    painted = rgb.astype(np.float32) * (1 - alpha) + mixed * alpha
    result = cv2.GaussianBlur(np.clip(painted, 0, 255).astype(np.uint8), (3, 3), 0.6)
    cv2.imwrite(str(out), cv2.cvtColor(result, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, 88])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
