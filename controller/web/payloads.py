"""What the dashboard sends about a game: always built on ``Table.view`` (public or referee).

A game payload is the table's view envelope (``id, kind, title, version,
finished, state``) and, in a separate "extras" object, what the page needs to
offer buttons: who the computer plays, whether the game is the one on the box,
and for the referee only the legal actions and the refused ones with reasons.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from controller.camera.service import snapshot_names
from controller.games import registry
from controller.games.base import Viewer

from .kinds import hooks

if TYPE_CHECKING:
    from controller.service import Service
    from controller.table import Table


def viewer_for(referee: bool) -> Viewer:
    return "referee" if referee else "public"


def game_view(table: Table, referee: bool) -> dict[str, object]:
    """The table's view for this viewer (the one choke point, ``Table.view``)."""
    view: dict[str, object] = table.view(viewer_for(referee))
    return view


def extras(service: Service, table: Table, referee: bool) -> dict[str, object]:
    """Buttons-related facts; legal/refused actions only for the referee. Made from the
    last committed change: never waits for one being committed."""
    version, state = table.committed()
    out: dict[str, object] = {
        "game": table.game_id,
        "version": version,
        "computer": [],
        "levels": {},
        "on_box": False,
        "referee": referee,
    }
    if service.box_play is not None:  # the game on the box's toy: seats, levels, on_box
        out |= service.box_play.extras(table)
    # the camera's pictures of popped dice, by round history line (none: one failed stat);
    # a game in play shows them to the referee only, as GET .../snapshots/ does
    shown = referee or table.finished
    out["snapshots"] = snapshot_names(service.config.data_dir, table.game_id) if shown else []
    helper = hooks(table.rules.name).extras
    if helper is not None:
        out.update(helper(state, referee))
    if referee and hooks(table.rules.name).legal_in_extras:
        out["legal"] = table.rules.legal_actions(state)
        explain = getattr(table.rules, "explain", None)
        if callable(explain):
            out["refused"] = explain(state)
    return out


def game_payload(service: Service, table: Table, referee: bool) -> dict[str, object]:
    return {"view": game_view(table, referee), "extras": extras(service, table, referee)}


def available_kinds() -> list[str]:
    """The game kinds that can be started (:mod:`controller.games.registry`)."""
    return list(registry.names())
