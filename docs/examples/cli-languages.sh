#!/bin/sh
# The CLI in the environment's language (docs/translations.md): what a user got wrong, said
# in German, then in French; each command fails (exit status 2), so no `set -e`.
LANGUAGE=de diablotin export 999
LANGUAGE=fr diablotin export
LANGUAGE=de diablotin bogus 2>&1 | tail -n 1
