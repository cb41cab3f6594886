"""The box says what happens at the table, aloud (``[sound]`` in the config; docs/sound.md).

:func:`events` turns one change of a game (the state before, the state after) into
announcements, each a catalog key and its parameters: the devil moving, a figure caught or
home (the Diable sauteur), a player possessed (Teufel Teufel), the winner, the end.
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
from collections.abc import Callable, Sequence
from typing import Any

from controller.translation import translate

log = logging.getLogger(__name__)

Announcement = tuple[str, dict[str, Any]]
"""(catalog key ``say.*``, parameters)."""

VOICES = {"en": "en", "fr": "fr", "de": "de"}
"""espeak-ng voice per dashboard language."""


def events(kind: str, before: Any, after: Any, names: Sequence[str]) -> list[Announcement]:
    """What to say about one change of a ``kind`` game. ``names``: the seats' names in
    seat order (the sauteur's p1, p2; the tail-tile game's seats) for the winner."""
    if before is None or after is None:
        return []
    if kind == "sauteur":
        return _sauteur(before, after, names)
    if kind == "teufel":
        return _teufel(before, after)
    if kind == "tails":
        return _tails(before, after, names)
    return []


def _sauteur(before: Any, after: Any, names: Sequence[str]) -> list[Announcement]:
    from controller.games.sauteur.rules import OVER

    said: list[Announcement] = []
    new = _entries(after.history)[len(_entries(before.history)) :]
    for entry in new:
        kind, detail = entry[4], entry[5]
        if kind == "devil":
            squares, _, caught = detail
            said.append(("say.devil", {"n": squares}))
            said += [("say.capture", {"figure": ("figure", name)}) for name in caught]
        elif kind == "move" and detail[3]:
            said.append(("say.arrived", {"figure": ("figure", detail[0])}))
    if after.phase == OVER and before.phase != OVER:
        winner = after.winner
        if winner in ("p1", "p2"):
            said.append(("say.wins", {"p": names[0 if winner == "p1" else 1]}))
        else:
            said.append(("say.over", {}))
    return said


def _entries(history: Any) -> list[Any]:
    entries = []
    while history is not None:
        entries.append(history[0])
        history = history[1]
    return entries


def _teufel(before: Any, after: Any) -> list[Announcement]:
    said: list[Announcement] = [
        ("say.possessed", {"colour": ("teufel.colour", player.colour)})
        for old, player in zip(before.players, after.players, strict=True)
        if player.devil and not old.devil
    ]
    if after.pending.kind == "over" and before.pending.kind != "over":
        said.append(("say.over", {}))
    return said


def _tails(before: Any, after: Any, names: Sequence[str]) -> list[Announcement]:
    if not after.finished or before.finished:
        return []
    from controller.games.tails.rules import game_view

    seats = game_view(after)["winning_seats"]
    if len(seats) == 1:
        return [("say.wins", {"p": names[seats[0]]})]
    return [("say.over", {})]


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
        self._queue: queue.Queue[str | None] = queue.Queue()
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

    def close(self) -> None:
        """Say what is queued, then stop the thread."""
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join(timeout=30)

    def _speak_all(self) -> None:
        while (text := self._queue.get()) is not None:
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
        self._last: dict[int, Any] = {}

    def attach(self, table: Any) -> None:
        """Listen to ``table`` (a :class:`controller.table.Table`) from its present state."""
        self._last[table.game_id] = table.state
        table.listeners.append(self._changed)

    def detach(self, game_id: int) -> None:
        """Forget a game that left play (deleted, abandoned)."""
        self._last.pop(game_id, None)

    def _changed(self, table: Any) -> None:
        before, after = self._last.get(table.game_id), table.state
        self._last[table.game_id] = after
        kind = table.rules.name
        for announcement in events(kind, before, after, self._names(kind, table.seats)):
            self.speaker.say(sentence(self.lang, announcement))

    def _names(self, kind: str, seats: Sequence[dict[str, Any]]) -> list[str]:
        def default(index: int) -> str:
            if kind == "sauteur":
                return translate(self.lang, f"player.p{index + 1}")
            return translate(self.lang, "tails.player", n=index + 1)

        count = max(len(seats), 4)
        return [
            str((seats[i] if i < len(seats) and seats[i] else {}).get("name") or default(i))
            for i in range(count)
        ]
