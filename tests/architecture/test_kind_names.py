"""Generic code never names a built-in game kind (issue 23): each kind lives in its
package, ``controller/games/<kind>/``, and its page's files (``web/templates/games/<kind>*``,
``web/static/js/games/<kind>*``, ``web/rules/<kind>.*``, ``controller/web/kinds/<kind>.py``);
everything else asks the kind's :class:`~controller.games.registry.GameKind`.

A kind is named by a string literal or an identifier holding one of its spellings as a
word (``"teufel"``, ``teufel_colours``, ``setupTeufelForm``, ``TailsRules``, ``"kind.tails"``).
Docstrings and comments are prose, and may name games. Python is read with :mod:`ast`;
scripts and templates, comments stripped, with a word match.
"""

from __future__ import annotations

import ast
import itertools
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
KINDS = ("sauteur", "teufel", "tails")
WORD = re.compile(r"(?<![a-z])(sauteur|teufel|tails)(?![a-z])|(Sauteur|Teufel|Tails)(?![a-z])")
"""A spelling as a word: lower case after a non-letter (``kind.tails``, ``teufel_x``), or
capitalised anywhere (``setupTeufelForm``); never inside another word (``details``)."""

ALLOWED: dict[str, str] = {
    "controller/games/registry.py": "BUILT_IN: the one list of the packages to load",
    "controller/boxplay.py": "the box's player: the toy is the Diable sauteur's (its box_player)",
    "controller/solver_cache.py": "the Diable sauteur's solved tables, for its box player",
    "controller/sim.py": "the Diable sauteur's simulator (diablotin sim), a CLI of that game",
}
"""Generic files that may name a kind, and why. Kept short. (A module whose file name
names a kind, like ``bench/teufel.py``, ``reliability/hostile_teufel.py`` or
``terminal_sauteur.py``, is that kind's own; the generic benches and the reliability
suite find them through the registry, and ask it for the box's game
(``registry.on_box``) and the walked one (``registry.walked``).)"""

PENDING_OTHER_BRANCHES: dict[str, str] = {
    # Issue 23's other owners remove these names on their branches this session; the lead
    # deletes each entry at merge (then this test fails for any name left).
}
"""Files other engineers own and are changing in parallel (see PLAN23.md)."""


def _generic(path: str) -> bool:
    """Whether ``path`` (relative to the repository) is generic code, not a kind's own."""
    if WORD.search(path.rsplit("/", 1)[-1].split(".")[0]):
        return False  # a module named after its kind: bench/teufel.py, sim_tails.py
    for kind in KINDS:
        own = (
            f"controller/games/{kind}/",
            f"web/templates/games/{kind}",
            f"web/static/js/games/{kind}",
            f"web/rules/{kind}.",
            f"controller/web/kinds/{kind}.py",
        )
        if path.startswith(own):
            return False
    return not path.startswith("web/static/vendor/")


def _is_text(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstrings' nodes: a body's first string, and a string right after
    an assignment (an attribute's)."""
    ids = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(body, list) or not body:
            continue
        if _is_text(body[0]):
            ids.add(id(body[0].value))
        for before, after in itertools.pairwise(body):
            if isinstance(before, ast.Assign | ast.AnnAssign) and _is_text(after):
                ids.add(id(after.value))
    return ids


def python_names(source: str) -> list[tuple[int, str]]:
    """(line, text) of every identifier or string literal (docstrings aside) that names a
    kind."""
    tree = ast.parse(source)
    prose = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        texts: list[str] = []
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in prose:
            texts.append(node.value)
        elif isinstance(node, ast.Name):
            texts.append(node.id)
        elif isinstance(node, ast.Attribute):
            texts.append(node.attr)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            texts.append(node.name)
        elif isinstance(node, ast.arg | ast.keyword) and node.arg:
            texts.append(node.arg)
        elif isinstance(node, ast.alias):
            texts += [node.name, node.asname or ""]
        elif isinstance(node, ast.ImportFrom) and node.module:
            texts.append(node.module)
        found += [(getattr(node, "lineno", 0), text) for text in texts if WORD.search(text)]
    return found


JS_COMMENTS = re.compile(r"/\*.*?\*/|(?<![:\"'\\])//[^\n]*", re.S)
HTML_COMMENTS = re.compile(r"\{#.*?#\}|<!--.*?-->", re.S)


def text_names(source: str, comments: re.Pattern[str]) -> list[tuple[int, str]]:
    """(line, word) of every kind's spelling in a script or template, comments aside."""
    code = comments.sub(lambda m: "\n" * m.group(0).count("\n"), source)
    return [(code.count("\n", 0, m.start()) + 1, m.group(0)) for m in WORD.finditer(code)]


def findings(root: Path) -> dict[str, list[tuple[int, str]]]:
    """Generic files under ``root`` that name a kind: path -> [(line, text)]."""
    found = {}
    files = [
        *(root / "controller").rglob("*.py"),
        *(root / "web" / "static").rglob("*.js"),
        *(root / "web" / "templates").rglob("*.html"),
    ]
    for path in sorted(files):
        rel = path.relative_to(root).as_posix()
        if not _generic(rel):
            continue
        source = path.read_text(encoding="utf-8")
        if path.suffix == ".py":
            hits = python_names(source)
        else:
            hits = text_names(source, JS_COMMENTS if path.suffix == ".js" else HTML_COMMENTS)
        if hits:
            found[rel] = sorted(hits)
    return found


def test_generic_code_names_no_built_in_kind() -> None:
    found = findings(ROOT)
    excused = ALLOWED | PENDING_OTHER_BRANCHES
    named = {path: hits for path, hits in found.items() if path not in excused}
    assert named == {}, "generic code names a kind: ask its GameKind instead"
    stale = sorted(path for path in excused if path not in found)
    assert stale == [], "allowed files that no longer name a kind: drop them from the list"


def test_the_checker_catches_a_planted_name(tmp_path: Path) -> None:
    (tmp_path / "controller" / "games" / "tails").mkdir(parents=True)
    (tmp_path / "web" / "static" / "js" / "games").mkdir(parents=True)
    (tmp_path / "web" / "templates").mkdir(parents=True)
    (tmp_path / "controller" / "games" / "tails" / "rules.py").write_text('NAME = "tails"\n')
    (tmp_path / "controller" / "stats.py").write_text(
        '"""Stats for the tails game (prose)."""\n'
        "def f(kind):\n"
        '    """Even teufel here is prose."""\n'
        "    details = 1  # tails in a comment\n"
        '    return kind == "teufel" or details\n'
        "from controller.games.sauteur import odds\n"
    )
    (tmp_path / "web" / "static" / "js" / "home.js").write_text(
        '// the sauteur\nimport { setupTeufelForm } from "./x.js";\nconst details = 1;\n'
    )
    (tmp_path / "web" / "static" / "js" / "games" / "tails-kind.js").write_text('"tails";\n')
    (tmp_path / "web" / "templates" / "home.html").write_text(
        "{# teufel #}<p>{{ t('kind.tails') }}</p>\n"
    )
    assert findings(tmp_path) == {
        "controller/stats.py": [(5, "teufel"), (6, "controller.games.sauteur")],
        "web/static/js/home.js": [(2, "Teufel")],
        "web/templates/home.html": [(1, "tails")],
    }
