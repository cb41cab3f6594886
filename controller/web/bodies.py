"""What a request may send the dashboard: body sizes, JSON nesting, ids; and the checks a
JSON body passes before it is parsed. Used by the app's hook
(:func:`controller.web.check_json_request`) and the referee's fast path
(:mod:`controller.web.fast_path`)."""

from __future__ import annotations

import re

from controller import refusals
from controller.games.base import Said

from .security import ApiError

MAX_BODY_BYTES = 1024 * 1024
"""The largest request body accepted (an exported game to import): 1 MiB."""

MAX_SMALL_BODY_BYTES = 64 * 1024
"""The largest body of every other request (a game's options, an action, a PIN)."""

BIG_BODY_PATHS = ("/api/import",)
"""Where a body up to :data:`MAX_BODY_BYTES` is accepted."""

MAX_BACKUP_BYTES = 64 * 1024 * 1024
"""The largest body of ``/api/backup/check`` (a journal to restore, as base64): 64 MiB."""

BACKUP_PATH = "/api/backup/check"

MAX_JSON_DEPTH = 32
"""Deepest nesting of arrays/objects accepted in a JSON body (real data needs < 10)."""

MAX_ID = 2**31 - 1
"""Ids (games, steps, keys) in URLs above this do not match a route: 404."""

_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*+"', re.S)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_LONE_SURROGATE = re.compile(
    rb"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    rb"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}"
)


def json_too_deep(body: bytes, limit: int = MAX_JSON_DEPTH) -> bool:
    """Does ``body`` nest arrays/objects deeper than ``limit``? A cheap scan before any
    parsing (strings are skipped, so brackets inside text do not count)."""
    brackets = _JSON_STRING.sub(b"", body).translate(None, _NOT_BRACKETS)
    if len(brackets) <= 2 * limit:
        return False
    depth = 0
    for byte in brackets:
        depth += 1 if byte in b"[{" else -1
        if depth > limit:
            return True
    return False


def json_text_refusal(body: bytes) -> ApiError | None:
    """Why (400 ``bad-body``) a JSON body is refused before it is parsed (nesting deeper
    than :data:`MAX_JSON_DEPTH`, a lone surrogate), or ``None``."""
    if json_too_deep(body):
        return ApiError(
            refusals.status("bad-body"),
            "bad-body",
            Said("JSON nested too deep (at most {levels} levels)", levels=MAX_JSON_DEPTH),
        )
    if _LONE_SURROGATE.search(body):
        return ApiError(
            refusals.status("bad-body"),
            "bad-body",
            Said("the JSON holds a broken character (a lone surrogate)"),
        )
    return None
