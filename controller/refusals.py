"""Every refusal code in one table: its HTTP status and its catalog template.

A refusal (``Refused``, or an API error) is named by a stable code (``"slot-empty"``). Here
each code has the status the API answers with and one English template that is a msgid of
the catalogs (``controller/locales``): the code's usual sentence, used wherever the code has
one fixed wording (``unknown-action``) and by docs/api.md. The rule is one mistake, one
code, one status:

- 400: a malformed or ill-typed request (body, query or action);
- 401/403/429: who may ask; 413: too large; 503/507: the box cannot, for now;
- 404: the thing named in the URL (a game, a player, a camera) does not exist;
- 409: a refusal by the rules or by the box.

:func:`status` raises ``KeyError`` for a code not in the table;
``tests/core/test_refusals.py`` walks every code raised in ``controller/`` and fails on one
missing here. This module is in the bottom layer: it imports nothing of the package.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True)
class Code:
    """A refusal code's HTTP ``status`` and its English catalog ``template``."""

    status: int
    template: str


_ACCESS: Final = {
    "pin-required": Code(401, "only the referee may do this: enter the PIN"),
    "wrong-pin": Code(401, "that is not the referee PIN"),
    "bad-csrf-token": Code(403, "missing or stale CSRF token: reload the page"),
    "bad-host": Code(
        403,
        "this box does not answer to the name {name!r} (Host header): open it by its "
        "address, or add the name to [server] allowed_hosts",
    ),
    "cross-site": Code(403, "requests from another site may not change anything"),
    "json-only": Code(403, "send the request body as application/json"),
    "too-many-tries": Code(429, "too many wrong PINs: try again in {s} s"),
    "too-many-requests": Code(429, "too many requests: wait a moment and try again"),
    "too-large": Code(413, "the request body is over {kib} KiB"),
    "busy": Code(503, "the box did not answer in time: try again"),
    "disk-full": Code(507, "the box's disk is full: {action} was not recorded"),
}

_HTTP: Final = {  # werkzeug's own errors, named after their HTTP reason
    "bad-request": Code(400, "this request could not be read"),
    "forbidden": Code(403, "this is not allowed"),
    "not-found": Code(404, "there is nothing at this address"),
    "method-not-allowed": Code(405, "this address does not take this kind of request"),
    "request-entity-too-large": Code(413, "this is too large to send"),
    "unsupported-media-type": Code(415, "this must be sent as JSON"),
    "internal-server-error": Code(500, "something went wrong inside the box; the journal is safe"),
}

_NOT_FOUND: Final = {
    "no-game": Code(404, "there is no game {game_id}"),
    "no-player": Code(404, "there is no player {id}"),
    "no-layout": Code(404, "{kind} has no board layout to fetch"),
    "no-camera": Code(404, "no camera is on (serve --camera ...)"),
    "no-frame": Code(404, "that picture is gone: ask for a new reading"),
    "no-snapshot": Code(404, "no camera snapshot {name}"),
    "no-upload": Code(404, "no backup is waiting to be restored: send it again"),
}

_MALFORMED: Final = {
    "bad-fault": Code(400, "only the {name} fault can be cleared here"),
    "bad-body": Code(400, "send a JSON object"),
    "bad-query": Code(400, "{name} must be a finite number, got {value!r}"),
    "bad-action": Code(400, "an action is a JSON object with a 'type'"),
    "unknown-action": Code(400, "unknown action type {kind!r} (known: {known})"),
    "bad-backup": Code(400, "the backup must be sent as base64"),
    "bad-board": Code(400, "no board named {name!r} and no board file at {path}"),
    "bad-card": Code(
        400,
        "{text!r} is not a card: use 'devil', 'tower' or a colour and a letter A-F like "
        "'{example}' (colours: {names})",
    ),
    "bad-cell": Code(400, "unknown cell {cell_id!r}"),
    "bad-choice": Code(400, "{source!r} holds no devil to take: choose {colours}"),
    "bad-command": Code(400, "unknown toy command {do!r}: {commands}"),
    "bad-exchange": Code(400, "an exchange needs two different cards"),
    "bad-export": Code(400, "no such file"),
    "bad-face": Code(400, 'a face is a number or "devil", got {face!r}'),
    "bad-figure": Code(400, "no figure called {name!r}; figures: {names}"),
    "bad-game": Code(400, "unknown game {name!r}: choose one of {names}"),
    "bad-key": Code(400, "keys are numbered 1 to 4, got {key!r}"),
    "bad-kind": Code(400, "unknown card kind {kind!r}: one of {kinds}"),
    "bad-lay": Code(400, "lay the {n_hand} cards on {n_hand} different squares"),
    "bad-level": Code(400, '"level" must be a level\'s name'),
    "bad-mark": Code(400, "a mark is a colour like #d94f30 or one emoji, not {mark!r}"),
    "bad-option": Code(400, "option {option!r}: {why}"),
    "bad-options": Code(400, "unknown option(s): {unknown}"),
    "bad-placement": Code(400, "d4 is the devil face: no sled may start there"),
    "bad-player": Code(400, "player must be p1 or p2"),
    "bad-pulse": Code(400, "pulse_ms must be a number of milliseconds"),
    "bad-rotation": Code(400, "rotation must be 0, 1 or 2, not {rotation!r}"),
    "bad-seats": Code(400, "this game has {count} seats: give one entry for each"),
    "bad-square": Code(400, "{text!r} is not a square: use a file a-g and a rank 1-7, like 'c4'"),
    "bad-step": Code(400, "do must be one of {steps}"),
    "bad-topics": Code(400, "unknown topic {name!r}: games, box, game:<id>"),
    "bad-viewer": Code(400, 'viewer must be "public" or "referee", got {viewer!r}'),
    "text-type": Code(400, "{field} must be text"),
    "text-empty": Code(400, "{field} must not be empty"),
    "text-too-long": Code(400, "{field} must be at most {max} characters"),
    "text-surrogate": Code(400, "{field} holds a broken character (a lone surrogate)"),
    "text-control": Code(400, "{field} holds a control character ({char})"),
    "text-bidi": Code(400, "{field} holds a text-direction override ({char})"),
    "text-invisible": Code(400, "{field} holds an invisible character ({char})"),
    "text-private": Code(
        400, "{field} holds a private-use character ({char}), which phones do not show"
    ),
}

_BOX: Final = {  # the box and the service refuse
    "no-fault": Code(409, "the {name} fault is not latched"),
    "other-faults": Code(
        409, "other faults are latched too ({names}): restart the service to clear them"
    ),
    "coil-high": Code(409, "coil {keys} still reads on: the fault stays until every coil is off"),
    "coils-stuck": Code(
        409, "the coil threads are still stuck: the fault stays; restart the service"
    ),
    "abandoned": Code(409, "game {game_id} was abandoned"),
    "backup-failed": Code(409, "the backup to {target} failed: {exc}"),
    "box-fault": Code(409, "the box has a fault: {faults}; clear it first"),
    "box-in-use": Code(
        409,
        "game {game_id} has dice hidden: use its pop buttons, or test the coils between hidings",
    ),
    "box-refused": Code(409, "coil {key} failed: {error}"),
    "calibration-failed": Code(409, "calibration failed: {why}"),
    "camera-down": Code(409, "the camera gave no picture: {why}"),
    "damaged": Code(409, "game {game_id} is damaged: {reason}"),
    "devil-needed": Code(409, "the devil cannot be skipped: it has no pips to count"),
    "finished": Code(409, "game {game_id} is over"),
    "name-confusable": Code(
        409,
        "{name} looks like {other}, already in the roster: choose a name that reads differently",
    ),
    "name-taken": Code(409, "there is already a player called {name}"),
    "no-computer": Code(409, "only {game} has a computer popper"),
    "no-odds": Code(409, "there are no odds for {name}"),
    "no-toy": Code(409, "this box has no simulated toy"),
    "not-box-game": Code(409, "only a game of {game} can be put on the box"),
    "not-finished": Code(409, "only a finished game can be logged in BG Stats"),
    "not-on-box": Code(409, "game {game_id} is not the game on the box"),
    "not-permitted": Code(409, "cannot {what}: {names}: {exc}"),
    "not-teaching": Code(409, "start teaching first"),
    "nothing-to-undo": Code(409, "there is nothing to undo"),
}

_RULES: Final = {  # the games' rules refuse
    "game-over": Code(409, "the game is over"),
    "slot-empty": Code(409, "slot {key} is empty: its die already came out this hiding"),
    # the Diable sauteur
    "advance-pending": Code(409, "choose which figure moves {pending} squares first"),
    "already-hidden": Code(409, "the dice are already hidden"),
    "face-pending": Code(409, "key {key} was popped: say what its die shows first"),
    "figure-out": Code(409, "the {name} figure {fate}: it cannot move"),
    "must-pop": Code(409, "pop at least one die before asking for a new hiding"),
    "no-advance": Code(409, "no number is waiting to be moved"),
    "no-pop": Code(409, "no die is waiting for its face: pop a key first"),
    "not-hidden": Code(
        409,
        "the dice are not hidden yet: wait until all four are hidden and the lid is closed",
    ),
    "not-popper-turn": Code(409, "the computer only plays the popper; it is not the popper's turn"),
    "three-numbers": Code(
        409, "three numbers came out: only the devil die is left, ask for a new hiding"
    ),
    "wrong-role": Code(409, "{by} is the hider now; only {popper} pops and decides"),
    "wrong-rule": Code(409, '"{kind}" belongs to rule {uses}; this match plays rule {rule}'),
    # Teufel Teufel
    "already-peeked": Code(409, "the tower allows one peek, and it was used"),
    "blocked": Code(409, "{square} holds two sleds ({colours})"),
    "can-act": Code(
        409,
        "{who} can still move, exchange or shuffle: passing is only for a player who can "
        "do none of these",
    ),
    "hand-full": Code(409, "a shuffle takes at most {n} cards: lay them down"),
    "impossible-card": Code(409, "there is no second {card}: it is face up on {square}"),
    "no-card": Code(409, "there is no card on {square}"),
    "no-devil": Code(409, "{who} holds no devil"),
    "not-adjacent": Code(
        409, "{target} is not next to {here}: a move goes one orthogonal step at a time"
    ),
    "not-face-down": Code(409, "there is no face-down card on {square}"),
    "not-now": Code(409, "no {kind} now: {prompt}"),
    "revisit": Code(409, "{who} has already been on {square} during this move"),
    "too-few": Code(409, "a shuffle takes at least {n} cards: pick up another"),
    "under-sled": Code(409, "{colours}'s sled stands on the card on {square}"),
    "wrong-player": Code(409, "it is not {player!r} who decides now: {prompt}"),
    # the tail-tile game
    "cell-taken": Code(409, "cell {cell_id} is taken"),
    "exception-rule": Code(
        409, "exception rule: {cell_id} borders devil {devil}'s body, an opponent's"
    ),
    "must-place": Code(409, "cannot pass: {n_legal} cell(s) are legal, e.g. {example}"),
    "no-stock": Code(409, "no {kind} cards left"),
    "sector-rule": Code(409, "sector rule: choose a cell outside sector {excluded_sector}"),
    "twin-rule": Code(409, "the twin rule forces {cell}"),
}

CODES: Final[dict[str, Code]] = _ACCESS | _HTTP | _NOT_FOUND | _MALFORMED | _BOX | _RULES
"""Every refusal code the box answers with, by code."""


def status(code: str) -> int:
    """The HTTP status of a refusal ``code``; ``KeyError`` for a code not in :data:`CODES`."""
    return CODES[code].status


def template(code: str) -> str:
    """The English catalog template of ``code``; ``KeyError`` for an unknown code."""
    return CODES[code].template


def markdown() -> str:
    """The table as docs/api.md holds it: one row per code, by status then code."""
    rows = ["| code | status | sentence (English template) |", "|---|---|---|"]
    for code, entry in sorted(CODES.items(), key=lambda item: (item[1].status, item[0])):
        sentence = entry.template.replace("|", "\\|")
        rows.append(f"| `{code}` | {entry.status} | {sentence} |")
    return "\n".join(rows) + "\n"


if __name__ == "__main__":
    print(markdown(), end="")
