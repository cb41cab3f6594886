"""The 42 cards and their names.

A card is named by a plain string: ``"blue-D"`` for a letter card (colour,
dash, letter A–F), ``"devil"`` (4 cards) or ``"tower"`` (2 cards).
"""

from __future__ import annotations

from collections import Counter

from ..base import Said

LETTERS = "ABCDEF"
DEVIL = "devil"
TOWER = "tower"
DEVIL_CARDS = 4
TOWER_CARDS = 2
DEVIL_PEGS = 4
DEFAULT_COLOURS = ("yellow", "green", "blue", "purple", "white", "black")


def letter_card(colour: str, letter: str) -> str:
    """``("blue", "D")`` → ``"blue-D"``."""
    return f"{colour}-{letter}"


def split_letter(card: str) -> tuple[str, str]:
    """``"blue-D"`` → ``("blue", "D")``; only for letter cards."""
    colour, _, letter = card.rpartition("-")
    return colour, letter


def is_letter(card: str) -> bool:
    return card not in (DEVIL, TOWER)


def deck(colours: tuple[str, ...]) -> Counter[str]:
    """The 42 cards as a multiset: 6 letters per colour, 4 devils, 2 towers."""
    cards = Counter(letter_card(c, letter) for c in colours for letter in LETTERS)
    cards[DEVIL] = DEVIL_CARDS
    cards[TOWER] = TOWER_CARDS
    return cards


def parse_card(text: object, colours: tuple[str, ...]) -> str:
    """Check a card name; raises ``ValueError`` with the accepted forms."""
    if isinstance(text, str):
        if text in (DEVIL, TOWER):
            return text
        colour, letter = split_letter(text)
        if colour in colours and letter in LETTERS and len(letter) == 1:
            return text
    raise ValueError(
        Said(
            "{text!r} is not a card: use 'devil', 'tower' or a colour and a letter A-F "
            "like '{example}' (colours: {names})",
            text=str(text),
            example=letter_card(colours[0], "D"),
            names=", ".join(colours),
        )
    )


def describe(card: str) -> str:
    """Words for a card in a sentence: ``"blue D"``, ``"a devil"``, ``"a tower"``."""
    if card == DEVIL:
        return "a devil"
    if card == TOWER:
        return "a tower"
    colour, letter = split_letter(card)
    return f"{colour} {letter}"
