"""The gettext catalogs: complete, current, compiled, and what the pages and scripts read."""

from __future__ import annotations

import io
import string

import pytest
from babel.messages.catalog import Catalog
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po

from controller.web import catalogs, i18n


def fields(text: str) -> list[tuple[str, str, str]]:
    """The ``str.format`` fields of ``text``: (name, conversion, spec), sorted."""
    return sorted(
        (name, conversion or "", spec or "")
        for _, name, spec, conversion in string.Formatter().parse(text)
        if name is not None
    )


def test_there_is_a_catalog_for_every_language_but_english() -> None:
    assert catalogs.languages() == sorted(set(i18n.LANGS) - {"en"})


@pytest.mark.parametrize("lang", sorted(set(i18n.LANGS) - {"en"}))
def test_the_catalog_translates_every_message_with_the_same_placeholders(lang: str) -> None:
    cat = catalogs.read(lang)
    assert not cat.fuzzy, f"{lang}: the header is marked fuzzy"
    wanted = {(m.context, m.id) for m in catalogs.template() if m.id}
    have = {(m.context, m.id): m for m in cat if m.id}
    assert sorted(wanted - set(have), key=str) == [], f"{lang}: messages missing"
    for ident, msg in have.items():
        english = [msg.id] if isinstance(msg.id, str) else list(msg.id)
        strings = [msg.string] if isinstance(msg.string, str) else list(msg.string)
        assert all(text and text.strip() for text in strings), (lang, ident, "empty")
        assert not msg.fuzzy, (lang, ident, "fuzzy")
        for text in strings:  # every form keeps the English fields (a plural: the plural's)
            assert fields(text) == fields(english[-1]), (lang, ident, text)


def _translations(cat: Catalog) -> dict[object, object]:
    """What a catalog translates, header left out (it names the Babel that wrote it)."""

    def plain(text: object) -> object:
        """A plural's forms: a list from a .mo, a tuple from a .po; a context: bytes from
        Babel 2.18's ``read_mo``."""
        if isinstance(text, bytes):
            return text.decode("utf-8")
        return tuple(text) if isinstance(text, list | tuple) else text

    kept = (m for m in cat if m.id and m.string and not m.fuzzy)
    return {(plain(m.context), plain(m.id)): plain(m.string) for m in kept}


@pytest.mark.parametrize("lang", sorted(set(i18n.LANGS) - {"en"}))
def test_the_shipped_mo_is_the_po_compiled(lang: str) -> None:
    """Edit a .po without `python -m controller.web.catalogs` and this fails. Compared
    message by message, not byte by byte: Babel 2.19 writes other bytes than 2.18."""
    with catalogs.po_path(lang).with_suffix(".mo").open("rb") as fp:
        shipped = read_mo(fp)
    assert _translations(shipped) == _translations(catalogs.read(lang))
    rebuilt = read_mo(io.BytesIO(catalogs.compiled(catalogs.read(lang))))
    assert _translations(rebuilt) == _translations(shipped)


def test_the_template_is_current() -> None:
    with (catalogs.LOCALES / "messages.pot").open("rb") as fp:
        pot = read_po(fp)
    assert {(m.context, m.id) for m in pot if m.id} == {
        (m.context, m.id) for m in catalogs.template() if m.id
    }


def test_pages_and_scripts_read_the_catalog() -> None:
    assert i18n.translate("fr", "nav.home") == "Parties"
    assert i18n.translate("en", "nav.home") == "Games"
    assert i18n.page_messages("fr")["kind.teufel"] == "Diable, diable"
    assert i18n.page_messages("fr")["nav.box"] != i18n.page_messages("en")["nav.box"]


def test_the_translator_works_outside_a_request() -> None:
    fr = i18n.translator("fr")
    assert fr("Devils, Devils") == "Diable, diable"
    assert fr(key="nav.home") == "Parties"
    assert i18n.translator("en")("Devils, Devils") == "Devils, Devils"
    assert fr("a sentence no catalog has") == "a sentence no catalog has"


def test_a_refusal_is_made_from_its_template_in_the_viewers_language() -> None:
    from controller.games.base import Refused

    refused = Refused("slot {key} is empty: nothing to press out", "slot-empty", key=4)
    assert i18n.refusal_text(refused, "en") == "slot 4 is empty: nothing to press out"
    assert i18n.refusal_text(refused, "fr") == "la case 4 est vide : rien à faire sauter"
    assert i18n.refusal_text(refused, "de") == "Fach 4 ist leer: nichts herauszudrücken"
    # !r conversions stay the engine's (quotes around the value, whatever the language)
    bad_key = Refused("key must be 1 to 4, got {key!r}", "bad-key", key="x")
    assert i18n.refusal_text(bad_key, "de") == "die Taste muss 1 bis 4 sein, nicht 'x'"
    untranslated = Refused("a sentence no catalog has: {n}", "x", n=1)
    assert i18n.refusal_text(untranslated, "de") == "a sentence no catalog has: 1"


def test_every_rules_refusal_template_is_in_the_template() -> None:
    templates = catalogs.refusal_templates()
    assert len(templates) > 100
    assert "slot {key} is empty: nothing to press out" in templates
    assert {m.id for m in catalogs.template() if m.context is None} >= set(templates)


@pytest.mark.parametrize(
    ("lang", "one", "many"),
    [("en", "1 move", "2 moves"), ("fr", "1 coup", "2 coups"), ("de", "1 Zug", "2 Züge")],
)
def test_plurals_follow_the_languages_rules(lang: str, one: str, many: str) -> None:
    assert i18n.translate(lang, "home.actions", n=1) == one
    assert i18n.translate(lang, "home.actions", n=2) == many
    # French counts 0 as singular (CLDR "one"), English and German plural
    zero = i18n.translate(lang, "home.actions", n=0)
    assert zero == ("0 coup" if lang == "fr" else many.replace("2", "0"))
    forms = i18n.page_messages(lang)["home.actions"]
    assert forms == [one.replace("1", "{n}"), many.replace("2", "{n}")]


def test_fractions_are_written_the_languages_way() -> None:
    assert i18n.translate("en", "clock.s", s=0.5) == "0.5 s"
    assert i18n.translate("fr", "clock.s", s=0.5) == "0,5 s"
    assert i18n.translate("de", "clock.s", s=0.5) == "0,5 s"


def test_the_game_names_follow_the_boxes() -> None:
    names = {lang: i18n.translator(lang) for lang in ("en", "fr", "de")}
    assert [names[lang]("Devils, Devils") for lang in names] == [
        "Devils, Devils",
        "Diable, diable",
        "Teufel, Teufel",
    ]
    assert [names[lang]("Devil by the Tail") for lang in names] == [
        "Devil by the Tail",
        "Le Diable par la queue",
        "Auf Teufel komm raus!",
    ]
    assert {names[lang]("Le Diable sauteur") for lang in names} == {"Le Diable sauteur"}
