"""The Diable sauteur's hostile requests (the attack part, :mod:`.hostile`)."""

NAN_OPTIONS = ('{"rounds": Infinity}', '{"rounds": 1e999}')
"""New games' options, as JSON text, with numbers JSON has not."""
