"""Static files under a content-hashed prefix, cached for a year.

Every page links its CSS, scripts and icons as ``/static/v/<digest>/<path>``, where
``<digest>`` hashes the whole ``web/static`` tree: any change to any file gives every URL
a new prefix, so browsers may keep them forever (``Cache-Control: immutable``). Because
the prefix is a directory, the modules' relative imports (``../common.js``) land under
the same digest with no build step. ``/static/<path>`` (Flask's own route) still answers,
revalidated hourly. The service worker precaches :func:`shell` (every page's scripts).
"""

from __future__ import annotations

import hashlib
from functools import cache

from flask import Blueprint, Response, abort, send_from_directory

from controller import data

STATIC = data.web_static()
YEAR_S = 365 * 24 * 3600
SHELL_SUFFIXES = (".js", ".css", ".svg")
NOT_IN_SHELL = ("js/sw.js",)

bp = Blueprint("assets", __name__)


@cache
def digest() -> str:
    """12 hex digits of SHA-256 over every file's path and bytes under ``web/static``
    (computed once per process: the files are part of the installed package)."""
    h = hashlib.sha256()
    for path in sorted(p for p in STATIC.rglob("*") if p.is_file()):
        h.update(path.relative_to(STATIC).as_posix().encode() + b"\0")
        h.update(path.read_bytes())
    return h.hexdigest()[:12]


def static_url(path: str) -> str:
    """The long-cached URL of ``web/static/<path>``, e.g. ``/static/v/1a2b…/app.css``."""
    return f"/static/v/{digest()}/{path}"


@cache
def shell() -> tuple[str, ...]:
    """Hashed URLs of every script, the stylesheet and the SVG icons (what a page needs
    to open), for the service worker to precache."""
    files = sorted(
        p.relative_to(STATIC).as_posix()
        for p in STATIC.rglob("*")
        if p.is_file() and p.suffix in SHELL_SUFFIXES
    )
    urls = [static_url(f) for f in files if f not in NOT_IN_SHELL]
    return (*urls, static_url("icons/icon-192.png"))


@bp.get("/static/v/<version>/<path:filename>")
def hashed(version: str, filename: str) -> Response:
    """A static file under the current digest (404 under another: an old page asks the
    network again for the unversioned path through the service worker's fallback)."""
    if version != digest():
        abort(404)
    resp = send_from_directory(STATIC, filename, max_age=YEAR_S)
    resp.headers["Cache-Control"] = f"public, max-age={YEAR_S}, immutable"
    return resp
