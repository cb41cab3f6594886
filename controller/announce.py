"""The box says what happens at the table, aloud (``[sound]`` in the config; docs/sound.md).

:func:`events` turns one change of a game (the state before, the state after) into
announcements, each a catalog key and its parameters, as the game's package declares them
(``GameKind.voice``, e.g. ``controller/games/sauteur/voice.py``: the devil moving, a figure
caught or home; Teufel Teufel's player possessed; the winner, the end).
:func:`sentence` makes the words in a language from the same gettext catalogs as the
dashboard. :class:`Speaker` speaks them with espeak-ng through ALSA's default output (HDMI,
a USB speaker or an I2S amplifier), one at a time, never blocking the game; it turns itself
off, with the reason in the log, when espeak-ng is missing or ALSA has no sound card (a Pi
Zero 2 W has no audio jack).
"""

from __future__ import annotations

import logging
import queue
import shutil
import subprocess
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from controller.games import registry
from controller.translation import Announcement, Voice, translate

if TYPE_CHECKING:
    from controller.table import Table

__all__ = ["Announcement", "Announcer", "Speaker", "events", "sentence"]

log = logging.getLogger(__name__)

VOICES = {"en": "en", "fr": "fr", "de": "de"}
"""espeak-ng voice per dashboard language."""


def events(kind: str, before: object, after: object, names: Sequence[str]) -> list[Announcement]:
    """What to say about one change of a ``kind`` game, as its package declares it
    (``GameKind.voice``; nothing for a kind without one). ``names``: the seats' names in
    seat order, for the winner."""
    voice = _voice(kind)
    if before is None or after is None or voice is None:
        return []
    return voice.events(before, after, names)


def _voice(kind: str) -> Voice | None:
    return next((game.voice for game in registry.kinds() if game.name == kind), None)


def sentence(lang: str, announcement: Announcement) -> str:
    """The words of ``announcement`` in ``lang`` (figure and colour names translated too)."""
    key, params = announcement
    words = {  # (prefix, name): the message ``prefix.name``, e.g. ("figure", "blue")
        name: translate(lang, f"{value[0]}.{value[1]}") if isinstance(value, tuple) else value
        for name, value in params.items()
    }
    text = translate(lang, key, **words)
    return text[:1].upper() + text[1:]


class Speaker:
    """Says sentences with espeak-ng, one at a time, on a thread of its own.

    ``enabled`` is False, with ``reason`` saying why, when espeak-ng is not installed or
    ALSA lists no sound card (``aplay -l``). ``run`` is the command runner (tests)."""

    def __init__(
        self,
        lang: str,
        run: Callable[[list[str]], subprocess.CompletedProcess[str]] | None = None,
    ) -> None:
        self.lang = lang if lang in VOICES else "en"
        self._run = run or _run
        self.reason = self._probe()
        self.enabled = self.reason == ""
        self.spoken: list[str] = []
        self._queue: queue.Queue[str | Callable[[], list[str]] | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        if self.enabled:
            self._thread = threading.Thread(target=self._speak_all, name="speaker", daemon=True)
            self._thread.start()
        else:
            log.info("the box will not speak: %s", self.reason)

    def _probe(self) -> str:
        if self._run is _run and shutil.which("espeak-ng") is None:
            return "espeak-ng is not installed (apt install espeak-ng)"
        try:
            cards = self._run(["aplay", "-l"])
        except OSError:
            return "ALSA's aplay is missing (apt install alsa-utils)"
        if cards.returncode != 0 or "card " not in cards.stdout:
            return "ALSA has no sound card (HDMI, a USB speaker or an I2S amplifier)"
        return ""

    def say(self, text: str) -> None:
        """Queue ``text``; returns at once. Nothing happens when the speaker is off."""
        if self.enabled:
            self._queue.put(text)

    def say_later(self, words: Callable[[], list[str]]) -> None:
        """Queue ``words``, called on the speaker's thread for the sentences to say (so
        that whoever changed the game does not wait for them); returns at once. Nothing is
        called when the speaker is off."""
        if self.enabled:
            self._queue.put(words)

    def close(self) -> None:
        """Say what is queued, then stop the thread."""
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join(timeout=30)

    def _speak_all(self) -> None:
        while (item := self._queue.get()) is not None:
            try:
                texts = [item] if isinstance(item, str) else item()
            except Exception:  # a wording that fails must not silence the box for good
                log.exception("an announcement could not be worded")
                continue
            for text in texts:
                try:
                    self._run(["espeak-ng", "-v", VOICES[self.lang], text])
                    self.spoken.append(text)
                except OSError as exc:
                    log.warning("espeak-ng failed: %s", exc)


def _run(command: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, timeout=30, check=False)


class Announcer:
    """Speaks every attached table's events (:func:`events`) in ``lang`` on ``speaker``."""

    def __init__(self, speaker: Speaker, lang: str) -> None:
        self.speaker = speaker
        self.lang = lang
        self._last: dict[int, object] = {}

    def attach(self, table: Table) -> None:
        """Listen to ``table`` (a :class:`controller.table.Table`) from its present state."""
        self._last[table.game_id] = table.state
        table.listeners.append(self._changed)

    def detach(self, game_id: int) -> None:
        """Forget a game that left play (deleted, abandoned)."""
        self._last.pop(game_id, None)

    def _changed(self, table: Table) -> None:
        """A table's listener: returns at once; the words are made on the speaker's thread."""
        before, after = self._last.get(table.game_id), table.state
        self._last[table.game_id] = after
        kind, seats = table.rules.name, list(table.seats)

        def words() -> list[str]:
            found = events(kind, before, after, self._names(kind, seats))
            return [sentence(self.lang, announcement) for announcement in found]

        self.speaker.say_later(words)

    def _names(self, kind: str, seats: Sequence[Mapping[str, object]]) -> list[str]:
        """Each seat's player's name, else what the kind calls an unnamed seat."""
        voice = _voice(kind) or Voice(lambda before, after, names: [])

        def default(index: int) -> str:
            key, params = voice.seat_name(index)
            return translate(self.lang, key, **params)

        count = max(len(seats), 4)
        return [
            str((seats[i] if i < len(seats) and seats[i] else {}).get("name") or default(i))
            for i in range(count)
        ]
