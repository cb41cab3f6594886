"""Helpers shared by the Diable sauteur tests (no tests here)."""

from __future__ import annotations

from typing import Any

import pytest

from controller.games.base import Refused
from controller.games.sauteur import SauteurRules, SauteurState

RULES = SauteurRules()


def hidden() -> dict[str, Any]:
    return {"type": "hidden"}


def pop(key: Any, by: Any) -> dict[str, Any]:
    return {"type": "pop", "key": key, "by": by}


def face(value: Any) -> dict[str, Any]:
    return {"type": "face", "face": value}


def advance(figure: Any, by: Any) -> dict[str, Any]:
    return {"type": "advance", "figure": figure, "by": by}


def rehide(by: Any) -> dict[str, Any]:
    return {"type": "rehide", "by": by}


def stop(by: Any) -> dict[str, Any]:
    return {"type": "stop", "by": by}


def run(state: SauteurState, *actions: dict[str, Any]) -> SauteurState:
    for action in actions:
        state = RULES.apply(state, action)
    return state


def refused(state: SauteurState, action: Any, code: str) -> Refused:
    """Assert ``action`` is refused with ``code`` and that the state is untouched."""
    before_view = RULES.view(state, "public")
    before = tuple(state)
    with pytest.raises(Refused) as caught:
        RULES.apply(state, action)
    assert caught.value.code == code, caught.value.reason
    assert len(caught.value.reason) > 15  # a sentence, not a bare code
    assert tuple(state) == before
    assert RULES.view(state, "public") == before_view
    return caught.value
