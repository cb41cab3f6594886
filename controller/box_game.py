"""What the service asks of the game played on the box's toy (``controller.boxplay.BoxPlay``
for the Diable sauteur): the seam between the generic host of tables and that game."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from .box.toy import Face
    from .games.base import Action, Refused
    from .table import Table


class BoxGame(Protocol):
    """The game played on the box's toy (``controller.boxplay.BoxPlay`` for the Diable
    sauteur), made from its declaration (:attr:`GameKind.box_player`). It attaches to
    its kind's tables through their listeners."""

    kind: str

    def attach(self, table: Table) -> None:
        """A table of this kind was opened (at start-up, on demand, or new)."""

    def start(self) -> None:
        """The tables are open and the worker runs: watch the toy, resume the game."""

    def reset(self) -> None:
        """The journal was swapped (a restored backup) and the tables reopened: forget the
        games that went, hold the journal's box game again."""

    def stop(self) -> None:
        """The service stops: end the game's own threads (solvers), waiting for them."""

    def new_game_options(self, options: dict[str, object]) -> dict[str, object]:
        """What a new game of this kind adds to its options (e.g. the drawn first hider)."""

    def new_game_settings(
        self, options: dict[str, object], seats: list[dict[str, object]] | None
    ) -> dict[str, object]:
        """What a new game of this kind stores beside its options (a seed, what the
        computer has learnt of the players seated)."""

    def intercept(self, table: Table, action: Action) -> dict[str, object] | None:
        """Take a referee's action that moves the toy (a pop presses a key); ``None``:
        the table takes it."""

    def status(self) -> dict[str, object]:
        """What ``GET /api/box`` adds: faults, the toy's watch, the camera."""

    def box_game(self) -> Table | None:
        """The table that holds the box now, if any."""

    def number_faces(self) -> Sequence[Face]:
        """The faces of the toy's dice, from the kind's config section (what the box's
        camera reads)."""

    def refusal(self) -> Refused:
        """Why a game of another kind cannot be put on the box (``not-box-game``)."""

    def take_box(self, table: Table) -> None:
        """``table`` holds the box from now (new, or put there by the referee); its game
        checks the toy's sensors first."""

    def released(self, table: Table) -> None:
        """``table`` left play (abandoned, deleted): the box passes to the next game."""

    def extras(self, table: Table) -> dict[str, object]:
        """What a game's page needs about the box: ``on_box``, computer seats, levels."""
