"""The one free-text policy (controller.text.clean_text)."""

import pytest

from controller.text import NAME_MAX, TextRefused, clean_text


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("  Soirée  ", "Soirée"),
        ("Cafe\u0301", "Café"),  # NFC
        ("👨\u200d👩\u200d👧", "👨\u200d👩\u200d👧"),  # joiner inside an emoji sequence
        ("Zoë 🎲", "Zoë 🎲"),
        ("<!--<script>", "<!--<script>"),  # markup is text here; pages escape it
        ("\u2764\ufe0f", "\u2764\ufe0f"),  # ❤️: a selector after an emoji
        ("1\ufe0f\u20e3", "1\ufe0f\u20e3"),  # 1️⃣: after a keycap's digit
        ("\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f",)
        * 2,  # 🏴 Scotland
        ("Anna\u00a0Maria", "Anna\u00a0Maria"),  # a space that is a space
    ],
)
def test_accepted_text_is_trimmed_and_normalised(raw: str, expected: str) -> None:
    assert clean_text(raw, field="title") == expected


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ("a\ud800b", "text-surrogate"),
        ("a\x00b", "text-control"),
        ("a\nb", "text-control"),
        ("a\x9fb", "text-control"),
        ("abc\u202edcba", "text-bidi"),
        ("a\u2066b", "text-bidi"),
        ("a\u200bb", "text-invisible"),
        ("a\u200db", "text-invisible"),  # joiner between letters
        ("\u200d👩", "text-invisible"),
        ("a\ufeffb", "text-invisible"),
        # issue 26, item 11: all of these were accepted
        ("Zo\u061cé", "text-invisible"),
        ("a\u2028b", "text-control"),
        ("a\u2029b", "text-control"),
        ("Zoé\u3164", "text-invisible"),
        ("\u115f", "text-invisible"),
        ("\u1160", "text-invisible"),
        ("\uffa0", "text-invisible"),
        ("\u2800", "text-invisible"),  # a blank title
        ("a\u206ab", "text-invisible"),
        ("a\u206fb", "text-invisible"),
        ("a\ufff9b", "text-invisible"),
        ("a\ufffbb", "text-invisible"),
        ("a\U000e0041b", "text-invisible"),  # a tag character outside a flag
        ("\U0001f3f4\U000e0067\U000e0062", "text-invisible"),  # a flag's tags, never closed
        ("a\ufe0fb", "text-invisible"),  # a selector after a letter
        ("a\ue000b", "text-private"),
        ("   ", "text-empty"),
        ("x" * 81, "text-too-long"),
        (["a"], "text-type"),
        (None, "text-type"),
    ],
)
def test_refused_text_names_the_reason(raw: object, code: str) -> None:
    with pytest.raises(TextRefused) as err:
        clean_text(raw, field="title")
    assert err.value.code == code
    assert err.value.params["field"] == "title"
    assert "title" in str(err.value)


def test_limits_are_per_field() -> None:
    assert clean_text("x" * NAME_MAX, field="name", max_len=NAME_MAX) == "x" * NAME_MAX
    with pytest.raises(TextRefused) as err:
        clean_text("x" * (NAME_MAX + 1), field="name", max_len=NAME_MAX)
    assert err.value.params["max"] == NAME_MAX
    assert clean_text("", field="note", allow_empty=True) == ""
    assert isinstance(TextRefused("c", "m"), ValueError)
