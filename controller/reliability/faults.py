"""Part 3, ``faults``: box faults during play, in this process (see the package doc)."""

from __future__ import annotations

import contextlib
import http.client
import logging
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..box.base import Toy
from ..config import Config
from ..games import registry
from .common import PIN, Api, HttpError, Log

# --- part 3: box faults -----------------------------------------------------------------------


class Failed(Exception):
    """A fault scenario's check failed (the message says which)."""


@dataclass
class FaultCase:
    backend: str
    name: str
    pops: int = 0
    seen: str = ""
    """What GET /api/box showed of the fault."""
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def dice_out(toy: Toy) -> set[int]:
    """Keys whose die is out of its slot on the simulated toy itself (the ground truth)."""
    return set(toy.dice_out())


class FaultRig:
    """A service on ``backend`` (simulated or virtual) served on 127.0.0.1 by waitress in
    this process, so the suite can flip fault switches the API does not offer and read
    the toy's ground truth. Games, toy faults and box status go through the HTTP API."""

    def __init__(self, backend: str, workdir: Path, seed: int) -> None:
        from controller.web import create_app

        from ..server import bound_port, make_server
        from ..service import Service

        config = Config(data_dir=workdir / f"faults-{backend}")
        config.box.backend = backend
        config.box.seed = seed
        config.server.referee_pin = PIN
        self.service = Service(
            config, think_s=3600.0, face_delay_s=0.05, hide_delay_s=0.05, steady_s=0.15
        )
        self.service.start()
        self.server = make_server(create_app(self.service), "127.0.0.1", 0, 16)
        # One kept-alive connection: no socket is opened while a fault closes the virtual
        # Pico's pty (its thread may read a stale descriptor number; see docs/reliability.md).
        self.api = Api(bound_port(self.server), keep_alive=True)
        self._thread = threading.Thread(target=self.server.serve, daemon=True)
        self._thread.start()
        assert self.service.toy is not None  # the virtual box has a simulated toy
        self.toy = self.service.toy
        self.coprocessor = getattr(self.service.box, "coprocessor", None)
        self.game_id = 0

    def close(self) -> list[str]:
        """Stop everything; returns problems (a coil left high)."""
        self.api.close()
        self.service.hub.close_all()
        with contextlib.suppress(Exception):
            self.server.stop()
        self.service.stop()
        high = self.coils_high()
        return [f"coils {high} high after the service stopped"] if high else []

    # -- the game, over HTTP ------------------------------------------------------------

    def new_game(self) -> None:
        kind = registry.on_box()  # the game the box's toy plays
        body = {"kind": kind.name, "options": dict(kind.long_game or {})}
        game = self.api.call("POST", "/api/games", body)
        self.game_id = int(game["view"]["id"])

    def state(self) -> dict[str, Any]:
        view = self.api.call("GET", f"/api/games/{self.game_id}", referee=False)["view"]
        state: dict[str, Any] = view["state"]
        state["version"] = view["version"]
        return state

    def act(self, action: dict[str, Any]) -> dict[str, Any]:
        answer: dict[str, Any] = self.api.call("POST", f"/api/games/{self.game_id}/actions", action)
        return answer

    def box(self) -> dict[str, Any]:
        status: dict[str, Any] = self.api.call("GET", "/api/box", referee=False)
        return status

    def toy_do(self, **command: Any) -> None:
        self.api.call("POST", "/api/box/toy", command)

    def ready_to_pop(self, free: int = 1, timeout: float = 10.0) -> dict[str, Any]:
        """Play the non-pop steps (advance, rehide) until the popper may pop a key with at
        least ``free`` dice still hidden; returns the state."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            state = self.state()
            popper = state["roles"]["popper"]
            if state["phase"] == "over":
                raise Failed("the game ended")
            if state["phase"] == "advance":
                figure = next(f["name"] for f in state["figures"] if f["status"] == "in-play")
                self.act({"type": "advance", "figure": figure, "by": popper})
            elif state["phase"] == "pop":
                if state["numbers_this_hiding"] >= 3 or 4 - len(state["popped"]) < free:
                    self.act({"type": "rehide", "by": popper})
                else:
                    return state
            else:
                time.sleep(0.02)
        raise Failed(f"the game did not reach a pop within {timeout:g} s")

    def press(self, key: int, popper: str) -> None:
        """The popper's pop button (waits out a coil's cool-down: 409 box-refused)."""
        for _ in range(60):
            try:
                self.act({"type": "pop", "key": key, "by": popper})
                return
            except HttpError as exc:
                if exc.code != "box-refused":
                    raise Failed(f"pop of key {key} refused: {exc}") from None
                time.sleep(0.05)
        raise Failed(f"key {key} stayed in cool-down")

    def wait_popped(self, key: int, since: int, timeout: float = 3.0) -> None:
        """Wait until the journal has, after entry ``since``, a pop of ``key`` and its face."""
        assert self.service.journal is not None
        journal = self.service.journal

        def done() -> bool:
            later = [e.action for e in journal.entries(self.game_id)[since:]]
            pops = [i for i, a in enumerate(later) if a == {**a, "type": "pop", "key": key}]
            return bool(pops) and any(a["type"] == "face" for a in later[pops[0] :])

        self.wait(done, timeout, f"the pop of key {key} journaled with its face")

    def wait_pops_in_order(self, keys: list[int], since: int, timeout: float = 3.0) -> None:
        """Dice out in the order ``keys``: each is journaled with its face, the referee
        moving a figure between them when a number asks for one. A devil (or a round's
        end) closes the hiding: the dice after it do not count, and the service says so."""
        for i, key in enumerate(keys):
            self.wait_popped(key, since, timeout)
            state = self.state()
            if state["phase"] == "advance":
                figure = next(f["name"] for f in state["figures"] if f["status"] == "in-play")
                self.act({"type": "advance", "figure": figure, "by": state["roles"]["popper"]})
            elif state["phase"] in ("hiding", "over") and i + 1 < len(keys):
                self.wait(
                    lambda: any(
                        "after this hiding ended" in n["text"] for n in self.box()["notices"]
                    ),
                    timeout,
                    f"the notice that key(s) {keys[i + 1 :]} came out too late to count",
                )
                return

    def pop(self, free: int = 1) -> int:
        """Pop a hidden key and wait until it is journaled; returns the key."""
        state = self.ready_to_pop(free)
        key = min(k for k in (1, 2, 3, 4) if k not in state["popped"])
        self.press(key, state["roles"]["popper"])
        self.wait_popped(key, state["version"])
        self.check_truth()
        return key

    def wait(self, condition: Callable[[], Any], timeout: float, what: str) -> Any:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = condition()
            if value:
                return value
            time.sleep(0.02)
        raise Failed(f"timed out after {timeout:g} s waiting for {what}")

    def wait_box(self, condition: Callable[[dict[str, Any]], Any], what: str) -> dict[str, Any]:
        """Wait (5 s) for ``GET /api/box`` to satisfy ``condition``; returns the status."""

        def met() -> dict[str, Any] | None:
            status = self.box()
            return status if condition(status) else None

        found: dict[str, Any] = self.wait(met, 5.0, what)
        return found

    # -- checks ---------------------------------------------------------------------------

    def coils_high(self) -> list[int]:
        high = [k for k in (1, 2, 3, 4) if self.toy.coil_pin(k).state]
        if self.coprocessor is not None:
            high += [k for k in self.coprocessor.coils_on() if k not in high]
        return sorted(high)

    def check_truth(self, timeout: float = 1.5) -> None:
        """No lost and no invented pop: while the dice are hidden the journaled pops of this
        hiding are exactly the dice out of the toy; and every coil is low (after a pulse)."""
        from ..boxplay import box_game_state

        table = self.service.table(self.game_id)
        deadline = time.monotonic() + timeout
        while True:
            with table.lock:
                state = box_game_state(table)
                phase, popped = state.phase, set(state.popped)
            truth = dice_out(self.toy)
            hidden = phase in ("pop", "face", "advance")
            if (not hidden or popped == truth) and not self.coils_high():
                return
            if time.monotonic() > deadline:
                if self.coils_high():
                    raise Failed(f"coils {self.coils_high()} still high")
                raise Failed(f"journaled pops {sorted(popped)} but dice out {sorted(truth)}")
            time.sleep(0.02)

    def refused_without_change(self, key: int, code: str) -> None:
        """A pop of ``key`` is refused with ``code`` and nothing is journaled."""
        before = self.state()
        try:
            self.act({"type": "pop", "key": key, "by": before["roles"]["popper"]})
        except HttpError as exc:
            if exc.code != code:
                raise Failed(f"pop during the fault refused with {exc.code}, not {code}") from None
        else:
            raise Failed("a pop was accepted during the fault")
        if self.state()["version"] != before["version"]:
            raise Failed("a refused pop changed the game")

    def refused_notices(self, since: float) -> list[str]:
        """Box facts the rules refused since ``since`` (service clock, s): a pop seen twice,
        or one seen while the game waited for something else."""
        return [
            n["text"]
            for n in self.box()["notices"]
            if n["at"] >= since and "not accepted" in n["text"]
        ]


def _jam(rig: FaultRig) -> str:
    rig.new_game()
    rig.pop()
    state = rig.ready_to_pop(free=2)
    key, other = [k for k in (1, 2, 3, 4) if k not in state["popped"]][:2]
    rig.toy_do(do="jam", key=key, on=True)
    rig.press(key, state["roles"]["popper"])
    rig.wait_box(lambda s: f"key {key} jammed" in s["faults"], f"key {key} jammed in /api/box")
    rig.check_truth()
    rig.refused_without_change(other, "box-fault")
    rig.toy_do(do="jam", key=key, on=False)
    rig.api.call("POST", "/api/box/jam", {"key": key, "do": "retry"})
    rig.wait_popped(key, state["version"])
    rig.wait_box(lambda s: not s["faults"], "the jam cleared in /api/box")
    rig.check_truth()
    rig.pop()
    return f"faults: ['key {key} jammed']"


def _chatter(rig: FaultRig) -> str:
    rig.new_game()
    rig.toy_do(do="chatter", on=True)
    rig.wait_box(lambda s: s["toy"]["chatter"] is True, "chatter in /api/box")
    for _ in range(4):
        rig.pop()
    state = rig.ready_to_pop()
    key = min(k for k in (1, 2, 3, 4) if k not in state["popped"])
    rig.toy_do(do="press", key=key)  # a pop by hand, sensor bouncing
    rig.wait_popped(key, state["version"])
    rig.check_truth()
    rig.toy_do(do="chatter", on=False)
    rig.pop()
    return "toy.chatter: true"


def _missing_die(rig: FaultRig) -> str:
    key = 3
    rig.toy_do(do="missing_die", key=key, on=True)
    rig.new_game()
    time.sleep(0.6)  # hide delay + three steady periods: the hiding must not complete
    if rig.state()["phase"] != "hiding" or rig.state()["version"] != 0:
        raise Failed("the hiding was taken as done with a die missing")
    status = rig.wait_box(
        lambda s: s["slots"][str(key)] is False and s["toy"]["missing_die"] == key,
        f"slot {key} empty in /api/box",
    )
    rig.refused_without_change(1, "not-hidden")
    rig.check_truth()
    rig.toy_do(do="missing_die", on=False)
    rig.toy_do(do="hide")
    rig.pop()
    return f"slots[{key}]: {status['slots'][str(key)]}, watch: {status['watch']['phase']}"


def _link_down(rig: FaultRig, how: str, pressed: bool, by_hand: bool) -> str:
    """Break the link (``how``: silence or drop) just after a press (``pressed``: its die
    jumps unseen) and/or press a die out by hand while it is down (``by_hand``)."""
    co = rig.coprocessor
    assert co is not None
    rig.new_game()
    rig.pop()
    state = rig.ready_to_pop(free=3)
    since = state["version"]
    free = [k for k in (1, 2, 3, 4) if k not in state["popped"]]
    out = []
    if pressed:
        rig.press(free[0], state["roles"]["popper"])
        out.append(free[0])
    (co.silence if how == "silence" else co.drop)()
    status = rig.wait_box(
        lambda s: not s["link"]["up"] and "link" in s["faults"], "the link down in /api/box"
    )
    rig.refused_without_change(free[2], "box-fault")
    if by_hand:
        if not rig.toy.press_by_hand(free[1]):
            raise Failed(f"slot {free[1]} was empty")
        out.append(free[1])
    time.sleep(0.5)  # the watch's check and second pulse run into the dead link
    if rig.coils_high():
        raise Failed(f"coils {rig.coils_high()} high while the link is down")
    if how == "silence":
        co.silence(False)
    else:
        co.restore()
    rig.wait_box(lambda s: s["link"]["up"], "the link back in /api/box")
    rig.wait_pops_in_order(out, since)
    rig.wait_box(lambda s: not s["faults"], "no faults left in /api/box")
    rig.check_truth()
    rig.pop()
    return f"link.up: {status['link']['up']}, faults: {status['faults']}"


def _silence(rig: FaultRig) -> str:
    return _link_down(rig, "silence", pressed=True, by_hand=False)


def _unplug(rig: FaultRig) -> str:
    return _link_down(rig, "drop", pressed=False, by_hand=True)


def _two_dice_unseen(rig: FaultRig) -> str:
    return _link_down(rig, "silence", pressed=True, by_hand=True)


def _two_keys_at_once(rig: FaultRig) -> str:
    """A key pressed by hand while the popped die's face is still awaited (no fault on the
    box: a player's hand is quicker than the face report)."""
    rig.new_game()
    state = rig.ready_to_pop(free=2)
    first, second = [k for k in (1, 2, 3, 4) if k not in state["popped"]][:2]
    rig.press(first, state["roles"]["popper"])
    rig.wait(lambda: first in dice_out(rig.toy), 2.0, f"die {first} out")
    rig.toy_do(do="press", key=second)
    rig.wait_pops_in_order([first, second], state["version"])
    rig.check_truth()
    return "(no fault: two dice out at once)"


def _noise(rig: FaultRig) -> str:
    co = rig.coprocessor
    assert co is not None
    rig.new_game()
    bad_before = rig.box()["link"]["bad_frames"]
    co.garbage(0.2)
    co.corrupt(0.3)
    for _ in range(4):
        try:
            rig.pop()
        except Failed as exc:  # a press that met a broken frame: the referee presses again
            if "box-fault" not in str(exc) and "busy" not in str(exc):
                raise
            rig.wait_box(lambda s: s["link"]["up"], "the link up")
    status = rig.wait_box(lambda s: s["link"]["bad_frames"] > bad_before, "bad frames counted")
    co.garbage(0)
    co.corrupt(0)
    rig.wait_box(lambda s: s["link"]["up"] and not s["faults"], "the link up, no faults")
    rig.check_truth()
    rig.pop()
    return f"link.bad_frames: {status['link']['bad_frames'] - bad_before}"


def _reset(rig: FaultRig) -> str:
    co = rig.coprocessor
    assert co is not None
    rig.new_game()
    rig.pop()
    before = rig.box()
    boots, reconnects = before["virtual"]["boots"], before["link"]["reconnects"]
    co.reset()
    status = rig.wait_box(
        lambda s: (
            s["virtual"]["boots"] == boots + 1
            and s["link"]["reconnects"] > reconnects
            and s["link"]["up"]
            and not s["faults"]
        ),
        "the Pico rebooted and the link back",
    )
    rig.check_truth()
    rig.pop()
    rig.pop()
    return f"virtual.boots: {boots} -> {status['virtual']['boots']}"


FAULTS: dict[str, list[tuple[str, Callable[[FaultRig], str]]]] = {
    "simulated": [
        ("jam", _jam),
        ("chatter", _chatter),
        ("missing die", _missing_die),
        ("two keys at once", _two_keys_at_once),
    ],
    "virtual": [
        ("silence mid-pop", _silence),
        ("unplug, hand pop", _unplug),
        ("2 dice unseen", _two_dice_unseen),
        ("garbage+corrupt", _noise),
        ("reset", _reset),
    ],
}


def run_faults(rounds: int, seed: int, workdir: Path, log: Log = print) -> list[FaultCase]:
    """Every fault scenario ``rounds`` times on each backend (a fresh service per round)."""
    cases: list[FaultCase] = []
    with _logs_to(workdir / "faults.log"):
        for round_ in range(rounds):
            cases += _fault_round(round_, seed, workdir, log)
    return cases


@contextlib.contextmanager
def _logs_to(path: Path) -> Iterator[None]:
    """The in-process service's log lines go to ``path`` instead of the console."""
    path.parent.mkdir(parents=True, exist_ok=True)
    logger = logging.getLogger("controller")
    handler = logging.FileHandler(path)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    propagate, level = logger.propagate, logger.level
    logger.addHandler(handler)
    logger.propagate = False
    logger.setLevel(logging.INFO)
    try:
        yield
    finally:
        logger.removeHandler(handler)
        handler.close()
        logger.propagate, logger.level = propagate, level


def _fault_round(round_: int, seed: int, workdir: Path, log: Log) -> list[FaultCase]:
    """Every scenario once on each backend, each backend on a fresh service."""
    cases = []
    for backend, scenarios in FAULTS.items():
        rig = FaultRig(backend, workdir / f"round-{round_}", seed + round_)
        try:
            for name, scenario in scenarios:
                case = _fault_case(rig, backend, name, scenario)
                cases.append(case)
                verdict = "ok" if case.ok else "FAILED: " + "; ".join(case.problems)
                log(f"  {backend:9s} {name:17s} {case.seconds:4.1f} s  {case.seen:48s} {verdict}")
        finally:
            cases[-1].problems += rig.close()
    return cases


def _fault_case(
    rig: FaultRig, backend: str, name: str, scenario: Callable[[FaultRig], str]
) -> FaultCase:
    case = FaultCase(backend, name)
    since = rig.service.clock.now()
    started = time.monotonic()
    try:
        case.seen = scenario(rig)
    except (Failed, HttpError, OSError, http.client.HTTPException) as exc:
        case.problems.append(str(exc))
    case.seconds = time.monotonic() - started
    if rig.game_id:
        table = rig.service.table(rig.game_id)
        case.pops = sum(1 for a in table.actions if a["type"] == "pop")
    case.problems += rig.refused_notices(since)
    return case
