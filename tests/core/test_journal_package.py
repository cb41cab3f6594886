"""The journal is a package (issue 23): every name imported from ``controller.journal`` in the
code and the tests is still there, and a row's times are checked as numbers."""

from __future__ import annotations

import ast
import sqlite3
from pathlib import Path
from types import ModuleType

import controller.journal
from controller.journal import Journal

ROOT = Path(__file__).resolve().parents[2]


def names_imported_from_the_journal() -> dict[str, set[str]]:
    """Each name imported from ``controller.journal`` (absolutely, or as ``.journal`` /
    ``..journal`` from within ``controller/``), with the files that import it."""
    found: dict[str, set[str]] = {}
    for folder in ("controller", "tests"):
        for path in (ROOT / folder).rglob("*.py"):
            if "journal" not in path.read_text(encoding="utf-8"):
                continue
            rel = path.relative_to(ROOT).as_posix()
            if rel.startswith("controller/journal/"):
                continue  # the package itself
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not isinstance(node, ast.ImportFrom):
                    continue
                absolute = node.level == 0 and node.module == "controller.journal"
                relative = node.level > 0 and node.module == "journal" and folder == "controller"
                if absolute or relative:
                    for alias in node.names:
                        found.setdefault(alias.name, set()).add(rel)
    return found


def test_every_name_imported_from_the_journal_is_there() -> None:
    imported = names_imported_from_the_journal()
    assert {"Journal", "JournalError", "salvage", "SCHEMA_VERSION"} <= set(imported)
    missing = {
        name: sorted(files)
        for name, files in imported.items()
        if not hasattr(controller.journal, name)
    }
    assert not missing, f"controller.journal no longer has: {missing}"
    modules = {
        name for name in imported if isinstance(getattr(controller.journal, name), ModuleType)
    }
    assert set(imported) - modules <= set(controller.journal.__all__)


def test_a_time_that_is_not_a_number_sets_only_its_game_aside(tmp_path: Path) -> None:
    path = tmp_path / "diablotin.sqlite3"
    journal = Journal(path)
    bad = journal.create_game("tails", {"players": 2})
    fine = journal.create_game("tails", {"players": 3})
    journal.mark_finished(fine)
    journal.close()
    with sqlite3.connect(path) as db:  # a REAL column keeps text that is not a number as text
        db.execute("UPDATE games SET finished = 'soon' WHERE id = ?", (bad,))
    journal = Journal(path)
    try:
        records = {record.id: record for record in journal.games()}
        assert str(records[bad].damaged) == "its setup cannot be read (a time is not a number)"
        assert records[bad].finished is None and records[bad].options == {}
        assert records[fine].damaged is None and isinstance(records[fine].finished, float)
    finally:
        journal.close()
