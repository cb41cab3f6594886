"""The box says what happens aloud: events from real game changes, words from the catalogs in
each language, espeak-ng producing audio, and a speaker that turns itself off."""

from __future__ import annotations

import os
import shutil
import subprocess
import wave
from pathlib import Path
from typing import Any, ClassVar

import pytest

from controller.announce import Announcer, Speaker, events, sentence
from controller.bench.teufel import random_game
from controller.games.sauteur import SauteurRules

SAUTEUR = SauteurRules()

SAID = {
    ("say.devil", 12): {
        "en": "The devil moves 12 squares",
        "fr": "Le diable avance de 12 cases",
        "de": "Der Teufel zieht 12 Felder vor",
    },
    ("say.devil", 1): {
        "en": "The devil moves 1 square",
        "fr": "Le diable avance de 1 case",
        "de": "Der Teufel zieht 1 Feld vor",
    },
    ("say.capture", "green"): {
        "en": "Green is caught",
        "fr": "Vert est capturé",
        "de": "Grün ist gefangen",
    },
    ("say.arrived", "blue"): {
        "en": "Blue is home",
        "fr": "Bleu est arrivé",
        "de": "Blau ist im Ziel",
    },
    ("say.possessed", "blue"): {
        "en": "Blue is possessed",
        "fr": "Bleu est possédé",
        "de": "Blau ist besessen",
    },
    ("say.wins", "Ann"): {"en": "Ann wins", "fr": "Ann gagne", "de": "Ann gewinnt"},
    ("say.over", None): {
        "en": "The game is over",
        "fr": "La partie est finie",
        "de": "Das Spiel ist vorbei",
    },
}


def announcement(key: str, value: Any) -> tuple[str, dict[str, Any]]:
    params: dict[str, Any] = {
        "say.devil": {"n": value},
        "say.capture": {"figure": ("figure", value)},
        "say.arrived": {"figure": ("figure", value)},
        "say.possessed": {"colour": ("teufel.colour", value)},
        "say.wins": {"p": value},
        "say.over": {},
    }[key]
    return key, params


@pytest.mark.parametrize("lang", ["en", "fr", "de"])
def test_every_announcement_is_said_in_each_language(lang: str) -> None:
    for (key, value), words in SAID.items():
        assert sentence(lang, announcement(key, value)) == words[lang]


def test_a_devil_pop_says_how_far_the_devil_moves_and_whom_it_catches() -> None:
    state = SAUTEUR.setup({"rule": "A", "figures": {"blue": 2, "orange": 10, "green": 15}})
    state = SAUTEUR.apply(state, {"type": "hidden"})
    state = SAUTEUR.apply(state, {"type": "pop", "key": 1, "by": state.popper})
    after = SAUTEUR.apply(state, {"type": "face", "face": "devil"})  # key 1: 3 squares
    assert events("sauteur", state, after, ["Ann", "Bob"]) == [
        ("say.devil", {"n": 3}),
        ("say.capture", {"figure": ("figure", "blue")}),
    ]
    assert events("sauteur", after, after, ["Ann", "Bob"]) == []  # nothing new, nothing said


def test_a_later_pop_says_its_own_devil_not_the_first_one() -> None:
    """The history is kept newest first: a change says its own new lines."""
    state = SAUTEUR.setup({"rule": "A", "figures": {"blue": 2, "orange": 10, "green": 15}})
    for action in (
        {"type": "hidden"},
        {"type": "pop", "key": 1, "by": "p2"},
        {"type": "face", "face": "devil"},  # 3 squares: blue caught
        {"type": "hidden"},
        {"type": "pop", "key": 4, "by": "p2"},
    ):
        state = SAUTEUR.apply(state, action)
    after = SAUTEUR.apply(state, {"type": "face", "face": "devil"})  # key 4: 12 squares
    assert events("sauteur", state, after, ["Ann", "Bob"])[0] == ("say.devil", {"n": 12})


def test_a_player_possessed_in_a_real_teufel_game_is_said() -> None:
    seen: list[tuple[str, dict[str, Any]]] = []

    def check(before: Any, action: dict[str, Any], after: Any) -> None:
        seen.extend(events("teufel", before, after, []))

    random_game(3, check=check)
    possessed = [params["colour"][1] for key, params in seen if key == "say.possessed"]
    assert possessed, "a random game where nobody is ever possessed"
    assert seen[-1] == ("say.over", {})


def test_the_speaker_is_off_without_a_sound_card_and_says_why() -> None:
    def no_card(command: list[str]) -> subprocess.CompletedProcess[str]:
        assert command == ["aplay", "-l"]
        return subprocess.CompletedProcess(command, 1, "", "aplay: no soundcards found...")

    speaker = Speaker("de", run=no_card)
    assert not speaker.enabled and "no sound card" in speaker.reason
    speaker.say("Blau ist besessen")  # nothing queued, nothing run
    speaker.close()
    assert speaker.spoken == []


def test_the_speaker_says_each_sentence_once_in_order_with_the_languages_voice() -> None:
    ran: list[list[str]] = []

    def card(command: list[str]) -> subprocess.CompletedProcess[str]:
        ran.append(command)
        out = (
            "card 0: vc4hdmi [vc4-hdmi], device 0: MAI PCM i2s-hifi-0\n"
            if command[0] == "aplay"
            else ""
        )
        return subprocess.CompletedProcess(command, 0, out, "")

    speaker = Speaker("fr", run=card)
    assert speaker.enabled, speaker.reason
    announcer = Announcer(speaker, "fr")

    devil_out(announcer)
    speaker.close()
    assert speaker.spoken == ["Le diable avance de 3 cases", "Bleu est capturé"]
    assert ran[1:] == [["espeak-ng", "-v", "fr", text] for text in speaker.spoken]


@pytest.mark.skipif(
    shutil.which("espeak-ng") is None and not os.environ.get("DIABLOTIN_REQUIRE_ESPEAK"),
    reason="espeak-ng is not installed (CI installs it)",
)
@pytest.mark.parametrize("lang", ["en", "fr", "de"])
def test_espeak_ng_makes_audio_for_every_kind_of_announcement(lang: str, tmp_path: Path) -> None:
    for (key, _), words in SAID.items():
        out = tmp_path / f"{key}-{lang}.wav"
        subprocess.run(["espeak-ng", "-v", lang, "-w", str(out), words[lang]], check=True)
        with wave.open(str(out)) as audio:
            seconds = audio.getnframes() / audio.getframerate()
        assert 0.3 < seconds < 10, (key, lang, seconds)


def test_a_change_is_worded_on_the_speakers_thread_not_the_changers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A listener must return at once (the referee's answer waits for it): what to say is
    worked out on the speaker's thread (issue 25, point 2), and not at all when it is off."""
    import threading

    from controller import announce

    def card(command: list[str]) -> subprocess.CompletedProcess[str]:
        out = "card 0: vc4hdmi [vc4-hdmi], device 0\n" if command[0] == "aplay" else ""
        return subprocess.CompletedProcess(command, 0, out, "")

    worded_on: list[str] = []
    real_events = announce.events

    def spy(*args: Any) -> Any:
        worded_on.append(threading.current_thread().name)
        return real_events(*args)

    monkeypatch.setattr(announce, "events", spy)

    for speaker in (Speaker("de", run=card), Speaker("de", run=lambda c: card(["none"]))):
        devil_out(Announcer(speaker, "de"))
        speaker.close()
    assert worded_on == ["speaker"]  # once, by the speaker that is on


def devil_out(announcer: Announcer) -> None:
    """A rule-A sauteur table (what the announcer reads of one: id, rules' name, seats,
    state, listeners) attached to ``announcer``, then changed: the devil pops from key 1
    (it moves 3 squares and catches blue)."""

    class Table:
        game_id = 1
        seats: ClassVar = [{"name": "Ann"}, {"name": "Bob"}]

        class rules:
            name = "sauteur"

    state = SAUTEUR.setup({"rule": "A", "figures": {"blue": 2, "orange": 10, "green": 15}})
    state = SAUTEUR.apply(state, {"type": "hidden"})
    state = SAUTEUR.apply(state, {"type": "pop", "key": 1, "by": state.popper})
    table = Table()
    table.listeners = []  # type: ignore[attr-defined]
    table.state = state  # type: ignore[attr-defined]
    announcer.attach(table)  # type: ignore[arg-type]
    table.state = SAUTEUR.apply(state, {"type": "face", "face": "devil"})  # type: ignore[attr-defined]
    for listener in table.listeners:  # type: ignore[attr-defined]
        listener(table)
