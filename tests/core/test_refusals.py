"""One refusal vocabulary (issue 23, point 6): every code raised in ``controller/`` is in
:mod:`controller.refusals` with one status, its template is in the catalogs, each engine
refuses the same mistake alike, and docs/api.md holds the table."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from controller import refusals
from controller.games import registry
from controller.games.base import Refused

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "controller"
RAISERS = {"Refused": 1, "ApiError": 1, "TextRefused": 0, "TeachRefused": 0}
"""A call that names a refusal code, and the position of its code argument."""


def _name(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    return func.attr if isinstance(func, ast.Attribute) else None


def _code_arg(call: ast.Call, position: int) -> ast.expr | None:
    if len(call.args) > position:
        return call.args[position]
    return next((kw.value for kw in call.keywords if kw.arg == "code"), None)


def raised_codes() -> Iterator[tuple[str, str, int | None]]:
    """``(where, code, literal status or None)`` for every literal code a call names."""
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or _name(node) not in RAISERS:
                continue
            name = _name(node)
            assert name is not None
            code = _code_arg(node, RAISERS[name])
            where = f"{path.relative_to(ROOT)}:{node.lineno}"
            if code is None and name == "Refused":
                yield where, "illegal", None  # Refused's default code
            if isinstance(code, ast.Constant) and isinstance(code.value, str):
                first = node.args[0] if node.args else None
                literal = first.value if isinstance(first, ast.Constant) else None
                status = literal if name == "ApiError" and isinstance(literal, int) else None
                yield where, code.value, status


def test_the_walk_finds_the_codes_it_should() -> None:
    codes = {code for _, code, _ in raised_codes()}
    # one of each raiser: an engine's, the API's, the text policy's, the camera teacher's
    assert {"slot-empty", "bad-body", "text-type", "not-teaching"} <= codes


def test_every_code_raised_in_controller_is_in_the_table() -> None:
    missing = sorted(
        f"{code} ({where})" for where, code, _ in raised_codes() if code not in refusals.CODES
    )
    assert not missing, "codes raised but not in controller/refusals.py: " + ", ".join(missing)


def test_every_literal_status_is_the_tables() -> None:
    wrong = [
        f"{where}: {code} {status} (table: {refusals.status(code)})"
        for where, code, status in raised_codes()
        if status is not None and code in refusals.CODES and status != refusals.status(code)
    ]
    assert not wrong, wrong


def test_the_table_keeps_the_rule_of_one_status_per_kind_of_mistake() -> None:
    for code, entry in refusals.CODES.items():
        access = code in ("bad-csrf-token", "bad-host")  # who may ask: 403
        if (code.startswith(("bad-", "text-")) and not access) or code == "unknown-action":
            assert entry.status == 400, code  # malformed or ill-typed
        if code in ("no-game", "no-player", "no-camera", "no-layout", "no-upload"):
            assert entry.status == 404, code  # an unknown thing named in the URL
    with pytest.raises(KeyError):
        refusals.status("no-such-code")


@pytest.mark.parametrize("lang", ["fr", "de"])
def test_every_template_is_translated(lang: str) -> None:
    path = PACKAGE / "locales" / lang / "LC_MESSAGES" / "messages.po"
    with path.open("rb") as fp:
        catalog = read_po(fp, locale=lang)
    untranslated = [
        code
        for code, entry in refusals.CODES.items()
        if (message := catalog.get(entry.template)) is None or not message.string
    ]
    assert not untranslated


OPTIONS = {"teufel": {"players": ["blue", "green"]}}
"""Options a kind cannot start without."""


@pytest.mark.parametrize("name", ["sauteur", "teufel", "tails"])
@pytest.mark.parametrize(
    ("action", "code"),
    [
        ({"type": "jump"}, "unknown-action"),
        ({"type": "Step"}, "unknown-action"),
        ({"type": 7}, "bad-action"),
        ({"kind": "step"}, "bad-action"),
        ("not an object", "bad-action"),
        ([{"type": "jump"}], "bad-action"),
    ],
)
def test_each_engine_refuses_the_same_mistake_alike(name: str, action: object, code: str) -> None:
    rules = registry.get(name).rules()
    state = rules.setup(OPTIONS.get(name, {}))
    with pytest.raises(Refused) as caught:
        rules.apply(state, action)  # type: ignore[arg-type]  # a wrong action on purpose
    assert caught.value.code == code
    assert caught.value.template == refusals.template(code)
    if code == "unknown-action":
        assert isinstance(action, dict) and caught.value.params["kind"] == action["type"]
        assert "known" in caught.value.params


def test_docs_api_holds_the_table() -> None:
    text = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    start, end = "<!-- refusal-codes: start -->\n", "<!-- refusal-codes: end -->"
    assert start in text and end in text, "docs/api.md lacks the refusal-codes block"
    block = text.split(start, 1)[1].split(end, 1)[0]
    assert block.strip() == refusals.markdown().strip(), (
        "docs/api.md's refusal codes differ from controller/refusals.py: "
        "python -m controller.refusals prints the table"
    )


def test_docs_api_summary_gives_each_code_its_status() -> None:
    """The errors' summary table (status | when | example codes) agrees with the table."""
    text = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    summary = text.split("## Errors", 1)[1].split("\n\n| status |", 1)[1].split("\n\n", 1)[0]
    checked = 0
    for row in summary.splitlines()[2:]:
        cells = row.split(" | ")
        status = int(cells[0].strip("| "))
        for code in cells[-1].split("`")[1::2]:
            if not code.islower():
                continue  # a header (`Retry-After`), not a code
            assert refusals.status(code) == status, (code, status)
            checked += 1
    assert checked > 20


def test_the_api_takes_every_status_from_the_table() -> None:
    """The API's own modules never guess a status: an error is ``api_error(code, ...)``
    (or ``ApiError(refusals.status(code), ...)``), never ``ApiError(409, ...)``."""
    guessed = []
    for name in ("api.py", "api_support.py", "api_backup.py", "__init__.py"):
        path = PACKAGE / "web" / name
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            call = isinstance(node, ast.Call) and _name(node) == "ApiError"
            if call and node.args and isinstance(node.args[0], ast.Constant):
                guessed.append(f"{name}:{node.lineno}")
    assert not guessed, guessed
