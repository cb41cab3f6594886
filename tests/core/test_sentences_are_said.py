"""Every sentence an error carries to a person is a ``Said``: a template the catalogs hold
and its parameters, so the CLI, the API and the pages make it in the reader's language.

An f-string, ``"...".format()`` or a concatenation as an error's message would be English
for everyone; a plain literal is English too unless the catalogs' extractor finds it
(``Refused("...")`` and ``Said("...")`` are the keywords it looks for). Errors that only a
developer sees (an engine's internal check, a solver that did not converge, a cache file
to rebuild) keep plain English and are listed in INTERNAL with why."""

from __future__ import annotations

import ast
from pathlib import Path

CONTROLLER = Path(__file__).resolve().parents[2] / "controller"

NOT_FOR_PEOPLE = ("bench", "reliability")  # developers' tools: their reports stay English

INTERNAL = {  # (file, exception) -> why nobody but a developer reads it
    ("box/debounce.py", "ValueError"): "the config checks debounce_ms first",
    ("box/pins.py", "ValueError"): "a section name is the code's own constant",
    ("box/toy.py", "PinInvalidPull"): "gpiozero's contract for a mock pin",
    ("box/toy.py", "ValueError"): "a test wiring the simulated toy twice",
    ("camera/learned.py", "ModelError"): "a damaged install, given as why a read is null "
    "(the rules still read); the developer's diagnostic",
    ("camera/cnn.py", "ValueError"): "a damaged weights file: learned.py gives it as a "
    "ModelError, why a read is null; the developer's diagnostic",
    ("camera/reader.py", "ValueError"): "images come from our own loaders",
    ("camera/render.py", "OSError"): "the renderer writes test datasets",
    ("camera/render.py", "ValueError"): "styles and backgrounds are the code's own names",
    ("config.py", "TypeError"): "the code asked for a section as another class than its own",
    ("boxplay.py", "TypeError"): "the box's game asked for a table of another kind: a code bug",
    ("commands/base.py", "TypeError"): "a kind whose cli names no KindCli: a code bug",
    ("games/registry.py", "LookupError"): "only the benches and reliability ask (on_box, walked)",
    ("games/sauteur/chase_tree.py", "ValueError"): "a tree asked of no position: a code bug",
    ("games/sauteur/chase_tree.py", "ArithmeticError"): "a solver bug, not a user's mistake",
    ("games/sauteur/compiled.py", "ArithmeticError"): "a solver bug, not a user's mistake",
    ("games/sauteur/hider.py", "ArithmeticError"): "a solver bug, not a user's mistake",
    ("games/sauteur/solve_b.py", "ArithmeticError"): "a solver bug, not a user's mistake",
    ("games/sauteur/solve_b.py", "ValueError"): "a table of the code's own making",
    ("games/tails/advisor.py", "ValueError"): "the advisor's own misuse",
    ("games/teufel/knowledge.py", "Impossible"): "caught and refused with a Said",
    ("games/teufel/knowledge.py", "ValueError"): "the engine's internal bookkeeping",
    ("games/teufel/random_play.py", "RuntimeError"): "a random game that never ends: a bug",
    ("games/teufel/view.py", "KeyError"): "the view asks for a colour in play",
    ("hub.py", "EOFError"): "ends a subscription, never shown",
    ("sim.py", "ValueError"): "the CLI checks every option first (argparse, levels)",
    ("sim_tails.py", "ValueError"): "the CLI checks every option first",
    ("solver_cache.py", "ValueError"): "a cache file to rebuild: logged, then rebuilt",
}


def _name(func: ast.expr) -> str:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


def _english(node: ast.expr) -> str | None:
    """Why ``node`` is a sentence only English readers can read, or None."""
    if isinstance(node, ast.JoinedStr):
        words = "".join(part.value for part in node.values if isinstance(part, ast.Constant))
        return "an f-string" if " " in str(words) else None
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and " " in node.value:
        return "a literal the extractor does not see"
    if isinstance(node, ast.Call) and _name(node.func) == "format":
        return '"...".format()'
    if isinstance(node, ast.BinOp) and any(
        isinstance(side, ast.Constant) and isinstance(side.value, str)
        for side in (node.left, node.right)
    ):
        return "a concatenation"
    return None


def english_errors(root: Path = CONTROLLER) -> list[str]:
    """``file:line: Exception: why`` for each raise whose message is English only."""
    found = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if rel.split("/")[0] in NOT_FOR_PEOPLE:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call)):
                continue
            error = _name(node.exc.func)
            if (rel, error) in INTERNAL:
                continue
            for arg in [*node.exc.args, *(k.value for k in node.exc.keywords)]:
                why = _english(arg)
                if why and not (why.startswith("a literal") and error in ("Refused", "Said")):
                    found.append(f"{rel}:{node.lineno}: {error}: {why}")
    return found


def test_every_error_a_person_reads_is_said() -> None:
    assert english_errors() == []


def test_the_check_finds_english_errors(tmp_path: Path) -> None:
    (tmp_path / "x.py").write_text(
        "def f(n):\n"
        "    raise ValueError(f'bad value {n}')\n"
        "def g(n):\n"
        "    raise ValueError('the value is ' + str(n))\n"
        "def h(n):\n"
        "    raise Refused('a template {n}', n=n)\n"
        "def i(n):\n"
        "    raise ValueError(Said('a template {n}', n=n))\n"
    )
    assert english_errors(tmp_path) == [
        "x.py:2: ValueError: an f-string",
        "x.py:4: ValueError: a concatenation",
    ]


def test_every_internal_exception_is_still_raised_there() -> None:
    """A stale INTERNAL entry would let a new English sentence in unseen."""
    for rel, error in INTERNAL:
        tree = ast.parse((CONTROLLER / rel).read_text(encoding="utf-8"))
        raised = {
            _name(node.exc.func)
            for node in ast.walk(tree)
            if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call)
        }
        assert error in raised, (rel, error)
