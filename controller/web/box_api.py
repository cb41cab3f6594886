"""The Box page's own API (beside :mod:`controller.web.api`): the box's latched faults and
the referee's way to clear ``coil-deadline``, and the camera's live reading (where it finds
the die, the pips it counts, the face it reads) over a 640-wide picture of the table.

Reads are open; the clear is the referee's (the same gate as every other change). Its
refusals are 409 with a reason in the request's language.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, TypedDict

from flask import Blueprint, Response, current_app, jsonify, request

from controller.box.gpio import DEADLINE_FAULT
from controller.games.base import Said, words

from . import security
from .api_support import api_error
from .security import ApiError

if TYPE_CHECKING:
    from controller.camera import Camera
    from controller.service import Service

log = logging.getLogger(__name__)

bp = Blueprint("box_api", __name__, url_prefix="/api")

PAGE_WORDS = (
    words("Clear the coil fault"),
    words(
        "Clear the coil-deadline fault? A coil stayed on too long and every coil was forced "
        "off. Clear it only once you know why: pulses are allowed again."
    ),
    words("The coil fault is cleared."),
    words("The camera reads {face} ({c} %)"),
    words("The camera finds no die it can read"),
    words("Skip this face"),
    words("the camera's picture of the table, with the die it found"),
    words("The numbers mark where the last die from each key landed"),
)
"""What the Box page's scripts say in its own words (``t(english)``, made in the page's
language from the catalogs like an engine's sentence)."""

READING_EVERY_S = 1.0
"""One live reading a second at most, however many phones ask."""

FRAME_WAIT_S = 1.5
"""How long a reading waits for the camera's thread to grab a frame (it may be reading a
popped die): then the last reading again (503 before the first)."""

READING_WIDTH = 640
"""The live reading's picture is this wide (pixels; the frame scaled to it if wider)."""


def service() -> Service:
    running: Service = current_app.extensions["diablotin"]
    return running


@bp.before_request
def _gate() -> None:
    if request.method not in security.SAFE_METHODS:
        security.require_referee()


# --- faults ------------------------------------------------------------------------------


class Fault(TypedDict):
    name: str
    detail: str
    clearable: bool
    """The referee may clear it here (``coil-deadline``)."""


def latched_faults(status: Mapping[str, object]) -> list[Fault]:
    """A box status's latched faults as ``{"name", "detail", "clearable"}`` (the backends
    give a list of ``{"name", "detail"}``, a ``{name: detail}`` mapping, or names)."""
    raw = status.get("faults") or []
    pairs: list[tuple[str, str]]
    if isinstance(raw, dict):
        pairs = [(str(name), str(detail)) for name, detail in raw.items()]
    elif isinstance(raw, list | tuple):
        pairs = [
            (str(f.get("name", "")), str(f.get("detail", "")))
            if isinstance(f, dict)
            else (str(f), str(f))
            for f in raw
        ]
    else:
        pairs = []
    return [
        Fault(name=name, detail=detail, clearable=name == DEADLINE_FAULT) for name, detail in pairs
    ]


@bp.get("/box/faults")
def box_faults() -> Response:
    """The box's latched faults (``clearable``: the referee may clear it here) and the
    toy's (``toy``: an unresolved jam, resolved by its own buttons)."""
    svc = service()
    watch = getattr(svc.box_play, "watch", None)
    return jsonify(
        {
            "faults": [] if svc.box is None else latched_faults(svc.box.status()),
            "toy": [] if watch is None else [str(f) for f in watch.faults()],
        }
    )


@bp.post("/box/faults/clear")
def clear_fault() -> Response:
    """``{"fault": "coil-deadline"}``: every coil off, then pulses allowed again. Refused
    (409) while no such fault is latched, another fault is latched too, a coil still reads
    on, or the coil threads are still stuck (the cause persists)."""
    body = request.get_json(silent=True)
    if not isinstance(body, dict) or body.get("fault") != DEADLINE_FAULT:
        raise api_error(
            "bad-fault",
            Said("only the {name} fault can be cleared here", name=DEADLINE_FAULT),
        )
    svc = service()
    box = svc.box
    status = box.status() if box is not None else {}
    faults = latched_faults(status)
    mine = [f for f in faults if f["name"] == DEADLINE_FAULT]
    if box is None or not mine:
        raise api_error("no-fault", Said("the {name} fault is not latched", name=DEADLINE_FAULT))
    others = [f["name"] for f in faults if f["name"] != DEADLINE_FAULT]
    if others:
        raise api_error(
            "other-faults",
            Said(
                "other faults are latched too ({names}): restart the service to clear them",
                names=", ".join(others),
            ),
        )
    coils = status.get("coils")
    high = [str(key) for key, on in coils.items() if on] if isinstance(coils, dict) else []
    if high:
        raise api_error(
            "coil-high",
            Said(
                "coil {keys} still reads on: the fault stays until every coil is off",
                keys=", ".join(high),
            ),
        )
    check = getattr(box, "check_coils", None)
    if check is not None and not check():
        raise api_error(
            "coils-stuck",
            Said("the coil threads are still stuck: the fault stays; restart the service"),
        )
    clear = getattr(box, "clear_faults", None)
    if not callable(clear):  # only the boxes on the Pi's own pins latch it
        raise api_error("no-fault", Said("the {name} fault is not latched", name=DEADLINE_FAULT))
    clear()
    log.warning("the referee cleared the %s fault (%s)", DEADLINE_FAULT, mine[0]["detail"])
    svc.notice(
        words("the referee cleared the {name} fault ({detail})"),
        name=DEADLINE_FAULT,
        detail=mine[0]["detail"],
    )
    return jsonify({"faults": latched_faults(box.status())})


# --- the camera's live reading -------------------------------------------------------------


class LiveReading:
    """The camera's reading of the table now: at most one reading every
    :data:`READING_EVERY_S`, shared by every phone, of the camera's last frame when it is
    that fresh, else of one grabbed (on the camera's thread; so the page never makes the
    camera grab more often than its live view did); the last two pictures are kept, by
    number, so a page's picture matches the reading it drew."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._at = -1.0
        self._number = 0
        self._reading: dict[str, object] = {}
        self._jpegs: dict[int, bytes] = {}

    def now(self, camera: Camera) -> dict[str, object]:
        """The latest reading (made now if it is older than a second). Raises
        :class:`~controller.camera.sources.CameraFailed` when the camera gives no frame."""
        import cv2  # the camera extra; only with a camera on

        from controller.camera.reader import read_face

        with self._lock:
            if time.monotonic() - self._at < READING_EVERY_S:
                return self._reading
            # the camera's own last frame when it is fresh, as its live view does
            fresh = time.monotonic() - camera.last_frame_at <= READING_EVERY_S
            frame = camera.last_frame if fresh else None
            if frame is None:
                frame = camera.frame(timeout_s=FRAME_WAIT_S)
            height, width = frame.shape[:2]
            scale = min(1.0, READING_WIDTH / width)
            read = read_face(frame, camera.profile, lens_deg=camera.lens_deg)
            shown = cv2.resize(frame, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
            ok, buf = cv2.imencode(
                ".jpg", cv2.cvtColor(shown, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, 75]
            )
            overlay = read.overlay()
            self._number += 1
            self._jpegs = {self._number - 1: self._jpegs.get(self._number - 1, b"")}
            self._jpegs[self._number] = buf.tobytes() if ok else b""
            self._reading = {
                "frame": self._number,
                "width": round(width * scale),
                "height": round(height * scale),
                "face": overlay["face"],
                "confidence": overlay["confidence"],
                "die": [
                    [round(x * scale, 1), round(y * scale, 1)] for x, y in _points(overlay["die"])
                ],
                "pips": [
                    [round(x * scale, 1), round(y * scale, 1)] for x, y in _points(overlay["pips"])
                ],
                "landed": {
                    str(key): [round(x * scale, 1), round(y * scale, 1)]
                    for key, (x, y) in sorted(dict(camera.landed).items())  # a copy: it grows
                },
            }
            self._at = time.monotonic()
            return self._reading

    @property
    def last(self) -> dict[str, object]:
        """The last reading made (empty before the first)."""
        return self._reading

    def jpeg(self, number: int) -> bytes:
        """Frame ``number``'s JPEG, empty when it is gone (or never was)."""
        with self._lock:
            return self._jpegs.get(number, b"")


def _points(value: object) -> list[tuple[float, float]]:
    """A reading's ``[[x, y], ...]`` (pixels), checked point by point."""
    if not isinstance(value, list):
        return []
    return [
        (float(p[0]), float(p[1])) for p in value if isinstance(p, list | tuple) and len(p) == 2
    ]


def _live() -> LiveReading:
    found: LiveReading = current_app.extensions.setdefault("diablotin.reading", LiveReading())
    return found


def _camera() -> Camera:
    camera = service().camera
    if camera is None or not camera.up:
        raise api_error("no-camera", Said("no camera is on (serve --camera ...)"))
    return camera


@bp.get("/box/camera/reading")
def camera_reading() -> Response:
    """What the camera reads on the table now: ``face`` (1-6, ``"devil"`` or ``null``),
    ``confidence``, the die's corners, the pips counted and ``landed`` (key -> where the last
    die read from it lay) (pixels of the picture
    ``/api/box/camera/reading/<frame>.jpg``, ``width`` × ``height``). 404 ``no-camera``;
    while the camera's thread gives no frame (it is reading a popped die): the last reading,
    or 503 ``busy`` before the first."""
    from controller.camera.sources import CameraFailed

    camera = _camera()
    live = _live()
    try:
        return jsonify(live.now(camera))
    except CameraFailed:
        if not camera.up:
            raise api_error("no-camera", Said("no camera is on (serve --camera ...)")) from None
        if live.last:  # the camera's thread is reading a popped die: the last reading
            return jsonify(live.last)
        raise ApiError(  # reading a popped die: the camera's thread is busy for a moment
            503,
            "busy",
            Said("too many requests: wait a moment and try again"),
            {"Retry-After": "1"},
        ) from None


@bp.get("/box/camera/reading/<int:frame>.jpg")
def camera_reading_jpeg(frame: int) -> Response:
    """The picture of reading ``frame`` (one of the last two); 404 ``no-frame`` otherwise."""
    jpeg = _live().jpeg(frame)
    if not jpeg:
        raise api_error("no-frame", Said("that picture is gone: ask for a new reading"))
    resp = Response(jpeg, mimetype="image/jpeg")
    resp.headers["Cache-Control"] = "private, max-age=60"
    return resp
