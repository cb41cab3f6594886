#!/bin/sh
# The `diablotin` command from a shell (README, "The diablotin command"). It uses the config
# that diablotin finds (docs/config.md) and so that config's data dir; run it from any folder:
# it writes effective.toml and game-<id>.json there.
set -eu
HERE=$(dirname "$0")
diablotin config > effective.toml                    # what is in effect, as a config file
diablotin --config effective.toml pin                # the same config read back: the PIN
diablotin tails score "$HERE/tails-record.txt"       # a tail-tile record scored (JSON)
diablotin replay "$HERE/game-tails.json" --import >/dev/null   # checked, replayed, stored
diablotin games                                      # the journal: id, game, state, started, title
ID=$(diablotin games | awk 'END { print $1 }')       # the game just stored
diablotin export "$ID" -o "game-$ID.json"            # and out again
diablotin sim sauteur --rule A --games 200 --seed 1 --workers 1
diablotin selftest --box simulated                   # each coil once, each sensor (exit 1: fault)
diablotin firmware flash --port /dev/ttyACM0 --dry-run   # the mpremote commands, not run
