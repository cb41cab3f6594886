"""The gettext catalogs' upkeep: ``python -m controller.web.catalogs`` rebuilds
``controller/locales/messages.pot`` from :func:`controller.translation.english` (the box's
messages and every game kind's, declared in its package), the game registry's titles and
every rules refusal's template (``Refused("...")`` in ``controller/``, found by Babel's
extractor; no context, as :func:`controller.translation.refusal_text` looks them up), merges
it into each ``<lang>/LC_MESSAGES/messages.po`` (new messages come in untranslated, changed
ones fuzzy) and compiles every ``.po`` to the ``.mo`` the box reads. Babel (a dev
dependency) does the work; the running box only reads the ``.mo`` files.
"""

from __future__ import annotations

import io
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

from controller.console import ARGPARSE_MESSAGES
from controller.games import registry
from controller.translation import DOMAIN, english, plurals

PACKAGE = Path(__file__).resolve().parent.parent
LOCALES = PACKAGE / "locales"
WIDTH = 100


def template() -> Catalog:
    """Every message the dashboard shows, English msgid with its key as msgctxt (none for a
    game title, whose key is its English)."""
    pot = Catalog(project="Diablotin", domain=DOMAIN, fuzzy=False)
    plural = plurals()
    for key, text in english().items():
        msgid = (text, plural[key]) if key in plural else text
        pot.add(msgid, context=None if key == text else key)
    for kind in registry.kinds():
        pot.add(kind.title.msgid)
    for template_ in refusal_templates() + engine_words():
        pot.add(template_, flags=("python-brace-format",))
    for msgid in ARGPARSE_MESSAGES:
        pot.add(msgid, flags=("python-format",))
    return pot


def _extract(*keywords: str) -> list[str]:
    found = extract_from_dir(
        str(PACKAGE),
        method_map=[("**.py", "python")],
        keywords={keyword: (1,) for keyword in keywords},
        comment_tags=(),
    )
    return sorted({message for _, _, message, _, _ in found if isinstance(message, str)})


def refusal_templates() -> list[str]:
    """Every literal template of a ``Refused(...)`` in the package, sorted."""
    return _extract("Refused")


def engine_words() -> list[str]:
    """Every template the engines mark with ``words(...)`` or make a ``Said`` of (history
    lines, notices, events), sorted."""
    refusals = set(refusal_templates())
    return [template for template in _extract("words", "Said") if template not in refusals]


def po_path(lang: str) -> Path:
    return LOCALES / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def languages() -> list[str]:
    """The languages that have a catalog (English has none: its msgids are the text)."""
    return sorted(p.name for p in LOCALES.iterdir() if (p / "LC_MESSAGES").is_dir())


def read(lang: str) -> Catalog:
    with po_path(lang).open("rb") as fp:
        return read_po(fp, locale=lang, domain=DOMAIN)


def compiled(cat: Catalog) -> bytes:
    out = io.BytesIO()
    write_mo(out, cat)
    return out.getvalue()


def update() -> None:
    """Write the template, merge it into every catalog, compile the catalogs."""
    pot = template()
    with (LOCALES / f"{DOMAIN}.pot").open("wb") as fp:
        write_po(fp, pot, width=WIDTH, omit_header=True)
    for lang in languages():
        cat = read(lang)
        cat.update(pot, no_fuzzy_matching=True)
        with po_path(lang).open("wb") as fp:
            write_po(fp, cat, width=WIDTH, ignore_obsolete=True)
        po_path(lang).with_suffix(".mo").write_bytes(compiled(cat))


if __name__ == "__main__":
    update()
