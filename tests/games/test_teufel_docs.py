"""Every worked example in docs/rules-teufel.md runs as a test.

An example is a fenced block marked ``teufel``. Lines:

* ``setup {json}`` — setup options;
* ``> type key=value ...`` — an action that must be accepted (a value that
  starts with ``[``, ``{`` or ``"`` is JSON, anything else a string);
* ``! type key=value ... => code: reason`` — an action that must be refused
  with exactly that code and reason (and change nothing);
* ``? path = json`` / ``? path ≈ number`` — a value in the public view
  (``≈``: within 0.00005); path segments are keys (a missing one reads as
  ``null``), list indexes, or a colour to pick that player from ``players``;
* ``# ...`` — a comment.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from controller.games.base import Refused
from controller.games.teufel.state import State
from tests.games.test_teufel_support import RULES

DOC = Path(__file__).resolve().parents[2] / "docs" / "rules-teufel.md"


def _examples() -> list[tuple[str, list[str]]]:
    found: list[tuple[str, list[str]]] = []
    heading = ""
    block: list[str] | None = None
    for line in DOC.read_text(encoding="utf-8").splitlines():
        if block is None:
            if line.startswith("#"):
                heading = line.lstrip("# ").strip()
            elif line.strip() == "```teufel":
                block = []
        elif line.strip() == "```":
            found.append((f"{len(found) + 1:02d} {heading}", block))
            block = None
        else:
            block.append(line)
    return found


def _action(text: str) -> dict[str, Any]:
    kind, *pairs = text.split()
    action: dict[str, Any] = {"type": kind}
    for pair in pairs:
        key, _, value = pair.partition("=")
        action[key] = json.loads(value) if value[:1] in '[{"' else value
    return action


def _lookup(view: Any, path: str) -> Any:
    for part in path.split("."):
        if isinstance(view, list) and part.isdigit():
            view = view[int(part)]
        elif isinstance(view, list):
            view = next(item for item in view if item.get("colour") == part)
        else:
            view = view.get(part)  # a missing key reads as null
    return view


def run(lines: list[str]) -> State:
    state: State | None = None
    for number, raw in enumerate(lines, 1):
        line = raw.strip()
        where = f"line {number}: {line}"
        if not line or line.startswith("#"):
            continue
        if line.startswith("setup "):
            state = RULES.setup(json.loads(line[6:]))
            continue
        assert state is not None, "an example starts with setup"
        if line.startswith("> "):
            try:
                state = RULES.apply(state, _action(line[2:]))
            except Refused as refusal:
                pytest.fail(f"{where}: refused: {refusal.reason}")
        elif line.startswith("! "):
            text, _, expected = line[2:].partition(" => ")
            code, _, reason = expected.partition(": ")
            with pytest.raises(Refused) as caught:
                RULES.apply(state, _action(text))
            assert (caught.value.code, caught.value.reason) == (code, reason), where
        elif line.startswith("? "):
            match = re.fullmatch(r"\? (\S+) (=|≈) (.+)", line)
            assert match, where
            actual = _lookup(RULES.view(state, "public"), match[1])
            if match[2] == "=":
                assert actual == json.loads(match[3]), where
            else:
                assert actual == pytest.approx(float(match[3]), abs=5e-5), where
        else:
            pytest.fail(f"{where}: not an example line")
    assert state is not None
    return state


EXAMPLES = _examples()


def test_the_document_has_examples() -> None:
    assert len(EXAMPLES) >= 20


@pytest.mark.parametrize(("title", "lines"), EXAMPLES, ids=[t for t, _ in EXAMPLES])
def test_example(title: str, lines: list[str]) -> None:
    run(lines)
