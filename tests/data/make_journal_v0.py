"""How ``journal-v0-3786bd4.sqlite3`` and ``journal-v1-afb35ad.sqlite3`` were made: run once
at commit 3786bd4 (schema 0, before schema versions) and once at afb35ad (schema 1), each
time with that commit's code. Kept as the record of the fixtures;
the tests read the committed file and never run this script (today's code writes newer
journals).

    python tests/data/make_journal_v0.py tests/data/journal-v0-3786bd4.sqlite3
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

from controller.games.base import Rules
from controller.games.sauteur import SauteurRules
from controller.games.tails import TailsRules
from controller.games.teufel import TeufelRules
from controller.journal import Journal
from controller.table import Table


class _NoHub:
    def publish(self, topic: str, payload: Any) -> None:
        pass


def play(
    journal: Journal,
    rules: Rules[Any],
    options: dict[str, Any],
    title: str,
    steps: int | None,
    rng: random.Random,
    undo_at: int | None = None,
) -> int:
    """A game with random legal actions: ``steps`` of them, or to the end if ``None``."""
    game_id = journal.create_game(rules.name, options, title)
    table = Table(rules, journal, game_id, _NoHub())  # type: ignore[arg-type]
    done = 0
    while not table.finished and (steps is None or done < steps):
        table.submit(rng.choice(table.legal_actions()))
        done += 1
        if done == undo_at:
            table.undo()
    return game_id


def main(path: str) -> None:
    target = Path(path)
    target.unlink(missing_ok=True)
    journal = Journal(target)
    rng = random.Random(3786)
    sauteur = SauteurRules()
    play(
        journal,
        sauteur,
        {"rule": "A", "number_faces": [1, 2, 3, 4, 5, 6]},
        "Chase, finished",
        None,
        rng,
        undo_at=5,
    )
    play(
        journal,
        sauteur,
        {"rule": "B", "number_faces": [1, 2, 3, 4, 5, 6], "first_hider": "p2"},
        "Race, finished",
        None,
        rng,
    )
    box = play(
        journal,
        sauteur,
        {"rule": "A", "number_faces": [1, 2, 3, 4, 5, 6]},
        "Chase, in play",
        9,
        rng,
    )
    journal.set_setting(box, "computer", ["p2"])
    play(journal, TailsRules(), {"players": 2}, "Tails for two, finished", None, rng)
    play(journal, TailsRules(), {"players": 3}, "Tails for three, in play", 20, rng)
    teufel = {"players": ["blue", "green", "yellow"], "first": "green"}
    play(journal, TeufelRules(), teufel, "Teufel, in play", 30, rng, undo_at=12)
    journal.close()


if __name__ == "__main__":
    main(sys.argv[1])
