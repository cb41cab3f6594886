"""The gettext catalogs: complete, current, compiled, and what the pages and scripts read."""

from __future__ import annotations

import re

import pytest
from babel.messages.pofile import read_po

from controller.web import catalogs, i18n

PLACEHOLDER = re.compile(r"\{(\w+)\}")


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
        assert msg.string and msg.string.strip(), (lang, ident, "empty")
        assert not msg.fuzzy, (lang, ident, "fuzzy")
        assert sorted(PLACEHOLDER.findall(msg.string)) == sorted(PLACEHOLDER.findall(msg.id)), (
            lang,
            ident,
        )


@pytest.mark.parametrize("lang", sorted(set(i18n.LANGS) - {"en"}))
def test_the_shipped_mo_is_the_po_compiled(lang: str) -> None:
    """Edit a .po without `python -m controller.web.catalogs` and this fails."""
    mo = catalogs.po_path(lang).with_suffix(".mo").read_bytes()
    assert mo == catalogs.compiled(catalogs.read(lang))


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

    # a template the catalog translates (a game title stands in until the engines'
    # refusal templates are in the catalogs)
    assert i18n.refusal_text(Refused("Devils, Devils", "x"), "fr") == "Diable, diable"
    untranslated = Refused("slot {key} is empty", "slot-empty", key=4)
    assert i18n.refusal_text(untranslated, "fr") == "slot 4 is empty"
    assert i18n.refusal_text(untranslated, "en") == "slot 4 is empty"
