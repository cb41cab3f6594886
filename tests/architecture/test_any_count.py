"""Typed seams (issue 23, point 4): how loose the types of ``controller/`` are.

- The ``Any`` count: whole-word ``Any`` on lines of ``controller/**/*.py`` that are not
  import lines, counted exactly as
  ``grep -rw Any controller --include=*.py | grep -vE ':\\s*(from|import) ' | wc -l``
  (587 before issue 23). It must stay at or under :data:`BUDGET`.
- No ``Any`` in the signatures (parameters, returns, annotated attributes) of the seam
  modules (:data:`SEAM_MODULES`), nor in a module-level alias there.
- Every ``type: ignore`` names its error code and keeps a reason: a comment after it on
  its line, or a ``# why the ignore below: ...`` line just above it.
"""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CONTROLLER = ROOT / "controller"

BUDGET = 293
"""Half the count before issue 23 (587)."""
PENDING_OTHER_BRANCHES = False
"""PENDING_OTHER_BRANCHES: issue 23 halves the count in six branches at once (PLAN23: each
owner halves the files they own). While a branch alone is over :data:`BUDGET`, set this
True: the budget check then only reports the number (xfail) and :data:`CEILING_NOW` holds
the line. The typed-seams branch (s7-typed) alone is under the budget (290), so it is
enforced; the lead lowers :data:`CEILING_NOW` to the merged count at merge."""
CEILING_NOW = 123
"""The count on s7-typed: never more than this, merged or not (a ratchet under the budget)."""

SEAM_MODULES = (
    "controller/service.py",
    "controller/server.py",
    "controller/boxplay.py",
    "controller/table.py",
    "controller/hub.py",
    "controller/box/",
    "controller/web/",
)
"""Files (or folders, every module under them) whose signatures carry no ``Any``."""
SEAM_EXCEPT: tuple[str, ...] = ()

_IMPORT_LINE = re.compile(r":\s*(from|import) ")
_ANY_WORD = re.compile(r"(?<![A-Za-z0-9_])Any(?![A-Za-z0-9_])")
_IGNORE = re.compile(r"#\s*type:\s*ignore(?P<code>\[[^\]]*\])?(?P<rest>.*)$")
_REASON_ABOVE = "# why the ignore below:"
_ALIASES = (ast.Assign, *((ast.TypeAlias,) if hasattr(ast, "TypeAlias") else ()))


def _sources(root: Path = CONTROLLER) -> Iterator[Path]:
    yield from sorted(root.rglob("*.py"))


def _rel(path: Path, base: Path = ROOT) -> str:
    return path.relative_to(base).as_posix()


def any_lines(root: Path = CONTROLLER) -> list[str]:
    """``path:line_no: text`` of each counted line (the grep above, line for line)."""
    found = []
    for path in _sources(root):
        name = _rel(path, root.parent)
        for no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if _ANY_WORD.search(line) and not _IMPORT_LINE.search(f"{name}:{line}"):
                found.append(f"{name}:{no}: {line.strip()}")
    return found


def unexplained_ignores(text: str) -> list[int]:
    """Line numbers of ``type: ignore`` comments without an error code or a reason."""
    lines = text.splitlines()
    bad = []
    for no, line in enumerate(lines, 1):
        match = _IGNORE.search(line)
        if match is None:
            continue
        above = lines[no - 2].strip() if no > 1 else ""
        trailing = re.match(r"\s*#\s*\S", match["rest"]) is not None
        has_code = bool(match["code"] and match["code"].strip("[] "))
        if not has_code or not (trailing or above.startswith(_REASON_ABOVE)):
            bad.append(no)
    return bad


def _mentions_any(node: ast.AST | None) -> bool:
    if node is None:
        return False
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and sub.id == "Any":
            return True
        if isinstance(sub, ast.Attribute) and sub.attr == "Any":
            return True
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            try:
                if _mentions_any(ast.parse(sub.value, mode="eval")):
                    return True
            except SyntaxError:
                continue  # a plain string, not a forward reference
    return False


def any_in_signatures(text: str) -> list[int]:
    """Line numbers where ``Any`` is in a signature: a parameter's or return's annotation,
    an annotated attribute or variable, or a module-level alias."""
    tree = ast.parse(text)
    bad = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            args = node.args
            every = [*args.posonlyargs, *args.args, *args.kwonlyargs]
            every += [a for a in (args.vararg, args.kwarg) if a is not None]
            bad += [a.lineno for a in every if _mentions_any(a.annotation)]
            if _mentions_any(node.returns):
                bad.append(node.lineno)
        elif isinstance(node, ast.AnnAssign) and _mentions_any(node.annotation):
            bad.append(node.lineno)
    for node in tree.body:  # aliases: X = dict[str, Any], or type X = ...
        if isinstance(node, _ALIASES) and _mentions_any(node.value):
            bad.append(node.lineno)
    return sorted(set(bad))


def seam_files() -> list[Path]:
    files = []
    for entry in SEAM_MODULES:
        path = ROOT / entry
        found = sorted(path.rglob("*.py")) if entry.endswith("/") else [path]
        files += [f for f in found if _rel(f) not in SEAM_EXCEPT]
    return files


# -- the checks on controller/ ------------------------------------------------------------


def test_any_count_within_budget() -> None:
    count = len(any_lines())
    print(f"Any count in controller/: {count} (budget {BUDGET}, 587 before issue 23)")
    assert count <= CEILING_NOW, f"{count} Any: more than the {CEILING_NOW} of s7-typed"
    if PENDING_OTHER_BRANCHES and count > BUDGET:
        pytest.xfail(
            f"PENDING_OTHER_BRANCHES: {count} Any > budget {BUDGET}; the other issue-23 "
            "branches halve their files, the lead tightens this at merge"
        )
    assert count <= BUDGET, f"{count} Any in controller/: the budget is {BUDGET}"


def test_count_is_the_grep_count() -> None:
    """The count is the documented command's, not one of our own."""
    if shutil.which("grep") is None:
        pytest.skip("no grep")
    out = subprocess.run(
        ["grep", "-rw", "Any", "controller", "--include=*.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    ).stdout.splitlines()
    grep_count = sum(1 for line in out if not _IMPORT_LINE.search(line))
    assert grep_count == len(any_lines())


def test_seam_signatures_have_no_any() -> None:
    files = seam_files()
    assert any(_rel(f) == "controller/service.py" for f in files)
    assert any(_rel(f).startswith("controller/box/") for f in files)
    found = {
        _rel(path): lines
        for path in files
        if (lines := any_in_signatures(path.read_text(encoding="utf-8")))
    }
    assert found == {}, f"Any in seam signatures (file: lines): {found}"


def test_every_type_ignore_keeps_a_reason() -> None:
    found = {
        _rel(path): lines
        for path in _sources()
        if (lines := unexplained_ignores(path.read_text(encoding="utf-8")))
    }
    assert found == {}, (
        "type: ignore without [code] and reason (file: lines); write "
        "`# type: ignore[code]  # why`, or `# why the ignore below: ...` above it: "
        f"{found}"
    )


# -- the checkers catch what they should (on small samples) ------------------------------

SAMPLE = """
from typing import Any
import typing

Json = dict[str, Any]


class Box:
    status: dict[str, Any]
    kind: str

    def __init__(self, toy: object, *args: Any, **kw: object) -> None:
        self.seen: "list[Any]" = []
        text = "Any is a word here"

    def fine(self, data: dict[str, object]) -> object:
        local: int = 0
        return data

    def bad(self) -> typing.Any:
        return None


def helper(*, cb: "Callable[[], Any]") -> None:
    pass
"""


def test_signature_checker_finds_every_kind_of_any() -> None:
    lines = SAMPLE.splitlines()
    found = {lines[n - 1].strip().split("(")[0].split(":")[0] for n in any_in_signatures(SAMPLE)}
    assert found == {
        "Json = dict[str, Any]",
        "status",
        "def __init__",
        "self.seen",
        "def bad",
        "def helper",
    }


def test_ignore_checker() -> None:
    sample = "\n".join(
        [
            "a = f()  # type: ignore",  # 1: no code
            "b = f()  # type: ignore[arg-type]",  # 2: no reason
            "c = f()  # type: ignore[arg-type]  # the stub is wrong",  # 3: fine
            "# why the ignore below: the stub is wrong",
            "d = f()  # type: ignore[misc]",  # 5: fine
            "e = f()  # type:ignore[misc] #",  # 6: an empty reason
        ]
    )
    assert unexplained_ignores(sample) == [1, 2, 6]


def test_count_skips_import_lines_only(tmp_path: Path) -> None:
    pkg = tmp_path / "controller"
    pkg.mkdir()
    (pkg / "m.py").write_text(
        "from typing import Any\n"
        "    from typing import Any, cast\n"
        "x: Any = 1\n"
        "def f(a: Any) -> Any: ...\n"
        "AnyThing = 1\n"
        "# Any in a comment counts too\n",
        encoding="utf-8",
    )
    assert any_lines(pkg) == [
        "controller/m.py:3: x: Any = 1",
        "controller/m.py:4: def f(a: Any) -> Any: ...",
        "controller/m.py:6: # Any in a comment counts too",
    ]
