"""Board outlines keep at least 3:1 against what they are drawn on, in both themes
(WCAG 1.4.11 non-text contrast), computed from the colours app.css declares."""

from __future__ import annotations

import re

import pytest

from controller.web.assets import STATIC

CSS = (STATIC / "app.css").read_text(encoding="utf-8")


def theme_vars(theme: str) -> dict[str, str]:
    """The custom properties of ``:root`` (light) or ``:root[data-theme="dark"]``, later
    declarations winning (as in the browser)."""
    selector = ":root" if theme == "light" else ':root[data-theme="dark"]'
    found: dict[str, str] = {}
    for sel, body in re.findall(r"(:root(?:\[data-theme=\"dark\"\])?)\s*\{([^}]*)\}", CSS):
        if sel == selector:
            found.update(re.findall(r"(--[\w-]+):\s*(#[0-9a-fA-F]{6})", body))
    return found


def luminance(colour: str) -> float:
    def channel(c: int) -> float:
        s = c / 255
        return s / 12.92 if s <= 0.03928 else ((s + 0.055) / 1.055) ** 2.4

    r, g, b = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(a: str, b: str) -> float:
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


# (outline, what it is drawn on)
PAIRS = [
    ("--tf-free", "--tf-halo"),  # Teufel: where the mover can go, on its halo
    ("--tf-flip", "--tf-halo"),
    ("--tf-stop", "--tf-halo"),
    ("--tf-tap", "--tf-halo"),  # the squares the referee may tap
    ("--tails-legal-line", "--tails-legal"),  # a legal cell's quiet dotted line
    ("--tails-last", "--tails-card"),  # the last card placed
    ("--tails-card-piece", "--tails-card"),  # a card's pieces
    ("--trail", "--square"),  # Diable sauteur: the last move's squares
]


def test_the_contrast_formula() -> None:
    assert contrast("#000000", "#ffffff") == pytest.approx(21)
    assert contrast("#767676", "#ffffff") == pytest.approx(4.54, abs=0.01)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_board_outlines_are_at_least_3_to_1(theme: str) -> None:
    colours = theme_vars("light") | (theme_vars("dark") if theme == "dark" else {})
    low = {
        (a, b): round(contrast(colours[a], colours[b]), 2)
        for a, b in PAIRS
        if contrast(colours[a], colours[b]) < 3
    }
    assert not low, low
    # tails in their owner's colour on a placed card
    sides = re.findall(r"\.tside\d \{ --side-card: (#[0-9a-fA-F]{6}); \}", CSS)
    assert len(sides) == 3
    for side in sides:
        assert contrast(side, colours["--tails-card"]) >= 3, (side, theme)
