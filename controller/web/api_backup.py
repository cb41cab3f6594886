"""The journal's backup through the API: download it, upload one to check, restore it
(routes under ``/api/backup``, a blueprint nested in :mod:`controller.web.api`'s, so the
referee's gate covers them)."""

from __future__ import annotations

import re
from pathlib import Path

from flask import Blueprint, Response, current_app, jsonify

from controller.games.base import Said, said_of

from .api_support import api_error, guarded, json_body, referee, service

bp = Blueprint("backup", __name__)

_UPLOAD = re.compile(r"[0-9a-f]{32}")


def _upload_path(token: str) -> Path:
    from controller.backup import BACKUP_DIR

    return service().config.data_dir / BACKUP_DIR / f"upload-{token}.sqlite3"


def _drop_upload(path: Path) -> None:
    """Remove an upload and what SQLite left beside it (``-wal``, ``-shm``)."""
    for suffix in ("", "-wal", "-shm"):
        path.with_name(path.name + suffix).unlink(missing_ok=True)


@bp.get("/backup")
def download_backup() -> Response:
    """The whole journal (every game, the roster), copied with SQLite's online backup API
    while the service runs: ``diablotin-backup-<time>.sqlite3``."""
    import tempfile

    from controller import backup

    if not referee():
        raise api_error("pin-required", Said("only the referee may download a backup"))
    journal = service().journal
    assert journal is not None
    name = backup.default_backup_path(Path("."), None, "diablotin-backup").name
    with tempfile.TemporaryDirectory() as folder:
        target = Path(folder) / name
        try:
            backup.backup(Path(journal.path), target)
        except backup.BackupError as exc:
            raise api_error("backup-failed", said_of(exc)) from None
        data = target.read_bytes()
    resp = Response(data, mimetype="application/vnd.sqlite3")
    resp.headers["Content-Disposition"] = f'attachment; filename="{name}"'
    resp.headers["Cache-Control"] = "no-store"
    return resp


@bp.post("/backup/check")
def check_backup() -> Response:
    """Upload a backup to restore: ``{"name": file name, "data": base64}``. It is checked
    (a Diablotin journal, undamaged, not from a newer Diablotin) and kept aside, nothing
    else changes: ``{"upload": token, "games": n, "players": n, "schema": v}``; 400
    ``bad-backup`` with the reason."""
    import base64
    import binascii
    import secrets

    from controller import backup

    body = json_body()
    if not isinstance(body.get("data"), str) or not isinstance(body.get("name", ""), str):
        raise api_error("bad-body", Said('send {{"name": the file\'s name, "data": base64}}'))
    try:
        raw = base64.b64decode(str(body["data"]), validate=True)
    except (binascii.Error, ValueError):
        raise api_error("bad-backup", Said("the backup must be sent as base64")) from None
    folder = _upload_path("x").parent
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("upload-*.sqlite3"):  # one upload waits at a time
        _drop_upload(old)
    token = secrets.token_hex(16)
    path = _upload_path(token)
    path.write_bytes(raw)
    try:
        schema = backup.check(path)
        games, players = backup.count(path)
    except backup.BackupError as exc:
        _drop_upload(path)
        raise api_error("bad-backup", _named(said_of(exc), path, body.get("name"))) from None
    return jsonify({"upload": token, "games": games, "players": players, "schema": schema})


def _named(reason: str, path: Path, name: object) -> str:
    """``reason`` with the uploaded file's name where it says the server's path."""
    shown = str(name)[:80] if isinstance(name, str) and name else "?"
    if isinstance(reason, Said):
        params = {k: shown if v == str(path) else v for k, v in reason.params.items()}
        return Said(reason.template, None, **params)
    return reason.replace(str(path), shown)


@bp.post("/backup/restore")
def restore_backup() -> Response:
    """``{"upload": token, "confirm": true}``: put the checked upload in place of the
    journal (the current one is kept as ``<journal>.bak``); the service reopens it and
    every live page reconnects. ``"confirm": false`` drops the upload. 400 ``bad-body`` for
    a ``confirm`` that is not a boolean (the upload stays); 404 ``no-upload``."""
    from controller import backup

    body = json_body()
    token = body.get("upload")
    if not isinstance(body.get("confirm"), bool):  # a "yes" must not drop the upload
        raise api_error("bad-body", Said('send {{"upload": token, "confirm": true or false}}'))
    path = _upload_path(token) if isinstance(token, str) and _UPLOAD.fullmatch(token) else None
    if path is None or not path.is_file():
        raise api_error("no-upload", Said("no backup is waiting to be restored: send it again"))
    if body.get("confirm") is not True:
        _drop_upload(path)
        return jsonify({"restored": False})
    try:
        kept = guarded(lambda: service().restore_journal(path))
    except backup.BackupError as exc:
        raise api_error("bad-backup", said_of(exc)) from None
    finally:
        _drop_upload(path)
    current_app.extensions.pop("diablotin.stats", None)  # its cache knew the old games
    journal = service().journal
    assert journal is not None
    return jsonify(
        {
            "restored": True,
            "games": len(journal.games()),
            "kept": None if kept is None else kept.name,
        }
    )
