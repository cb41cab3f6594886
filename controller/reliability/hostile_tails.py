"""The tail-tile game's hostile requests (the attack part, :mod:`.hostile`)."""

NAN_OPTIONS = ('{"players": NaN}',)
"""New games' options, as JSON text, with numbers JSON has not."""
