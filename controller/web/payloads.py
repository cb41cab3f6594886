"""What the dashboard sends about a game: always built on ``Table.view`` (public or referee).

A game payload is the table's view envelope (``id, kind, title, version,
finished, state``) and, in a separate "extras" object, what the page needs to
offer buttons: who the computer plays, whether the game is the one on the box,
and for the referee only the legal actions and the refused ones with reasons.
"""

from __future__ import annotations

from typing import Any

from controller.camera.service import snapshot_names
from controller.games import registry

from .kinds import hooks


def viewer_for(referee: bool) -> str:
    return "referee" if referee else "public"


def game_view(table: Any, referee: bool) -> dict[str, Any]:
    """The table's view for this viewer (the one choke point, ``Table.view``)."""
    view: dict[str, Any] = table.view(viewer_for(referee))
    return view


def extras(service: Any, table: Any, referee: bool) -> dict[str, Any]:
    """Buttons-related facts; legal/refused actions only for the referee."""
    play = service.box_play  # the game on the box's toy, if any
    box_game = play.box_game() if play is not None else None
    out: dict[str, Any] = {
        "game": table.game_id,
        "version": table.version,
        "computer": sorted(play.computer.get(table.game_id, ())) if play else [],
        "levels": play.computer_levels(table.game_id) if play else {},
        "on_box": box_game is not None and box_game.game_id == table.game_id,
        "referee": referee,
    }
    # the camera's pictures of popped dice, by round history line (none: one failed stat)
    out["snapshots"] = snapshot_names(service.config.data_dir, table.game_id)
    helper = hooks(table.rules.name).extras
    if helper is not None:
        with table.lock:
            out.update(helper(table.state, referee))
    if referee and hooks(table.rules.name).legal_in_extras:
        out["legal"] = table.legal_actions()
        explain = getattr(table.rules, "explain", None)
        if callable(explain):
            with table.lock:
                out["refused"] = explain(table.state)
    return out


def game_payload(service: Any, table: Any, referee: bool) -> dict[str, Any]:
    return {"view": game_view(table, referee), "extras": extras(service, table, referee)}


def available_kinds() -> list[str]:
    """The game kinds that can be started (:mod:`controller.games.registry`)."""
    return list(registry.names())
