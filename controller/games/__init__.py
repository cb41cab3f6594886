"""Pure rules engines, one module (or package) per game.

Every engine follows :mod:`controller.games.base`: plain serialisable state,
``apply(state, action)`` returns a new state or raises :class:`Refused`, no I/O,
no threads, no clock, no randomness of its own.
"""
