"""The running box: journal, live-update hub, game tables, and the toy's hardware.

Data flows one way: hardware or referee → action → rules → journal → state →
hub → phones. Everything that touches the Diable sauteur's hardware runs on one
worker thread (box events are handed to it, never handled on a pin thread).

Only one Diable sauteur game is "on the box" at a time: the newest unfinished one.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import random
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from typing import Any, TypeVar

from .box.base import KEYS, Box, BoxError, BoxEvent, BoxFault, LimitRefused
from .clock import Clock, RealClock
from .config import Config
from .games import registry
from .games.base import Action, Refused, Rules
from .games.sauteur.rules import ADVANCE, FACE, HIDING, OVER, POP
from .hub import Hub
from .journal import DiskFull, GameNotFound, Journal, JournalError
from .system import PinFile
from .table import Table

log = logging.getLogger(__name__)
T = TypeVar("T")

JOURNAL_NAME = "diablotin.sqlite3"
"""The journal's file name in the data dir."""


class GameDamaged(RuntimeError):
    """A game in the journal no longer replays; ``reason`` says why."""

    def __init__(self, game_id: int, reason: str) -> None:
        super().__init__(f"game {game_id} is damaged: {reason}")
        self.game_id = game_id
        self.reason = reason


def rules_for(kind: str, config: Config) -> Rules[Any]:
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
        toy: Any = None,
        clock: Clock | None = None,
        journal: Journal | None = None,
        think_s: float = 0.6,
        face_delay_s: float = 0.4,
        hide_delay_s: float = 1.0,
        steady_s: float = 0.5,
        new_journal: bool = False,
        camera: Any = None,
    ) -> None:
        self.config = config
        self.new_journal = new_journal
        self.clock = clock or RealClock()
        self.hub = Hub()
        self.journal = journal
        self.box = box
        self.toy = toy
        self.watch: Any = None
        self.tables: dict[int, Table] = {}
        self.damaged: dict[int, str] = {}
        """Games that no longer replay (game id -> why): listed, exportable, not playable."""
        self._data_lock: Any = None
        self.computer: dict[int, set[str]] = {}
        self.levels: dict[int, dict[str, str]] = {}
        """Per game, the computer's level per seat (``heuristic`` when not set)."""
        from .solver_cache import Solvers

        self.solvers = Solvers(config.data_dir)
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
        self._notices: list[dict[str, Any]] = []
        self._hiding_token: tuple[int, int, int] | None = None
        self._queued_pops: list[int] = []
        self._rng = random.Random()  # the "random" computer level's choices
        self.camera: Any = camera  # a controller.camera.play.CameraWatch, or None
        self.camera_proposal: dict[str, Any] | None = None
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

            self.box, self.toy = make_box(
                self.config.box, self.clock, number_faces=self.config.sauteur.number_faces
            )
        from .box.watch import ToyWatch

        if self.camera is None and self.config.camera.kind != "none":
            from .camera.service import start_camera

            self.camera = start_camera(self.config, self.toy, self.notice)
        for record in self.journal.games(finished=False):
            with contextlib.suppress(GameDamaged):
                self._open_table(record.id)
        box_table = self.box_game()
        mid_hiding = box_table is not None and box_table.state.phase in (POP, FACE, ADVANCE)
        if mid_hiding and self.toy is not None and box_table is not None:
            self._resume_toy(box_table)
        self.watch = ToyWatch(self.box, self.clock, self._on_watch_event, steady_s=self.steady_s)
        self.box.subscribe(self._on_box_event)
        self._worker = threading.Thread(target=self._run, name="service", daemon=True)
        self._worker.start()
        if mid_hiding:
            assert box_table is not None
            self.watch.resume_hidden(box_table.state.popped)
            if box_table.state.phase == FACE and self.toy is not None:
                self._face_later(box_table, box_table.state.popped[-1])
        self.started = True
        log.info("service started: %d game(s) resumed", len(self.tables))
        self._after_change_sauteur()

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
        if self._worker is not None:
            self._inbox.put(None)
            self._worker.join(timeout=2)
            self._worker = None
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
    def new_game(self, kind: str, options: Mapping[str, Any] | None = None, title: str = "") -> int:
        """Start a game; raises :class:`Refused` on an unknown game or bad options."""
        rules = rules_for(kind, self.config)
        opts = self._default_options(kind) | dict(options or {})
        if kind == "sauteur" and opts.get("rule") == "B" and "first_hider" not in opts:
            opts["first_hider"] = secrets.choice(["p1", "p2"])  # "a draw picks the first hider"
        rules.setup(opts)  # validate before anything is stored
        assert self.journal is not None
        game_id = self.journal.create_game(kind, opts, title or registry.get(kind).new_title(opts))
        self._open_table(game_id)
        self.hub.publish("games", self.games())
        if kind == "sauteur":
            self.post(self._after_change_sauteur)
        return game_id

    def _default_options(self, kind: str) -> dict[str, Any]:
        """``kind``'s setup options from its config section (``Config.<kind>``)."""
        return registry.get(kind).options(getattr(self.config, kind, None))

    def _open_table(self, game_id: int) -> Table:
        """Replay a game into a table. Raises :class:`GameDamaged` (and remembers why in
        :attr:`damaged`) when it no longer replays: a board file moved, conflicting
        entries, an unknown game. Raises ``GameNotFound`` for no such game."""
        assert self.journal is not None
        record = self.journal.game(game_id)
        try:
            table = Table(rules_for(record.kind, self.config), self.journal, game_id, self.hub)
        except JournalError:
            raise
        except sqlite3.Error as exc:  # the file, not the game: `doctor` checks it in full
            raise JournalError(
                f"reading game {game_id} from the journal failed ({exc}): run `diablotin doctor`"
            ) from exc
        except Exception as exc:
            reason = exc.reason if isinstance(exc, Refused) else f"{type(exc).__name__}: {exc}"
            self.damaged[game_id] = reason
            log.warning("game %d no longer replays; set aside as damaged: %s", game_id, reason)
            raise GameDamaged(game_id, reason) from exc
        if record.kind == "sauteur":
            table.listeners.append(lambda _t: self.post(self._after_change_sauteur))
        self.tables[game_id] = table
        seats = self.journal.setting(game_id, "computer", [])
        if seats:
            self.computer[game_id] = set(seats)
        self.levels[game_id] = dict(self.journal.setting(game_id, "computer_levels", {}))
        return table

    def table(self, game_id: int) -> Table:
        """The table of a game (finished ones are loaded from the journal on demand)."""
        with self._lock:
            if game_id not in self.tables:
                try:
                    self._open_table(game_id)
                except GameNotFound:
                    raise Refused(f"there is no game {game_id}", "no-game") from None
                except GameDamaged as exc:
                    raise Refused(str(exc), "damaged") from None
            return self.tables[game_id]

    def games(self) -> list[dict[str, Any]]:
        assert self.journal is not None
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
                }
            )
            if record.id in self.damaged:
                summary["damaged"] = self.damaged[record.id]
            out.append(summary)
        return out

    def submit(self, game_id: int, action: Action) -> dict[str, Any]:
        """Apply a referee's action. A pop on the box's game presses the key instead."""
        table = self.table(game_id)
        if table.rules.name == "sauteur" and action.get("type") == "pop":
            key = action.get("key")
            if not isinstance(key, int) or isinstance(key, bool):
                raise Refused(f"keys are numbered 1 to 4, got {key!r}", "bad-key")
            return self.press(game_id, key, by=action.get("by"))
        return table.submit(action)

    def undo(self, game_id: int) -> dict[str, Any]:
        return self.table(game_id).undo()

    def import_game(self, data: Mapping[str, Any]) -> int:
        """Store an exported game, all or nothing, once it replays in full; raises
        :class:`Refused` (``bad-export``, ``bad-game``) or ``DiskFull``."""
        assert self.journal is not None
        from . import importing

        game_id = importing.store(self.journal, importing.check(data), self.config)
        self.hub.publish("games", self.games())
        return game_id

    # -- the Diable sauteur on the box -------------------------------------------
    def box_game(self) -> Table | None:
        """The sauteur game the box is playing: the newest unfinished one."""
        live = [t for t in self.tables.values() if t.rules.name == "sauteur" and not t.finished]
        return max(live, key=lambda t: t.game_id) if live else None

    def press(self, game_id: int, key: int, by: Any = None) -> dict[str, Any]:
        """Fire key ``key`` for the popper. Checks the rules and the box first.

        Returns ``{"pressing": key}``; the pop is journaled when the slot empties.
        Raises :class:`Refused` (rules, wrong game) or :class:`BoxError` (limits, faults).
        """
        table = self.table(game_id)
        box_table = self.box_game()
        if box_table is None or box_table.game_id != game_id:
            raise Refused(f"game {game_id} is not the game on the box", "not-on-box")
        action = {"type": "pop", "key": key, "by": table.state.popper if by is None else by}
        table.check(action)
        faults = self.active_faults()
        if faults:
            raise BoxFault(f"the box has a fault: {faults[0]}; clear it first")

        def fire() -> dict[str, Any]:
            assert self.watch is not None
            self.watch.press(key)
            return {"pressing": key}

        return self.call(fire)

    def set_computer(
        self, game_id: int, player: str, on: bool, level: str | None = None
    ) -> dict[str, Any]:
        """Let the computer play ``player``'s pops in a sauteur game, at ``level``
        (``random``, ``heuristic`` = ``computer``, ``optimal``; default: unchanged)."""
        from .games.sauteur.levels import level_name

        table = self.table(game_id)
        if table.rules.name != "sauteur":
            raise Refused("only the Diable sauteur has a computer popper", "no-computer")
        if player not in ("p1", "p2"):
            raise Refused("player must be p1 or p2", "bad-player")
        try:
            level = level_name(level) if level is not None else None
        except ValueError as exc:
            raise Refused(str(exc), "bad-level") from None
        seats = set(self.computer.get(game_id, set()))
        (seats.add if on else seats.discard)(player)
        levels = dict(self.levels.get(game_id, {}))
        if level is not None:
            levels[player] = level
        assert self.journal is not None
        self.journal.set_setting(game_id, "computer", sorted(seats))  # stored first
        self.journal.set_setting(game_id, "computer_levels", levels)
        self.computer[game_id] = seats
        self.levels[game_id] = levels
        self.hub.publish(table.topic, table.view("public") | {"computer": sorted(seats)})
        self.post(self._after_change_sauteur)
        return {"computer": sorted(seats), "levels": self.computer_levels(game_id)}

    def computer_levels(self, game_id: int) -> dict[str, str]:
        """The level of each seat's computer popper (``heuristic`` unless set)."""
        levels = self.levels.get(game_id, {})
        return {player: levels.get(player, "heuristic") for player in ("p1", "p2")}

    def _on_box_event(self, event: BoxEvent) -> None:
        self.hub.publish("box", {"event": type(event).__name__, **_event_dict(event)})

    def _on_watch_event(self, event: Any) -> None:
        self.post(lambda: self._handle_watch(event))

    def _handle_watch(self, event: Any) -> None:
        name = type(event).__name__
        self.hub.publish("box", {"event": name, **_event_dict(event)})
        table = self.box_game()
        if table is None:
            return
        if name == "HidingDone" and table.state.phase == HIDING:
            self._submit_quietly(table, {"type": "hidden"})
        elif name == "Popped":
            if table.state.phase in (FACE, ADVANCE):
                # A second die out before the first one's face (or figure) is in: it is
                # journaled right after, in the order the dice came out.
                self._queued_pops.append(event.key)
            else:
                self._pop(table, event.key)
        elif name == "Jammed":
            self.notice(f"key {event.key} jammed: retry, or tell the box it was popped by hand")

    def _pop(self, table: Table, key: int) -> None:
        action = {"type": "pop", "key": key, "by": table.state.popper}
        if not self._submit_quietly(table, action):
            return
        if self.camera is not None and self.camera.up:
            self.camera.read_pop(
                key, lambda read: self.post(lambda: self._camera_face(table, read))
            )
        elif self.toy is not None:
            self._face_later(table, key)

    def _camera_face(self, table: Table, read: Any) -> None:
        """The camera's read of the die from ``read.key``: journaled when sure, else proposed."""
        from .camera.service import save_snapshot, snapshot_name

        state = table.state
        if state.phase != FACE or not state.popped or state.popped[-1] != read.key:
            return  # entered by the referee meanwhile
        if read.snapshot:  # the die's picture, beside its face whoever enters it
            name = snapshot_name(state.round, state.hidings, read.key)
            save_snapshot(self.config.data_dir, table.game_id, name, read.snapshot)
        sure = read.face is not None and read.confidence >= self.camera.profile.auto_threshold
        if sure:
            action = {
                "type": "face",
                "face": read.face,
                "source": "camera",
                "confidence": round(read.confidence, 3),
            }
            self._submit_quietly(table, action)
            return
        self.camera_proposal = {
            "game": table.game_id,
            "key": read.key,
            "face": read.face,
            "confidence": round(read.confidence, 3),
        }
        if read.face is None:
            self.notice(f"the camera could not read the die from key {read.key}: tap its face")
        else:
            self.notice(
                f"the camera reads {read.face} from key {read.key} but is unsure: "
                "confirm or tap the face"
            )

    def _resume_toy(self, table: Table) -> None:
        """The simulated toy forgot everything on restart: seat the dice as the game says."""
        state = table.state
        pending = state.popped[-1] if state.phase == FACE else None
        self.toy.resume(state.popped, pending)
        expected = {k: k not in state.popped for k in KEYS}
        deadline = self.clock.now() + 1.0
        while self.box is not None and self.box.slots() != expected:
            if self.clock.now() > deadline:
                self.notice("the simulated toy did not settle after the restart")
                break
            time.sleep(0.005)

    def _face_later(self, table: Table, key: int) -> None:
        try:
            face = self.toy.face(key)
        except ValueError as exc:  # the toy's die never left: the referee says
            self.notice(f"the simulated toy cannot show this face ({exc}): tap it")
            return
        self.clock.call_later(self.face_delay_s, lambda: self.post(lambda: self._face(table, face)))

    def _face(self, table: Table, face: Any) -> None:
        if table.state.phase == FACE:
            self._submit_quietly(table, {"type": "face", "face": face})

    def _submit_quietly(self, table: Table, action: dict[str, Any]) -> bool:
        try:
            table.submit(action)
            return True
        except Refused as refusal:
            self.notice(f"{action['type']} not accepted: {refusal.reason}")
            return False
        except DiskFull:
            self.notice(f"the box's disk is full: {action['type']} was not recorded")
            return False

    def _after_change_sauteur(self) -> None:
        """After any change: start a new hiding, or let the computer popper move."""
        table = self.box_game()
        if table is None or self.watch is None:
            return
        state = table.state
        if state.phase != FACE:
            self.camera_proposal = None
        if self.camera is not None and state.phase == POP and not self._queued_pops:
            self.camera.baseline()  # the table as it lies before the next press
        if self._queued_pops and state.phase == POP:
            self._pop(table, self._queued_pops.pop(0))
            return
        if self._queued_pops and state.phase in (HIDING, OVER):
            keys = ", ".join(map(str, self._queued_pops))
            self.notice(f"key(s) {keys} came out after this hiding ended: not counted")
            self._queued_pops.clear()
        if state.phase == HIDING:
            token = (table.game_id, state.round, state.hidings)
            if token != self._hiding_token:
                self._hiding_token = token
                self.watch.start_hiding()
                if self.toy is not None:
                    self.clock.call_later(self.hide_delay_s, lambda: self.post(self._toy_hide))
        elif state.popper in self.computer.get(table.game_id, ()):
            self.clock.call_later(self.think_s, lambda: self.post(self._computer_move))

    def _toy_hide(self) -> None:
        table = self.box_game()
        if table is not None and table.state.phase == HIDING and self.toy is not None:
            self.toy.hide()

    def _computer_move(self) -> None:
        from .games.sauteur.levels import level_action

        table = self.box_game()
        if table is None or self.watch is None:
            return
        state = table.state
        if state.popper not in self.computer.get(table.game_id, ()):
            return
        if state.phase not in (POP, ADVANCE) or self._queued_pops:
            return
        if self.watch.state()["pressing"] is not None:
            return
        level = self.computer_levels(table.game_id)[state.popper]
        if level == "optimal" and not self.solvers.when_ready(
            state, lambda: self.post(self._computer_move)
        ):
            return  # solving on a thread; the move comes when the tables are ready
        action = level_action(level, state, self.solvers.tables, self._rng)
        try:
            if action["type"] == "pop":
                self.press(table.game_id, action["key"], by=action.get("by"))
            else:
                table.submit(action)
        except LimitRefused:  # the coil's minimum gap: press once it has passed
            self.clock.call_later(0.3, lambda: self.post(self._computer_move))
        except (Refused, BoxError) as exc:
            self.notice(f"computer move refused: {exc}")

    # -- box status -------------------------------------------------------------
    def active_faults(self) -> list[str]:
        faults: list[str] = []
        if self.watch is not None:
            faults += list(self.watch.faults())
        if self.box is not None:
            faults += [str(f) for f in self.box.status().get("faults", [])]
        return faults

    def box_status(self) -> dict[str, Any]:
        assert self.box is not None
        status = dict(self.box.status())
        status["faults"] = self.active_faults()
        status["slots"] = self.box.slots()
        status["lid"] = self.box.lid_closed()
        status["simulated"] = self.toy is not None
        status["notices"] = self._notices[-20:]
        if self.journal is not None:
            status["journal"] = self.journal.health()
        if self.watch is not None:
            status["watch"] = self.watch.state()
        status["camera"] = (
            {"kind": "none"}
            if self.camera is None
            else self.camera.status() | {"proposal": self.camera_proposal}
        )
        if self.toy is not None and callable(getattr(self.toy, "status", None)):
            status["toy"] = self.toy.status()
        return status

    def resolve_jam(self, command: Mapping[str, Any]) -> dict[str, Any]:
        """After "key k jammed": ``{"key": k, "do": "retry"}`` presses it again,
        ``{"key": k, "do": "popped"}`` records that it came out by hand. Raises
        :class:`Refused` for a bad command, :class:`BoxError` if the key is not jammed."""
        key, do = command.get("key"), command.get("do")
        if not isinstance(key, int) or isinstance(key, bool) or key not in KEYS:
            raise Refused(f"key must be 1 to 4, got {key!r}", "bad-key")
        if do not in ("retry", "popped"):
            raise Refused('do must be "retry" or "popped"', "bad-command")
        watch = self.watch
        assert watch is not None
        self.call(lambda: watch.retry(key) if do == "retry" else watch.popped_by_hand(key))
        return {"key": key, "done": do}

    def notice(self, text: str) -> None:
        log.warning(text)
        entry = {"at": self.clock.now(), "text": text}
        self._notices.append(entry)
        del self._notices[:-100]
        self.hub.publish("box", {"event": "Notice", **entry})


def _event_dict(event: Any) -> dict[str, Any]:
    fields = getattr(event, "__dataclass_fields__", {})
    return {name: getattr(event, name) for name in fields}
