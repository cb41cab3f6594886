"""Sentences people read, kept as templates: :class:`Said` (a sentence made in the
reader's language at the edge) and :class:`Refused` (an action or input refused, nothing
changed). The bottom layer (docs/architecture.md, "Layers"): it imports nothing of the
box, so the games, the box, the config and the pages all can.
"""

from __future__ import annotations

from typing import TypeAlias

Param: TypeAlias = "bool | int | float | str | list[Param] | None"
"""A sentence's parameter as JSON carries it (anything else is kept as its text)."""


def words(template: str) -> str:
    """Mark ``template`` as a sentence people read (a history line, an explanation): the
    English ``str.format`` template, found by the catalogs' extractor like a refusal's
    (:mod:`controller.web.catalogs`) and made in the reader's language at the edge from its
    parameters. Returns ``template`` unchanged."""
    return template


class Said(str):
    """An English sentence that keeps its template and parameters, so a page can make it in
    its own language (a game's event). It is the English text itself for everything
    else (logs, exports, comparisons). ``english`` overrides the English when it words a
    parameter differently (a card's name, an ordinal); the template is found by the
    catalogs' extractor (keyword ``Said``)."""

    template: str
    params: dict[str, Param]

    def __new__(cls, template: str, english: str | None = None, **params: object) -> Said:
        said = super().__new__(cls, english if english is not None else template.format(**params))
        said.template = template
        said.params = {name: _plain(value) for name, value in params.items()}
        return said

    def as_dict(self) -> dict[str, object]:
        """``{"template", "params"}``, a param that is a sentence itself as its own dict."""
        params = {name: _as_json(value) for name, value in self.params.items()}
        return {"template": self.template, "params": params}


def said_of(error: BaseException) -> str:
    """The sentence ``error`` was raised with: the first :class:`Said` among its args (an
    ``OSError`` carries it as its ``strerror``), kept whole so that it can be made in a
    reader's language; else ``str(error)`` (an error from Python or a library: English)."""
    if isinstance(error, Refused):
        return Said(error.template, english=error.reason, **error.params)
    return next((arg for arg in error.args if isinstance(arg, Said)), None) or str(error)


class Refused(ValueError):
    """An action the rules do not allow; nothing was changed.

    ``code`` is a stable slug (``"slot-empty"``), ``params`` its parameters
    (``{"key": 4}``, JSON values), ``template`` the English sentence with a ``{name}``
    field for each parameter (the key a translation is found by), and ``reason`` that
    sentence filled in, for logs and English readers. A page in another language makes
    its own sentence from ``template`` and ``params``.
    """

    def __init__(self, template: str, code: str = "illegal", **params: object) -> None:
        reason = None
        if isinstance(template, Said):  # a sentence made earlier: its template and params
            said = template
            reason = None if params else str(said)  # its English, as it was worded
            params = said.params | params
            template = said.template
        if reason is None:
            reason = template.format(**params) if params else template
        super().__init__(reason)
        self.template = template
        self.code = code
        self.reason = reason
        self.params = {name: _plain(value) for name, value in params.items()}

    def as_dict(self) -> dict[str, object]:
        return {
            "error": self.code,
            "code": self.code,
            "params": self.params,
            "reason": self.reason,
            "template": self.template,
        }


def _as_json(value: object) -> object:
    """A param for JSON: a sentence (also in a list) as its ``{"template", "params"}``."""
    if isinstance(value, Said):
        return value.as_dict()
    if isinstance(value, list):
        return [_as_json(item) for item in value]
    return value


def _plain(value: object) -> Param:
    """A parameter as JSON carries it: numbers, text, None and lists of them; else text."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    return str(value)
