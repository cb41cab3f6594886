"""The rules pages for players: ``web/rules/<kind>.<lang>.md``, short, in the reader's
language, illustrated with the boards the dashboard draws.

A picture in a rules page is ``<svg data-example="<name>" …>``; the page's script
(``web/static/js/rules.js``) draws it with the game page's own drawing code from the
example's view, made here by the rules engine from a fixed, seeded start (so the pictures
are real positions and never drift from the engines). The developers' documents stay in
``docs/rules-<kind>.md``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
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


def _played(kind: str, options: dict[str, object], steps: int, seed: int) -> object:
    """The state after ``steps`` seeded random legal actions from ``options``."""
    rules = registry.get(kind).rules()
    state = rules.setup(options)
    rng = random.Random(seed)
    for _ in range(steps):
        legal = rules.legal_actions(state)
        if not legal or rules.is_over(state):
            break
        state = rules.apply(state, rng.choice(legal))
    return state


def _example(kind: str, state: object) -> dict[str, object]:
    rules = registry.get(kind).rules()
    out: dict[str, object] = {"state": rules.view(state, "public")}
    layout = hooks(kind).layout
    if layout is not None:
        out["layout"] = layout(state)
    return out


def _teufel_midgame() -> object:
    from controller.bench.teufel import random_game

    game = random_game(4)
    rules = registry.get("teufel").rules()
    state = rules.setup(game.options)
    for action in game.actions[:40]:
        state = rules.apply(state, action)
    return state


_EXAMPLES: dict[str, dict[str, Callable[[], object]]] = {
    "sauteur": {
        "chase": lambda: _played("sauteur", {"rule": "A", "first_hider": "p1"}, 16, 7),
        "race": lambda: _played("sauteur", {"rule": "B", "first_hider": "p1"}, 16, 7),
    },
    "teufel": {"board": _teufel_midgame},
    "tails": {"board": lambda: _played("tails", {"players": 2}, 16, 7)},
}


@cache
def examples(kind: str) -> dict[str, dict[str, object]]:
    """``{name: {"state": the public view, "layout": the board's geometry (tail-tile
    game)}}`` for the pictures of ``kind``'s rules page (made once per process)."""
    return {name: _example(kind, make()) for name, make in _EXAMPLES.get(kind, {}).items()}
