"""The words people read, in their language, from the gettext catalogs: below the web, so
that the box's voice (:mod:`controller.announce`), the terminal, the CLI and the pages all
speak the same way (docs/translations.md).

``english()[key]`` is every message, in English: that English is the gettext msgid and
``key`` its ``msgctxt``. :data:`ENGLISH` holds the messages of the box itself; each game kind
declares its own (:class:`Strings`, in ``controller/games/<kind>/strings.py``), and the game
registry hands them here with :func:`add_kind` when it registers the kind (this module
imports no game). The translations live in ``controller/locales/<lang>/LC_MESSAGES/
messages.po`` (compiled to ``.mo``, shipped as package data; ``python -m
controller.web.catalogs`` rebuilds them). ``{name}`` placeholders are filled by
``translate(lang, key, name=value)``; numbers and lists are written the language's way
(CLDR, via Babel).
"""

from __future__ import annotations

import gettext
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Protocol

from controller.sentences import Refused, Said, said_of

LANGS = ("en", "fr", "de")
DOMAIN = "messages"

Word = Callable[[str], tuple[str, dict[str, str]] | None]
"""How a kind names a sentence parameter's value (a colour, a card) in words: the message
key and its own parameters, or ``None`` when it is not one of its words."""


@dataclass(frozen=True)
class Strings:
    """A game kind's messages, declared as data in its package: ``english`` (key -> the
    English, as :data:`ENGLISH`), ``plurals`` (key -> the English plural, as
    :data:`PLURALS`) and ``words``: a sentence parameter's name -> how the kind names its
    values in a reader's language (Teufel Teufel's ``who``, ``card``; see
    :func:`sentence`)."""

    english: Mapping[str, str] = field(default_factory=dict)
    plurals: Mapping[str, str] = field(default_factory=dict)
    words: Mapping[str, Word] = field(default_factory=dict)


Announcement = tuple[str, dict[str, object]]
"""What the box says (:mod:`controller.announce`): a message key (``say.*``) and its
parameters; a parameter ``(prefix, name)`` is said as the message ``prefix.name`` (a
figure's or a colour's name in the listener's language)."""


def _player_n(index: int) -> Announcement:
    return f"player.p{index + 1}", {}


@dataclass(frozen=True)
class Voice:
    """What the box says aloud about a game kind, declared by its package:
    ``events(before, after, names)``, the announcements of one change of state (states of
    another kind: none), ``names`` the seats' names in seat order; ``seat_name(index)``,
    how an unnamed seat is called (by default "Player 1", "Player 2")."""

    events: Callable[[object, object, Sequence[str]], list[Announcement]]
    seat_name: Callable[[int], Announcement] = _player_n


class Titled(Protocol):
    """A declared message (:class:`controller.games.registry.Message`)."""

    @property
    def msgid(self) -> str: ...


@dataclass(frozen=True)
class _Tables:
    english: dict[str, str]
    plurals: dict[str, str]
    words: dict[str, Word]
    titles: dict[str, str]


_KINDS: dict[str, tuple[str, Strings]] = {}
_LOADERS: list[Callable[[], object]] = []


def add_kind(name: str, title: str, strings: Strings | None) -> None:
    """Let the lookups know game kind ``name``: its title's msgid (``kind.<name>``) and its
    messages (the registry calls this as it registers a kind)."""
    _KINDS[name] = (title, strings or Strings())
    _tables.cache_clear()


def remove_kind(name: str) -> None:
    """Forget game kind ``name``'s title and messages."""
    _KINDS.pop(name, None)
    _tables.cache_clear()


def _field(value: str) -> tuple[str, dict[str, str]] | None:
    """A free-text field a refusal names (``name``, ``title``: :func:`~controller.text.clean_text`)
    in words: "le nom doit faire au plus 24 caractères", not "name doit…"."""
    return (f"field.{value}", {}) if f"field.{value}" in ENGLISH else None


def load_kinds_with(loader: Callable[[], object]) -> None:
    """Run ``loader`` (the registry's loading of the built-in kinds, which calls
    :func:`add_kind`) before the first lookup that needs the kinds' messages."""
    _LOADERS.append(loader)


def _loaded() -> _Tables:
    while _LOADERS:
        _LOADERS.pop()()
    return _tables()


@cache
def _tables() -> _Tables:
    english, plurals = dict(ENGLISH), dict(PLURALS)
    words: dict[str, Word] = {"field": _field}
    titles: dict[str, str] = {}
    for name, (title, strings) in _KINDS.items():
        english[title] = title  # a title is its own key (no msgctxt)
        english.update(strings.english)
        plurals.update(strings.plurals)
        words.update(strings.words)
        titles[name] = title
    return _Tables(english, plurals, words, titles)


def english() -> dict[str, str]:
    """Every message's English by key: the box's own and every registered kind's."""
    return _loaded().english


def plurals() -> dict[str, str]:
    """Every plural message's English plural by key (:data:`PLURALS` and the kinds')."""
    return _loaded().plurals


@cache
def catalog(lang: str) -> gettext.NullTranslations:
    """The compiled catalog of ``lang`` (English, i.e. the msgids themselves, when there is
    none), read once from the package data by the standard library's :mod:`gettext` (the
    ``.mo`` files Babel compiles; Babel itself is imported only to write numbers, lists and
    language names, so that a start-up does not pay for it)."""
    if lang == "en":
        return gettext.NullTranslations()
    with resources.as_file(resources.files("controller") / "locales") as folder:
        return gettext.translation(DOMAIN, str(folder), [lang], fallback=True)


def _lookup(lang: str, key: str) -> str | None:
    text = english().get(key)
    if text is None:
        return None
    return _gettext(lang, key, text)


def _gettext(lang: str, key: str, english_text: str, n: int = 1) -> str:
    """``english_text`` translated; a key that is its own English (a game title) has no
    context; a plural key (:func:`plurals`) takes the form for ``n``."""
    if key == english_text:
        return str(catalog(lang).gettext(english_text))
    plural = plurals().get(key)
    if plural is not None:
        return str(catalog(lang).npgettext(key, english_text, plural, n))
    return str(catalog(lang).pgettext(key, english_text))


def plural_forms(lang: str, key: str) -> list[str]:
    """Every form of plural ``key`` in ``lang``, in the catalog's order (the language's CLDR
    plural categories in the order zero, one, two, few, many, other, as Babel writes them)."""
    forms: dict[tuple[str, int], str] = getattr(catalog(lang), "_catalog", {})
    msgid = f"{key}\x04{english()[key]}"
    found = [forms[(msgid, i)] for i in range(6) if (msgid, i) in forms]
    return found or [english()[key], plurals()[key]]


_ELIDABLE = re.compile(r"\b([Dd]e|[Qq]ue) \{(\w+)\}")
_VOWEL_START = re.compile(r"[aeiouyhàâäéèêëîïôöûüœæ][^\s\d]*(\s|$)", re.IGNORECASE)


def elided(lang: str, text: str, values: Mapping[str, object]) -> str:
    """French elision before a name filled in: "de {p}" becomes "d’{p}" and "que {p}"
    "qu’{p}" when ``values[p]`` is a word starting with a vowel or an h ("d’Élodie",
    "qu’Ömer"), not a square or a number ("de e2", "de 8"). Other languages as they are."""
    if lang != "fr" or "{" not in text:
        return text

    def elide(match: re.Match[str]) -> str:
        word, name = match[1], match[2]
        value = values.get(name)
        if not isinstance(value, str) or not _VOWEL_START.match(value):
            return match[0]
        return f"{word[0]}{'’' if word[0] in 'dD' else 'u’'}{{{name}}}"

    return _ELIDABLE.sub(elide, text)


def translate(lang: str, key: str, /, **values: object) -> str:
    """The message ``key`` in ``lang`` (English, then the key itself, if missing), its
    plural form chosen by ``n`` when it has one. ``kind.<name>`` is a game's title
    (:func:`kind_title`). Numbers are written the language's way (CLDR, via Babel)."""
    english_text = english().get(key)
    n = values.get("n", 1)
    text = (
        None
        if english_text is None
        else _gettext(lang, key, english_text, n if isinstance(n, int) else 1)
    )
    if text is None and key.startswith("kind."):
        text = kind_title(lang, key.removeprefix("kind."))
    text = elided(lang, text or key, values)
    if not values:
        return text
    if not any(isinstance(value, float) for value in values.values()):
        return text.format(**values)  # Babel only for fractions (0,5 in French)
    from babel.numbers import format_decimal

    shown = {  # a fraction the language's way (0,5 in French); whole numbers as they are
        name: format_decimal(value, locale=lang) if isinstance(value, float) else value
        for name, value in values.items()
    }
    return text.format(**shown)


def translator(lang: str) -> Callable[..., str]:
    """A gettext-style function for ``lang``, usable outside a request (announcements, CLI):
    ``_ = translator("fr"); _("Devils, Devils")`` or ``_(key="nav.home")``; ``{names}`` are
    filled from keyword arguments."""

    def _(msgid: str = "", *, key: str | None = None, **params: object) -> str:
        if key is not None:
            return translate(lang, key, **params)
        text = str(catalog(lang).gettext(msgid))
        return text.format(**params) if params else text

    return _


def message(lang: str, msg: Titled, **params: object) -> str:
    """A declared message (e.g. a game's title) in ``lang``, found by its English msgid;
    the English itself when there is no translation."""
    text = str(catalog(lang).gettext(msg.msgid))
    return text.format(**params) if params else text


def refusal_text(refused: Refused, lang: str) -> str:
    """A rules refusal as a sentence in ``lang`` (:func:`sentence` of its template and
    params); in English, its ``reason``."""
    if lang == "en":
        return refused.reason
    return sentence(lang, refused.template, **refused.params)


def said_text(lang: str, text: str) -> str:
    """``text`` in ``lang``: a :class:`~controller.games.base.Said` is made again from its
    template and params (:func:`sentence`); any other text is data, shown as it is."""
    if lang == "en" or not isinstance(text, Said):
        return str(text)
    return sentence(lang, text.template, **text.params)


def error_text(lang: str, error: BaseException) -> str:
    """Why ``error`` happened, in ``lang`` (:func:`~controller.games.base.said_of`)."""
    return said_text(lang, said_of(error))


def language_name(lang: str) -> str:
    """A language's name in itself (CLDR, via Babel): ``Deutsch``, ``Français``."""
    from babel import Locale

    name: str = Locale.parse(lang).get_display_name(lang) or lang
    return name[:1].upper() + name[1:]


def sentence(lang: str, template: str, /, **params: object) -> str:
    """An engine's sentence (its English ``template``, the msgid) in ``lang``, filled from
    ``params`` as the pages do: a :class:`~controller.games.base.Said` is made in ``lang``
    too, a parameter a game kind names in words (:attr:`Strings.words`: Teufel Teufel's
    colours and cards) is named in ``lang``, a list is written the language's way ("a, b
    und c"). The English when the catalog has no translation."""
    words = {name: _param_words(lang, name, value) for name, value in params.items()}
    text = elided(lang, str(catalog(lang).gettext(template)), words)
    try:
        return text.format(**words)
    except (KeyError, IndexError, ValueError):
        return template.format(**words)


def _param_words(lang: str, name: str, value: object) -> object:
    if isinstance(value, Said):
        return said_text(lang, value)
    if isinstance(value, list | tuple):
        from babel.lists import format_list

        words = [str(_param_words(lang, name, item)) for item in value]
        return format_list(words, style="or" if name == "choices" else "standard", locale=lang)
    if lang == "en" or not isinstance(value, str):
        return value
    word = _loaded().words.get(name)
    named = None if word is None else word(value)
    if named is None:
        return value
    key, key_params = named
    if key not in english():
        return value
    return translate(lang, key, **{n: _param_words(lang, n, v) for n, v in key_params.items()})


def kind_title(lang: str, name: str) -> str:
    """The display name of game kind ``name`` in ``lang`` (the name itself if unknown)."""
    title = _loaded().titles.get(name)
    return name if title is None else str(catalog(lang).gettext(title))


def page_messages(lang: str) -> dict[str, str | list[str]]:
    """Everything a page's scripts translate with: the messages of ``lang`` (a plural key:
    its forms, see :func:`plural_forms`) and every registered game's title as
    ``kind.<name>``."""
    table: dict[str, str | list[str]] = {
        key: _gettext(lang, key, text) for key, text in english().items()
    }
    for key in plurals():
        table[key] = plural_forms(lang, key)
    titles = {f"kind.{name}": kind_title(lang, name) for name in _loaded().titles}
    return engine_sentences(lang) | table | titles


@cache
def engine_sentences(lang: str) -> dict[str, str]:
    """The engines' sentences (refusal templates, history lines: the catalog's messages
    without a context) in ``lang``, keyed by their English template, for the scripts to
    make an engine's ``{"template", "params"}`` in the page's language. Empty for English
    (the template is the text)."""
    forms: dict[object, str] = getattr(catalog(lang), "_catalog", {})
    return {
        msgid: text
        for msgid, text in forms.items()
        if isinstance(msgid, str) and msgid and "\x04" not in msgid
    }


ENGLISH: dict[str, str] = {
    # the box's own messages (pages, box, history, stats, players); each game kind's are in
    # controller/games/<kind>/strings.py
    "app": "Diablotin",
    "nav.home": "Games",
    "nav.box": "Box",
    "nav.history": "History",
    "box.system": "The box itself",
    "box.no_notice": "Nothing to report.",
    "box.restart": "Restart the service",
    "box.poweroff": "Shut the box down",
    "box.restart_confirm": (
        "Restart the service? Coils go off; phones reconnect in a few seconds."
    ),
    "box.poweroff_confirm": (
        "Shut the box down? Coils go off; unplug it only once its light stops."
    ),
    "box.restart_done": "Restarting…",
    "box.poweroff_done": "Shutting down…",
    "clock.behind": "The box's clock is {d} behind your phone's and not set by the network.",
    "clock.ahead": "The box's clock is {d} ahead of your phone's and not set by the network.",
    "clock.behind_short": "{d} behind your phone",
    "clock.ahead_short": "{d} ahead of your phone",
    "clock.same": "same time as your phone",
    "clock.take": "Give the box my phone's time",
    "clock.take_confirm": "Set the box's clock to your phone's time?",
    "clock.skip": "Not now",
    "clock.set": "The box's clock is set.",
    "clock.ntp_yes": "Clock synchronised (NTP)",
    "clock.ntp_no": "Clock not synchronised",
    "clock.ntp_unknown": "Clock synchronisation unknown",
    "clock.h_min": "{h} h {m} min",
    "clock.min_s": "{m} min {s} s",
    "clock.s": "{s} s",
    "nav.stats": "Stats",
    "stats.title": "Statistics",
    "stats.count": "{n} finished game counted.",
    "stats.none": "No finished game yet.",
    "stats.players": "Players",
    "stats.kinds": "Games",
    "stats.game": "One game, move by move",
    "stats.pick": "Game",
    "stats.player": "Player",
    "stats.games": "Games",
    "stats.wins": "Wins",
    "stats.rate": "Win rate",
    "stats.streak": "Now",
    "stats.streak_win": "{n} won in a row",
    "stats.streak_loss": "{n} not won in a row",
    "stats.best": "Best run",
    "stats.by": "By game and rule",
    "stats.rates_chart": "Win rate per player (%)",
    "stats.durations_chart": "{kind}: length of each game (minutes)",
    "stats.duration_line": "Shortest {min}, median {median}, longest {max}; median {n} moves.",
    "stats.first": "The first player won {n} of {games} ({rate}; even chances: {fair}).",
    "punct.pair": "{label}: {value}",
    "field.name": "The name",
    "field.title": "The title",
    "stats.chase": "Round {r} ({p} pops): the devil's chase, square after each pop",
    "stats.race": "Race {r}: squares gone round after each pop",
    "stats.pot": "pot",
    "stats.devil": "devil",
    "stats.score": "Each side's score as the game went",
    "stats.letters": "Letters held as the game went",
    "stats.x_pop": "pops",
    "stats.x_action": "moves",
    "stats.players_n": "{n} player",
    "stats.pick_none": "No game to show.",
    "stats.scroll_hint": "Swipe the table sideways for its other columns.",
    "player.seat1": "Seat 1",
    "player.seat2": "Seat 2",
    "player.seat3": "Seat 3",
    "player.seat4": "Seat 4",
    "role.referee": "Referee",
    "role.spectator": "Spectator",
    "login.title": "Referee PIN",
    "login.hint": "The PIN is shown in the box's console.",
    "login.go": "Enter",
    "login.logout": "Log out",
    "login.logout_confirm": "Log out of the referee's role? This phone goes back to watching; "
    "the PIN brings it back.",
    "dialog.back": "Back",
    "login.wrong": "That is not the PIN.",
    "theme.switch": "Light / dark",
    "live.on": "Live",
    "live.connecting": "Connecting…",
    "live.reconnecting": "Reconnecting in {s} s…",
    "live.retry": "↻ {s} s",
    "menu.open": "Menu",
    "menu.rules": "Rules",
    "menu.version": "Diablotin {v}",
    "home.title": "Games in progress",
    "home.none": "No game in progress.",
    "home.start": "Start a game",
    "home.kind": "Game",
    "home.rule": "Rule",
    "home.gametitle": "Name (optional)",
    "home.create": "Start",
    "home.join": "Join from a phone",
    "home.join_hint": "Scan to open this dashboard (same Wi-Fi).",
    "home.finished": "Finished games are in the History.",
    "home.onbox": "on the box",
    "home.actions": "{n} move",
    "backup.holds": "{n} game",
    "game.undo": "Undo",
    "game.over": "Match over",
    "game.winner": "{p} wins",
    "game.draw": "A draw",
    "game.ended_abandoned": "This game was abandoned: nothing more is played in it.",
    "game.ended_deleted": "This game was deleted: nothing more is played in it.",
    "game.notonbox": "This game is not the one on the box: its keys cannot be fired.",
    "game.nomove": "Only the referee can play. Tap “Spectator” to enter the PIN.",
    "player.p1": "Player 1",
    "player.p2": "Player 2",
    "computer.title": "Computer pops for",
    "computer.yes": "computer",
    "computer.no": "human",
    "computer.level": "Level",
    "level.random": "gentle",
    "level.heuristic": "clever",
    "level.optimal": "unbeatable",
    "level.adaptive": "reads the hider",
    "scores": "Scores",
    "box.title": "The box",
    "box.link": "Link",
    "box.backend": "Backend",
    "box.up": "up",
    "box.down": "down",
    "box.local": "direct (no co-processor)",
    "box.faults": "Faults",
    "box.nofault": "No fault.",
    "box.slots": "Sensors",
    "box.lid": "Lid",
    "box.lid_closed": "closed",
    "box.lid_open": "open",
    "box.lid_none": "no lid switch",
    "box.coils": "Coil test",
    "box.fire": "Fire {k}",
    "box.pulse": "Pulse (ms)",
    "box.limits": (
        "Limits: pulse ≤ {max} ms, {gap} ms between pulses, "
        "{duty}% duty over {win} s, one coil at a time."
    ),
    "box.toy": "Simulated toy",
    "box.hide": "Hide the dice",
    "box.press": "Press {k} by hand",
    "box.jam": "Jam key {k}",
    "box.chatter": "Sensor chatter",
    "box.missing": "Slot {k} left empty",
    "box.notices": "Messages",
    "box.camera": "Camera",
    "box.camera_kind": "Camera",
    "box.camera_last": "Last read",
    "box.camera_read": "key {k}: {face} ({c} %)",
    "camera.kind_simulated": "simulated camera",
    "camera.kind_picamera2": "Pi camera",
    "camera.kind_usb": "USB camera",
    "box.camera_confirm": "Confirm: {face}",
    "camera.snapshot": "the camera's picture of the die from key {k}",
    "teach.title": "Teach the camera",
    "teach.intro": (
        "Show the camera each face of one die in turn: 5 snapshots a face, 1 to 6 then the devil."
    ),
    "teach.start": "Teach the camera",
    "teach.restart": "Start again",
    "teach.snap": "Take snapshot",
    "teach.cancel": "Cancel",
    "teach.show": "Show face {face} to the camera: snapshot {i} of {n}",
    "teach.done": "The camera has learnt these dice",
    "box.fired": "Key {k} fired: a {ms} ms pulse",
    "box.pins_simulated": "simulated (no real hardware)",
    "box.retry": "Retry {k}",
    "box.popped_by_hand": "{k} was popped by hand",
    "hist.title": "History",
    "hist.finished": "Finished games",
    "hist.all": "All games",
    "hist.none": "No game yet.",
    "hist.export": "Export",
    "hist.import": "Import a game file",
    "hist.imported": "Imported as game {id}",
    "hist.step": "Step {i} of {n}",
    "hist.first": "Start",
    "hist.prev": "Back",
    "hist.next": "Next",
    "hist.last": "End",
    "hist.setup": "Setup",
    "hist.locked": (
        "This game is still being played. Its moves can be stepped through once it ends "
        "(the referee can now)."
    ),
    "hist.watch": "Watch it live",
    "hist.open": "Open",
    "hist.inprogress": "in progress",
    "hist.done": "finished",
    "hist.damaged": "damaged: {reason}",
    "hist.damaged_help": "This game no longer replays, so it cannot be played or stepped "
    "through. The referee can export its raw entries.",
    "generic.state": "State",
    "generic.legal": "Legal moves",
    "err.network": "No connection to the box.",
    "seat.computer": "Computer · {level}",
    "seats.title": "Who plays",
    "seats.for": "Seat: {seat}",
    "seats.nobody": "—",
    "seats.guest": "A guest…",
    "seats.guest_name": "Guest's name",
    "roster.title": "Players",
    "roster.name": "Name",
    "roster.mark": "Colour",
    "roster.emoji": "or an emoji",
    "roster.add": "Add",
    "roster.none": "No players yet: add the family.",
    "roster.added": "{name} joins the players.",
    "roster.saved": "{name}: saved.",
    "roster.save": "Save",
    "roster.cancel": "Cancel",
    "roster.edit": "Change {name}",
    "roster.delete": "Remove {name}?",
    "roster.delete_go": "Remove from the players",
    "roster.delete_confirm": (
        "{name} leaves the players. Past games keep the name they were played under."
    ),
    "roster.deleted": "{name} is no longer among the players.",
    "confirm.back": "Back",
    "home.turn": "{name}'s turn",
    "home.spectator_hint": (
        "You are watching. The referee taps “{chip}” at the top of the page and enters the PIN "
        "to start games and play."
    ),
    "home.login": "Log in as the referee",
    "backup.title": "Backup",
    "backup.hint": (
        "Every game and the players in one file, to keep on a phone or a computer, and to "
        "bring back."
    ),
    "backup.download": "Download a backup",
    "backup.restore": "Restore a backup…",
    "backup.restore_title": "Restore this backup?",
    "backup.restore_confirm": (
        "Every game and player on the box is replaced by those in {file} ({holds}). The "
        "journal as it is now stays on the box beside it. Open pages reconnect by themselves."
    ),
    "backup.restore_go": "Restore the backup",
    "backup.restoring": "Restoring the backup…",
    "backup.restored": "The backup is restored.",
    "bgstats.log": "Log in BG Stats",
    "slot.sensor_empty": "Slot {k} reads empty on the box's sensors",
    "gm.head": "This game",
    "gm.rename": "Rename",
    "gm.rematch": "Rematch",
    "gm.box": "Put on the box",
    "gm.abandon": "Abandon",
    "gm.delete": "Delete",
    "gm.newtitle": "New name",
    "gm.rename_go": "Rename the game",
    "gm.rematch_go": "Start the rematch",
    "gm.box_go": "Put it on the box",
    "gm.abandon_go": "Abandon the game",
    "gm.delete_go": "Delete the game",
    "gm.rename_confirm": "Give game #{id} a new name.",
    "gm.rematch_confirm": "Start a new game with the same players and options?",
    "gm.box_confirm": (
        "Play game #{id} on the box now? If its dice are not where it left them, "
        "the box hides them again."
    ),
    "gm.abandon_confirm": (
        "Abandon “{title}”? It stays in the History, marked abandoned, "
        "and is left out of the stats."
    ),
    "gm.delete_confirm": (
        "Delete “{title}” for good? It disappears from every list and from the stats; "
        "only a backup taken before brings it back."
    ),
    "hist.abandoned": "abandoned",
    "hist.download": "Download every game",
    "hist.download_zip": "All games (zip)",
    "hist.download_csv": "Table (CSV)",
    "hist.moves": "Moves",
    "hist.download_hint": "The same files as the box's command {command}.",
    "say.wins": "{p} wins",
    "say.over": "the game is over",
    "sound.on": "Sound on",
    "sound.off": "Sound off",
}


PLURALS: dict[str, str] = {
    # key -> the English plural; ENGLISH[key] is the singular, and ``n`` picks the form
    "stats.count": "{n} finished games counted.",
    "stats.streak_win": "{n} won in a row",
    "stats.streak_loss": "{n} not won in a row",
    "stats.players_n": "{n} players",
    "home.actions": "{n} moves",
    "backup.holds": "{n} games",
    "stats.first": "The first player won {n} of {games} ({rate}; even chances: {fair}).",
}
"""Messages whose words follow a count ``n``: gettext plural entries (msgid_plural), one
form per CLDR plural category of the language (``npgettext``; the scripts pick the form
with ``Intl.PluralRules``). Each game kind declares its own (:attr:`Strings.plurals`)."""
