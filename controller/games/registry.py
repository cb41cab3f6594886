"""Every game kind the box knows, each declared once by its own package.

A game package exports ``KIND``, a :class:`GameKind`: its name, its rules, its options
(built from its config section and checked by the engine's own option parser when the
config loads), its display name as a translatable message, and its optional hooks: how
statistics read its games (:class:`Stats`), its kill -9 scenario, its rules page's
pictures, its page. The service, the API and its OpenAPI document, the home page, history
and the step-through, stats, export and import, the rules page and the reliability suite
all read :func:`kinds` / :func:`get`, and never name a kind; adding a game is a package
with a ``KIND`` and one line in :data:`BUILT_IN` (or :func:`register` from a test, or a
module named in ``DIABLOTIN_GAMES``).

Pure: importing this module imports no game; :func:`kinds` imports the built-in ones.
"""

from __future__ import annotations

import importlib
import os
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.games.base import Refused, Rules
from controller.games.section import Section
from controller.translation import Strings, Voice, add_kind, load_kinds_with, remove_kind

BUILT_IN = ("controller.games.sauteur", "controller.games.teufel", "controller.games.tails")
"""The packages whose ``KIND`` is registered on first use, in the order menus show them."""
PLUGINS_ENV = "DIABLOTIN_GAMES"
"""Comma-separated modules whose ``KIND`` is registered after the built-in ones (a game
kept outside this package, e.g. the tests' fourth game in a ``diablotin serve`` they
start). A module that does not import stops the program with its name."""


@dataclass(frozen=True)
class Message:
    """A sentence to show people: ``msgid`` is the English text (the gettext key);
    ``{names}`` in it are filled from the caller's parameters at the edge, in the
    viewer's language."""

    msgid: str

    def english(self, **params: object) -> str:
        return self.msgid.format(**params)


def _no_options(section: object) -> dict[str, object]:
    return {}


def _no_seats(options: Mapping[str, object]) -> list[str]:
    return []


Options = Mapping[str, object]
"""A game's setup options, as its engine reads them (JSON values)."""
Action = Mapping[str, object]
"""One journaled action (JSON values)."""
Script = tuple[dict[str, object], list[Action]]
"""A scripted game: its options and its actions, in order."""


@dataclass(frozen=True)
class Outcome:
    """What statistics read from a finished game's last state (seats are seat ids)."""

    variant: str
    """The kind's split of its games, e.g. a rule (``A``/``B``) or ``2p``/``3p``."""
    first: str
    """The seat that made the game's first choice."""
    winners: tuple[str, ...]
    """The seats that won (empty: a draw, or nobody)."""


@dataclass(frozen=True)
class Stats:
    """How :mod:`controller.stats` reads a kind's games: plain functions of the engine's
    options, actions and states (pure; they may raise ``Refused`` for options the engine
    refuses). A kind without ``stats`` counts its games with :func:`plain_outcome`."""

    seats: Callable[[Options], list[str]]
    """The seat ids statistics use, in seat order (what ``Game.seats`` names)."""
    outcome: Callable[[object, Sequence[str]], Outcome]
    """``(last state, seat ids) -> Outcome`` of a finished game."""
    chart: Callable[[Options, Sequence[Action], Sequence[str]], dict[str, object]] | None = None
    """``(options, actions, seat ids) -> {"chart": <type>, ...}``: the data of the game's
    chart on the stats page (``letters``, ``score``, ``chase``, ``race``; see docs/stats.md).
    ``None``: the game has no chart."""
    scores: Callable[[object, Sequence[str]], dict[str, int]] | None = None
    """``(last state, seat ids) -> points per seat``; ``None``: a game without points."""
    seat_word: Callable[[str], tuple[str, dict[str, object]]] | None = None
    """``seat id -> (catalog key, parameters)``: the seat's own label (``Player 1``, a
    colour) where nobody was named for it; ``None``: the seat id itself."""


def played(rules: Rules[Any], options: Options, steps: int, seed: int) -> object:
    """The state after ``steps`` seeded random legal actions from ``options`` (fewer if
    the game ends): a real position for a picture."""
    state = rules.setup(options)
    rng = random.Random(seed)
    for _ in range(steps):
        legal = rules.legal_actions(state)
        if not legal or rules.is_over(state):
            break
        state = rules.apply(state, rng.choice(legal))
    return state


def plain_outcome(state: object, seats: Sequence[str]) -> Outcome:
    """A kind without stats of its own: ``<n>p``, the first seat first, no winner."""
    return Outcome(f"{len(seats)}p", seats[0] if seats else "", ())


@dataclass(frozen=True)
class Page:
    """A game page that lives in its package (a plug-in or a test's game), not in
    ``web/``: ``directory`` holds ``<name>.html`` (a template extending ``base.html``) and
    ``<name>.js`` (its module, served at ``/kinds/<kind>/<name>.js``; it imports the
    dashboard's helpers from ``/static/js/common.js``)."""

    directory: Path
    name: str


@dataclass(frozen=True)
class GameKind:
    """One game kind, as the rest of the box sees it.

    ``rules``: makes the engine (imported lazily, so an absent optional game costs
    nothing). ``options``: the default setup options from the game's config section
    (``Config.<name>``, ``None`` when the config has none). ``title``: the display name;
    ``default_title(options)`` names a new game whose title was left empty.
    ``web``: the module of dashboard helpers (odds, extras, layout; see
    :mod:`controller.web.kinds`), or ``None``. ``rules_page``: the players' rules
    ``web/rules/<name>.<lang>.md`` are served at ``/rules/<name>``. ``computer``: the game
    has a computer player. ``page``: the game page's
    template and script (``games/<page>.html``/``.js``); ``"generic"`` draws the state
    as JSON with an action form.
    """

    name: str
    title: Message
    rules: Callable[[], Rules[Any]]
    options: Callable[[object], dict[str, object]] = _no_options
    default_title: Callable[[Options], str] | None = None
    web: str | None = None
    rules_page: bool = False
    computer: bool = False
    page: str = "generic"
    box_player: str | None = None
    """``"module:Class"`` of the component that plays this game on the box's toy (the
    service makes one, and attaches this kind's tables to it); ``None``: a board game
    whose moves the referee enters."""
    at_start: Callable[[Options], dict[str, object]] | None = None
    """What a new game adds to the config's options (e.g. Teufel's seated players), so
    that :meth:`check_options` can check the config's part alone."""
    seat_keys: Callable[[Mapping[str, Any]], list[str]] = _no_seats
    """The engine's names for a game's seats, in order, from its options (``p1``/``p2``,
    Teufel's colours, the tail-tile game's ``0``..``n-1``): what a seat's player
    (:mod:`controller.players`) stands for."""
    config: Section | None = None
    """The kind's config section ``[<name>]`` (keys, types, defaults, bounds), which the
    config loader checks; its value is what :attr:`options` receives."""
    strings: Strings | None = None
    """The kind's messages (``controller/games/<name>/strings.py``): :func:`register` hands
    them to the lookups of :mod:`controller.translation`."""
    voice: Voice | None = None
    """What the box says aloud about the kind's games (:mod:`controller.announce`)."""
    stats: Stats | None = None
    """How statistics, charts and exports read this kind's games (``None``: counted by
    :func:`plain_outcome`, seats from :attr:`seat_keys`, no chart)."""
    own_page: Page | None = None
    """A page served from the kind's own directory, instead of ``web/``'s ``page``."""
    crash_script: Callable[[random.Random], Script] | None = None
    """``rng -> (options, actions)``: a random legal game for the reliability suite's
    kill -9 part to enter (it adds undos and cuts long games); no actions: the kind's
    computer plays every seat (:attr:`computer`); ``None``: the kind is left out there."""
    cli: str | None = None
    """``"module:NAME"`` of this kind's part of the ``diablotin`` command (a
    :class:`controller.commands.base.KindCli`: its terminal game for ``play``, its
    simulator for ``sim``, its own commands); ``None``: none."""

    rules_examples: Callable[[], dict[str, object]] | None = None
    """The positions its rules page draws (``<svg data-example="<name>">`` in
    ``web/rules/<name>.<lang>.md``): ``{name: state}``, made by the engine from a fixed
    start (see :func:`played`)."""

    long_game: Options | None = None
    """Options of a game that outlasts the benches and reliability parts that play it on
    the box (:func:`on_box`); ``None``: the kind's defaults."""
    walk: Callable[[int], dict[str, object]] | None = None
    """``players -> options`` of a game the load tests and the reliability suite walk
    with seeded random legal actions and undos, entered by the referee (:func:`walked`);
    ``None``: the kind is not walked."""

    def check_options(self, options: Options) -> None:
        """Raise :class:`Refused` when the engine's own option parser refuses ``options``
        (the config's defaults, completed as a new game would complete them)."""
        full = dict(options) if self.at_start is None else self.at_start(options) | dict(options)
        self.rules().setup(full)

    def new_title(self, options: Options) -> str:
        """The English title of a new game whose title was left empty."""
        if self.default_title is not None:
            return self.default_title(options)
        return self.title.english()


_KINDS: dict[str, GameKind] = {}
_loaded = False


def register(kind: GameKind) -> GameKind:
    """Add ``kind`` (or replace the one of the same name), its title and messages too;
    returns it."""
    _KINDS[kind.name] = kind
    add_kind(kind.name, kind.title.msgid, kind.strings)
    return kind


def unregister(name: str) -> None:
    """Forget ``name`` (tests that registered a game of their own)."""
    _KINDS.pop(name, None)
    remove_kind(name)


def _load_built_in() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    for package in BUILT_IN:
        try:
            module = importlib.import_module(package)
        except ModuleNotFoundError:
            continue  # an optional game left out of this install
        if module.KIND.name not in _KINDS:
            register(module.KIND)
    for name in filter(None, (n.strip() for n in os.environ.get(PLUGINS_ENV, "").split(","))):
        try:
            module = importlib.import_module(name)
        except ImportError as exc:
            why = f"{PLUGINS_ENV} names {name!r}, which does not import: {exc}"
            raise ImportError(why) from exc
        if module.KIND.name not in _KINDS:
            register(module.KIND)


def kinds() -> tuple[GameKind, ...]:
    """Every registered game kind: the built-in ones first, in :data:`BUILT_IN` order."""
    _load_built_in()
    return tuple(_KINDS.values())


def names() -> tuple[str, ...]:
    return tuple(kind.name for kind in kinds())


def on_box() -> GameKind:
    """The kind whose :attr:`~GameKind.box_player` plays on the box's toy (the first);
    ``LookupError`` when none does."""
    for kind in kinds():
        if kind.box_player is not None:
            return kind
    raise LookupError("no game kind plays on the box")


def walked() -> GameKind:
    """The kind the load tests walk (the first with :attr:`~GameKind.walk`);
    ``LookupError`` when none has one."""
    for kind in kinds():
        if kind.walk is not None:
            return kind
    raise LookupError("no game kind declares a walk")


def get(name: str) -> GameKind:
    """The game kind called ``name``; :class:`Refused` ``bad-game`` for another."""
    _load_built_in()
    kind = _KINDS.get(name)
    if kind is None:
        raise Refused(
            "unknown game {name!r}: choose one of {names}",
            "bad-game",
            name=name,
            names=", ".join(names()),
        )
    return kind


load_kinds_with(_load_built_in)  # a message lookup loads the built-in kinds' messages
