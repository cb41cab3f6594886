"""What a command says on the console, in the environment's language: :func:`say`,
:func:`tell` (a note on stderr) and :func:`fail` (why it stops). The bottom layer
(docs/architecture.md, "Layers"), so every command, the server's banner and the checks
can speak without importing the ``diablotin`` command itself.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

from .logs import complain
from .sentences import said_of


def say(said: str) -> str:
    """``said`` in the environment's language (:func:`environment_language`): a ``Said`` is
    made from the catalogs; other text is returned as it is."""
    from .translation import said_text

    return said_text(environment_language(), said)


def fail(what: str | BaseException) -> None:
    """Say why the command stops, on stderr (:func:`~controller.logs.complain`), in the
    environment's language: a ``Said`` (or an error raised with one) is made from the
    catalogs; other text is shown as it is."""
    complain(say(what if isinstance(what, str) else said_of(what)))


def tell(said: str) -> None:
    """A line about what the command did, on stderr (stdout carries its data)."""
    print(say(said), file=sys.stderr)


def environment_language(environ: Mapping[str, str] | None = None) -> str:
    """en, fr or de, as gettext reads the environment: LANGUAGE (a list), LC_ALL,
    LC_MESSAGES, then LANG; the C/POSIX locale means no preference. Else en."""
    env = os.environ if environ is None else environ
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        for value in env.get(name, "").split(":"):
            lang = value.split(".")[0].split("_")[0].split("@")[0].lower()
            if lang in ("en", "fr", "de"):
                return lang
    return "en"


ARGPARSE_MESSAGES = (
    "usage: ",
    "%(prog)s: error: %(message)s\n",
    "argument %(argument_name)s: %(message)s",
    "the following arguments are required: %s",
    "unrecognized arguments: %s",
    "invalid choice: %(value)r (choose from %(choices)s)",
    "invalid %(type)s value: %(value)r",
    "expected one argument",
    "ambiguous option: %(option)s could match %(matches)s",
    "not allowed with argument %s",
    "one of the arguments %s is required",
    "ignored explicit argument %r",
    "positional arguments",
    "options",
    "show this help message and exit",
)
"""argparse's own words that a user meets (its usage line, its errors), in the catalogs:
argparse asks the standard :mod:`gettext` for them (domain ``messages``), which reads the
language from the same variables as :func:`environment_language`. A Python whose argparse
words them differently shows them in English."""


def argparse_speaks_the_catalogs() -> None:
    """Point the standard :mod:`gettext`'s ``messages`` domain (argparse's) at our catalogs."""
    import gettext
    from importlib import resources

    with resources.as_file(resources.files("controller") / "locales") as folder:
        gettext.bindtextdomain("messages", str(folder))
