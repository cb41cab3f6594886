"""``diablotin export --all``: a zip of every game, or one CSV row per game, checked against
the hand-worked games of tests/core/test_stats.py."""

from __future__ import annotations

import csv
import io
import json
import time
import zipfile

from controller import cli
from controller.journal import Journal
from controller.service import JOURNAL_NAME
from tests.core.test_stats import hand_games


def _data_dir(tmp_path):
    journal = Journal(tmp_path / JOURNAL_NAME)
    for data in hand_games():
        journal.import_game(data)
    exports = {g.id: journal.export(g.id) for g in journal.games()}
    journal.close()
    return tmp_path, exports


def test_export_all_as_a_zip_holds_every_games_file(tmp_path, capsys):
    data_dir, exports = _data_dir(tmp_path)
    target = tmp_path / "all.zip"
    assert cli.main(["--data-dir", str(data_dir), "export", "--all", "-o", str(target)]) == 0
    assert "5 game(s) written" in capsys.readouterr().err
    with zipfile.ZipFile(target) as archive:
        assert sorted(archive.namelist()) == [f"game-{i}.json" for i in range(1, 6)]
        for gid, export in exports.items():
            assert json.loads(archive.read(f"game-{gid}.json")) == export


def test_export_all_as_csv_has_one_row_per_game(tmp_path, capsys):
    data_dir, _ = _data_dir(tmp_path)
    assert cli.main(["--data-dir", str(data_dir), "export", "--all", "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert list(rows[0]) == [
        "id",
        "kind",
        "title",
        "players",
        "winner",
        "started",
        "finished",
        "actions",
    ]
    by_id = {int(r["id"]): r for r in rows}
    # the winners worked out by hand (test_stats.py's table); game 4 is still in play
    assert {i: r["winner"] for i, r in by_id.items()} == {
        1: "p2",
        2: "p1",
        3: "p1",
        4: "",
        5: "blue",
    }
    assert [r["actions"] for r in rows] == ["4", "4", "7", "1", "1"]  # undone ones left out
    assert by_id[5]["players"] == "blue; green" and by_id[1]["players"] == "p1; p2"
    assert by_id[4]["finished"] == "" and by_id[1]["kind"] == "sauteur"
    assert by_id[1]["finished"] == time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(130))


def test_export_all_refuses_a_game_id_or_a_zip_without_a_file(tmp_path, capsys):
    data = ["--data-dir", str(tmp_path)]
    assert cli.main([*data, "export", "--all"]) == 2
    assert cli.main([*data, "export", "--all", "3", "-o", str(tmp_path / "x.zip")]) == 2
    assert "export --all takes no game id" in capsys.readouterr().err
