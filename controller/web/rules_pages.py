"""The rules pages for players: ``web/rules/<kind>.<lang>.md``, short, in the reader's
language, illustrated with the boards the dashboard draws.

A picture in a rules page is ``<svg data-example="<name>" …>``; the page's script
(``web/static/js/rules.js``) draws it with the game page's own drawing code from the
example's view, made by the rules engine from a fixed, seeded start (so the pictures are
real positions and never drift from the engines), as the kind declares them
(:attr:`~controller.games.registry.GameKind.rules_examples`). The developers' documents stay in
``docs/rules-<kind>.md``.
"""

from __future__ import annotations

from functools import cache

import markdown
from markupsafe import Markup

from controller import data
from controller.games import registry

from .kinds import hooks


def rules_html(kind: str, lang: str) -> Markup | None:
    """The player rules of ``kind`` in ``lang`` (English when that language has none) as
    HTML; None when the game has no rules page."""
    for code in (lang, "en"):
        try:
            text = data.player_rules_file(kind, code).read_text(encoding="utf-8")
        except (KeyError, OSError):
            continue
        return Markup(markdown.markdown(text, extensions=["tables"], output_format="html"))
    return None


def _example(kind: str, state: object) -> dict[str, object]:
    rules = registry.get(kind).rules()
    out: dict[str, object] = {"state": rules.view(state, "public")}
    layout = hooks(kind).layout
    if layout is not None:
        out["layout"] = layout(state)
    return out


@cache
def examples(kind: str) -> dict[str, dict[str, object]]:
    """``{name: {"state": the public view, "layout": the board's geometry (tail-tile
    game)}}`` for the pictures of ``kind``'s rules page (made once per process)."""
    make = registry.get(kind).rules_examples
    return {} if make is None else {name: _example(kind, state) for name, state in make().items()}
