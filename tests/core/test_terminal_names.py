"""`diablotin play sauteur --names`: the terminal says the players' names, not p1/p2."""

from __future__ import annotations

import io

from controller.config import Config
from controller.journal import Journal
from controller.terminal_sauteur import play_sauteur


def test_the_terminal_uses_the_players_names_and_seats_roster_players(tmp_path):
    config = Config(data_dir=tmp_path / "data")
    config.box.seed = 5
    journal = Journal(tmp_path / "kept.sqlite3")
    journal.save_player("Zoé", "🦊")
    prompts: list[str] = []

    def read(prompt: str) -> str:
        prompts.append(prompt)
        return "q"

    out = io.StringIO()
    code = play_sauteur(
        config, read=read, out=out, delays=(0.01, 0.01, 0.01), journal=journal, names=["zoé", "Max"]
    )
    assert code == 1
    text = out.getvalue()
    assert "hider Zoé  popper Max" in text  # rule A, p1 hides first
    assert "scores Zoé 0, Max 0" in text
    assert prompts == ["Max > "]
    assert "p1" not in text and "p2" not in text
    reopened = Journal(tmp_path / "kept.sqlite3")
    (game,) = reopened.games()
    assert [(s["name"], s["player"]) for s in game.seats or []] == [("Zoé", 1), ("Max", None)]
    reopened.close()


def test_the_terminal_speaks_german_and_french(tmp_path):
    english_only = ("round 1/2", "popped this hiding", "waiting for", "pops a key", "refused")
    for lang, expected in (
        ("de", ["Runde 1/2  versteckt: Anna  drückt: Ben", "es fehlt: Ben drückt eine Taste"]),
        ("fr", ["manche 1/2  cache : Anna  appuie : Ben", "on attend : Ben appuie sur une touche"]),
    ):
        answers = iter(["r", "q"])  # a new hiding before any pop is refused, then quit
        out = io.StringIO()
        code = play_sauteur(
            Config(data_dir=tmp_path / lang),
            read=lambda prompt, answers=answers: next(answers),
            out=out,
            delays=(0.01, 0.01, 0.01),
            journal=Journal(tmp_path / f"{lang}.sqlite3"),
            names=["Anna", "Ben"],
            lang=lang,
        )
        assert code == 1
        text = out.getvalue()
        for words in expected:
            assert words in text, (lang, text)
        assert ("abgelehnt:" if lang == "de" else "refusé :") in text  # the refusal, translated
        assert not [words for words in english_only if words in text], (lang, text)


def test_the_terminal_language_comes_from_the_environment_as_gettext_reads_it():
    from controller.cli import environment_language

    assert environment_language({"LANG": "de_DE.UTF-8"}) == "de"
    assert environment_language({"LANGUAGE": "fr:en", "LANG": "de_DE.UTF-8"}) == "fr"
    assert environment_language({"LC_ALL": "C.UTF-8", "LANG": "fr_CA.UTF-8"}) == "fr"
    assert environment_language({"LANG": "es_ES.UTF-8"}) == "en"
    assert environment_language({}) == "en"
