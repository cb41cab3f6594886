"""The one policy for free text a person types: titles, player names, notes.

Every entry point (API, import, CLI) passes such text through :func:`clean_text`.
It is trimmed and NFC-normalised, then refused with a reason if it holds:

- a lone surrogate (not text at all: it cannot be stored or sent as UTF-8);
- a control character (C0, DEL, C1; a tab or a line break too, U+2028/2029 as well: these are
  one-line fields);
- a bidirectional override or isolate (U+202A-202E, U+2066-2069), which can make a
  name read backwards on every phone;
- an invisible character: every ``Default_Ignorable_Code_Point`` of Unicode
  (:data:`DEFAULT_IGNORABLE`: zero-width spaces and joiners, U+061C, the Hangul fillers,
  U+206A-206F, variation selectors, tag characters, ...), every other format character (category Cf:
  U+FFF9-FFFB, ...), a blank that is not a space (U+2800, U+1D159), and private-use
  characters, which make two different names look the same or a title look empty. Emoji keep
  what they are made of: the zero-width joiner U+200D *between two emoji* (👨‍👩‍👧 stays one
  family), a variation selector U+FE0E/FE0F after an emoji or a keycap's digit (❤️, 1️⃣),
  and tag characters in a flag's tag sequence (🏴󠁧󠁢󠁳󠁣󠁴󠁿, closed by U+E007F).

and it must be 1..``max_len`` characters (code points) long, or may be empty where
``allow_empty``: at least one once trimmed, at most ``max_len`` as sent and once normalised
(the OpenAPI document's ``maxLength`` counts what a client sends).

Roster names must also not *look like* one another: :func:`skeleton` is Unicode's confusable
skeleton (UTS #39, section 4, with its ``confusables.txt``), and :func:`looks_alike` compares
two names' skeletons, case aside.
"""

from __future__ import annotations

import functools
import unicodedata
from importlib import resources

from .sentences import Said

#: Length limits per field, in characters (code points).
TITLE_MAX = 80
NAME_MAX = 24
NOTE_MAX = 500

ZWJ = "\u200d"
_BIDI = set(range(0x202A, 0x202F)) | set(range(0x2066, 0x206A))
DEFAULT_IGNORABLE = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
"""Unicode's ``Default_Ignorable_Code_Point`` ranges (first, last), from
DerivedCoreProperties.txt of Unicode 15.0 (tests/data holds those lines; a test compares)."""
_IGNORABLE = frozenset(cp for first, last in DEFAULT_IGNORABLE for cp in range(first, last + 1))
BLANKS = frozenset({0x2800, 0x1D159})
"""Characters drawn as nothing that Unicode does not call ignorable or a space: U+2800 BRAILLE
PATTERN BLANK, U+1D159 MUSICAL SYMBOL NULL NOTEHEAD."""
_SELECTORS = frozenset({0xFE0E, 0xFE0F})
_KEYCAP_BASES = frozenset("#*0123456789")
_TAG_BASE = 0x1F3F4  # 🏴 WAVING BLACK FLAG: a subdivision flag's tag sequence follows it
_TAGS = range(0xE0020, 0xE007F)
_CANCEL_TAG = 0xE007F


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


def refusal(ch: str) -> str | None:
    """The refusal code for one character out of any context (``text-control``,
    ``text-bidi``, ``text-invisible``, ``text-private``), or ``None`` if it may be typed.
    The emoji exceptions of :func:`clean_text` need their neighbours."""
    cp = ord(ch)
    category = unicodedata.category(ch)
    if category in ("Cc", "Zl", "Zp"):
        return "text-control"
    if cp in _BIDI:
        return "text-bidi"
    if cp in _IGNORABLE or category == "Cf" or cp in BLANKS:
        return "text-invisible"
    if category == "Co":
        return "text-private"
    return None


def _emoji_part(text: str, i: int) -> bool:
    """Is ``text[i]`` (an ignorable character) part of an emoji: a ZWJ between two emoji, a
    variation selector after an emoji or a keycap's digit, a tag in a flag's tag sequence?"""
    cp = ord(text[i])
    before = text[i - 1] if i > 0 else ""
    if text[i] == ZWJ:
        return 0 < i < len(text) - 1 and _is_emoji(before) and _is_emoji(text[i + 1])
    if cp in _SELECTORS:
        return bool(before) and (_is_emoji(before) or before in _KEYCAP_BASES)
    if cp in _TAGS or cp == _CANCEL_TAG:
        start = i
        while start > 0 and ord(text[start - 1]) in _TAGS:
            start -= 1
        end = i
        while end < len(text) and ord(text[end]) in _TAGS:
            end += 1
        closed = end < len(text) and ord(text[end]) == _CANCEL_TAG
        return start > 0 and ord(text[start - 1]) == _TAG_BASE and end > start and closed
    return False


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
        code = refusal(ch)
        if code is None or (code == "text-invisible" and _emoji_part(text, i)):
            continue
        where = f"U+{ord(ch):04X}"
        if code == "text-control":
            said = Said("{field} holds a control character ({char})", field=field, char=where)
        elif code == "text-bidi":
            said = Said("{field} holds a text-direction override ({char})", field=field, char=where)
        elif code == "text-private":
            said = Said(
                "{field} holds a private-use character ({char}), which phones do not show",
                field=field,
                char=where,
            )
        elif ch == ZWJ:
            said = Said(
                "{field} holds an invisible character ({char}) outside an emoji",
                field=field,
                char=where,
            )
        else:
            said = Said("{field} holds an invisible character ({char})", field=field, char=where)
        raise TextRefused(code, said)
    if not text and not allow_empty:
        raise TextRefused("text-empty", Said("{field} must not be empty", field=field))
    if len(value) > max_len or len(text) > max_len:  # as sent (the API's maxLength), and kept
        raise TextRefused(
            "text-too-long",
            Said("{field} must be at most {max} characters", field=field, max=max_len),
        )
    return text


@functools.cache
def _prototypes() -> dict[str, str]:
    """Unicode's confusables.txt (the copy in this package): character -> its prototype."""
    table = {}
    text = resources.files("controller").joinpath("confusables.txt").read_text(encoding="utf-8")
    for line in text.splitlines():
        if line and not line.startswith("#"):
            source, target = line.split(";")
            table[chr(int(source, 16))] = "".join(chr(int(cp, 16)) for cp in target.split())
    return table


def skeleton(text: str) -> str:
    """UTS #39's skeleton: NFD, each character replaced by its prototype, NFD again. Two
    strings with one skeleton look alike ("paypal" and "pаypаl" with a Cyrillic а; "l", "1"
    and "I")."""
    table = _prototypes()
    decomposed = unicodedata.normalize("NFD", text)
    return unicodedata.normalize("NFD", "".join(table.get(ch, ch) for ch in decomposed))


def looks_alike(a: str, b: str) -> bool:
    """Would two names be taken for each other on a phone: the same skeleton, as typed or
    case aside ("Zoé" and "ZOÉ", "Bill" and "BiII")?"""
    return skeleton(a) == skeleton(b) or skeleton(a.casefold()) == skeleton(b.casefold())


def name_order(name: str) -> tuple[str, str]:
    """A sort key for people's names as a German or French reader orders them: letters
    without their accents and case first ("Élodie" beside "Elodie", "Ömer" among the O's,
    as DIN 5007-1 and French dictionaries do), then the name itself, so the order is total."""
    letters = unicodedata.normalize("NFKD", name)
    folded = "".join(ch for ch in letters if not unicodedata.combining(ch)).casefold()
    return folded, name
