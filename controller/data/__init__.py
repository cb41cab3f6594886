"""The files that ship with the package, read through :mod:`importlib.resources`.

The design card keeps the data at the top of the repository (``web/``, ``hardware/``,
``firmware/``, ``docs/``); ``pyproject.toml`` maps each folder to a data package here
(``controller.data.web`` …), so a wheel, a ``pip install .`` and an editable install all
find them the same way, from any working directory. The one place that knows where they
are. Every function raises FileNotFoundError naming the missing file.

The package must be installed unpacked (a wheel always is): Flask and the firmware
flasher need real directories.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from controller.sentences import Said


def _folder(package: str) -> Path:
    path = Path(str(resources.files(package)))
    if not path.is_dir():
        raise FileNotFoundError(
            Said(
                "the package data {package} is not a directory ({path})",
                package=package,
                path=str(path),
            )
        )
    return path


def _file(package: str, name: str) -> Path:
    path = _folder(package) / name
    if not path.is_file():
        raise FileNotFoundError(
            Said("{name} is missing from the installed package ({path})", name=name, path=str(path))
        )
    return path


def web_templates() -> Path:
    """The dashboard's Jinja templates (``web/templates``)."""
    return _folder("controller.data.web") / "templates"


def web_static() -> Path:
    """The dashboard's static files (``web/static``): CSS, scripts, icons, vendored libraries."""
    return _folder("controller.data.web") / "static"


def pins_file() -> Path:
    """The default pin map (``hardware/pins.toml``)."""
    return _file("controller.data.hardware", "pins.toml")


def firmware_sources() -> Path:
    """The Pico firmware: the folder holding ``main.py`` and ``diablotin_fw/`` (``firmware/``)."""
    return _folder("controller.data.firmware")


def player_rules_file(kind: str, lang: str) -> Path:
    """The rules of game kind ``kind`` for players, in language ``lang`` (Markdown,
    ``web/rules/<kind>.<lang>.md``); KeyError for a name or language that is not a plain
    lower-case word."""
    for word in (kind, lang):
        if not word.isascii() or not word.isalpha() or not word.islower():
            raise KeyError(word)
    return _file("controller.data.web", f"rules/{kind}.{lang}.md")


def rules_file(kind: str) -> Path:
    """The rules of game kind ``kind`` in Markdown (``docs/rules-<kind>.md``); KeyError for a
    name that is not a plain lower-case word."""
    if not kind.isascii() or not kind.isalpha() or not kind.islower():
        raise KeyError(kind)
    return _file("controller.data.docs", f"rules-{kind}.md")
