"""The contract every rules engine keeps.

A game is its setup options plus its list of actions. ``apply`` is the only
thing that changes state, and it never mutates its argument: it returns the
new state or raises :class:`Refused` with a reason a referee can read.

Actions are JSON objects (``dict[str, Any]``) with a ``"type"`` key, so they
can be journaled, exported and replayed as they are.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal, Protocol, TypeVar

Action = Mapping[str, Any]
"""A JSON object with at least a ``"type"`` key."""

Viewer = Literal["public", "referee"]
"""Who a view is for: spectators, or the referee (who may see more)."""

S = TypeVar("S")


def words(template: str) -> str:
    """Mark ``template`` as a sentence people read (a history line, an explanation): the
    English ``str.format`` template, found by the catalogs' extractor like a refusal's
    (:mod:`controller.web.catalogs`) and made in the reader's language at the edge from its
    parameters. Returns ``template`` unchanged."""
    return template


class Said(str):
    """An English sentence that keeps its template and parameters, so a page can make it in
    its own language (a Teufel Teufel event). It is the English text itself for everything
    else (logs, exports, comparisons). ``english`` overrides the English when it words a
    parameter differently (a card's name, an ordinal); the template is found by the
    catalogs' extractor (keyword ``Said``)."""

    template: str
    params: dict[str, Any]

    def __new__(cls, template: str, english: str | None = None, **params: Any) -> Said:
        said = super().__new__(cls, english if english is not None else template.format(**params))
        said.template = template
        said.params = {name: _plain(value) for name, value in params.items()}
        return said

    def as_dict(self) -> dict[str, Any]:
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

    def __init__(self, template: str, code: str = "illegal", **params: Any) -> None:
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

    def as_dict(self) -> dict[str, Any]:
        return {
            "error": self.code,
            "code": self.code,
            "params": self.params,
            "reason": self.reason,
            "template": self.template,
        }


def _as_json(value: Any) -> Any:
    """A param for JSON: a sentence (also in a list) as its ``{"template", "params"}``."""
    if isinstance(value, Said):
        return value.as_dict()
    if isinstance(value, list):
        return [_as_json(item) for item in value]
    return value


def _plain(value: Any) -> Any:
    """A parameter as JSON carries it: numbers, text, None and lists of them; else text."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    return str(value)


class Rules(Protocol[S]):
    """What the service needs from a rules engine."""

    name: str
    """Short slug used in URLs, the journal and the CLI (``"sauteur"``)."""

    def setup(self, options: Mapping[str, Any]) -> S:
        """Initial state from setup options; raises :class:`Refused` on bad options."""
        ...

    def apply(self, state: S, action: Action) -> S:
        """The state after ``action``; raises :class:`Refused` and changes nothing."""
        ...

    def legal_actions(self, state: S) -> list[dict[str, Any]]:
        """Every action ``apply`` would accept now (chance actions included)."""
        ...

    def is_over(self, state: S) -> bool:
        """True once the game has ended."""
        ...

    def view(self, state: S, viewer: Viewer) -> dict[str, Any]:
        """The JSON-serialisable picture of ``state`` that ``viewer`` may see; every view
        has ``to_act`` (see :meth:`to_act`)."""
        ...

    def to_act(self, state: S) -> str | int | None:
        """Who acts next, named as the actions name players (``"p1"``, a colour, a seat);
        ``None`` when the next entry is a fact of chance (a die's face, a card turned
        over) or the game is over."""
        ...

    def refusal(self, state: S, action: Action) -> Refused | None:
        """Why ``action`` is refused now, or ``None`` when ``apply`` would take it."""
        ...


def refusal_by_applying(rules: Rules[S], state: S, action: Action) -> Refused | None:
    """:meth:`Rules.refusal` for an engine whose ``apply`` is its only check."""
    try:
        rules.apply(state, action)
    except Refused as refused:
        return refused
    return None


def replay(rules: Rules[S], options: Mapping[str, Any], actions: Iterable[Action]) -> S:
    """Rebuild a game from its setup and action list; raises :class:`Refused`
    (with the action's index in the reason) if the record is not legal."""
    state = rules.setup(options)
    for index, action in enumerate(actions):
        try:
            state = rules.apply(state, action)
        except Refused as refusal:
            raise Refused(
                "action {index}: {reason}", refusal.code, index=index + 1, reason=refusal.reason
            ) from None
    return state
