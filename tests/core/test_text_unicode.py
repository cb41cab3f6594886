"""The free-text policy over the whole Unicode range (issue 26, item 11), against Unicode's own
data: DerivedCoreProperties.txt (its Default_Ignorable_Code_Point lines are in tests/data) and
the general categories of Python's ``unicodedata``."""

from __future__ import annotations

import re
import sys
import unicodedata
from pathlib import Path

import pytest

from controller.games.base import Refused
from controller.journal import Journal
from controller.players import save_player
from controller.text import (
    DEFAULT_IGNORABLE,
    TextRefused,
    clean_text,
    looks_alike,
    refusal,
    skeleton,
)

DATA = Path(__file__).resolve().parents[1] / "data" / "DerivedCoreProperties-15.0.0-DI.txt"


def unicode_ignorables() -> set[int]:
    """Every Default_Ignorable_Code_Point, read from Unicode's file."""
    found = set()
    for line in DATA.read_text(encoding="utf-8").splitlines():
        m = re.match(r"([0-9A-F]+)(?:\.\.([0-9A-F]+))?\s*; Default_Ignorable_Code_Point", line)
        if m:
            found.update(range(int(m[1], 16), int(m[2] or m[1], 16) + 1))
    return found


def test_the_ignorable_table_is_unicodes() -> None:
    table = {cp for first, last in DEFAULT_IGNORABLE for cp in range(first, last + 1)}
    assert table == unicode_ignorables()
    assert len(table) == 4174


def test_every_code_point_is_refused_exactly_when_unicode_says_it_is_invisible() -> None:
    """For each of the 1,114,112 code points: refused (out of an emoji) iff it is
    default-ignorable, a control, a format character, a line or paragraph separator, private
    use, or a blank; every other character (letters, marks, digits, symbols, spaces) is taken."""
    ignorable = unicode_ignorables()
    wrong = []
    for cp in range(sys.maxunicode + 1):
        if 0xD800 <= cp <= 0xDFFF:
            continue  # surrogates: refused before (test_text.py)
        category = unicodedata.category(chr(cp))
        invisible = (
            cp in ignorable or category in ("Cc", "Cf", "Zl", "Zp", "Co") or cp in (0x2800, 0x1D159)
        )
        if (refusal(chr(cp)) is not None) != invisible:
            wrong.append(f"U+{cp:04X} {category}")
    assert wrong == []


def test_clean_text_refuses_them_between_two_letters() -> None:
    """What a person meets: ``clean_text`` on every 7th ignorable code point and the
    separators and blank of the issue, each in the middle of a name."""
    for cp in [*sorted(unicode_ignorables())[::7], 0x2028, 0x2029, 0x2800]:
        with pytest.raises(TextRefused) as refused:
            clean_text(f"Zo{chr(cp)}é", field="name")
        assert refused.value.params["char"] == f"U+{cp:04X}"


def test_skeletons_follow_unicodes_confusables() -> None:
    """UTS #39's own examples and the roster's: one skeleton, one look."""
    assert skeleton("paypal") == skeleton("pаypаl")  # Cyrillic а
    assert skeleton("1") == skeleton("l") == skeleton("I")
    assert skeleton("rn") == skeleton("m")
    assert looks_alike("Zoé", "ZOÉ") and looks_alike("Bill", "BiII") and looks_alike("Zoé", "Zoé")
    assert looks_alike("Zoé", "Zое́")  # Cyrillic о and е, e with a combining acute
    assert not looks_alike("Zoé", "Zoe") and not looks_alike("Anna", "Hanna")


def test_the_roster_refuses_a_name_that_looks_like_another(tmp_path: Path) -> None:
    """Issue 26, item 11: "Zoé", "Zoé\\u3164" and "Zo\\u061cé" were three roster players."""
    journal = Journal(tmp_path / "journal.sqlite3")
    try:
        zoe = save_player(journal, {"name": "Zoé", "mark": "#ff0000"})
        for lookalike, code in (
            ("Zoé\u3164", "text-invisible"),
            ("Zo\u061cé", "text-invisible"),
            ("ZOÉ", "name-taken"),  # SQLite's NOCASE folds only ASCII
            ("Zое́", "name-confusable"),  # Cyrillic letters
        ):
            with pytest.raises(Refused) as refused:
                save_player(journal, {"name": lookalike, "mark": "#00ff00"})
            assert refused.value.code == code, lookalike
        assert str(refused.value) == (
            "Zое́ looks like Zoé, already in the roster: choose a name that reads differently"
        )
        assert [p.name for p in journal.players()] == ["Zoé"]
        save_player(journal, {"id": zoe.id, "name": "ZOÉ", "mark": "#ff0000"})  # herself
        assert save_player(journal, {"name": "Zoe", "mark": "#0000ff"}).name == "Zoe"
    finally:
        journal.close()
