"""``diablotin tails score FILE``: score a written tail-tile game record.

The format is described in docs/rules-tails.md; the scoring itself is the pure
:func:`controller.games.tails.score_record`. This module only does the I/O.
"""

from __future__ import annotations

import json
import sys

from .console import say
from .games.tails import RecordError, score_record
from .sentences import Said


def score_main(path: str) -> int:
    """Print the record's scores as JSON on stdout and return 0; on an unreadable
    file or an illegal record print ``FILE:LINE: reason`` on stderr and return 2."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError) as error:
        print(
            say(Said("{path}: cannot read the record: {error}", path=path, error=error)),
            file=sys.stderr,
        )
        return 2
    try:
        result = score_record(text)
    except RecordError as error:
        print(f"{path}:{error.line}: {say(error.reason)}", file=sys.stderr)
        return 2
    # exactly the documented shape: {"devils": {...all 18}, "totals": [...]}
    print(json.dumps({"devils": result["devils"], "totals": result["totals"]}, indent=2))
    return 0
