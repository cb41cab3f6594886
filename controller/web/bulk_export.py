"""Every game at once for the referee (``GET /api/export.zip``, ``/api/export.csv``): made on
the costly-work queue (:mod:`controller.web.costly`), not on a request thread, the referee's
jobs first, like the other expensive reads. The answer is what ``diablotin export --all``
writes; games whose rows cannot be read are left out and named in ``X-Skipped-Games``."""

from __future__ import annotations

import io
import itertools
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from flask import Response, current_app

from . import security
from .costly import Costly

if TYPE_CHECKING:
    from controller.exports import Skipped
    from controller.journal import Journal

EXPORT_WAIT_S = 300.0
"""How long a download waits for its export (s): every game of a big journal on a Pi."""

_requests = itertools.count()
"""Each download is its own job (a version no other request shares): an export is never
served from the cache, nor from a job started before the request."""


def _made(
    make: Callable[[], tuple[bytes, list[Skipped]]], read: str
) -> tuple[bytes, list[Skipped]]:
    """``make()`` run on the costly worker, in the app's context, with the referee's
    priority (the caller has checked that the request is the referee's)."""
    app = current_app._get_current_object()  # type: ignore[attr-defined]  # a LocalProxy method
    costly: Costly = app.extensions["diablotin.costly"]

    def in_app() -> tuple[tuple[bytes, list[Skipped]], bool]:
        with app.app_context():
            return make(), False

    made = costly.answer(
        read,
        next(_requests),
        in_app,
        client=security.client_address(),
        referee=True,
        wait_s=EXPORT_WAIT_S,
    )
    assert isinstance(made, tuple)  # what in_app returned
    return made


def _journal() -> Journal:
    journal: Journal | None = current_app.extensions["diablotin"].journal
    assert journal is not None
    return journal


def zip_bytes() -> tuple[bytes, list[Skipped]]:
    """Every game as ``diablotin-game/1`` files in one zip, and the games left out."""
    from controller.exports import write_zip

    with tempfile.TemporaryDirectory() as folder:
        target = Path(folder) / "games.zip"
        skipped = write_zip(_journal(), target)
        return target.read_bytes(), skipped


def csv_bytes() -> tuple[bytes, list[Skipped]]:
    """One CSV row per game (UTF-8), and the games left out."""
    from controller.exports import write_csv

    out = io.StringIO()
    skipped = write_csv(_journal(), out)
    return out.getvalue().encode(), skipped


def _download(data: bytes, skipped: list[Skipped], mimetype: str, name: str) -> Response:
    resp = Response(data, mimetype=mimetype)
    if skipped:  # their rows cannot be read (a zip's skipped.txt says why)
        resp.headers["X-Skipped-Games"] = " ".join(str(s.game_id) for s in skipped)
    resp.headers["Content-Disposition"] = f'attachment; filename="{name}"'
    return resp


def zip_response() -> Response:
    data, skipped = _made(zip_bytes, "export.zip")
    return _download(data, skipped, "application/zip", "diablotin-games.zip")


def csv_response() -> Response:
    data, skipped = _made(csv_bytes, "export.csv")
    return _download(data, skipped, "text/csv", "diablotin-games.csv")
