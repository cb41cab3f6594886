"""The translation functions live below the web (controller.translation): the box's voice,
the terminal and the CLI use them without Flask; each game kind's messages are declared in
its own package and reach the lookups when the registry registers the kind."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller import translation
from controller.games import registry
from controller.games.registry import GameKind, Message
from controller.translation import Strings, page_messages, sentence, translate

from .test_registry import CoinRules

CONTROLLER = Path(__file__).resolve().parents[2] / "controller"


def _imports(path: Path) -> set[str]:
    """Every module ``path`` imports, at the top or inside a function (relative ones made
    absolute)."""
    package = "controller." + ".".join(path.relative_to(CONTROLLER).parent.parts)
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package.rstrip(".").rsplit(".", node.level - 1)[0] if node.level else ""
            found.add(".".join(part for part in (base, node.module or "") if part))
    return found


@pytest.mark.parametrize("module", ["announce.py", "terminal_sauteur.py", "translation.py"])
def test_the_voice_and_the_terminal_do_not_import_the_web(module: str) -> None:
    imported = _imports(CONTROLLER / module)
    assert not {name for name in imported if name.startswith(("controller.web", "flask"))}


def test_the_lookups_import_no_game_and_no_web() -> None:
    """Only the sentence types (Said, Refused) come from the games' base; a subprocess, so
    that nothing this test process imported counts."""
    code = "import sys, controller.translation; print(*sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = done.stdout.split()
    assert "controller.translation" in loaded
    above = ("controller.web", "flask", "controller.games.", "controller.service")
    assert [m for m in loaded if m.startswith(above) and m != "controller.games.base"] == []


def test_every_kinds_messages_are_its_own() -> None:
    """The box's table holds no kind's message; each kind's are in its package."""
    for kind in registry.kinds():
        assert kind.strings is not None
        assert not [key for key in translation.ENGLISH if key.startswith(f"{kind.name}.")]
        assert set(kind.strings.english) <= set(translation.english())
    assert translate("fr", "teufel.colour.blue") == "bleu"
    assert translate("de", "tails.pass") == "Passen"


COIN = GameKind(
    name="coin",
    title=Message("Coin toss"),
    rules=CoinRules,
    strings=Strings(
        english={"coin.side.heads": "heads", "coin.tosses": "{n} toss"},
        plurals={"coin.tosses": "{n} tosses"},
        words={"side": lambda value: (f"coin.side.{value}", {})},
    ),
)


@pytest.fixture
def coin() -> Iterator[GameKind]:
    registry.register(COIN)
    yield COIN
    registry.unregister("coin")


def test_a_kind_registered_later_brings_its_messages(coin: GameKind) -> None:
    assert translate("en", "coin.tosses", n=3) == "3 tosses"
    assert translate("en", "kind.coin") == "Coin toss"
    assert page_messages("fr")["coin.tosses"] == ["{n} toss", "{n} tosses"]  # untranslated
    assert page_messages("de")["kind.coin"] == "Coin toss"
    registry.unregister("coin")
    assert translate("en", "coin.tosses", n=3) == "coin.tosses"


def test_a_kinds_words_name_its_parameters_in_the_readers_language() -> None:
    """Teufel Teufel names its colours and cards (teufel/strings.py's ``words``), in the
    language of the sentence only (English keeps the engine's own words)."""
    blue = translate("fr", "teufel.colour.blue")
    card = translate("fr", "teufel.card.letter", colour=blue, letter="T")
    assert sentence("fr", "{who} takes {card}", who="blue", card="blue-T") == (
        f"{blue} takes {card}"
    )
    assert sentence("fr", "{cards}", cards=["devil", "?"]) == (
        f"{translate('fr', 'teufel.card.devil')} et {translate('fr', 'teufel.face_down')}"
    )
    assert sentence("en", "{who} takes {card}", who="blue", card="blue-T") == "blue takes blue-T"
    assert sentence("fr", "{who}", who="mauve") == "mauve"  # not a colour it knows


def test_reading_the_catalogs_does_not_import_babel() -> None:
    """The catalogs are read by the standard library's gettext: the CLI and a start-up do
    not pay for Babel's import (issue 25) until a number, a list or a language's name is
    written."""
    script = (
        "import sys; from controller import translation as t; "
        "assert t.translate('fr', 'kind.tails') and t.sentence('de', 'cell {cell_id} is taken', "
        "cell_id='A1'); print(sorted(m for m in sys.modules if m.split('.')[0] == 'babel'))"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_dashboard_starts_and_answers_in_the_phones_language_without_babel(tmp_path) -> None:
    """Serving starts, and the API answers in the phone's language, without Babel (15 ms
    here, a third of a second on a Pi Zero 2 W; issue 25): the language is the ``lang``
    cookie or ``Accept-Language``. A page imports it for the languages' names."""
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from controller.config import Config\n"
        "from controller.service import Service\n"
        "from controller.web import create_app\n"
        "import controller.server\n"
        f"service = Service(Config(data_dir=Path({str(tmp_path)!r})))\n"
        "service.start()\n"
        "client = create_app(service).test_client()\n"
        "assert client.get('/api/games').status_code == 200\n"
        "missing = client.get('/api/games/999', headers={'Accept-Language': 'de-CH,de;q=0.9'})\n"
        "assert missing.status_code == 404 and 'Spiel' in missing.get_json()['reason']\n"
        "client.set_cookie('lang', 'fr')\n"
        "missing = client.get('/api/games/999', headers={'Accept-Language': 'de'})\n"
        "assert 'partie' in missing.get_json()['reason'], missing.get_json()\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'babel', 'flask_babel'}))\n"
        "page = client.get('/', headers={'Accept-Language': 'de'})\n"
        "assert page.status_code == 200 and b'lang=\"fr\"' in page.data\n"
        "service.stop()\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_french_elides_de_and_que_before_a_name_with_a_vowel() -> None:
    """Walkthrough: "lettres de Élodie", "le diable de Ömer"; a square or a number keeps
    "de" ("de e2", "de 8"), and so does a name with a consonant."""
    from controller.games import registry
    from controller.translation import elided, sentence, translate

    registry.kinds()
    assert translate("fr", "teufel.letters_of", p="Élodie", l="A") == "Lettres d’Élodie : A"
    assert translate("fr", "teufel.take_from", p="Ömer") == "Prendre le diable d’Ömer"
    assert translate("fr", "teufel.take_from", p="Hélène") == "Prendre le diable d’Hélène"
    assert translate("fr", "teufel.take_from", p="Zoé") == "Prendre le diable de Zoé"
    assert elided("fr", "De {p} ou que {q}", {"p": "Anne", "q": "Yves"}) == "D’{p} ou qu’{q}"
    assert elided("fr", "de {sq}, de {n}", {"sq": "e2", "n": "8 min"}) == "de {sq}, de {n}"
    assert elided("de", "de {p}", {"p": "Anne"}) == "de {p}"  # French only
    assert "la carte cachée qu’Élodie regarde" in translate("fr", "teufel.h.peek", p="Élodie")
    refusal = "{colours}'s sled stands on the card on {square}"
    assert sentence("fr", refusal, colours="Élodie", square="e2").startswith("le traîneau d’Élodie")


def test_french_counts_take_their_plural() -> None:
    """Walkthrough: "a gagné 1 parties sur 4", "a sauvé 1 personnage(s)"."""
    from controller.games import registry
    from controller.translation import translate

    registry.kinds()
    first = {"games": 4, "rate": "25 %", "fair": "50 %"}
    assert "gagné 1 partie sur 4" in translate("fr", "stats.first", n=1, **first)
    assert "gagné 2 parties sur 4" in translate("fr", "stats.first", n=2, **first)
    one = translate("fr", "history.round_result", r=1, p="Anne", n=1, pts=2)
    assert one == "Manche 1 : Anne a sauvé 1 personnage, 2 points"
    assert "(s)" not in translate("fr", "history.round_result", r=1, p="Anne", n=3, pts=10)


def test_a_devil_line_does_not_say_devil_twice() -> None:
    """Walkthrough: the round history read "Taste 1 · Teufel · Teufel +3 bis 36" (the die's
    face, then the devil figure's move): the move names the figure."""
    from controller.translation import sentence

    assert sentence("de", "devil +{n} to {square}", n=3, square=36) == "Teufelsfigur +3 bis 36"
    said = sentence("fr", "devil +{n} to {square}", n=12, square=36)
    assert said == "pion du diable +12 jusqu’à 36"
