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
