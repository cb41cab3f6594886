"""The shape every engine checks first: an action is a JSON object whose ``type`` is one of
the game's. The same mistake gets the same refusal in every game (the codes and templates of
:mod:`controller.refusals`)."""

from __future__ import annotations

from collections.abc import Collection, Mapping

from .base import Refused


def action_type(action: object, known: Collection[str]) -> str:
    """The ``type`` of ``action`` when it is one of ``known`` (in the game's order).

    Raises :class:`Refused` ``bad-action`` when ``action`` is not a JSON object with a
    text ``type``, and ``unknown-action`` (params ``kind``, ``known``) when its type is not
    the game's."""
    kind = action.get("type") if isinstance(action, Mapping) else None
    if not isinstance(kind, str):
        raise Refused("an action is a JSON object with a 'type'", "bad-action")
    if kind not in known:
        raise Refused(
            "unknown action type {kind!r} (known: {known})",
            "unknown-action",
            kind=kind,
            known=", ".join(known),
        )
    return kind
