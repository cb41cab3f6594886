"""The one policy for free text a person types: titles, player names, notes.

Every entry point (API, import, CLI) passes such text through :func:`clean_text`.
It is trimmed and NFC-normalised, then refused with a reason if it holds:

- a lone surrogate (not text at all: it cannot be stored or sent as UTF-8);
- a control character (C0, DEL, C1; a tab or a line break too: these are one-line fields);
- a bidirectional override or isolate (U+202A-202E, U+2066-2069), which can make a
  name read backwards on every phone;
- a zero-width or invisible formatting character (U+200B-200F, U+2060-2064, U+FEFF,
  U+00AD, U+180E), which makes two different names look the same. The zero-width
  joiner U+200D is allowed *between two emoji*: 👨‍👩‍👧 stays one family.

and it must be 1..``max_len`` characters (code points, after trimming) long, or may be
empty where ``allow_empty``.
"""

from __future__ import annotations

import unicodedata

from .games.base import Said

#: Length limits per field, in characters (code points).
TITLE_MAX = 80
NAME_MAX = 24
NOTE_MAX = 500

ZWJ = "\u200d"
_BIDI = set(range(0x202A, 0x202F)) | set(range(0x2066, 0x206A))
_INVISIBLE = (
    set(range(0x200B, 0x2010)) | set(range(0x2060, 0x2065)) | {0xFEFF, 0x00AD, 0x180E, 0x034F}
)


class TextRefused(ValueError):
    """Text that breaks the policy. ``code`` is stable (for translations and clients);
    ``params`` (its sentence's) hold the field name and, where it applies, the limit or the
    offending character as ``U+XXXX``; ``str()`` is the English sentence."""

    def __init__(self, code: str, said: str) -> None:
        super().__init__(said)
        self.code = code
        self.said = said
        self.params = said.params if isinstance(said, Said) else {}


def _is_emoji(ch: str) -> bool:
    """A pictographic character or an emoji modifier/selector that may sit beside a ZWJ."""
    cp = ord(ch)
    return (
        unicodedata.category(ch) == "So"
        or 0x1F000 <= cp <= 0x1FAFF
        or 0x2600 <= cp <= 0x27BF
        or cp in (0xFE0F, 0x20E3)
        or 0x1F3FB <= cp <= 0x1F3FF  # skin tones
        or 0xE0020 <= cp <= 0xE007F  # tag characters (flag sequences)
    )


def clean_text(
    value: object, *, field: str, max_len: int = TITLE_MAX, allow_empty: bool = False
) -> str:
    """``value`` trimmed and NFC-normalised; raises :class:`TextRefused` (a ``ValueError``)
    if it is not a string, breaks the policy above, or is too long or empty."""
    if not isinstance(value, str):
        raise TextRefused("text-type", Said("{field} must be text", field=field))
    for ch in value:
        if 0xD800 <= ord(ch) <= 0xDFFF:
            raise TextRefused(
                "text-surrogate",
                Said("{field} holds a broken character (a lone surrogate)", field=field),
            )
    text = unicodedata.normalize("NFC", value.strip())
    for i, ch in enumerate(text):
        cp = ord(ch)
        where = f"U+{cp:04X}"
        if unicodedata.category(ch) == "Cc":
            raise TextRefused(
                "text-control",
                Said("{field} holds a control character ({char})", field=field, char=where),
            )
        if cp in _BIDI:
            raise TextRefused(
                "text-bidi",
                Said("{field} holds a text-direction override ({char})", field=field, char=where),
            )
        if ch == ZWJ:
            inside = 0 < i < len(text) - 1 and _is_emoji(text[i - 1]) and _is_emoji(text[i + 1])
            if not inside:
                raise TextRefused(
                    "text-invisible",
                    Said(
                        "{field} holds an invisible character ({char}) outside an emoji",
                        field=field,
                        char=where,
                    ),
                )
        elif cp in _INVISIBLE:
            raise TextRefused(
                "text-invisible",
                Said("{field} holds an invisible character ({char})", field=field, char=where),
            )
    if not text and not allow_empty:
        raise TextRefused("text-empty", Said("{field} must not be empty", field=field))
    if len(text) > max_len:
        raise TextRefused(
            "text-too-long",
            Said("{field} must be at most {max} characters", field=field, max=max_len),
        )
    return text
