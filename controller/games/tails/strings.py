"""The tail-tile game's messages (web/templates/games/tails.html and its scripts).

Declared as data (:class:`controller.translation.Strings`); the game registry hands them to
the lookups when it registers the kind (docs/translations.md)."""

from __future__ import annotations

from controller.translation import Strings

ENGLISH: dict[str, str] = {
    "tails.card": "card {k}",
    "tails.player": "Player {n}",
    "tails.players": "Players {list}",
    "tails.players_count": "{n} player",
    "tails.players_field": "Players",
    "tails.turn": "turn {n}",
    "tails.filled": "{n}/{of} cells",
    "tails.open_points": "{n} open",
    "tails.wins": "{who} wins with {n}",
    "tails.draw": "A draw at {n}",
    "tails.over": "Game over: every cell is filled",
    "tails.card_of": "card {i} of {n}",
    "tails.prompt_forced": "{who}, {card}: the twin rule forces {c}",
    "tails.prompt_chosen": "{who}, {card}: a cell of their choice",
    "tails.prompt_sector": "{who}, {card}: a cell outside the greyed sector",
    "tails.prompt_pass": "{who} has no legal cell: pass",
    "tails.hint_cell": "Tap a highlighted cell, then the card drawn.",
    "tails.hint_cell_for": "{k} drawn: tap a highlighted cell.",
    "tails.hint_kind": "{c}: tap the card drawn.",
    "tails.hint_kind_forced": "Twin rule: {c}. Tap the card drawn.",
    "tails.hint_rotate": "Turn {k} (↻) like the card on {c}, then Place.",
    "tails.hint_place": "{k} looks the same every way round: Place.",
    "tails.hint_pass": "No legal cell: the player passes.",
    "tails.not_legal": "{c} cannot take this card.",
    "tails.dropped": "{c} is no longer possible: {why}",
    "tails.kind_left": "Card {k}: {n} left",
    "tails.place": "Place",
    "tails.place_on": "Place {k} on {c}",
    "tails.pass": "Pass",
    "tails.pass_move": "pass",
    "tails.rotate": "Turn the card a third clockwise",
    "tails.cancel": "Start this card again",
    "tails.entry": "Enter the card",
    "tails.stock": "Cards left",
    "tails.cell": "Cell {c}",
    "tails.devil": "Devil {d}",
    "tails.legend": (
        "Numbers: twin cells share one (n upper half, s lower). Tails in their owner’s "
        "colour; dashed: still open."
    ),
    "tails.tails": "Tails",
    "tails.tails_legend": (
        "Points per devil. 5… open tail (provisional); 0 a tail that ends at a body."
    ),
    "tails.end_tail": "ends at a tail end: {n} point",
    "tails.end_body": "runs {n} card into devil {d}’s body: 0 points",
    "tails.end_open": "open after {n} card: provisional",
    "tails.end_none": "no card yet",
    "tails.moves": "Moves",
    "tails.no_moves": "No card placed yet.",
    "tails.advice_show": "Advice",
    "tails.advice_hide": "Hide advice",
    "tails.depth": "Advice looks at",
    "tails.depth_this": "this placement",
    "tails.lookahead": "the next placement too",
    "tails.depth_end": "the whole game (about a second)",
    "tails.thinking": "Thinking…",
    "tails.advice_cells": "Best cells to name before the draw:",
    "tails.advice_for": "Best places for {k}:",
    "tails.advice_cell": "{c} ({g})",
    "tails.advice_place": "{c} · {k} ({g})",
    "tails.advice_note": "Greedy advice: own points minus the others’, open tails counted.",
    "tails.use": "Use",
}

PLURALS: dict[str, str] = {
    "tails.players_count": "{n} players",
    "tails.open_points": "{n} open",
    "tails.kind_left": "Card {k}: {n} left",
    "tails.end_tail": "ends at a tail end: {n} points",
    "tails.end_body": "runs {n} cards into devil {d}’s body: 0 points",
    "tails.end_open": "open after {n} cards: provisional",
}

STRINGS = Strings(ENGLISH, PLURALS)
