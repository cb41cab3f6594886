"""The layer contract's checker: every import in a package, read from its source (module level
or inside a function, relative ones resolved), checked against a table of layers.

The table is the ``layers`` contract of ``[tool.importlinter]`` in pyproject.toml, so
import-linter and this checker read one list. A layer is a line of module names joined by
``:``; a name covers the module and everything under it, the longest name wins (so
``camera.cli`` can sit above ``camera``). This checker adds what import-linter does not
promise: every module has a layer, and no import cycle at all, lazy imports included.
"""

from __future__ import annotations

import ast
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Import:
    """``importer`` imports ``imported`` (both full module names) at ``line``."""

    importer: str
    imported: str
    line: int

    def __str__(self) -> str:
        return f"{self.importer}:{self.line} -> {self.imported}"


@dataclass(frozen=True)
class Contract:
    """The layers, bottom first (each a tuple of full module names), and the imports the
    contract lets through for now (``importer -> imported``)."""

    layers: tuple[tuple[str, ...], ...]
    ignored: frozenset[tuple[str, str]]


def modules(root: Path, package: str) -> dict[str, Path]:
    """Every module of ``package`` (whose directory is ``root``): full name -> file."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = [package, *path.relative_to(root).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imports(root: Path, package: str) -> list[Import]:
    """Every import of a module of ``package`` by a module of ``package``, wherever it is
    written (module level, inside a function, under ``TYPE_CHECKING``). ``from a import b``
    is an import of ``a.b`` when that is a module, else of ``a``."""
    known = modules(root, package)
    found = []
    for name, path in known.items():
        here = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            for target in _targets(node, here, known):
                imported = _owner(target, known)
                if imported is not None and imported != name:
                    found.append(Import(name, imported, node.lineno))
    return found


def _targets(node: ast.AST, here: str, known: Mapping[str, Path]) -> list[str]:
    """The dotted names an import statement reaches (``here`` is the importer's package):
    ``from a import b`` reaches the module ``a.b`` if there is one, else ``a``."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if not isinstance(node, ast.ImportFrom):
        return []
    base = node.module or ""
    if node.level:
        package = here.split(".")[: len(here.split(".")) - (node.level - 1)]
        base = ".".join([*package, *([base] if base else [])])
    return [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]


def _owner(target: str, known: Mapping[str, Path]) -> str | None:
    """The module of ``known`` that ``target`` names (a module, or a name in one)."""
    while target and target not in known:
        target = target.rpartition(".")[0]
    return target or None


def read_contract(pyproject: Path, name: str) -> Contract:
    """The ``layers`` contract called ``name`` in ``pyproject``'s ``[tool.importlinter]``."""
    config = tomllib.loads(pyproject.read_text(encoding="utf-8"))["tool"]["importlinter"]
    (contract,) = (c for c in config["contracts"] if c["name"] == name)
    containers = contract.get("containers", [""])
    layers = []
    for line in reversed(contract["layers"]):
        names = [part.strip() for part in line.replace("|", ":").split(":")]
        layers.append(tuple(f"{box}.{n}" if box else n for box in containers for n in names))
    ignored = set()
    for rule in contract.get("ignore_imports", []):
        importer, _, imported = (part.strip() for part in rule.partition("->"))
        ignored.add((importer, imported))
    return Contract(tuple(layers), frozenset(ignored))


def layer_of(module: str, contract: Contract) -> int | None:
    """The index (0 = bottom) of the layer whose longest name covers ``module``, or None."""
    best: tuple[int, int] | None = None
    for index, layer in enumerate(contract.layers):
        for name in layer:
            if module == name or module.startswith(name + "."):
                length = len(name)
                if best is None or length > best[0]:
                    best = (length, index)
    return None if best is None else best[1]


def unassigned(names: Iterable[str], contract: Contract, package: str) -> list[str]:
    """The modules of ``names`` that no layer covers (the package's own ``__init__`` aside:
    it sits at the bottom by definition, holding only the version)."""
    return [n for n in names if n != package and layer_of(n, contract) is None]


def upward(found: Iterable[Import], contract: Contract, package: str) -> list[Import]:
    """The imports that climb: the imported module's layer is above the importer's."""
    climbing = []
    for imp in found:
        if (imp.importer, imp.imported) in contract.ignored:
            continue
        low = 0 if imp.importer == package else layer_of(imp.importer, contract)
        high = 0 if imp.imported == package else layer_of(imp.imported, contract)
        if low is not None and high is not None and high > low:
            climbing.append(imp)
    return climbing


def cycles(found: Iterable[Import]) -> list[list[str]]:
    """The import cycles: each strongly connected group of modules (more than one module,
    each reaching every other through imports), sorted. Tarjan's algorithm, iterative."""
    graph: dict[str, set[str]] = {}
    for imp in found:
        graph.setdefault(imp.importer, set()).add(imp.imported)
        graph.setdefault(imp.imported, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work: list[tuple[str, Sequence[str], int]] = [(start, sorted(graph[start]), 0)]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, nexts, i = work.pop()
            if i < len(nexts):
                work.append((node, nexts, i + 1))
                child = nexts[i]
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, sorted(graph[child]), 0))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(sorted(group))
    return sorted(groups)
