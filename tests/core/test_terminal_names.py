"""`diablotin play sauteur --names`: the terminal says the players' names, not p1/p2."""

from __future__ import annotations

import io

from controller.config import Config
from controller.journal import Journal
from controller.terminal import play_sauteur


def test_the_terminal_uses_the_players_names_and_seats_roster_players(tmp_path):
    config = Config(data_dir=tmp_path / "data")
    config.box.seed = 5
    journal = Journal(tmp_path / "kept.sqlite3")
    journal.save_player("Zoé", "🦊")
    prompts: list[str] = []

    def read(prompt: str) -> str:
        prompts.append(prompt)
        return "q"

    out = io.StringIO()
    code = play_sauteur(
        config, read=read, out=out, delays=(0.01, 0.01, 0.01), journal=journal, names=["zoé", "Max"]
    )
    assert code == 1
    text = out.getvalue()
    assert "hider Zoé  popper Max" in text  # rule A, p1 hides first
    assert "scores Zoé 0, Max 0" in text
    assert prompts == ["Max > "]
    assert "p1" not in text and "p2" not in text
    reopened = Journal(tmp_path / "kept.sqlite3")
    (game,) = reopened.games()
    assert [(s["name"], s["player"]) for s in game.seats or []] == [("Zoé", 1), ("Max", None)]
    reopened.close()
