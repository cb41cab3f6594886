"""A refusal is a stable code and its parameters; its English sentence is made from them.

Every ``Refused(...)`` in the code passes a template whose ``{fields}`` are exactly the
parameters it names, so a translation keyed by the template (the msgid) can fill them in
the viewer's language. Over the API a refusal carries ``code`` and ``params``.
"""

from __future__ import annotations

import ast
import json
import string
from pathlib import Path

import pytest

from controller.games.base import Refused

CONTROLLER = Path(__file__).resolve().parents[2] / "controller"


def _refusals() -> list[tuple[str, int, ast.Call]]:
    found = []
    for path in sorted(CONTROLLER.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Refused":
                found.append((str(path.relative_to(CONTROLLER)), node.lineno, node))
    return found


def test_no_refusal_is_built_from_an_f_string():
    made_by_hand = [
        f"{where}:{line}"
        for where, line, call in _refusals()
        if call.args and isinstance(call.args[0], ast.JoinedStr)
    ]
    assert made_by_hand == []


def test_every_template_names_exactly_the_parameters_given():
    checked = 0
    for where, line, call in _refusals():
        first = call.args[0] if call.args else None
        if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
            continue  # a sentence passed on (str(exc), a helper's reason)
        fields = {name for _, name, _, _ in string.Formatter().parse(first.value) if name}
        params = {kw.arg for kw in call.keywords}
        assert fields == params, f"{where}:{line}: {fields} != {params}"
        checked += 1
    assert checked > 90


def test_a_refusal_keeps_code_params_and_its_english_sentence():
    refused = Refused("slot {key} is empty", "slot-empty", key=4)
    assert (refused.code, refused.params, refused.reason) == (
        "slot-empty",
        {"key": 4},
        "slot 4 is empty",
    )
    assert str(refused) == "slot 4 is empty" and refused.template == "slot {key} is empty"
    odd = Refused("{what!r} and {error}", "x", what=("a", 1), error=OSError("disk"))
    assert json.loads(json.dumps(odd.as_dict()))["params"] == {"what": ["a", 1], "error": "disk"}
    assert odd.reason == "('a', 1) and disk"


@pytest.mark.parametrize(("rule", "wrong"), [("A", "stop"), ("B", "advance")])
def test_the_api_answers_a_refusal_with_its_code_and_params(tmp_path, rule, wrong):
    from controller.web import create_app
    from tests.web.conftest import REFEREE, make_service

    svc = make_service(tmp_path, think_s=3600, face_delay_s=3600, hide_delay_s=3600)
    try:
        client = create_app(svc).test_client()
        made = client.post(
            "/api/games", json={"kind": "sauteur", "options": {"rule": rule}}, headers=REFEREE
        )
        gid = made.get_json()["view"]["id"]
        resp = client.post(
            f"/api/games/{gid}/actions", json={"type": "face", "face": 9}, headers=REFEREE
        )
        body = resp.get_json()
        assert resp.status_code == 409
        assert body["code"] == body["error"] == "not-hidden" and body["params"] == {}
        resp = client.post(f"/api/games/{gid}/actions", json={"type": wrong}, headers=REFEREE)
        body = resp.get_json()
        uses = "B" if rule == "A" else "A"
        assert body["code"] == "wrong-rule"
        assert body["params"] == {"kind": wrong, "uses": uses, "rule": rule}
        assert body["reason"] == f'"{wrong}" belongs to rule {uses}; this match plays rule {rule}'
    finally:
        svc.stop()
