"""The CLI says why it stops in the environment's language (LANGUAGE, LC_ALL, LC_MESSAGES,
LANG, as gettext reads them): its own sentences and argparse's come from the catalogs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def diablotin(lang: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DIABLOTIN_CONFIG", "LC_ALL")}
    env |= {"LANGUAGE": lang}
    return subprocess.run(
        [sys.executable, "-m", "controller.cli", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


CASES = {  # what a user gets wrong -> (status, English, French, German)
    "unknown game": (
        ["export", "999"],
        2,
        "diablotin: no game 999",
        "diablotin: pas de partie 999",
        "diablotin: kein Spiel 999",
    ),
    "export without an id": (
        ["export"],
        2,
        "export needs a game id (or --raw -o FOLDER)",
        "export demande un numéro de partie (ou --raw -o DOSSIER)",
        "export braucht eine Spielnummer (oder --raw -o ORDNER)",
    ),
    "no games": (
        ["games"],
        0,
        "no games yet",
        "pas encore de partie",
        "noch keine Spiele",
    ),
    "unknown command": (
        ["bogus"],
        2,
        "invalid choice: 'bogus'",
        "choix invalide : 'bogus'",
        "ungültige Wahl: 'bogus'",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("lang", ["en", "fr", "de"])
def test_a_failing_command_says_why_in_the_users_language(
    case: str, lang: str, tmp_path: Path
) -> None:
    args, status, *said = CASES[case]
    result = diablotin(lang, "--data-dir", str(tmp_path), *args)
    assert result.returncode == status, result.stderr
    assert said[["en", "fr", "de"].index(lang)] in result.stdout + result.stderr


NOT_A_JOURNAL = {
    "en": "is not a Diablotin journal (not an SQLite file); nothing was changed",
    "fr": "n’est pas un journal Diablotin (pas un fichier SQLite) ; rien n’a été changé",
    "de": "ist kein Diablotin-Journal (keine SQLite-Datei); nichts wurde geändert",
}


@pytest.mark.parametrize("lang", sorted(NOT_A_JOURNAL))
def test_restoring_a_file_that_is_not_a_journal_is_refused_in_the_users_language(
    lang: str, tmp_path: Path
) -> None:
    said = NOT_A_JOURNAL[lang]
    other = tmp_path / "notes.db"
    other.write_text("hello\n")
    result = diablotin(lang, "--data-dir", str(tmp_path / "data"), "restore", str(other))
    assert result.returncode == 2
    assert said in result.stderr
    assert not (tmp_path / "data" / "journal.db").exists()


CONFIG_ERROR = {
    "en": "config error: {bad}: limits.pulse_ms: pulse_ms must be in (0, 100] ms, got 150",
    "fr": "erreur de configuration : {bad} : limits.pulse_ms : pulse_ms doit être dans",
    "de": "Konfigurationsfehler: {bad}: limits.pulse_ms: pulse_ms muss in (0, 100] ms",
}


@pytest.mark.parametrize("lang", sorted(CONFIG_ERROR))
def test_a_config_error_is_told_in_the_users_language(lang: str, tmp_path: Path) -> None:
    said = CONFIG_ERROR[lang]
    bad = tmp_path / "bad.toml"
    bad.write_text("[limits]\npulse_ms = 150\n")
    result = diablotin(lang, "--config", str(bad), "serve")
    assert result.returncode == 78
    assert said.format(bad=bad) in result.stderr


def test_lang_is_read_when_language_is_unset(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES")}
    result = subprocess.run(
        [sys.executable, "-m", "controller.cli", "--data-dir", str(tmp_path), "export", "7"],
        cwd=REPO,
        env=env | {"LANG": "de_DE.UTF-8"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.stderr.strip() == "diablotin: kein Spiel 7"


def test_the_games_table_is_in_the_users_language(tmp_path: Path) -> None:
    example = REPO / "docs" / "examples" / "game-tails.json"
    stored = diablotin("de", "--data-dir", str(tmp_path), "replay", str(example), "--import")
    assert stored.returncode == 0 and "als Spiel 1 gespeichert" in stored.stderr
    table = diablotin("de", "--data-dir", str(tmp_path), "games").stdout.splitlines()
    assert table[0].split() == ["Nr.", "Spiel", "Stand", "begonnen", "Spieler", "Titel"]
    assert "Auf Teufel komm raus!  beendet" in table[1]
