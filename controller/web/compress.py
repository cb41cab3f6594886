"""gzip for text answers (HTML, CSS, JS, JSON, SVG) when the browser accepts it.

Registered as an ``after_request`` hook. Never touches streamed answers (the live SSE
stream must flush every event at once), answers under :data:`MIN_BYTES`, non-200s or
answers that already carry a ``Content-Encoding``. Long-cached static files (their URL
holds a content hash) are compressed once per process and kept.
"""

from __future__ import annotations

import gzip

from flask import Response, request

MIN_BYTES = 512
LEVEL = 6
TEXT_TYPES = (
    "text/",
    "application/json",
    "application/javascript",
    "application/manifest+json",
    "image/svg+xml",
)
_kept: dict[str, bytes] = {}


def _accepts_gzip() -> bool:
    return request.accept_encodings["gzip"] > 0


def gzip_response(resp: Response) -> Response:
    """``resp`` gzipped in place when it is a whole text answer worth compressing."""
    length = None if resp.is_streamed else resp.content_length
    if length is not None and length < MIN_BYTES:  # too small: not even the Accept header
        if (resp.mimetype or "").startswith(TEXT_TYPES):
            resp.vary.add("Accept-Encoding")
        return resp
    if (
        resp.status_code != 200
        or resp.mimetype == "text/event-stream"
        or (resp.is_streamed and not resp.direct_passthrough)  # generators; files are fine
        or "Content-Encoding" in resp.headers
        or not (resp.mimetype or "").startswith(TEXT_TYPES)
        or not _accepts_gzip()
    ):
        if resp.mimetype and resp.mimetype.startswith(TEXT_TYPES):
            resp.vary.add("Accept-Encoding")
        return resp
    resp.direct_passthrough = False
    key = request.path if "immutable" in resp.headers.get("Cache-Control", "") else ""
    body = _kept.get(key) if key else None
    if body is None:
        raw = resp.get_data()
        if len(raw) < MIN_BYTES:
            return resp
        body = gzip.compress(raw, compresslevel=LEVEL, mtime=0)
        if key:
            _kept[key] = body
    resp.set_data(body)
    resp.headers["Content-Encoding"] = "gzip"
    resp.vary.add("Accept-Encoding")
    if resp.headers.get("ETag"):
        etag, _ = resp.get_etag()
        if etag:
            resp.set_etag(etag, weak=True)
    return resp
