"""The running box: journal, live-update hub, game tables, and the toy's hardware.

Data flows one way: hardware or referee → action → rules → journal → state →
hub → phones. Everything that touches the Diable sauteur's hardware runs on one
worker thread (box events are handed to it, never handled on a pin thread).

Only one Diable sauteur game is "on the box" at a time: the one the referee put there
(``put_on_box``), else the newest unfinished one (see ``controller/boxplay.py``).
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import queue
import sqlite3
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from .announce import Announcer, Speaker
from .box.base import Box, BoxEvent, Toy, status_faults
from .box_game import BoxGame
from .clock import Clock, RealClock
from .config import Config
from .games import registry
from .games.base import Action, Refused, Rules, Said, said_of, words
from .hub import Hub
from .journal import GameNotFound, GameRecord, Journal, JournalError, RowDamaged
from .system import PinFile
from .table import Table

if TYPE_CHECKING:
    from .camera import Camera
    from .datadir import DataDirLock

log = logging.getLogger(__name__)
T = TypeVar("T")

JOURNAL_NAME = "diablotin.sqlite3"
"""The journal's file name in the data dir."""
GAMES_EVERY_S = 0.25
"""After a move, the games list goes out again this much later (a burst of moves: once)."""


class GameDamaged(RuntimeError):
    """A game in the journal no longer replays; ``reason`` says why."""

    def __init__(self, game_id: int, reason: str) -> None:
        super().__init__(
            Said("game {game_id} is damaged: {reason}", game_id=game_id, reason=reason)
        )
        self.game_id = game_id
        self.reason = reason


def rules_for(kind: str, config: Config) -> Rules[object]:
    """The rules engine for ``kind`` (:mod:`controller.games.registry`); raises
    :class:`Refused` for an unknown game."""
    return registry.get(kind).rules()


class Service:
    """Construct, then ``start()``; ``stop()`` switches every coil off and closes everything.

    ``box``/``toy``/``clock`` may be injected (tests); otherwise they come from the config.
    """

    def __init__(
        self,
        config: Config,
        *,
        box: Box | None = None,
        toy: Toy | None = None,
        clock: Clock | None = None,
        journal: Journal | None = None,
        think_s: float = 0.6,
        face_delay_s: float = 0.4,
        hide_delay_s: float = 1.0,
        steady_s: float = 0.5,
        new_journal: bool = False,
        camera: Camera | None = None,
    ) -> None:
        self.config = config
        self.new_journal = new_journal
        self.clock = clock or RealClock()
        self.hub = Hub()
        self.journal = journal
        self.box = box
        self.toy = toy
        self.tables: dict[int, Table] = {}
        self.damaged: dict[int, str] = {}
        """Games that no longer replay (game id -> why): listed, exportable, not playable."""
        self._data_lock: DataDirLock | None = None
        self.box_play: BoxGame | None = _box_player(self)
        """The game played on the box (its declaration's ``box_player``), or None."""
        self.think_s = think_s
        self.face_delay_s = face_delay_s
        self.hide_delay_s = hide_delay_s
        self.steady_s = steady_s
        self._pin_override: str | None = None
        self.pin_file = PinFile(config.data_dir)
        if not config.server.referee_pin:
            self.pin_file.current()  # made on first start, so the console can print it
        self._inbox: queue.SimpleQueue[Callable[[], None] | None] = queue.SimpleQueue()
        self._worker: threading.Thread | None = None
        self._lock = threading.RLock()
        self._notices: list[dict[str, object]] = []
        self._games_due = False
        self._games_wanted = threading.Event()
        self._games_stop = threading.Event()
        self._games_thread: threading.Thread | None = None
        self.camera: Camera | None = camera  # a controller.camera.play.CameraWatch, or None
        self.announcer: Announcer | None = None
        if config.sound.speak:  # the box says what happens ([sound]; off without a speaker)
            self.announcer = Announcer(Speaker(config.sound.language), config.sound.language)
        self.started = False

    @property
    def referee_pin(self) -> str:
        """The config's PIN, else the data dir's (re-read when `diablotin pin --reset`
        changes it: every referee session then ends)."""
        return self._pin_override or self.config.server.referee_pin or self.pin_file.current()

    @referee_pin.setter
    def referee_pin(self, pin: str) -> None:
        self._pin_override = pin

    # -- life cycle ---------------------------------------------------------
    def start(self) -> None:
        """Lock the data dir, open the journal, resume the games. Raises ``DataDirBusy``
        (another service runs on the data dir), ``JournalDamaged`` or a box error; call
        :meth:`stop` then. A game that no longer replays is set aside (:attr:`damaged`)."""
        from .datadir import DataDirLock

        self._data_lock = DataDirLock(self.config.data_dir)
        if self.journal is None:
            self.journal = Journal(self.config.data_dir / JOURNAL_NAME, new=self.new_journal)
        if self.box is None:
            from .box.factory import make_box
            from .box.toy import DEFAULT_NUMBER_FACES

            faces = DEFAULT_NUMBER_FACES if self.box_play is None else self.box_play.number_faces()
            self.box, self.toy = make_box(self.config.box, self.clock, number_faces=faces)
        if self.camera is None and self.config.camera.kind != "none":
            from .camera.service import start_camera

            self.camera = start_camera(self.config, self.toy, self.notice)
        for record in self.journal.games(finished=False):
            with contextlib.suppress(GameDamaged):
                self._open_table(record.id)
        self.box.subscribe(self._on_box_event)
        self._worker = threading.Thread(target=self._run, name="service", daemon=True)
        self._worker.start()
        self._games_stop.clear()
        self._games_thread = threading.Thread(target=self._games_list, name="games-list")
        self._games_thread.daemon = True
        self._games_thread.start()
        if self.box_play is not None:
            self.box_play.start()
        self._daily_backup()
        self.started = True
        log.info("service started: %d game(s) resumed", len(self.tables))

    def stop(self) -> None:
        """Coils off first, then the rest. Safe to call twice, never raises."""
        if self.box is not None:
            try:
                self.box.all_off()
                self.box.close()
            except Exception:
                log.exception("closing the box")
        if self.camera is not None:
            self.camera.close()
        if self.announcer is not None:
            self.announcer.speaker.close()
        if self._worker is not None:
            self._inbox.put(None)
            self._worker.join(timeout=2)
            self._worker = None
        if self._games_thread is not None:
            self._games_stop.set()
            self._games_wanted.set()
            self._games_thread.join(timeout=2)
            self._games_thread = None
        if self.box_play is not None:
            self.box_play.stop()
        self.hub.close_all()
        self.clock.close()
        if self.journal is not None:
            self.journal.close()
        if self._data_lock is not None:
            self._data_lock.release()
        self.started = False

    # -- the worker thread --------------------------------------------------
    def _run(self) -> None:
        while True:
            job = self._inbox.get()
            if job is None:
                return
            try:
                job()
            except Exception:
                log.exception("service job failed; coils off")
                if self.box is not None:
                    self.box.all_off()

    def call(self, fn: Callable[[], T], timeout: float = 5.0) -> T:
        """Run ``fn`` on the worker thread and return its result (or raise its exception)."""
        if threading.current_thread() is self._worker:
            return fn()
        future: Future[T] = Future()

        def job() -> None:
            try:
                future.set_result(fn())
            except BaseException as exc:
                future.set_exception(exc)

        self._inbox.put(job)
        return future.result(timeout)

    def post(self, fn: Callable[[], None]) -> None:
        self._inbox.put(fn)

    # -- games ----------------------------------------------------------------
    def new_game(
        self,
        kind: str,
        options: Mapping[str, object] | None = None,
        title: str = "",
        seats: object = None,
    ) -> int:
        """Start a game; ``seats``: who sits where (:func:`controller.players.resolve_seats`).
        Raises :class:`Refused` on an unknown game, bad options or bad seats (nothing
        stored then)."""
        from .players import SEATS_SETTING, resolve_seats

        rules = rules_for(kind, self.config)
        opts = self._default_options(kind) | dict(options or {})
        if self.box_play is not None and kind == self.box_play.kind:
            opts = self.box_play.new_game_options(opts)
        rules.setup(opts)  # validate before anything is stored
        assert self.journal is not None
        settings: dict[str, object] = {}
        seated: list[dict[str, object]] | None = None
        if seats is not None:
            settings[SEATS_SETTING] = seated = resolve_seats(self.journal, kind, opts, seats)
            computer = {str(s["key"]): s["computer"] for s in seated if s["computer"]}
            if computer:  # the box's computer popper reads these (controller/boxplay.py)
                settings["computer"] = sorted(computer)
                settings["computer_levels"] = computer
        if self.box_play is not None and kind == self.box_play.kind:
            settings |= self.box_play.new_game_settings(opts, seated)
        title = title or registry.get(kind).new_title(opts)
        game_id = self.journal.create_game(kind, opts, title, settings)
        table = self._open_table(game_id)
        if self.box_play is not None and kind == self.box_play.kind:
            self.box_play.take_box(table)  # a new sauteur game takes the box
        self.hub.publish("games", self.games)
        return game_id

    def rematch(self, game_id: int) -> int:
        """A new game of the same kind, options and seats (the same roster players,
        guests and computer levels); raises :class:`Refused` ``no-game``."""
        old = self.table(game_id)
        seats = None
        if old.seats:
            assert self.journal is not None
            seats = [_seat_choice(seat, self.journal) for seat in old.seats]
        record = self._record(game_id)
        return self.new_game(record.kind, record.options, old.title, seats)

    def rename(self, game_id: int, title: object) -> None:
        """Give a game a new title (the free-text policy); raises :class:`Refused`."""
        from .text import TITLE_MAX, TextRefused, clean_text

        table = self.table(game_id)
        try:
            clean = clean_text(title, field="title", max_len=TITLE_MAX)
        except TextRefused as exc:
            raise Refused(exc.said, exc.code) from None
        assert self.journal is not None
        self.journal.rename(game_id, clean)
        table.retitle(clean)
        self.hub.publish(table.topic, table.view("public"))
        self.hub.publish("games", self.games)

    def abandon(self, game_id: int) -> None:
        """Mark a game abandoned: kept, ended, left out of the stats; it gives up the box.
        Raises :class:`Refused` ``no-game`` or ``finished`` (a game that ended is kept
        as it ended)."""
        table = self.table(game_id)
        if table.finished:
            reason = "was abandoned" if table.abandoned else "is finished"
            raise Refused("game {game_id} {reason}", "finished", game_id=game_id, reason=reason)
        assert self.journal is not None
        with table.lock:
            self.journal.abandon(game_id)
            table.leave_play()
        self._closed(table)

    def delete(self, game_id: int) -> None:
        """Remove a game from the journal (a backup taken before still holds it); raises
        :class:`Refused` ``no-game``."""
        assert self.journal is not None
        with self._lock:
            try:
                self.journal.delete_game(game_id)
            except GameNotFound:
                raise Refused("there is no game {game_id}", "no-game", game_id=game_id) from None
            table = self.tables.pop(game_id, None)
            self.damaged.pop(game_id, None)
        if table is not None:
            table.leave_play(deleted=True)  # pages still open: no more
            self._closed(table)
        else:
            self.hub.publish("games", self.games)

    def _closed(self, table: Table) -> None:
        """A game left play (abandoned, deleted): its pages and the lists hear of it, and
        the box passes to the next game."""
        self.hub.publish(table.topic, table.view("public"))
        if self.announcer is not None:
            self.announcer.detach(table.game_id)
        if self.box_play is not None and table.rules.name == self.box_play.kind:
            self.box_play.released(table)
        self.hub.publish("games", self.games)

    def put_on_box(self, game_id: int) -> None:
        """The referee gives the box to this unfinished game of the box player's kind; raises
        :class:`Refused`."""
        table = self.table(game_id)
        if self.box_play is None:
            raise Refused(
                "game {game_id} is not the game on the box", "not-box-game", game_id=game_id
            )
        if table.rules.name != self.box_play.kind:
            raise self.box_play.refusal()
        if table.finished:
            raise Refused("game {game_id} is over", "finished", game_id=game_id)
        self.box_play.take_box(table)
        self.hub.publish("games", self.games)

    def _record(self, game_id: int) -> GameRecord:
        assert self.journal is not None
        try:
            return self.journal.game(game_id)
        except GameNotFound:
            raise Refused("there is no game {game_id}", "no-game", game_id=game_id) from None

    # -- the roster ---------------------------------------------------------------
    def players(self) -> list[dict[str, object]]:
        from .players import player_dict

        assert self.journal is not None
        return [player_dict(p) for p in self.journal.players()]

    def save_player(self, data: Mapping[str, object]) -> dict[str, object]:
        """Add or change a roster player; raises :class:`Refused` (nothing changed)."""
        from .players import player_dict, save_player

        assert self.journal is not None
        player = player_dict(save_player(self.journal, data))
        self.hub.publish("players", self.players)
        return player

    def delete_player(self, player_id: int) -> None:
        """Remove a roster player; past games keep the name they were played under (their
        seats hold it) and a rematch seats that name as a guest. Raises :class:`Refused`
        ``no-player`` (nothing changed)."""
        assert self.journal is not None
        try:
            self.journal.delete_player(player_id)
        except JournalError:
            raise Refused("there is no player {id}", "no-player", id=player_id) from None
        self.hub.publish("players", self.players())

    def _default_options(self, kind: str) -> dict[str, object]:
        """``kind``'s setup options from its config section (``Config.<kind>``)."""
        return registry.get(kind).options(self.config.sections.get(kind))

    def _open_table(self, game_id: int) -> Table:
        """Replay a game into a table. Raises :class:`GameDamaged` (and remembers why in
        :attr:`damaged`) when it no longer replays: a board file moved, conflicting
        entries, an unknown game, a row of it that cannot be read (a byte that is not UTF-8,
        options that are not JSON). Raises ``GameNotFound`` for no such game."""
        assert self.journal is not None
        record = self.journal.game(game_id)
        try:
            if record.damaged is not None:  # its row cannot be read
                raise RowDamaged(game_id, record.damaged)
            table = Table(rules_for(record.kind, self.config), self.journal, game_id, self.hub)
        except RowDamaged as exc:
            self.damaged[game_id] = exc.what
            log.warning("game %d cannot be read; set aside as damaged: %s", game_id, exc.what)
            raise GameDamaged(game_id, exc.what) from exc
        except JournalError:
            raise
        except sqlite3.Error as exc:  # the file, not the game: `doctor` checks it in full
            raise JournalError(
                Said(
                    "reading game {game_id} from the journal failed ({exc}): "
                    "run `diablotin doctor`",
                    game_id=game_id,
                    exc=exc,
                )
            ) from exc
        except Exception as exc:
            reason = said_of(exc) if isinstance(exc, Refused) else f"{type(exc).__name__}: {exc}"
            self.damaged[game_id] = reason
            log.warning("game %d no longer replays; set aside as damaged: %s", game_id, reason)
            raise GameDamaged(game_id, reason) from exc
        self.tables[game_id] = table
        table.listeners.append(self._moved)
        try:
            if self.box_play is not None and record.kind == self.box_play.kind:
                self.box_play.attach(table)  # reads the game's settings (computer seats)
        except RowDamaged as exc:
            del self.tables[game_id]
            self.damaged[game_id] = exc.what
            log.warning("game %d cannot be read; set aside as damaged: %s", game_id, exc.what)
            raise GameDamaged(game_id, exc.what) from exc
        if self.announcer is not None:
            self.announcer.attach(table)
        return table

    def _moved(self, table: Table) -> None:
        """A table's state changed: the games list (moves, whose turn) goes out again
        :data:`GAMES_EVERY_S` later, once for a burst of moves, from the games-list thread
        (it reads the whole journal's list: never on the worker, which drives the box, nor
        on the request's thread, which only marks it due). Nobody listening to the list:
        nothing (a page that opens gets it with its snapshot)."""
        if not self._games_due and self.hub.subscribed("games"):
            self._games_due = True
            self._games_wanted.set()

    def _games_list(self) -> None:
        """The games-list thread: waits until a move marks the list due, lets the burst
        end (:data:`GAMES_EVERY_S`), publishes; ends once the service stops."""
        while True:
            self._games_wanted.wait()
            if self._games_stop.wait(GAMES_EVERY_S):
                return
            self._games_wanted.clear()
            self._publish_games()

    def _publish_games(self) -> None:
        self._games_due = False
        if not self.started or not self.hub.subscribed("games"):
            return
        try:
            self.hub.publish("games", self.games())
        except (sqlite3.Error, JournalError):  # the service stopped meanwhile
            log.debug("games list not sent: the journal closed")

    def table(self, game_id: int) -> Table:
        """The table of a game (finished ones are loaded from the journal on demand)."""
        with self._lock:
            if game_id not in self.tables:
                try:
                    self._open_table(game_id)
                except GameNotFound:
                    raise Refused(
                        "there is no game {game_id}", "no-game", game_id=game_id
                    ) from None
                except GameDamaged as exc:
                    raise Refused(said_of(exc), "damaged") from None
            return self.tables[game_id]

    def games(self) -> list[dict[str, object]]:
        """Every game, oldest first: id, kind, title, created, finished, abandoned, seats,
        and ``on_box`` for the one that holds the box; ``damaged`` with why."""
        assert self.journal is not None
        holder = self.box_play.box_game() if self.box_play is not None else None
        out = []
        for record in self.journal.games():
            table = self.tables.get(record.id)
            summary = (
                table.summary()
                if table
                else {
                    "id": record.id,
                    "kind": record.kind,
                    "title": record.title,
                    "created": record.created,
                    "finished": record.finished is not None,
                    "abandoned": record.abandoned is not None,
                    "seats": record.seats or [],
                }
            )
            summary["on_box"] = holder is not None and holder.game_id == record.id
            summary["default_title"] = _default_title(record)
            reason = self.damaged.get(record.id, record.damaged)
            if reason is not None:
                summary["damaged"] = str(reason)
                if isinstance(reason, Said):  # for a page to word in its language
                    summary["damaged_said"] = reason.as_dict()
            out.append(summary)
        return out

    def submit(self, game_id: int, action: Action) -> dict[str, object] | None:
        """Apply a referee's action (the box's game may take it: a pop presses a key, and
        what it did is returned); raises :class:`Refused`."""
        table = self.table(game_id)
        if self.box_play is not None:
            taken = self.box_play.intercept(table, action)
            if taken is not None:
                return taken
        table.submit(action)
        return None

    def undo(self, game_id: int) -> None:
        self.table(game_id).undo()

    def import_game(self, data: Mapping[str, object]) -> int:
        """Store an exported game, all or nothing, once it replays in full; raises
        :class:`Refused` (``bad-export``, ``bad-game``) or ``DiskFull``."""
        assert self.journal is not None
        from . import importing

        game_id = importing.store(self.journal, importing.check(data), self.config)
        self.hub.publish("games", self.games)
        return game_id

    def restore_journal(self, source: Path) -> Path | None:
        """Put the journal copy at ``source`` in place of the running journal, from the
        dashboard: coils off, the journal closed, swapped by :func:`controller.backup.restore`
        (checked first; the current one kept as ``<journal>.bak``, returned), reopened, and
        every game replayed from it; the box goes to its newest unfinished sauteur game.
        Every live page is cut off so that it reconnects to the restored games. Raises
        ``BackupError`` when the copy cannot be restored: the journal is then unchanged and
        its games are reopened as they were."""
        from . import backup

        backup.check(source)
        return self.call(lambda: self._swap_journal(source), timeout=120)

    def _swap_journal(self, source: Path) -> Path | None:
        from . import backup

        assert self.journal is not None and self.box is not None
        path = Path(self.journal.path)
        self.box.all_off()
        with self._lock:
            old = list(self.tables.values())
            for table in old:
                table.listeners.clear()  # a page still open can change nothing
                table.abandoned = table.finished = True
            self.tables.clear()
            self.damaged.clear()
            if self.announcer is not None:
                for table in old:
                    self.announcer.detach(table.game_id)
            self.journal.close()
            try:
                kept = backup.restore(source, path)  # on a refusal the file is unchanged
            finally:
                self.journal = Journal(path)
                for record in self.journal.games(finished=False):
                    with contextlib.suppress(GameDamaged):
                        self._open_table(record.id)
                if self.box_play is not None:
                    self.box_play.reset()
        self.notice(words("a backup was restored from the dashboard"))
        self.hub.close_all()  # pages reconnect and get the restored games from scratch
        return kept

    def _daily_backup(self) -> None:
        """A copy of the journal a day in ``<data dir>/backups/`` (``[data] backups`` kept),
        checked at start and every hour after; a failure is a notice, never a stop."""
        from . import backup

        journal = self.journal
        if journal is None or journal.path == ":memory:" or not journal.games():
            return
        try:
            backup.daily(Path(journal.path), self.config.data_dir, self.config.daily_backups)
        except backup.BackupError as exc:
            self.notice(words("the daily backup failed: {reason}"), reason=said_of(exc))
        self.clock.call_later(3600, lambda: self.post(self._daily_backup))

    # -- the box ------------------------------------------------------------------
    def _on_box_event(self, event: BoxEvent) -> None:
        self.publish_box_event(event)

    def publish_box_event(self, event: object) -> None:
        """Tell every Box page about a box or toy event (a dataclass)."""
        self.hub.publish("box", {"event": type(event).__name__, **_event_dict(event)})

    # -- box status -------------------------------------------------------------
    def box_status(self) -> dict[str, object]:
        assert self.box is not None
        status = dict(self.box.status())
        status["faults"] = status_faults(status)
        status["slots"] = self.box.slots()
        status["lid"] = self.box.lid_closed()
        status["simulated"] = self.toy is not None
        status["notices"] = self._notices[-20:]
        if self.journal is not None:
            status["journal"] = self.journal.health()
        status["camera"] = {"kind": "none"} if self.camera is None else self.camera.status()
        if self.box_play is not None:
            status |= self.box_play.status()
        if self.toy is not None and callable(getattr(self.toy, "status", None)):
            status["toy"] = self.toy.status()
        return status

    def notice(self, template: str, **params: object) -> None:
        """Tell the Box page (and the log) something the referee should know: ``template``
        (marked with ``words``, English) and its ``params``; each page makes the words in
        its own language (``text`` is the English; a param that is a ``Said`` is sent as its
        template and params, to be made in the page's language too); ``at`` is the box's
        clock, ``time`` the wall clock (s)."""
        text = template.format(**params) if params else template
        log.warning(text)
        sent = {name: v.as_dict() if isinstance(v, Said) else v for name, v in params.items()}
        entry = {
            "at": self.clock.now(),
            "time": time.time(),  # wall clock (s since 1970): the Box page shows when
            "text": text,
            "template": template,
            "params": sent,
        }
        self._notices.append(entry)
        del self._notices[:-100]
        self.hub.publish("box", {"event": "Notice", **entry})


def _default_title(record: GameRecord) -> bool:
    """Was the game's title made by the box (its kind's English name) rather than typed?
    Pages then show the kind's name in their own language."""
    try:
        return bool(record.title == registry.get(record.kind).new_title(record.options))
    except Refused:
        return False


def _seat_choice(seat: Mapping[str, object], journal: Journal) -> dict[str, object] | None:
    """A stored seat as :func:`controller.players.resolve_seats` takes it (a rematch); a
    player since removed from the roster sits as a guest under the same name."""
    player = seat.get("player")
    if isinstance(player, int) and journal.player(player) is not None:
        return {"player": player}
    if seat.get("computer"):
        return {"computer": seat["computer"]}
    if seat.get("name"):
        return {"guest": seat["name"]}
    return None


def _event_dict(event: object) -> dict[str, object]:
    fields = getattr(event, "__dataclass_fields__", {})
    return {name: getattr(event, name) for name in fields}


def _box_player(service: Service) -> BoxGame | None:
    """The box's game component, from the one declaration that names one (or None)."""
    for kind in registry.kinds():
        if kind.box_player is not None:
            module, _, name = kind.box_player.partition(":")
            player: BoxGame = getattr(importlib.import_module(module), name)(service)
            return player
    return None
