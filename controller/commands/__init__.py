"""The ``diablotin`` command's commands (:mod:`controller.cli` runs them): each module
declares its commands' arguments next to what they run, as :class:`~.base.Command` s.
:data:`COMMANDS` is their order in ``diablotin --help``; a game kind's own commands
(its ``cli``) come from the kinds registered when this package is imported."""

from __future__ import annotations

from .base import Command
from .box import COILS_OFF, DOCTOR, FIRMWARE, SELFTEST
from .games import EXPORT, GAMES, REPLAY
from .play import PLAY, SIM
from .serve import SERVE
from .tools import BENCH, FACES, RELIABILITY, kind_commands
from .upkeep import BACKUP, CONFIG, PIN, RESTORE

COMMANDS: tuple[Command, ...] = (
    SERVE,
    SELFTEST,
    DOCTOR,
    COILS_OFF,
    PLAY,
    SIM,
    GAMES,
    EXPORT,
    REPLAY,
    *kind_commands(),
    FACES,
    BENCH,
    RELIABILITY,
    FIRMWARE,
    CONFIG,
    BACKUP,
    RESTORE,
    PIN,
)
