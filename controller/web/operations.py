"""Dashboard operations built on the service's public parts (tables, box, toy, worker).

Kept in ``web/`` so the service stays small: odds, stepping through a game,
the coil test and the simulated toy's controls. Each raises
:class:`~controller.games.base.Refused` (or a box error) and changes nothing when
it refuses.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from controller.box.base import KEYS
from controller.boxplay import box_play
from controller.games.base import Refused, Viewer, replay

from .kinds import hooks

if TYPE_CHECKING:
    from controller.service import Service

TOY_COMMANDS = ("hide", "press", "jam", "chatter", "missing_die")


def odds(service: Service, game_id: int, args: Mapping[str, str]) -> dict[str, object]:
    """Odds or advice for a game, from ``controller.web.kinds.<kind>.odds``
    (``args``: query parameters).

    Raises :class:`Refused` for a game kind without odds or bad parameters."""
    table = service.table(game_id)
    helper = hooks(table.rules.name).odds
    if helper is None:
        raise Refused("there are no odds for {name}", "no-odds", name=table.rules.name)
    with table.lock:  # states are immutable: think on this one without holding the game
        state, version = table.state, table.version
    report: dict[str, object] = helper(state, args)
    report["version"] = version
    kind_hooks = hooks(table.rules.name)
    coach = kind_hooks.coach
    if coach is not None and args.get("coach"):
        # The hider's advice only when asked, and the API lets only the referee ask.
        solvers = box_play(service).solvers
        advice = coach(solvers, state, bool(args.get("hider")))
        report["coach"] = advice
        ready = advice.get("status") == "ready"
        coach_read = kind_hooks.coach_read  # the read of the hider, likewise
        if ready and args.get("hider") and coach_read is not None and service.journal:
            advice["read"] = coach_read(service.journal, game_id, state, solvers)
    return report


def step_view(service: Service, game_id: int, step: int, viewer: Viewer) -> dict[str, object]:
    """The game after its first ``step`` effective actions, through ``rules.view(state,
    viewer)`` as ``Table.view`` does. Raises :class:`Refused` for a step out of range."""
    table = service.table(game_id)
    with table.lock:
        actions, seats = list(table.actions), table.seats
    if not 0 <= step <= len(actions):
        raise Refused(
            "step must be 0 to {n_actions}, got {step}",
            "bad-step",
            n_actions=len(actions),
            step=step,
        )
    state = replay(table.rules, table.options, actions[:step])
    return {
        "id": game_id,
        "kind": table.rules.name,
        "title": table.title,
        "step": step,
        "steps": len(actions),
        "action": actions[step - 1] if step else None,
        "seats": seats,
        "state": table.rules.view(state, viewer),
    }


def moves(service: Service, game_id: int) -> dict[str, object]:
    """Every step of the game in one replay, numbered as :func:`step_view` numbers them
    (the actions that stand: an undone one is no step): ``{"moves": [{"step", "action",
    "said"}], "seats"}``, ``said`` what the step did in sentences (the kind's ``said`` hook), or
    null for a kind that says nothing. For the history page's list of moves."""
    table = service.table(game_id)
    with table.lock:
        actions, seats = list(table.actions), table.seats
    rules, say = table.rules, hooks(table.rules.name).said
    state = rules.setup(table.options)
    listed: list[dict[str, object]] = []
    for index, action in enumerate(actions, 1):
        state = rules.apply(state, action)
        listed.append({"step": index, "action": action, "said": say(state) if say else None})
    return {"id": game_id, "steps": len(actions), "seats": seats, "moves": listed}


def coil_test(service: Service, key: int, pulse_ms: float | None) -> dict[str, object]:
    """One coil pulse within the limits (the box refuses what would break one).

    Refused while the box's game has dice hidden: the pulse would pop a die.
    """
    table = service.box_play.box_game() if service.box_play is not None else None
    if table is not None:
        state = table.view("public")["state"]
        phase = state.get("phase") if isinstance(state, dict) else None
        if phase not in ("hiding", "over"):
            raise Refused(
                "game {game_id} has dice hidden: use its pop buttons, "
                "or test the coils between hidings",
                "box-in-use",
                game_id=table.game_id,
            )
    box = service.box
    assert box is not None
    service.call(lambda: box.fire(key, pulse_ms))
    return {"fired": key, "pulse_ms": pulse_ms or box.limits.pulse_ms}


def toy_control(service: Service, command: Mapping[str, object]) -> dict[str, object]:
    """The simulated toy: ``{"do": "hide"}``, ``{"do": "press", "key": k}`` (a hand press),
    ``{"do": "jam" | "missing_die", "key": k, "on": bool}``, ``{"do": "chatter", "on": bool}``.
    Returns the toy's status. Refused on a real box or for a bad command."""
    toy = service.toy
    if toy is None or not callable(getattr(toy, "hide", None)):
        raise Refused("this box has no simulated toy", "no-toy")
    do, key, on = command.get("do"), command.get("key"), command.get("on")
    if do not in TOY_COMMANDS:
        raise Refused(
            "unknown toy command {do!r}: {commands}",
            "bad-command",
            do=do,
            commands=", ".join(TOY_COMMANDS),
        )
    needs_key = do in ("press", "jam") or (do == "missing_die" and on)
    bad_key = not isinstance(key, int) or isinstance(key, bool) or key not in KEYS
    if (needs_key or "key" in command) and bad_key:
        raise Refused("key must be 1 to 4, got {key!r}", "bad-key", key=key)
    if (do in ("jam", "chatter", "missing_die") or "on" in command) and not isinstance(on, bool):
        raise Refused('"on" must be true or false', "bad-command")
    key_no = key if isinstance(key, int) else 0  # checked above where the command needs one
    if do == "hide":
        service.call(toy.hide)
    elif do == "press":
        if not service.call(lambda: toy.press_by_hand(key_no)):
            raise Refused("slot {key} is empty: nothing to press out", "slot-empty", key=key)
    elif do == "jam":
        service.call(lambda: toy.set_jam(key_no) if on else toy.clear_jam(key_no))
    elif do == "chatter":
        service.call(lambda: toy.set_chatter(on is True))
    else:
        service.call(lambda: toy.set_missing_die(key_no if on else None))
    return {"toy": toy.status()}
