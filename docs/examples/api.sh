#!/bin/sh
# The HTTP API from a shell (docs/api.md): start a tail-tile game, place a card, watch the
# live stream for a moment, download the game. BOX: the address `diablotin serve` printed;
# PIN: the referee PIN (`diablotin pin`). Needs curl, and python3 to read the game's id.
set -eu
BOX=${BOX:-http://192.168.1.20:8000}
PIN=${PIN:-123456}
curl -sf "$BOX/api/games"                                         # every game, as JSON
GAME=$(curl -sf -X POST "$BOX/api/games" -H "X-Referee-Pin: $PIN" \
  -H 'Content-Type: application/json' -d '{"kind": "tails", "options": {"players": 2}}' |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["view"]["id"])')
echo "game $GAME started"
curl -sf -X POST "$BOX/api/games/$GAME/actions" -H "X-Referee-Pin: $PIN" \
  -H 'Content-Type: application/json' -d '{"type": "place", "cell": "14n", "kind": "E", "rotation": 2}'
curl -s -N --max-time 2 "$BOX/stream?topics=game:$GAME,box" || true   # live (Ctrl-C; 2 s here)
curl -sf -H "X-Referee-Pin: $PIN" -o "game-$GAME.json" "$BOX/api/games/$GAME/export"
echo "saved game-$GAME.json"                     # `diablotin replay game-$GAME.json` reads it
