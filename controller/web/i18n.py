"""The pages' language: the ``lang`` cookie (set by the switch, remembered a year), else the
browser's ``Accept-Language``, else English (:func:`request_language`, once a request).

The words themselves come from :mod:`controller.translation` (below the web, so that the box's
voice and the terminal use them too), re-exported here for the pages: templates use
``t(key)``; the JavaScript gets the chosen language's table as JSON (:func:`page_messages`).
"""

from __future__ import annotations

from flask import g, request

from controller.translation import (
    DOMAIN,
    ENGLISH,
    LANGS,
    PLURALS,
    catalog,
    engine_sentences,
    english,
    error_text,
    kind_title,
    language_name,
    message,
    page_messages,
    plural_forms,
    plurals,
    refusal_text,
    said_text,
    sentence,
    translate,
    translator,
)

COOKIE = "lang"

__all__ = [
    "COOKIE",
    "DOMAIN",
    "ENGLISH",
    "LANGS",
    "PLURALS",
    "catalog",
    "engine_sentences",
    "english",
    "error_text",
    "kind_title",
    "language_name",
    "message",
    "page_messages",
    "pick_language",
    "plural_forms",
    "plurals",
    "refusal_text",
    "request_language",
    "said_text",
    "sentence",
    "translate",
    "translator",
]


def request_language() -> str:
    """This request's language (:func:`pick_language`, kept for the rest of the request)."""
    lang: str | None = g.get("lang")
    if lang is None:
        lang = g.lang = pick_language()
    return lang


def pick_language() -> str:
    """The ``lang`` cookie, else ``Accept-Language``, else English."""
    chosen = request.cookies.get(COOKIE)
    if chosen in LANGS:
        return chosen
    return request.accept_languages.best_match(LANGS) or "en"
