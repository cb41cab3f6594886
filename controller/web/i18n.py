"""French and English from gettext catalogs: the language comes from the ``lang`` cookie (set by
the switch, remembered a year), else the browser's ``Accept-Language``, else English.

``ENGLISH[key]`` is every string the pages show, in English; that English is the gettext msgid
and ``key`` its ``msgctxt``. The translations live in ``controller/locales/<lang>/LC_MESSAGES/
messages.po`` (compiled to ``.mo``, shipped as package data; ``python -m controller.web.catalogs``
rebuilds the template, updates the catalogs and compiles them; see docs/translations.md).
Templates use ``t(key)``; the JavaScript gets the chosen language's table as JSON
(:func:`page_messages`). ``{name}`` placeholders are filled by ``t(key, name=value)`` (and in JS
``t(key, {name})``). Outside a request, :func:`translator` gives a gettext-style function.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from importlib import resources
from typing import Any

import flask_babel
from babel import Locale, support
from babel.lists import format_list
from babel.numbers import format_decimal
from flask import request

from controller.games import registry
from controller.games.base import Refused, Said, said_of
from controller.games.registry import Message

LANGS = ("en", "fr", "de")
COOKIE = "lang"
DOMAIN = "messages"

ENGLISH: dict[str, str] = {
    # game titles, keyed by their English msgid (controller.games.registry)
    "Le Diable sauteur": "Le Diable sauteur",
    "Devils, Devils": "Devils, Devils",
    "Devil by the Tail": "Devil by the Tail",
    "app": "Diablotin",
    "nav.home": "Games",
    "nav.box": "Box",
    "nav.history": "History",
    "box.system": "The box itself",
    "box.no_notice": "Nothing to report.",
    "box.restart": "Restart the service",
    "box.poweroff": "Shut the box down",
    "box.restart_confirm": (
        "Restart the service? Coils go off; phones reconnect in a few seconds."
    ),
    "box.poweroff_confirm": (
        "Shut the box down? Coils go off; unplug it only once its light stops."
    ),
    "box.restart_done": "Restarting…",
    "box.poweroff_done": "Shutting down…",
    "clock.behind": "The box's clock is {d} behind your phone's and not set by the network.",
    "clock.ahead": "The box's clock is {d} ahead of your phone's and not set by the network.",
    "clock.behind_short": "{d} behind your phone",
    "clock.ahead_short": "{d} ahead of your phone",
    "clock.same": "same time as your phone",
    "clock.take": "Give the box my phone's time",
    "clock.take_confirm": "Set the box's clock to your phone's time?",
    "clock.skip": "Not now",
    "clock.set": "The box's clock is set.",
    "clock.ntp_yes": "Clock synchronised (NTP)",
    "clock.ntp_no": "Clock not synchronised",
    "clock.ntp_unknown": "Clock synchronisation unknown",
    "clock.h_min": "{h} h {m} min",
    "clock.min_s": "{m} min {s} s",
    "clock.s": "{s} s",
    "nav.stats": "Stats",
    "stats.title": "Statistics",
    "stats.count": "{n} finished game counted.",
    "stats.none": "No finished game yet.",
    "stats.players": "Players",
    "stats.kinds": "Games",
    "stats.game": "One game, move by move",
    "stats.pick": "Game",
    "stats.player": "Player",
    "stats.games": "Games",
    "stats.wins": "Wins",
    "stats.rate": "Win rate",
    "stats.streak": "Now",
    "stats.streak_win": "{n} won in a row",
    "stats.streak_loss": "{n} not won in a row",
    "stats.best": "Best run",
    "stats.by": "By game and rule",
    "stats.rates_chart": "Win rate per player (%)",
    "stats.durations_chart": "{kind}: length of each game (minutes)",
    "stats.duration_line": "Shortest {min}, median {median}, longest {max}; median {n} moves.",
    "stats.first": "The first player won {wins} of {games} ({rate}; even chances: {fair}).",
    "stats.chase": "Round {r} ({p} pops): the devil's chase, square after each pop",
    "stats.race": "Race {r}: squares gone round after each pop",
    "stats.pot": "pot",
    "stats.devil": "devil",
    "stats.score": "Each side's score as the game went",
    "stats.letters": "Letters held as the game went",
    "stats.x_pop": "pops",
    "stats.x_action": "moves",
    "stats.players_n": "{n} player",
    "stats.pick_none": "No game to show.",
    "stats.scroll_hint": "Swipe the table sideways for its other columns.",
    "player.seat1": "Seat 1",
    "player.seat2": "Seat 2",
    "player.seat3": "Seat 3",
    "player.seat4": "Seat 4",
    "role.referee": "Referee",
    "role.spectator": "Spectator",
    "login.title": "Referee PIN",
    "login.hint": "The PIN is shown in the box's console.",
    "login.go": "Enter",
    "login.logout": "Log out",
    "login.logout_confirm": "Log out of the referee's role? This phone goes back to watching; "
    "the PIN brings it back.",
    "dialog.back": "Back",
    "login.wrong": "That is not the PIN.",
    "theme.switch": "Light / dark",
    "live.on": "Live",
    "live.connecting": "Connecting…",
    "live.reconnecting": "Reconnecting in {s} s…",
    "live.retry": "↻ {s} s",
    "menu.open": "Menu",
    "menu.rules": "Rules",
    "menu.version": "Diablotin {v}",
    "home.title": "Games in progress",
    "home.none": "No game in progress.",
    "home.start": "Start a game",
    "home.kind": "Game",
    "home.rule": "Rule",
    "home.ruleA": "A — the chase",
    "home.ruleB": "B — the race",
    "home.gametitle": "Name (optional)",
    "home.create": "Start",
    "home.join": "Join from a phone",
    "home.join_hint": "Scan to open this dashboard (same Wi-Fi).",
    "home.finished": "Finished games are in the History.",
    "home.onbox": "on the box",
    "home.actions": "{n} move",
    "backup.holds": "{n} game",
    "game.round": "Round {r} of {n}",
    "game.rule": "Rule {rule}",
    "score.race": "{n}/{of} squares",
    "tails.card": "card {k}",
    "score.races_won": "races won: {n}",
    "game.hider": "hides",
    "game.popper": "pops",
    "game.undo": "Undo",
    "game.over": "Match over",
    "game.winner": "{p} wins",
    "game.draw": "A draw",
    "game.ended_abandoned": "This game was abandoned: nothing more is played in it.",
    "game.ended_deleted": "This game was deleted: nothing more is played in it.",
    "game.notonbox": "This game is not the one on the box: its keys cannot be fired.",
    "game.nomove": "Only the referee can play. Tap “Spectator” to enter the PIN.",
    "player.p1": "Player 1",
    "player.p2": "Player 2",
    "phase.hiding": "{hider} hides the dice",
    "phase.pop": "{popper} pops a key",
    "phase.pop_more": "{popper} pops another key or {end}",
    "phase.pop_three": "{popper} asks for a new hiding",
    "phase.face": "What does the die from key {key} show?",
    "phase.advance": "{popper}: which figure moves {n} square?",
    "phase.over": "Match over",
    "end.A": "asks for a new hiding",
    "end.B": "stops with {pot}",
    "slots.title": "Keys",
    "slot.key": "Key {k}",
    "slot.full": "die in",
    "slot.empty": "empty",
    "slot.popped": "popped",
    "slot.pop": "Pop {k}",
    "hiding.wait": "Hiding… {n}/4 dice in",
    "hiding.done": "Dice are hidden",
    "waits.hiding": "The box waits for the dice to be hidden again (the lid opened or a die "
    "went back in): put all four in and close the lid.",
    "waits.jam": "Key {k} is jammed: the box waits for you to retry it or say it came out.",
    "face.title": "Key {key} showed",
    "face.devil": "Devil",
    "advance.move": "{name} +{n}",
    "rehide": "Hide again",
    "stop": "Stop (+{pot})",
    "odds.show": "Odds",
    "odds.hide": "Hide odds",
    "odds.key": "Key",
    "odds.devil": "Devil",
    "odds.gain": "Expected",
    "odds.captures": "Would capture",
    "odds.advice": "Advice: {a}",
    "odds.advice_pop": "pop key {k} (about {e} squares this turn)",
    "odds.advice_stop": "stop now ({e} squares)",
    "computer.title": "Computer pops for",
    "computer.yes": "computer",
    "computer.no": "human",
    "computer.level": "Level",
    "level.random": "gentle",
    "level.heuristic": "clever",
    "level.optimal": "unbeatable",
    "level.adaptive": "reads the hider",
    "coach.title": "Coach (solved play)",
    "coach.solving": "The coach is solving the game… (a few seconds, once)",
    "coach.pop": "pop key {k}",
    "coach.stop": "stop now",
    "coach.rehide": "ask for a new hiding",
    "coach.advance": "move {name}",
    "coach.win": "{p} to win",
    "coach.points": "{e} points this round",
    "coach.best": "best",
    "coach.hider_title": "For the hider only: where to put the devil die",
    "coach.hider_slot": "key {k}: {p}",
    "coach.hider_value": "Popper's chance if both play best: {p} (against random hiding: {u})",
    "coach.read_title": "For the referee only: how this hider hides",
    "coach.read_seen": "This hider put the devil under key {k} in {c} of the {n} round it was seen",
    "coach.read_unseen": "This hider's devil has not been seen yet",
    "coach.read_advice": "Advice, reading this hider: {option}",
    "coach.read_equilibrium": "Too little seen to read this hider: {option} (equilibrium play)",
    "scores": "Scores",
    "history.title": "Round history",
    "history.none": "No pop yet.",
    "history.results": "Rounds",
    "history.round_result": "Round {r}: {p} brought {n} home, {pts} points",
    "history.race_result": "Race {r}: {p} completed the lap",
    "track.devil": "Devil",
    "track.finish": "Finish",
    "figure.blue": "blue",
    "figure.orange": "orange",
    "figure.green": "green",
    "status.in-play": "in play",
    "status.arrived": "arrived",
    "status.captured": "captured",
    "pot": "Pot: {pot}",
    "box.title": "The box",
    "box.link": "Link",
    "box.backend": "Backend",
    "box.up": "up",
    "box.down": "down",
    "box.local": "direct (no co-processor)",
    "box.faults": "Faults",
    "box.nofault": "No fault.",
    "box.slots": "Sensors",
    "box.lid": "Lid",
    "box.lid_closed": "closed",
    "box.lid_open": "open",
    "box.lid_none": "no lid switch",
    "box.coils": "Coil test",
    "box.fire": "Fire {k}",
    "box.pulse": "Pulse (ms)",
    "box.limits": (
        "Limits: pulse ≤ {max} ms, {gap} ms between pulses, "
        "{duty}% duty over {win} s, one coil at a time."
    ),
    "box.toy": "Simulated toy",
    "box.hide": "Hide the dice",
    "box.press": "Press {k} by hand",
    "box.jam": "Jam key {k}",
    "box.chatter": "Sensor chatter",
    "box.missing": "Slot {k} left empty",
    "box.notices": "Messages",
    "box.camera": "Camera",
    "box.camera_kind": "Camera",
    "box.camera_last": "Last read",
    "box.camera_read": "key {k}: {face} ({c} %)",
    "camera.kind_simulated": "simulated camera",
    "camera.kind_picamera2": "Pi camera",
    "camera.kind_usb": "USB camera",
    "box.camera_confirm": "Confirm: {face}",
    "camera.snapshot": "the camera's picture of the die from key {k}",
    "teach.title": "Teach the camera",
    "teach.intro": (
        "Show the camera each face of one die in turn: 5 snapshots a face, 1 to 6 then the devil."
    ),
    "teach.start": "Teach the camera",
    "teach.restart": "Start again",
    "teach.snap": "Take snapshot",
    "teach.cancel": "Cancel",
    "teach.show": "Show face {face} to the camera: snapshot {i} of {n}",
    "teach.done": "The camera has learnt these dice",
    "box.fired": "Key {k} fired",
    "box.retry": "Retry {k}",
    "box.popped_by_hand": "{k} was popped by hand",
    "hist.title": "History",
    "hist.finished": "Finished games",
    "hist.all": "All games",
    "hist.none": "No game yet.",
    "hist.export": "Export",
    "hist.import": "Import a game file",
    "hist.imported": "Imported as game {id}",
    "hist.step": "Step {i} of {n}",
    "hist.first": "Start",
    "hist.prev": "Back",
    "hist.next": "Next",
    "hist.last": "End",
    "hist.setup": "Setup",
    "hist.open": "Open",
    "hist.inprogress": "in progress",
    "hist.done": "finished",
    "hist.damaged": "damaged: {reason}",
    "hist.damaged_help": "This game no longer replays, so it cannot be played or stepped "
    "through. The referee can export its raw entries.",
    "generic.state": "State",
    "act.hidden": "The dice are hidden",
    "act.pop": "{who} pops key {k}",
    "act.face": "The die shows {face}",
    "act.advance": "{who} moves {name}",
    "act.rehide": "{who} asks for a new hiding",
    "act.stop": "{who} stops",
    "generic.legal": "Legal moves",
    # --- tail-tile game page (web/templates/games/tails.html) ---
    "tails.player": "Player {n}",
    "tails.players": "Players {list}",
    "tails.players_count": "{n} player",
    "tails.players_field": "Players",
    "tails.turn": "turn {n}",
    "tails.filled": "{n}/{of} cells",
    "tails.open_points": "{n} open",
    "tails.wins": "{who} wins with {n}",
    "tails.draw": "A draw at {n}",
    "tails.over": "Game over: every cell is filled",
    "tails.card_of": "card {i} of {n}",
    "tails.prompt_forced": "{who}, {card}: the twin rule forces {c}",
    "tails.prompt_chosen": "{who}, {card}: a cell of their choice",
    "tails.prompt_sector": "{who}, {card}: a cell outside the greyed sector",
    "tails.prompt_pass": "{who} has no legal cell: pass",
    "tails.hint_cell": "Tap a highlighted cell, then the card drawn.",
    "tails.hint_cell_for": "{k} drawn: tap a highlighted cell.",
    "tails.hint_kind": "{c}: tap the card drawn.",
    "tails.hint_kind_forced": "Twin rule: {c}. Tap the card drawn.",
    "tails.hint_rotate": "Turn {k} (↻) like the card on {c}, then Place.",
    "tails.hint_place": "{k} looks the same every way round: Place.",
    "tails.hint_pass": "No legal cell: the player passes.",
    "tails.not_legal": "{c} cannot take this card.",
    "tails.dropped": "{c} is no longer possible: {why}",
    "tails.kind_left": "Card {k}: {n} left",
    "tails.place": "Place",
    "tails.place_on": "Place {k} on {c}",
    "tails.pass": "Pass",
    "tails.pass_move": "pass",
    "tails.rotate": "Turn the card a third clockwise",
    "tails.cancel": "Start this card again",
    "tails.entry": "Enter the card",
    "tails.stock": "Cards left",
    "tails.cell": "Cell {c}",
    "tails.devil": "Devil {d}",
    "tails.legend": (
        "Numbers: twin cells share one (n upper half, s lower). Tails in their owner’s "
        "colour; dashed: still open."
    ),
    "tails.tails": "Tails",
    "tails.tails_legend": (
        "Points per devil. 5… open tail (provisional); 0 a tail that ends at a body."
    ),
    "tails.end_tail": "ends at a tail end: {n} point",
    "tails.end_body": "runs {n} card into devil {d}’s body: 0 points",
    "tails.end_open": "open after {n} card: provisional",
    "tails.end_none": "no card yet",
    "tails.moves": "Moves",
    "tails.no_moves": "No card placed yet.",
    "tails.advice_show": "Advice",
    "tails.advice_hide": "Hide advice",
    "tails.depth": "Advice looks at",
    "tails.depth_this": "this placement",
    "tails.lookahead": "the next placement too",
    "tails.depth_end": "the whole game (about a second)",
    "tails.thinking": "Thinking…",
    "tails.advice_cells": "Best cells to name before the draw:",
    "tails.advice_for": "Best places for {k}:",
    "tails.advice_cell": "{c} ({g})",
    "tails.advice_place": "{c} · {k} ({g})",
    "tails.advice_note": "Greedy advice: own points minus the others’, open tails counted.",
    "tails.use": "Use",
    "err.network": "No connection to the box.",
    # --- Teufel Teufel (games/teufel.html, teufel-*.js) ---
    "teufel.players_title": "Players",
    "teufel.players": "Players, in seat order",
    "teufel.players_hint": (
        "Tap the colours in the order the players sit, clockwise. Tap again to remove."
    ),
    "teufel.first": "Who places first and starts",
    "teufel.need_players": "Choose {min} to {max} colours.",
    "teufel.seat_count": "{n} player, clockwise: {list}",
    "teufel.colour.yellow": "yellow",
    "teufel.colour.green": "green",
    "teufel.colour.blue": "blue",
    "teufel.colour.purple": "purple",
    "teufel.colour.white": "white",
    "teufel.colour.black": "black",
    "teufel.card.devil": "a devil",
    "teufel.card.tower": "a tower",
    "teufel.card.letter": "{colour} {letter}",
    "teufel.card.devil_short": "Devil",
    "teufel.card.tower_short": "Tower",
    "teufel.face_title": "the devil face, {n} peg on it",
    "teufel.vine": "vine, no card",
    "teufel.no_card": "no card",
    "teufel.face_down": "a face-down card",
    "teufel.sleds_on": "sled: {who}",
    "teufel.meta_players": "{n} player",
    "teufel.meta_down": "{n} card face down",
    "teufel.meta_pegs": "{n} devil on the face",
    "teufel.p.place": "{p} places their sled",
    "teufel.p.turn": "{p}'s turn",
    "teufel.p.move": "{p} is moving",
    "teufel.p.pass_or_flip": "{p} is on the face-down card on {sq}: pass over it or flip it?",
    "teufel.p.reveal": "{p} flips the card on {sq}: what is it?",
    "teufel.p.take_devil": "{p} takes a devil from another player",
    "teufel.p.give_up": "Devil, devil! {p} gives up {n} letter",
    "teufel.p.tower": "{p} is on a tower",
    "teufel.p.shuffle": "{p} is shuffling ({n} card in hand)",
    "teufel.p.flip_two": "{p} has left the board and flips a card ({n} to go)",
    "teufel.p.over": "The game is over",
    "teufel.legend": "Outlined: where {p} can still go —",
    "teufel.reach.free": "free",
    "teufel.reach.flip": "flip",
    "teufel.reach.stop": "stop",
    "teufel.reach.tap": "tap here",
    "teufel.end.one_left": "Game over: {p} is the last sled on the board and loses",
    "teufel.end.all_up": "Game over: every card is face up — {ps} lose",
    "teufel.rank": "out #{n}",
    "teufel.lost": "loses",
    "teufel.h.place": "Tap an outlined square for {p}'s sled.",
    "teufel.h.step": ("Tap the square {p} steps onto (outlined), or choose another kind of turn."),
    "teufel.h.step_on": "Tap the next square for {p}, or end the move here.",
    "teufel.h.reveal": "The card on {sq} is…",
    "teufel.h.take_devil": "No devil is left on the face: whose devil does {p} take?",
    "teufel.h.give_up": "Which {n} letter does {p} give up?",
    "teufel.h.tower": "{p} may peek at a face-down card and put their devil back.",
    "teufel.h.peek": "Tap the face-down card {p} looks at (nobody records what it is).",
    "teufel.h.exchange": (
        "Tap two cards to swap: face-down cards or {p}'s own letters ({n} of 2)."
    ),
    "teufel.h.pick_first": "Tap the first card {p} picks up (2 to 4 cards, none under a sled).",
    "teufel.h.pick": "Tap another card {p} picks up, or lay them down.",
    "teufel.h.hand_full": "Four cards in hand: lay them down.",
    "teufel.h.lay": "Tap {n} squares without a card to lay the cards face down ({k} of {n}).",
    "teufel.h.flip_two": "Tap a face-down card to flip ({n} to go).",
    "teufel.h.not_exchangeable": "The card on {sq} cannot be exchanged (only outlined cards).",
    "teufel.h.not_layable": "No card can be laid on {sq} (only outlined squares).",
    "teufel.mode.move": "Move",
    "teufel.mode.exchange": "Exchange",
    "teufel.mode.shuffle": "Shuffle",
    "teufel.mode.pass": "Pass",
    "teufel.end_move": "End the move here",
    "teufel.pass_over": "Pass over it",
    "teufel.flip": "Flip it",
    "teufel.take_from": "Take {p}'s devil",
    "teufel.give_up": "Give up {letters}",
    "teufel.give_up_n": "Choose {n} more",
    "teufel.cancel": "Cancel",
    "teufel.other_colour": "Another colour",
    "teufel.peek": "Peek at a card",
    "teufel.peeked": "The peek was used.",
    "teufel.return_devil": "Put the devil back on the face",
    "teufel.done": "Done",
    "teufel.hand": "In hand ({n})",
    "teufel.from": "from {sq}",
    "teufel.lay": "Lay the {n} cards down",
    "teufel.out": "out #{n}",
    "teufel.on": "on {sq}",
    "teufel.not_placed": "not placed",
    "teufel.letters_of": "{p}'s letters: {l}",
    "teufel.possessed": "holds a devil",
    "teufel.exit_order": "Left the board: {list}",
    "teufel.odds.for": "Chances for the face-down cards, for:",
    "teufel.odds.letters": "Letters",
    "teufel.odds.devil": "Devil",
    "teufel.odds.tower": "Tower",
    "teufel.odds.none": "No card is face down.",
    "teufel.odds.best": "Best: {sq} ({pct})",
    "teufel.odds.even": "Every face-down card: {pct}",
    "teufel.odds.missing": "Missing letters: {l}",
    # --- players, seats, the game menu (issue 12) ---
    "seat.computer": "Computer · {level}",
    "seats.title": "Who plays",
    "seats.for": "Seat: {seat}",
    "seats.nobody": "—",
    "seats.guest": "A guest…",
    "seats.guest_name": "Guest's name",
    "roster.title": "Players",
    "roster.name": "Name",
    "roster.mark": "Colour",
    "roster.emoji": "or an emoji",
    "roster.add": "Add",
    "roster.none": "No players yet: add the family.",
    "roster.added": "{name} joins the players.",
    "roster.saved": "{name}: saved.",
    "roster.save": "Save",
    "roster.edit": "Change {name}",
    "roster.delete": "Remove {name}?",
    "roster.delete_go": "Remove from the players",
    "roster.delete_confirm": (
        "{name} leaves the players. Past games keep the name they were played under."
    ),
    "roster.deleted": "{name} is no longer among the players.",
    "confirm.back": "Back",
    "home.turn": "{name}'s turn",
    "home.spectator_hint": (
        "You are watching. The referee taps “{chip}” at the top of the page and enters the PIN "
        "to start games and play."
    ),
    "home.login": "Log in as the referee",
    "backup.title": "Backup",
    "backup.hint": (
        "Every game and the players in one file, to keep on a phone or a computer, and to "
        "bring back."
    ),
    "backup.download": "Download a backup",
    "backup.restore": "Restore a backup…",
    "backup.restore_title": "Restore this backup?",
    "backup.restore_confirm": (
        "Every game and player on the box is replaced by those in {file} ({holds}). The "
        "journal as it is now stays on the box beside it. Open pages reconnect by themselves."
    ),
    "backup.restore_go": "Restore the backup",
    "backup.restoring": "Restoring the backup…",
    "backup.restored": "The backup is restored.",
    "bgstats.log": "Log in BG Stats",
    "slot.sensor_empty": "Slot {k} reads empty on the box's sensors",
    "gm.head": "This game",
    "gm.rename": "Rename",
    "gm.rematch": "Rematch",
    "gm.box": "Put on the box",
    "gm.abandon": "Abandon",
    "gm.delete": "Delete",
    "gm.newtitle": "New name",
    "gm.rename_go": "Rename the game",
    "gm.rematch_go": "Start the rematch",
    "gm.box_go": "Put it on the box",
    "gm.abandon_go": "Abandon the game",
    "gm.delete_go": "Delete the game",
    "gm.rename_confirm": "Give game #{id} a new name.",
    "gm.rematch_confirm": "Start a new game with the same players and options?",
    "gm.box_confirm": (
        "Play game #{id} on the box now? If its dice are not where it left them, "
        "the box hides them again."
    ),
    "gm.abandon_confirm": (
        "Abandon “{title}”? It stays in the History, marked abandoned, "
        "and is left out of the stats."
    ),
    "gm.delete_confirm": (
        "Delete “{title}” for good? It disappears from every list and from the stats; "
        "only a backup taken before brings it back."
    ),
    "hist.abandoned": "abandoned",
    "hist.download": "Download every game",
    "hist.download_zip": "All games (zip)",
    "hist.download_csv": "Table (CSV)",
    "hist.moves": "Moves",
    "hist.download_hint": "The same files as the box's command {command}.",
    # what the box says aloud (controller/announce.py)
    "say.devil": "the devil moves {n} square",
    "say.capture": "{figure} is caught",
    "say.arrived": "{figure} is home",
    "say.possessed": "{colour} is possessed",
    "say.wins": "{p} wins",
    "say.over": "the game is over",
    # the terminal's game (diablotin play sauteur; controller/terminal.py)
    "term.help": "keys 1-4 pop, r = new hiding (A) / s = stop (B), q = quit",
    "term.start": "Diable sauteur, rule {rule} — game {id}. {help}",
    "term.round": "round {r}/{n}  hider {hider}  popper {popper}  scores {scores}",
    "term.popped": "popped this hiding: {keys} — waiting for: {what}",
    "term.none": "none",
    "term.key": "key {key}: {face}",
    "term.draw": "It's a draw.",
    "term.wins": "{p} wins!",
    "term.bye": "bye",
    "term.advance": "{p}: move which figure {n} square? {names}",
    "term.refused": "refused: {reason}",
    # the phone's sounds (web/static/js/sound.js)
    "sound.on": "Sound on",
    "sound.off": "Sound off",
}


PLURALS: dict[str, str] = {
    # key -> the English plural; ENGLISH[key] is the singular, and ``n`` picks the form
    "stats.count": "{n} finished games counted.",
    "coach.read_seen": (
        "This hider put the devil under key {k} in {c} of the {n} rounds it was seen"
    ),
    "stats.streak_win": "{n} won in a row",
    "stats.streak_loss": "{n} not won in a row",
    "stats.players_n": "{n} players",
    "home.actions": "{n} moves",
    "backup.holds": "{n} games",
    "phase.advance": "{popper}: which figure moves {n} squares?",
    "tails.players_count": "{n} players",
    "tails.open_points": "{n} open",
    "tails.kind_left": "Card {k}: {n} left",
    "tails.end_tail": "ends at a tail end: {n} points",
    "tails.end_body": "runs {n} cards into devil {d}’s body: 0 points",
    "tails.end_open": "open after {n} cards: provisional",
    "teufel.seat_count": "{n} players, clockwise: {list}",
    "teufel.face_title": "the devil face, {n} pegs on it",
    "teufel.meta_players": "{n} players",
    "teufel.meta_down": "{n} cards face down",
    "teufel.meta_pegs": "{n} devils on the face",
    "teufel.p.give_up": "Devil, devil! {p} gives up {n} letters",
    "teufel.p.shuffle": "{p} is shuffling ({n} cards in hand)",
    "teufel.h.give_up": "Which {n} letters does {p} give up?",
    "say.devil": "the devil moves {n} squares",
    "term.advance": "{p}: move which figure {n} squares? {names}",
}
"""Messages whose words follow a count ``n``: gettext plural entries (msgid_plural), one
form per CLDR plural category of the language (``npgettext``; the scripts pick the form
with ``Intl.PluralRules``)."""


@cache
def catalog(lang: str) -> support.Translations | support.NullTranslations:
    """The compiled catalog of ``lang`` (English, i.e. the msgids themselves, when there is
    none), read once from the package data with Babel (Flask-Babel reads the same files)."""
    if lang == "en":
        return support.NullTranslations()
    with resources.as_file(resources.files("controller") / "locales") as folder:
        return support.Translations.load(str(folder), [lang], DOMAIN)


def request_language() -> str:
    """This request's language, as Flask-Babel selected it (:func:`pick_language`)."""
    return str(flask_babel.get_locale() or "en")


def pick_language() -> str:
    """Flask-Babel's locale selector: the ``lang`` cookie, else ``Accept-Language``, else
    English."""
    chosen = request.cookies.get(COOKIE)
    if chosen in LANGS:
        return chosen
    return request.accept_languages.best_match(LANGS) or "en"


def _lookup(lang: str, key: str) -> str | None:
    english = ENGLISH.get(key)
    if english is None:
        return None
    return _gettext(lang, key, english)


def _gettext(lang: str, key: str, english: str, n: int = 1) -> str:
    """``english`` translated; a key that is its own English (a game title) has no context;
    a plural key (:data:`PLURALS`) takes the form for ``n``."""
    if key == english:
        return str(catalog(lang).gettext(english))
    if key in PLURALS:
        return str(catalog(lang).npgettext(key, english, PLURALS[key], n))
    return str(catalog(lang).pgettext(key, english))


def plural_forms(lang: str, key: str) -> list[str]:
    """Every form of plural ``key`` in ``lang``, in the catalog's order (the language's CLDR
    plural categories in the order zero, one, two, few, many, other, as Babel writes them)."""
    forms: dict[tuple[str, int], str] = getattr(catalog(lang), "_catalog", {})
    msgid = f"{key}\x04{ENGLISH[key]}"
    found = [forms[(msgid, i)] for i in range(6) if (msgid, i) in forms]
    return found or [ENGLISH[key], PLURALS[key]]


def translate(lang: str, key: str, /, **values: Any) -> str:
    """The message ``key`` in ``lang`` (English, then the key itself, if missing), its
    plural form chosen by ``n`` when it has one. ``kind.<name>`` is a game's title
    (:func:`kind_title`). Numbers are written the language's way (CLDR, via Babel)."""
    english = ENGLISH.get(key)
    n = values.get("n", 1)
    text = None if english is None else _gettext(lang, key, english, n if isinstance(n, int) else 1)
    if text is None and key.startswith("kind."):
        text = kind_title(lang, key.removeprefix("kind."))
    text = text or key
    if not values:
        return text
    shown = {  # a fraction the language's way (0,5 in French); whole numbers as they are
        name: format_decimal(value, locale=lang) if isinstance(value, float) else value
        for name, value in values.items()
    }
    return text.format(**shown)


def translator(lang: str) -> Callable[..., str]:
    """A gettext-style function for ``lang``, usable outside a request (announcements, CLI):
    ``_ = translator("fr"); _("Devils, Devils")`` or ``_(key="nav.home")``; ``{names}`` are
    filled from keyword arguments."""

    def _(msgid: str = "", *, key: str | None = None, **params: Any) -> str:
        if key is not None:
            return translate(lang, key, **params)
        text = str(catalog(lang).gettext(msgid))
        return text.format(**params) if params else text

    return _


def message(lang: str, msg: Message, **params: Any) -> str:
    """A declared message (e.g. a game's title) in ``lang``, found by its English msgid;
    the English itself when there is no translation."""
    text = str(catalog(lang).gettext(msg.msgid))
    return text.format(**params) if params else text


def refusal_text(refused: Refused, lang: str) -> str:
    """A rules refusal as a sentence in ``lang`` (:func:`sentence` of its template and
    params); in English, its ``reason``."""
    if lang == "en":
        return refused.reason
    return sentence(lang, refused.template, **refused.params)


def said_text(lang: str, text: str) -> str:
    """``text`` in ``lang``: a :class:`~controller.games.base.Said` is made again from its
    template and params (:func:`sentence`); any other text is data, shown as it is."""
    if lang == "en" or not isinstance(text, Said):
        return str(text)
    return sentence(lang, text.template, **text.params)


def error_text(lang: str, error: BaseException) -> str:
    """Why ``error`` happened, in ``lang`` (:func:`~controller.games.base.said_of`)."""
    return said_text(lang, said_of(error))


def language_name(lang: str) -> str:
    """A language's name in itself (CLDR, via Babel): ``Deutsch``, ``Français``."""
    name: str = Locale.parse(lang).get_display_name(lang) or lang
    return name[:1].upper() + name[1:]


def sentence(lang: str, template: str, /, **params: Any) -> str:
    """An engine's sentence (its English ``template``, the msgid) in ``lang``, filled from
    ``params`` as the pages do (``teufel-words.js``): a :class:`~controller.games.base.Said`
    is made in ``lang`` too, Teufel Teufel's colours (``who``, ``other``, ``colours``) and
    cards (``card``, ``cards``) are named in ``lang``, a list is written the language's way
    ("a, b und c"). The English when the catalog has no translation."""
    params = {name: _param_words(lang, name, value) for name, value in params.items()}
    text = str(catalog(lang).gettext(template))
    try:
        return text.format(**params)
    except (KeyError, IndexError, ValueError):
        return template.format(**params)


def _param_words(lang: str, name: str, value: Any) -> Any:
    if isinstance(value, Said):
        return said_text(lang, value)
    if isinstance(value, list | tuple):
        one = name.removesuffix("s") if name in ("colours", "cards") else name
        words = [str(_param_words(lang, one, item)) for item in value]
        return format_list(words, style="or" if name == "choices" else "standard", locale=lang)
    if lang == "en" or not isinstance(value, str):
        return value
    if name in ("who", "other", "colour"):
        return _lookup(lang, f"teufel.colour.{value}") or value
    if name == "card":
        if value == "?":  # controller.games.teufel.state.FACE_DOWN
            return translate(lang, "teufel.face_down")
        if value in ("devil", "tower"):
            return translate(lang, f"teufel.card.{value}")
        colour, _, letter = value.rpartition("-")
        if colour and len(letter) == 1:
            return translate(
                lang, "teufel.card.letter", colour=_param_words(lang, "who", colour), letter=letter
            )
    return value


def kind_title(lang: str, name: str) -> str:
    """The display name of game kind ``name`` in ``lang`` (the name itself if unknown)."""
    try:
        return message(lang, registry.get(name).title)
    except Refused:
        return name


def page_messages(lang: str) -> dict[str, str | list[str]]:
    """Everything a page's scripts translate with: the messages of ``lang`` (a plural key:
    its forms, see :func:`plural_forms`) and every registered game's title as
    ``kind.<name>``."""
    table: dict[str, str | list[str]] = {
        key: _gettext(lang, key, text) for key, text in ENGLISH.items()
    }
    for key in PLURALS:
        table[key] = plural_forms(lang, key)
    titles = {f"kind.{kind.name}": message(lang, kind.title) for kind in registry.kinds()}
    return engine_sentences(lang) | table | titles


@cache
def engine_sentences(lang: str) -> dict[str, str]:
    """The engines' sentences (refusal templates, history lines: the catalog's messages
    without a context) in ``lang``, keyed by their English template, for the scripts to
    make an engine's ``{"template", "params"}`` in the page's language. Empty for English
    (the template is the text)."""
    forms: dict[Any, str] = getattr(catalog(lang), "_catalog", {})
    return {
        msgid: text
        for msgid, text in forms.items()
        if isinstance(msgid, str) and msgid and "\x04" not in msgid
    }
