"""What every route of the JSON API (:mod:`controller.web.api`) leans on: the running
service, errors whose HTTP status comes from :mod:`controller.refusals`, the request's JSON
body (400 ``bad-body``) and numeric queries (400 ``bad-query``), and who is asking."""

from __future__ import annotations

import errno
import json
import math
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from flask import current_app, request

from controller import refusals
from controller.box.base import BoxError, BoxFault
from controller.games.base import Refused, Said, said_of

from . import security
from .i18n import refusal_text, request_language
from .security import ApiError

if TYPE_CHECKING:
    from controller.service import Service
    from controller.table import Table


T = TypeVar("T")


def service() -> Service:
    running: Service = current_app.extensions["diablotin"]
    return running


def api_error(
    code: str, reason: str, *, params: dict[str, object] | None = None, template: str | None = None
) -> ApiError:
    """An :class:`ApiError` for ``code`` with the status :mod:`controller.refusals` gives
    it (``KeyError`` for a code not in the table: a test keeps every code there)."""
    return ApiError(refusals.status(code), code, reason, params=params, template=template)


def refusal(exc: Refused) -> ApiError:
    """Map a refusal to HTTP by the table of :mod:`controller.refusals` (a code it lacks,
    a game of a kind added later, is a refusal of the rules: 409), with its English template
    for a rules refusal (409), for a page to word it with its own names."""
    known = refusals.CODES.get(exc.code)
    status = 409 if known is None else known.status
    reason = refusal_text(exc, request_language())
    template = exc.template if status == 409 else None  # the rules' refusals: pages word them
    return ApiError(status, exc.code, reason, params={**exc.params}, template=template)


def guarded(fn: Callable[[], T]) -> T:
    """Run ``fn`` turning refusals and box errors into :class:`ApiError`."""
    try:
        return fn()
    except Refused as exc:
        raise refusal(exc) from None
    except BoxFault as exc:
        raise api_error("box-fault", said_of(exc)) from None
    except BoxError as exc:
        raise api_error("box-refused", said_of(exc)) from None
    except TimeoutError:
        raise api_error("busy", Said("the box did not answer in time: try again")) from None
    except OSError as exc:  # controller.journal.DiskFull, or any other ENOSPC
        if exc.errno != errno.ENOSPC:
            raise
        raise api_error("disk-full", said_of(exc)) from None


INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
"""SQLite's integers: every integer in a request body must lie in this range."""


def _int64(digits: str) -> int:
    """``json.loads``' hook for integers: a ValueError (400 ``bad-body``) out of range."""
    value = int(digits)  # ValueError past Python's 4300 digits too
    if not INT64_MIN <= value <= INT64_MAX:
        raise ValueError
    return value


def _no_constant(name: str) -> float:
    """``json.loads``' hook for ``NaN``, ``Infinity``, ``-Infinity``: always a ValueError."""
    raise ValueError


def loads_json(body: bytes) -> object:
    """``body`` parsed as JSON, whole numbers within ±2^63 and no ``NaN``/``Infinity``.
    Raises ``ValueError`` (malformed; not UTF-8, -16 or -32 text, a lone surrogate's own
    bytes included, which ``json.loads`` on bytes would let through; a number refused) or
    ``RecursionError`` (nested past the decoder's depth)."""
    text = body.decode(json.detect_encoding(body))  # strict: a lone surrogate's bytes fail
    return json.loads(text, parse_int=_int64, parse_constant=_no_constant)


def parsed_body() -> object:
    """The request's JSON (``None`` when the body is not JSON or is malformed). Integers
    outside :data:`INT64_MIN`..:data:`INT64_MAX` and ``NaN``/``Infinity`` make it
    malformed: no body field reaches the journal or the engines with them."""
    if not request.is_json:
        return None
    try:
        return loads_json(request.get_data(cache=True))
    except RecursionError:  # json's decoder recurses
        raise api_error("bad-body", Said("the JSON is nested too deeply")) from None
    except ValueError:  # malformed, not UTF-8, an integer out of range, NaN or Infinity
        return None


def json_body(required: bool = True) -> dict[str, object]:
    """The request's JSON object; 400 if it is missing, malformed or not an object (see
    :func:`parsed_body` for the numbers refused)."""
    data = parsed_body()
    if data is None and not required and not request.get_data():
        return {}
    if data is None and request.get_data():
        raise api_error(
            "bad-body",
            Said("send a JSON object (whole numbers within ±2^63, no NaN or Infinity)"),
        )
    if not isinstance(data, dict):
        raise api_error("bad-body", Said("send a JSON object"))
    return data


_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
"""A number as a query writes it: ASCII digits, no spaces or ``_`` (which ``float()`` takes)."""


def finite_query(name: str, why: Said) -> float:
    """The query parameter ``name`` as a finite number; 400 ``bad-query`` (``why``) when it
    is missing, not a number in ASCII digits (``float()`` also reads ``" 5"``, ``1_0`` and
    ``١٢``), ``nan`` or infinite."""
    text = request.args.get(name, "")
    value = float(text) if _DECIMAL.fullmatch(text) else math.nan
    if not math.isfinite(value):
        raise api_error("bad-query", why)
    return value


def referee() -> bool:
    """Referee view? A session cookie, or a PIN header (checked and throttled: 401/429)."""
    pin = request.headers.get(security.PIN_HEADER)
    if pin is not None:
        security.check_pin(pin)
        return True
    return security.is_referee()


def table_for(game_id: int) -> Table:
    table: Table = guarded(lambda: service().table(game_id))
    return table
