"""``diablotin play sauteur``: a whole Diable sauteur game in the terminal.

The game runs on the simulated box exactly as the service runs it for the
dashboard: a pop fires the (mock) coil, the simulated toy's die jumps out, the
sensor sees the slot empty, and the toy shows the face. The human types the
popper's decisions for both players, or ``--computer`` lets the computer pop.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TextIO

from .box.base import BoxError
from .boxplay import box_play
from .config import Config
from .games.base import Refused
from .games.sauteur.config import SauteurSection
from .games.sauteur.rules import ADVANCE, FACE, OVER, POP, SauteurState
from .journal import Journal
from .service import Service
from .translation import refusal_text, sentence, translate


class Words:
    """The terminal's sentences in one language (the dashboard's catalogs, keys ``term.*``):
    a seat is its player's name (``names``), else "Player 1"; figures and statuses are
    translated too."""

    def __init__(self, lang: str, names: Mapping[str, str]) -> None:
        self.lang = lang
        self.names = names

    def __call__(self, message: str, /, **params: object) -> str:
        return translate(self.lang, message, **params)

    def seat(self, player: str) -> str:
        if player in self.names:
            return self.names[player]
        return self("player." + player) if player in ("p1", "p2") else player

    def said(self, said: Mapping[str, Any]) -> str:
        """An engine sentence (``{"template", "params"}``) in this language."""
        shown = {
            name: self.seat(value)
            if name == "player"
            else self("figure." + value)
            if name == "figure"
            else ", ".join(self("figure." + f) for f in value)
            if name == "figures"
            else self.said(value)
            if isinstance(value, Mapping) and "template" in value
            else value
            for name, value in said["params"].items()
        }
        return sentence(self.lang, said["template"], **shown)


def render(state: SauteurState, view: dict[str, Any], say: Words) -> str:
    """A few lines of text: the track or circuit, roles, scores, what happens next."""
    scores = ", ".join(f"{say.seat(p)} {n}" for p, n in view["scores"].items())
    hider, popper = (say.seat(view["roles"][r]) for r in ("hider", "popper"))
    lines = [
        say(
            "term.round",
            r=view["round"],
            n=view["rounds"],
            hider=hider,
            popper=popper,
            scores=scores,
        )
    ]
    if view["rule"] == "A":
        length = view["track_length"]
        row = ["."] * (length + 1)
        for figure in view["figures"]:
            if figure["status"] == "in-play":
                row[min(figure["position"], length)] = figure["name"][0].upper()
        row[min(view["devil"], length)] = "D"
        lines.append("|" + "".join(row) + "| " + say("track.finish"))
        lines.append(
            "  ".join(
                f"{say('figure.' + f['name'])} {f['position']} ({say('status.' + f['status'])})"
                for f in view["figures"]
            )
        )
    else:
        for player in view["players"]:
            done = player["progress"] * 20 // view["circuit_length"]
            lines.append(
                f"{say.seat(player['player'])} "
                f"[{'#' * done}{'.' * (20 - done)}] "
                f"{player['progress']}/{view['circuit_length']}"
            )
        lines.append(say("pot", pot=view["pot"]))
    popped = ", ".join(str(k) for k in view["popped"]) or say("term.none")
    lines.append(say("term.popped", keys=popped, what=say.said(view["waiting_for_said"])))
    return "\n".join(lines)


def play_sauteur(
    config: Config,
    *,
    computer: bool = False,
    level: str | None = None,
    read: Callable[[str], str] | None = None,
    out: TextIO | None = None,
    delays: tuple[float, float, float] = (0.4, 0.3, 0.6),
    journal: Journal | None = None,
    names: Sequence[str] | None = None,
    lang: str = "en",
) -> int:
    """Play one match on the simulated box; returns 0 when it ends, 1 if quit.

    ``computer``: the computer pops for both players, at ``level`` (``random``,
    ``heuristic``, ``optimal``; default ``heuristic``). ``journal``: where the match is
    recorded (default: the data dir's). The data dir is locked either way. ``names``: the
    two players' names (a roster player's seats that player, another a guest). ``out``:
    where the match is printed and ``read`` what reads a line (default: ``sys.stdout`` and
    ``input`` at the time of the call). ``lang``: the language it speaks (en, fr, de)."""
    out = sys.stdout if out is None else out
    read = input if read is None else read
    config.box.backend = "simulated"
    think, face, hide = delays
    service = Service(config, think_s=think, face_delay_s=face, hide_delay_s=hide, journal=journal)
    service.start()
    try:
        rule = config.section("sauteur", SauteurSection).rule
        options: dict[str, object] = {"rule": rule}
        if rule == "B":
            options["first_hider"] = random.choice(["p1", "p2"])
        seats = None if names is None else [_seat(service, name) for name in names]
        game_id = service.new_game("sauteur", options, seats=seats)
        who = {str(s["key"]): str(s["name"]) for s in service.table(game_id).seats if s["name"]}
        say = Words(lang, who)
        table = service.table(game_id)
        if computer:
            for player in ("p1", "p2"):
                box_play(service).set_computer(game_id, player, True, level)
        subscription = service.hub.subscribe([table.topic])
        print(
            say("term.start", rule=rule, id=game_id, help=say("term.help")),
            file=out,
        )
        shown = 0
        while True:
            state = table.state
            assert isinstance(state, SauteurState)  # a Diable sauteur table
            view = table.view("public")["state"]
            assert isinstance(view, dict)  # the rules' view of the state
            for line in view["history"][shown:]:
                die = say("face.devil") if line["face"] == "devil" else str(line["face"])
                key = say("term.key", key=line["key"], face=die) + "  " if line["key"] else ""
                effect = say.said(line["said"])
                print(f"  r{line['round']} h{line['hiding']}  {key}{effect}", file=out)
            shown = len(view["history"])
            if state.phase == OVER:
                print(render(state, view, say), file=out)
                winner = view["winner"]
                won = say("term.draw") if winner == "draw" else say("term.wins", p=say.seat(winner))
                print(won, file=out)
                return 0
            if not computer and state.phase in (POP, ADVANCE) and not _pressing(service):
                print(render(state, view, say), file=out)
                if not _human_turn(service, game_id, state, read, out, say):
                    return 1
                continue
            subscription.get(0.5)
    except (EOFError, KeyboardInterrupt):
        print("\n" + say("term.bye"), file=out)
        return 1
    finally:
        service.stop()


def _pressing(service: Service) -> bool:
    watch = box_play(service).watch
    return watch is not None and watch.state()["pressing"] is not None


def _human_turn(
    service: Service,
    game_id: int,
    state: SauteurState,
    read: Callable[[str], str],
    out: TextIO,
    say: Words,
) -> bool:
    """Ask for one decision and carry it out; False when the player quits."""
    popper = state.popper
    name = say.seat(popper)
    if state.phase == ADVANCE:
        names = [
            n
            for n, s in zip(state.config.figure_names, state.status, strict=True)
            if s == "in-play"
        ]
        shown = ", ".join(say("figure." + n) for n in names)
        answer = read(say("term.advance", p=name, n=state.pending, names=shown) + " > ").strip()
        if answer == "q":
            return False
        chosen = (
            next(
                (n for n in names if n.startswith(answer) or say("figure." + n).startswith(answer)),
                answer,
            )
            if answer
            else ""
        )
        action: dict[str, object] = {"type": "advance", "figure": chosen, "by": popper}
    else:
        answer = read(f"{name} > ").strip().lower()
        if answer == "q":
            return False
        if answer in ("1", "2", "3", "4"):
            try:
                box_play(service).press(game_id, int(answer))
            except Refused as refusal:
                print("  " + say("term.refused", reason=refusal_text(refusal, say.lang)), file=out)
            except BoxError as exc:
                print("  " + say("term.refused", reason=str(exc)), file=out)
            else:
                _wait_for_pop(service, game_id)
            return True
        kinds = {"r": "rehide", "s": "stop"}
        if answer not in kinds:
            print("  " + say("term.help"), file=out)
            return True
        action = {"type": kinds[answer], "by": popper}
    try:
        service.submit(game_id, action)
    except Refused as refusal:
        print("  " + say("term.refused", reason=refusal_text(refusal, say.lang)), file=out)
    return True


def _wait_for_pop(service: Service, game_id: int, timeout_s: float = 5.0) -> None:
    """Block until the pressed die's pop and face are in, or the press failed (jam, fault)."""
    table = service.table(game_id)
    version = table.version
    subscription = service.hub.subscribe([table.topic, "box"])
    try:
        for _ in range(int(timeout_s / 0.1)):
            if table.version > version and getattr(table.state, "phase", None) != FACE:
                return
            if table.version == version and box_play(service).active_faults():
                return  # the press ended without a pop (a jam): the loop shows it
            subscription.get(0.1)
    finally:
        subscription.close()


def _seat(service: Service, name: str) -> dict[str, object]:
    """The seat for ``name``: the roster player of that name, else a guest."""
    assert service.journal is not None
    for player in service.journal.players():
        if player.name.casefold() == name.strip().casefold():
            return {"player": player.id}
    return {"guest": name}
