"""The Diable sauteur played on the box: the one component that knows the toy's game.

:class:`BoxPlay` attaches to the service's sauteur tables through their listeners. It turns
the toy's facts (:mod:`controller.box.watch`: a hiding done, a die out, a jam) into game
actions, presses a key for a referee's or the computer's pop, reads faces with the camera
when there is one, plays the computer popper at its level, and hands the box to the game
that holds it.

One game holds the box (the journal's ``box`` row): the one the referee put there, a new
one, or, when the holder ends, the newest unfinished one. A game that takes the box
trusts the sensors, not its memory: if the slots that read full are not the ones the game
believes hidden, it starts a new hiding (``new-hiding``; rule B keeps the pot and the
count of numbers). See docs/rules-sauteur.md, "The box changes hands".

Everything here runs on the service's worker thread (``service.post``) except the public
methods, which hand their work to it.
"""

from __future__ import annotations

import logging
import random
import secrets
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from .box.base import KEYS, BoxError, BoxFault, LimitRefused, status_faults
from .box.watch import HidingDone, HidingStarted, Jammed, Popped, ToyWatch, WatchEvent
from .games.base import Action, Refused, Said, said_of, words
from .games.sauteur.levels import FALLBACK
from .games.sauteur.rules import ADVANCE, FACE, HIDING, OVER, POP, SauteurState
from .journal import DiskFull
from .solver_cache import Solvers
from .table import Table

if TYPE_CHECKING:
    from .box.toy import Face
    from .box_game import BoxGame
    from .camera.play import CameraRead
    from .service import Service

log = logging.getLogger(__name__)

PLAYERS = ("p1", "p2")


def box_game_state(table: Table) -> SauteurState:
    """The state of a Diable sauteur table (the box's game); ``TypeError`` for another game."""
    state = table.state
    if not isinstance(state, SauteurState):
        raise TypeError(f"game {table.game_id} is not a Diable sauteur game")
    return state


class BoxPlay:
    """The sauteur game on the box. Made by :class:`~controller.service.Service` from the
    game's declaration (``GameKind.on_box``); ``start`` once the tables are open."""

    kind = "sauteur"

    def __init__(self, service: Service) -> None:
        self.service = service
        self.watch: ToyWatch | None = None
        self.computer: dict[int, set[str]] = {}
        """Per game, the seats the computer plays."""
        self.levels: dict[int, dict[str, str]] = {}
        """Per game, the computer's level per seat (``adaptive`` when not set)."""
        self.solvers = Solvers(service.config.data_dir, notice=self._solver_notice)
        self.stopped: dict[int, Said] = {}
        """Per game, why the computer popper's last move failed (until it moves again)."""
        self.camera_proposal: dict[str, object] | None = None
        self._hiding_token: tuple[int, int, int] | None = None
        self._queued_pops: list[int] = []
        self._rng = random.Random()  # the "random" computer level's choices
        self.owner: int | None = None
        """The id of the game that holds the box."""
        self._check_sensors = False
        """The holder has not yet compared its dice with the sensors (it waits for ``pop``)."""

    def refusal(self) -> Refused:
        """Why a game of another kind cannot be put on the box (``put_on_box``)."""
        return Refused(
            "only a game of {game} can be put on the box", "not-box-game", game=self._title()
        )

    def _title(self) -> Said:
        """The box's game's name, in the reader's language (a catalog message)."""
        from .games import registry

        return Said(registry.get(self.kind).title.english())

    def number_faces(self) -> Sequence[Face]:
        """The faces of the toy's dice (the ``[sauteur]`` config section's)."""
        from .games.sauteur.config import SauteurSection

        return self.service.config.section(self.kind, SauteurSection).number_faces

    # -- life cycle ---------------------------------------------------------------
    def attach(self, table: Table) -> None:
        """A sauteur table was opened: follow its changes, and its computer seats."""
        svc = self.service
        table.listeners.append(lambda _t: svc.post(self._after_change))
        assert svc.journal is not None
        self.computer[table.game_id] = set(svc.journal.setting(table.game_id, "computer", []))
        self.levels[table.game_id] = dict(svc.journal.setting(table.game_id, "computer_levels", {}))
        if svc.started:
            svc.post(self._after_change)  # a new game: maybe a hiding to start

    def start(self) -> None:
        """Watch the toy; a game that stopped mid-hiding carries on where it was."""
        svc = self.service
        assert svc.box is not None and svc.journal is not None
        stored = svc.journal.box_game()
        table = svc.tables.get(stored) if stored is not None else None
        if table is None or table.finished or table.rules.name != self.kind:
            table = self._next_holder()
        self._hold(table)
        mid_hiding = table is not None and box_game_state(table).phase in (POP, FACE, ADVANCE)
        if mid_hiding and svc.toy is not None and table is not None:
            self._resume_toy(table)
        self.watch = ToyWatch(svc.box, svc.clock, self._on_watch_event, steady_s=svc.steady_s)
        if mid_hiding:
            assert table is not None
            self.watch.resume_hidden(box_game_state(table).popped)
            if box_game_state(table).phase == FACE and svc.toy is not None:
                self._face_later(table, box_game_state(table).popped[-1])
        svc.post(self._after_change)

    def stop(self) -> None:
        """The service stops: cancel the solves running on threads and wait for them."""
        self.solvers.close()

    def _solver_notice(self, template: str, **params: object) -> None:
        """A notice from a solver's thread, given on the service's worker."""
        self.service.post(lambda: self.service.notice(template, **params))

    def reset(self) -> None:
        """The service swapped its journal (a restored backup) and reopened its tables:
        forget every game's computer seats and the holder, then hold the journal's box game
        (else the newest unfinished one) as at start."""
        svc = self.service
        live = {t.game_id for t in svc.tables.values() if t.rules.name == self.kind}
        for per_game in (self.computer, self.levels, self.stopped):
            for game_id in set(per_game) - live:
                per_game.pop(game_id)
        self.owner = None
        self._queued_pops.clear()
        self._hiding_token = None
        self.camera_proposal = None
        assert svc.journal is not None
        stored = svc.journal.box_game()
        table = svc.tables.get(stored) if stored is not None else None
        if table is None or table.finished or table.rules.name != self.kind:
            table = self._next_holder()
        self._hold(table)
        if table is not None and box_game_state(table).phase in (POP, FACE, ADVANCE) and self.watch:
            self.watch.resume_hidden(box_game_state(table).popped)
        svc.post(self._after_change)

    def new_game_options(self, options: dict[str, object]) -> dict[str, object]:
        """Rule B: "a draw picks the first hider" when the referee did not choose."""
        if options.get("rule") == "B" and "first_hider" not in options:
            return options | {"first_hider": secrets.choice(PLAYERS)}
        return options

    def new_game_settings(
        self, options: dict[str, object], seats: list[dict[str, object]] | None
    ) -> dict[str, object]:
        """The game's own seed and the adaptive popper's belief at its start
        (:mod:`controller.sauteur_memory`)."""
        from .sauteur_memory import start_settings

        assert self.service.journal is not None
        return start_settings(self.service.journal, options, seats)

    # -- what the service and the dashboard ask ------------------------------------
    def box_game(self) -> Table | None:
        """The sauteur game that holds the box, if it is in play."""
        table = self.service.tables.get(self.owner) if self.owner is not None else None
        if table is None or table.finished or table.rules.name != self.kind:
            return None
        return table

    def _next_holder(self, leaving: Table | None = None) -> Table | None:
        """The newest unfinished sauteur game other than ``leaving``."""
        live = [
            t
            for t in self.service.tables.values()
            if t.rules.name == self.kind and not t.finished and t is not leaving
        ]
        return max(live, key=lambda t: t.game_id) if live else None

    def _hold(self, table: Table | None) -> None:
        """Record ``table`` as the holder; it checks the sensors at its next ``pop`` phase."""
        svc = self.service
        assert svc.journal is not None
        game_id = None if table is None else table.game_id
        if game_id != svc.journal.box_game():
            svc.journal.set_box_game(game_id)
        if game_id != self.owner:
            self._queued_pops.clear()
            self._hiding_token = None
            self.camera_proposal = None
        self.owner = game_id
        self._check_sensors = table is not None

    def take_box(self, table: Table) -> None:
        """``table`` holds the box from now (a new game, or the referee's choice)."""
        if table.game_id == self.owner:
            return
        self._hold(table)
        if box_game_state(table).phase in (POP, FACE, ADVANCE) and self.watch is not None:
            self.watch.resume_hidden(box_game_state(table).popped)  # the sensors decide at "pop"
        self.service.notice(words("game {game_id} is on the box now"), game_id=table.game_id)
        self.service.post(self._after_change)

    def released(self, table: Table) -> None:
        """``table`` left play (abandoned, deleted): its computer seats go, and the newest
        unfinished game takes the box."""
        self.computer.pop(table.game_id, None)
        self.levels.pop(table.game_id, None)
        self.stopped.pop(table.game_id, None)
        if table.game_id != self.owner:
            return
        following = self._next_holder(leaving=table)
        self._hold(following)
        if following is not None:
            self.service.notice(
                words("game {game_id} is on the box now"), game_id=following.game_id
            )
        self.service.post(self._after_change)

    def _sensors_disagree(self, state: SauteurState) -> list[int]:
        """The keys whose slot reads otherwise than the game believes (phase ``pop``)."""
        assert self.service.box is not None
        slots = self.service.box.slots()
        return [key for key in KEYS if slots.get(key) != (key not in state.popped)]

    def intercept(self, table: Table, action: Action) -> dict[str, object] | None:
        """A referee's pop presses the key (journaled once the die is out); ``None`` for
        any other action (the table takes it)."""
        if table.rules.name != self.kind:
            return None
        if action.get("type") == "hidden" and table.game_id == self.owner:
            if box_game_state(table).phase == HIDING:
                self.service.call(self._referee_hidden)
            return None  # the table takes it (or refuses it out of turn)
        if action.get("type") != "pop":
            return None
        key = action.get("key")
        if not isinstance(key, int) or isinstance(key, bool):
            raise Refused("keys are numbered 1 to 4, got {key!r}", "bad-key", key=key)
        return self.press(table.game_id, key, by=action.get("by"))

    def _referee_hidden(self) -> None:
        """The referee says the box's dice are hidden (worker thread): the simulated toy
        hides them now; the watch takes them as hidden when its sensors see four dice, so
        the game never pops while the box still waits for a hiding. Raises
        :class:`PressRefused` naming the slots the sensors see empty."""
        svc = self.service
        assert self.watch is not None
        if svc.toy is not None and not all(self.watch.state()["slots"].values()):
            svc.toy.hide()
            deadline = svc.clock.now() + 1.0
            while not all(self.watch.state()["slots"].values()) and svc.clock.now() < deadline:
                time.sleep(0.005)
        self.watch.hidden_now()
        svc.publish_box_event(HidingDone(svc.clock.now()))  # the pages (not the game: it is told)

    def press(self, game_id: int, key: int, by: str | None = None) -> dict[str, object]:
        """Fire key ``key`` for the popper. Checks the rules and the box first.

        Returns ``{"pressing": key}``; the pop is journaled when the slot empties.
        Raises :class:`Refused` (rules, wrong game) or :class:`BoxError` (limits, faults).
        """
        table = self.service.table(game_id)
        box_table = self.box_game()
        if box_table is None or box_table.game_id != game_id:
            raise Refused(
                "game {game_id} is not the game on the box", "not-on-box", game_id=game_id
            )
        action = {
            "type": "pop",
            "key": key,
            "by": box_game_state(table).popper if by is None else by,
        }
        table.check(action)
        if self.service.box is not None and self.service.box.slots().get(key) is False:
            raise Refused(
                "slot {key} reads empty on the box's sensors: there is no die to pop",
                "slot-empty",
                key=key,
            )
        faults = self.active_faults()
        if faults:
            raise BoxFault(Said("the box has a fault: {faults}; clear it first", faults=faults[0]))

        def fire() -> dict[str, object]:
            assert self.watch is not None
            self.watch.press(key)
            return {"pressing": key}

        return self.service.call(fire)

    def set_computer(
        self, game_id: int, player: str, on: bool, level: str | None = None
    ) -> dict[str, object]:
        """Let the computer play ``player``'s pops in a sauteur game, at ``level``
        (``random``, ``heuristic`` = ``computer``, ``optimal``; default: unchanged)."""
        from .games.sauteur.levels import level_name

        svc = self.service
        table = svc.table(game_id)
        if table.rules.name != self.kind:
            raise Refused("only {game} has a computer popper", "no-computer", game=self._title())
        if player not in PLAYERS:
            raise Refused("player must be p1 or p2", "bad-player")
        try:
            level = level_name(level) if level is not None else None
        except ValueError as exc:
            raise Refused(said_of(exc), "bad-level") from None
        seats = set(self.computer.get(game_id, set()))
        (seats.add if on else seats.discard)(player)
        levels = dict(self.levels.get(game_id, {}))
        if level is not None:
            levels[player] = level
        assert svc.journal is not None
        svc.journal.set_setting(game_id, "computer", sorted(seats))  # stored first
        svc.journal.set_setting(game_id, "computer_levels", levels)
        self.computer[game_id] = seats
        self.levels[game_id] = levels
        self.stopped.pop(game_id, None)  # turned off or on again: it tries afresh
        svc.hub.publish(table.topic, table.view("public") | {"computer": sorted(seats)})
        svc.post(self._after_change)
        return {"computer": sorted(seats), "levels": self.computer_levels(game_id)}

    def computer_levels(self, game_id: int) -> dict[str, str]:
        """The level of each seat's computer popper (``adaptive`` unless set)."""
        from .games.sauteur.levels import DEFAULT_LEVEL

        levels = self.levels.get(game_id, {})
        return {player: levels.get(player, DEFAULT_LEVEL) for player in PLAYERS}

    def extras(self, table: Table) -> dict[str, object]:
        """A game page's box facts: is it the game on the box, its computer seats and levels."""
        holder = self.box_game()
        on_box = holder is not None and holder.game_id == table.game_id
        out: dict[str, object] = {
            "computer": sorted(self.computer.get(table.game_id, ())),
            "levels": self.computer_levels(table.game_id),
            "on_box": on_box,
            "box_holder": None if holder is None else holder.game_id,
        }
        why = self.computer_why(table)
        out["computer_why"] = None if why is None else why.as_dict()
        if on_box and self.service.box is not None:  # pop keys follow the sensors
            out["slots"] = {str(k): v for k, v in self.service.box.slots().items()}
        return out

    def computer_why(self, table: Table) -> Said | None:
        """Why the computer does not play this game's computer seat now, for its page to
        say: its last move was refused, the game is not the one on the box, or the box has
        a fault to clear. ``None``: no computer seat, the game is over, or nothing stops it."""
        seats = self.computer.get(table.game_id)
        if not seats or table.finished:
            return None
        if table.game_id in self.stopped:
            return self.stopped[table.game_id]
        holder = self.box_game()
        if holder is None or holder.game_id != table.game_id:
            return Said(
                "the computer plays only the game on the box: put this game on the box "
                "(menu ☰) for it to play"
            )
        faults = self.active_faults()
        if faults and box_game_state(table).popper in seats:
            return Said("the computer waits until this is cleared: {reason}", reason=faults[0])
        return None

    def active_faults(self) -> list[str]:
        """The toy's faults (a jam) and the box's (a coil, the link)."""
        faults: list[str] = list(self.watch.faults()) if self.watch is not None else []
        if self.service.box is not None:
            faults += status_faults(self.service.box.status())
        return faults

    def status(self) -> dict[str, object]:
        """What ``GET /api/box`` adds for the toy's game: faults, the watch, the camera."""
        status: dict[str, object] = {"faults": self.active_faults()}
        if self.watch is not None:
            status["watch"] = self.watch.state()
        camera = self.service.camera
        status["camera"] = (
            {"kind": "none"}
            if camera is None
            else {**camera.status(), "proposal": self.camera_proposal}
        )
        return status

    def resolve_jam(self, command: Mapping[str, object]) -> dict[str, object]:
        """After "key k jammed": ``{"key": k, "do": "retry"}`` presses it again,
        ``{"key": k, "do": "popped"}`` records that it came out by hand. Raises
        :class:`Refused` for a bad command, :class:`BoxError` if the key is not jammed."""
        key, do = command.get("key"), command.get("do")
        if not isinstance(key, int) or isinstance(key, bool) or key not in KEYS:
            raise Refused("key must be 1 to 4, got {key!r}", "bad-key", key=key)
        if do not in ("retry", "popped"):
            raise Refused('do must be "retry" or "popped"', "bad-command")
        watch = self.watch
        assert watch is not None
        self.service.call(lambda: watch.retry(key) if do == "retry" else watch.popped_by_hand(key))
        return {"key": key, "done": do}

    # -- the toy's facts (worker thread) ---------------------------------------------
    def _on_watch_event(self, event: WatchEvent) -> None:
        self.service.post(lambda: self._handle_watch(event))

    def _handle_watch(self, event: WatchEvent) -> None:
        self.service.publish_box_event(event)
        table = self.box_game()
        if table is None:
            return
        match event:
            case HidingDone() if box_game_state(table).phase == HIDING:
                self._submit_quietly(table, {"type": "hidden"})
            case Popped(key=key) if box_game_state(table).phase in (FACE, ADVANCE):
                # A second die out before the first one's face (or figure) is in: it is
                # journaled right after, in the order the dice came out.
                self._queued_pops.append(key)
            case Popped(key=key):
                self._pop(table, key)
            case Jammed(key=key):
                self.service.notice(
                    words("key {key} jammed: retry, or tell the box it was popped by hand"),
                    key=key,
                )
            case HidingDone():  # the game already pops: the computer may press now
                self.service.post(self._after_change)
            case HidingStarted():
                pass

    def _pop(self, table: Table, key: int) -> None:
        state = box_game_state(table)
        if not self._submit_quietly(table, {"type": "pop", "key": key, "by": state.popper}):
            return
        camera = self.service.camera
        if camera is not None and camera.up:
            camera.read_pop(
                key, lambda read: self.service.post(lambda: self._camera_face(table, read))
            )
        elif self.service.toy is not None:
            self._face_later(table, key)

    def _camera_face(self, table: Table, read: CameraRead) -> None:
        """The camera's read of the die from ``read.key``: journaled when sure, else proposed."""
        from .camera.service import save_snapshot, snapshot_name

        svc = self.service
        state = box_game_state(table)
        if state.phase != FACE or not state.popped or state.popped[-1] != read.key:
            return  # entered by the referee meanwhile
        if read.snapshot:  # the die's picture, beside its face whoever enters it
            name = snapshot_name(state.round, state.hidings, read.key)
            save_snapshot(svc.config.data_dir, table.game_id, name, read.snapshot)
        assert svc.camera is not None
        sure = read.face is not None and read.confidence >= svc.camera.profile.auto_threshold
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
            svc.notice(
                words("the camera could not read the die from key {key}: tap its face"),
                key=read.key,
            )
        else:
            svc.notice(
                words(
                    "the camera reads {face} from key {key} but is unsure: confirm or tap the face"
                ),
                face=read.face,
                key=read.key,
            )

    def _resume_toy(self, table: Table) -> None:
        """The simulated toy forgot everything on restart: seat the dice as the game says."""
        svc = self.service
        state = box_game_state(table)
        pending = state.popped[-1] if state.phase == FACE else None
        assert svc.toy is not None  # called only with a simulated toy
        svc.toy.resume(state.popped, pending)
        expected = {k: k not in state.popped for k in KEYS}
        deadline = svc.clock.now() + 1.0
        while svc.box is not None and svc.box.slots() != expected:
            if svc.clock.now() > deadline:
                svc.notice(words("the simulated toy did not settle after the restart"))
                break
            time.sleep(0.005)

    def _face_later(self, table: Table, key: int) -> None:
        svc = self.service
        try:
            assert svc.toy is not None  # called only with a simulated toy
            face = svc.toy.face(key)
        except ValueError as exc:  # the toy's die never left: the referee says
            svc.notice(
                words("the simulated toy cannot show this face ({why}): tap it"), why=said_of(exc)
            )
            return
        svc.clock.call_later(svc.face_delay_s, lambda: svc.post(lambda: self._face(table, face)))

    def _face(self, table: Table, face: int | str) -> None:
        if box_game_state(table).phase == FACE:
            self._submit_quietly(table, {"type": "face", "face": face})

    def _submit_quietly(self, table: Table, action: Mapping[str, object]) -> bool:
        try:
            table.submit(action)
            return True
        except Refused as refusal:
            self.service.notice(
                words("{action} not accepted: {reason}"),
                action=action["type"],
                reason=said_of(refusal),
            )
            return False
        except DiskFull:
            self.service.notice(
                words("the box's disk is full: {action} was not recorded"), action=action["type"]
            )
            return False

    def _after_change(self) -> None:
        """After any change: start a new hiding, or let the computer popper move."""
        svc = self.service
        if self.owner is not None and self.box_game() is None:  # the holder ended
            self._hold(self._next_holder())
        table = self.box_game()
        if table is None or self.watch is None:
            return
        state = box_game_state(table)
        if self._check_sensors and state.phase == HIDING:
            self._check_sensors = False  # a hiding loads every die again
        if self._check_sensors and state.phase == POP and not self._queued_pops:
            self._check_sensors = False
            wrong = self._sensors_disagree(state)
            if wrong:
                keys = ", ".join(map(str, wrong))
                svc.notice(
                    words(
                        "game {game_id} took the box, but the sensors of key(s) {keys} "
                        "disagree with it: a new hiding"
                    ),
                    game_id=table.game_id,
                    keys=keys,
                )
                self._submit_quietly(table, {"type": "new-hiding"})
                return
        if state.phase != FACE:
            self.camera_proposal = None
        if svc.camera is not None and state.phase == POP and not self._queued_pops:
            svc.camera.baseline()  # the table as it lies before the next press
        if self._queued_pops and state.phase == POP:
            self._pop(table, self._queued_pops.pop(0))
            return
        if self._queued_pops and state.phase in (HIDING, OVER):
            keys = ", ".join(map(str, self._queued_pops))
            svc.notice(
                words("key(s) {keys} came out after this hiding ended: not counted"), keys=keys
            )
            self._queued_pops.clear()
        if state.phase == HIDING:
            token = (table.game_id, state.round, state.hidings)
            if token != self._hiding_token:
                self._hiding_token = token
                self.watch.start_hiding()
                if svc.toy is not None:
                    svc.clock.call_later(svc.hide_delay_s, lambda: svc.post(self._toy_hide))
        elif state.popper in self.computer.get(table.game_id, ()):
            svc.clock.call_later(svc.think_s, lambda: svc.post(self._computer_move))

    def _toy_hide(self) -> None:
        table = self.box_game()
        toy = self.service.toy
        if table is not None and box_game_state(table).phase == HIDING and toy is not None:
            toy.hide()

    def _computer_move(self) -> None:
        from .sauteur_memory import computer_action

        svc = self.service
        table = self.box_game()
        if table is None or self.watch is None:
            return
        state = box_game_state(table)
        if state.popper not in self.computer.get(table.game_id, ()):
            return
        if state.phase not in (POP, ADVANCE) or self._queued_pops:
            return
        if self.watch.state()["pressing"] is not None:
            return
        level = self.computer_levels(table.game_id)[state.popper]
        if level in ("optimal", "adaptive"):

            def again() -> None:
                svc.post(self._computer_move)

            if not self.solvers.when_ready(state, again):
                level = FALLBACK  # the circuit's tables solve on a thread (minutes)
            elif not (state.carried or self.solvers.when_hiding_ready(state, again)):
                return  # this hiding solves on a thread (about a second); the move follows
        assert svc.journal is not None
        action = computer_action(
            svc.journal, table.game_id, level, state, self.solvers.tables, self._rng
        )
        try:
            if action["type"] == "pop":
                self.press(table.game_id, action["key"], by=action.get("by"))
            else:
                table.submit(action)
        except LimitRefused:  # the coil's minimum gap: press once it has passed
            svc.clock.call_later(0.3, lambda: svc.post(self._computer_move))
        except (Refused, BoxError) as exc:
            svc.notice(words("computer move refused: {reason}"), reason=said_of(exc))
            self.stopped[table.game_id] = Said(
                "the computer stopped: {reason}. Turn it off and on to let it try again",
                reason=said_of(exc),
            )
            svc.hub.publish(table.topic, table.view("public"))  # its page says why
        else:
            if self.stopped.pop(table.game_id, None) is not None:
                svc.hub.publish(table.topic, table.view("public"))


def box_play(service: Service) -> BoxPlay:
    """The service's Diable sauteur on the box (the terminal, benchmarks); RuntimeError
    when the service plays no sauteur on the box."""
    play = service.box_play
    if not isinstance(play, BoxPlay):
        raise RuntimeError(Said("this service plays no Diable sauteur on the box"))
    return play


if TYPE_CHECKING:  # mypy checks that BoxPlay is the service's BoxGame (it is made by name)

    def _is_a_box_game(play: BoxPlay) -> BoxGame:
        return play
