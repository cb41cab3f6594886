"""``doctor``'s journal check: the file's integrity, its rows, its marker."""

from __future__ import annotations

from pathlib import Path

from .results import CheckResult, current_user


def journal_check(data_dir: Path) -> CheckResult:
    """The journal file passes SQLite's full ``integrity_check`` and every row decodes
    (read-only; safe while the service runs), and is not missing or empty while its marker
    says it existed."""
    from ..journal import inspect_file, marker_path, wal_lost
    from ..service import JOURNAL_NAME

    path = data_dir / JOURNAL_NAME
    marker = marker_path(path)
    lost = wal_lost(path)  # before inspect_file: its connection would make a new -wal
    if lost is not None:
        return CheckResult("journal", False, str(lost).split(". ")[0], str(lost))
    found = inspect_file(path, full=True)
    salvage_fix = (
        "restore a copy of the file; or save what can be read with `diablotin export --raw -o "
        "FOLDER`, start a new journal with `diablotin serve --new-journal` and import each "
        "saved game with `diablotin replay FILE --import` (docs/install-pi.md, Troubleshooting)"
    )
    if found.state == "damaged":
        return CheckResult("journal", False, f"{path} is damaged: {found.detail}", salvage_fix)
    if found.state == "unreadable":
        fix = f"make it readable for {current_user()}: `sudo chown -R diablotin: {data_dir}`"
        return CheckResult("journal", False, f"{path} cannot be read: {found.detail}", fix)
    if found.state in ("missing", "empty") and marker.exists():
        what = "is missing" if found.state == "missing" else "is empty"
        fix = (
            "restore a copy of the file; or, to start a new empty journal on purpose, "
            f"`diablotin serve --new-journal` (or delete {marker})"
        )
        return CheckResult(
            "journal", False, f"{path} {what}, but {marker.name} says one existed", fix
        )
    if found.state in ("missing", "empty"):
        return CheckResult("journal", True, f"no journal yet: {path} is made at the first start")
    if found.unreadable:
        fix = (
            "the service starts and sets these games aside as damaged; save what can be read "
            "with `diablotin export --raw -o FOLDER`, then delete the damaged games on the "
            "dashboard (or restore a copy of the file)"
        )
        rows = "; ".join(found.unreadable)
        return CheckResult(
            "journal",
            False,
            f"{path}: integrity ok, but {len(found.unreadable)} row(s) cannot be read: {rows}",
            fix,
        )
    size = path.stat().st_size / 1e6
    return CheckResult(
        "journal", True, f"{path}: integrity ok, {found.games} game(s), {size:.1f} MB"
    )
