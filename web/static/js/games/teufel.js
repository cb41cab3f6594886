// Teufel Teufel's page: the board (SVG), the players' letters and devils, what the game
// waits for, and for the referee the entry in taps: a square on the board for a sled, a
// step, a card; buttons for the other choices (a picker offering only the cards that can
// be there, whom to take a devil from, letters to give up, the tower). Everything offered
// comes from the view on screen (pending.choices), so a button is never stale; every tap
// is judged by the engine, whose reason is shown when it refuses. Odds on request.
import { play } from "../sound.js";
import { api, boot, changeGame, el, fill, live, metaLine, percent, referee, seatName, svgEl, t, toast, greyed } from "../common.js";
import { cardName, colourCss, colourName, inkOn, splitCard } from "./teufel-colours.js";
import { devilIcon, drawBoard, sledIcon, towerIcon } from "./teufel-board.js";
import { eventText } from "./teufel-words.js";

const gameId = boot.game_id;
const topic = "game:" + gameId;
const $ = (id) => document.getElementById(id);
const LETTERS = ["A", "B", "C", "D", "E", "F"];

let view = null; // the Table.view envelope on screen
let mode = "move"; // what a tap on the board means (see boardAction)
let picks = []; // squares (exchange, lay down) or letters (give up) chosen so far
let pickColour = null; // a short landscape screen picks the colour, then the letter
const SHORT_LANDSCAPE = window.matchMedia("(orientation: landscape) and (max-height: 500px)");
SHORT_LANDSCAPE.addEventListener("change", () => { pickColour = null; render(); });
let busy = false; // an action is in flight: taps wait
let refusal = ""; // the engine's reason for the last refused entry
const odds = { open: false, player: null, metric: "letters", data: null, version: -1 };

// --- entering actions ---------------------------------------------------------------------

async function send(action) {
  if (busy || !view) return;
  const s = view.state;
  const full = { ...action };
  if (action.type !== "reveal" && s.pending.player) full.player = s.pending.player;
  busy = true;
  document.body.classList.add("busy");
  try {
    const result = await changeGame(`/api/games/${gameId}/actions`, full);
    refusal = "";
    onGame(result.view);
  } catch (err) {
    refuse(refusalText(err));
  } finally {
    busy = false;
    document.body.classList.remove("busy");
  }
}

/** A refusal naming a player by their name ("Zoé", not "gelb"); any other as the box said it. */
const PLAYER_PARAMS = ["who", "other", "colours"];
const refusalText = (err) => (err.template && PLAYER_PARAMS.some((name) => name in err.params)
  ? eventText({ template: err.template, params: err.params }, false) : err.message);

/** Show why an entry was refused (the engine's sentence) next to the controls. */
function refuse(reason) {
  refusal = reason;
  showRefusal();
  const line = $("refusal");
  const box = line.getBoundingClientRect();
  if (box.top < 0 || box.bottom > window.innerHeight) line.scrollIntoView({ block: "nearest", behavior: "smooth" });
}

function showRefusal() {
  const line = $("refusal");
  if (!line) return;
  line.textContent = refusal;
  line.hidden = !refusal;
}

function defaultMode(pending) {
  if (pending.kind === "shuffle") return "pick";
  if (pending.kind === "tower") return "tower";
  return "move";
}

function setMode(next) {
  mode = next;
  picks = [];
  refusal = "";
  render();
}

/** What the board's squares do now: the squares to outline and the tap handler. */
function boardAction(s) {
  const p = s.pending;
  const ch = p.choices || {};
  const single = (type, field, squares) => ({
    targets: new Set(squares || []),
    tap: (square) => send({ type, [field]: square }),
  });
  if (p.kind === "place") return single("place_sled", "square", ch.place_sled);
  if ((p.kind === "turn" || p.kind === "move") && mode === "move") return single("step", "to", ch.step);
  if (p.kind === "turn" && mode === "exchange") {
    return { targets: new Set(ch.exchange || []), tap: (square) => choose(square, 2, ch.exchange, "teufel.h.not_exchangeable") };
  }
  if (p.kind === "turn" && mode === "shuffle") return single("pick_up", "square", ch.pick_up);
  if (p.kind === "shuffle" && mode === "pick") return single("pick_up", "square", ch.pick_up);
  if (p.kind === "shuffle" && mode === "lay") {
    const layable = [...new Set((ch.lay_down || []))];
    return { targets: new Set(layable), tap: (square) => choose(square, p.hand.length, layable, "teufel.h.not_layable") };
  }
  if (p.kind === "tower" && mode === "peek") return single("peek", "square", ch.peek);
  if (p.kind === "flip_two") return single("flip_card", "square", ch.flip_card);
  return null;
}

/** A multi-tap choice of `count` squares among `allowed`; sent when complete. */
function choose(square, count, allowed, notAllowed) {
  if (picks.includes(square)) {
    picks = picks.filter((x) => x !== square);
  } else if (!(allowed || []).includes(square)) {
    refuse(t(notAllowed, { sq: square }));
    return;
  } else {
    picks = [...picks, square];
  }
  refusal = "";
  if (picks.length === count) {
    const chosen = picks;
    if (mode === "exchange") send({ type: "exchange", a: chosen[0], b: chosen[1] });
    else send({ type: "lay_down", squares: chosen });
  }
  render();
}

// --- the picture --------------------------------------------------------------------------

function who(colour) {
  if (!colour) return "";
  const name = seatName(colour);
  return name ? `${name} (${colourName(colour)})` : colourName(colour);
}

function promptText(s) {
  const p = s.pending;
  const values = { p: who(p.player), sq: p.square || "", n: p.count ?? (p.hand || []).length };
  if (p.kind === "reveal") values.p = who(s.turn);
  const text = t("teufel.p." + p.kind, values);
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function render() {
  if (!view) return;
  const s = view.state;
  document.body.dataset.version = view.version;
  document.body.dataset.phase = s.phase;
  document.body.dataset.pending = s.pending.kind;
  metaLine($("meta"), [
    t("teufel.meta_players", { n: s.players.length }),
    t("teufel.meta_down", { n: s.face_down }),
    t("teufel.meta_pegs", { n: s.devils_on_face }),
  ]);
  $("prompt").textContent = promptText(s);
  $("prompt").hidden = s.phase === "over";
  fill($("events"), (s.events_said || []).map((e) => el("li", {}, eventText(e))));
  renderResult(s);
  const action = referee ? boardAction(s) : null;
  drawBoard($("board"), s, {
    targets: action ? action.targets : null,
    selected: new Set(mode === "exchange" || mode === "lay" ? picks : []),
    odds: odds.open && odds.data && odds.data.squares ? { squares: odds.data.squares, metric: odds.metric } : null,
    onTap: action ? (square) => { if (!busy) action.tap(square); } : null,
  });
  renderLegend(s, action ? action.targets : null);
  renderControls(s);
  renderPlayers(s);
  renderOdds(s);
  const undo = $("undo");
  greyed(undo, view.version === 0 ? t("there is nothing to undo") : "");
  if (odds.open && odds.version !== view.version) loadOdds();
}

/** The board's one legend: each outline style on the board (where the mover can go: free,
 *  flip, stop; for the referee, the squares to tap) as a sample line + words. The styles
 *  differ in colour and in dash pattern (app.css .tf-reach / .tf-sq.target, .tf-key). */
function renderLegend(s, targets) {
  const kinds = new Set(Object.values(s.reachable || {}));
  const tap = targets && targets.size > 0;
  const legend = $("board-legend");
  legend.hidden = !kinds.size && !tap;
  if (legend.hidden) return;
  const key = (cls, words) => el("span", { class: "tf-key " + cls },
    svgEl("svg", { class: "tf-key-sample", viewBox: "0 0 28 10", width: 28, height: 10, "aria-hidden": "true" },
      svgEl("line", { x1: 2, y1: 5, x2: 26, y2: 5 })),
    words);
  const reach = ["free", "flip", "stop"].filter((k) => kinds.has(k));
  fill(legend,
    reach.length ? t("teufel.legend", { p: who(s.turn) }) : null,
    reach.map((k) => key(k, t("teufel.reach." + k))),
    tap ? key("tap", t("teufel.reach.tap")) : null);
}

function renderResult(s) {
  const over = s.phase === "over" && s.result;
  $("banner").hidden = !over;
  $("result").hidden = !over;
  if (!over) return;
  const losers = s.result.losers.map(who);
  $("banner").textContent = s.result.ending === "one-left"
    ? t("teufel.end.one_left", { p: losers.join(", ") })
    : t("teufel.end.all_up", { ps: losers.join(", ") || "—" });
  const rows = s.exit_order.map((colour, i) => el("li", { "data-colour": colour },
    sledIcon(colour, 28), " ", who(colour), " ", el("span", { class: "muted" }, t("teufel.rank", { n: i + 1 }))));
  for (const colour of s.result.losers) {
    rows.push(el("li", { class: "loser", "data-colour": colour }, sledIcon(colour, 28), " ", who(colour), " ",
      el("span", { class: "tf-lost" }, t("teufel.lost"))));
  }
  fill($("result"), rows);
}

// --- the referee's controls ---------------------------------------------------------------

function button(label, onclick, attrs = {}) {
  return el("button", { type: "button", ...attrs, onclick }, label);
}

function hint(text) {
  return el("p", { class: "tf-hint" }, text.charAt(0).toUpperCase() + text.slice(1));
}

function renderControls(s) {
  const box = $("controls");
  if (!box || !referee) return;
  const p = s.pending;
  const ch = p.choices || {};
  const items = [];
  const name = who(p.player);
  if (p.kind === "place") items.push(hint(t("teufel.h.place", { p: name })));
  if (p.kind === "turn") items.push(...turnControls(s, ch));
  if (p.kind === "move") {
    items.push(hint(t("teufel.h.step_on", { p: name })));
    if (ch.end_move) items.push(button(t("teufel.end_move"), () => send({ type: "end_move" }), { class: "primary big", id: "end-move" }));
  }
  if (p.kind === "pass_or_flip") {
    items.push(el("div", { class: "tf-pair" },
      button(t("teufel.pass_over"), () => send({ type: "pass_over" }), { class: "big", id: "pass-over" }),
      button(t("teufel.flip"), () => send({ type: "flip" }), { class: "primary big", id: "flip" })));
  }
  if (p.kind === "reveal") {
    items.push(el("p", { class: "choice-title" }, t("teufel.h.reveal", { sq: p.square })));
    items.push(picker(s, ch.reveal || []));
  }
  if (p.kind === "take_devil") {
    items.push(hint(t("teufel.h.take_devil", { p: name })));
    items.push(el("div", { class: "tf-pair" }, (ch.take_devil_from || []).map((colour) => {
      const b = button([devilIcon(24), " ", who(colour)], () => send({ type: "take_devil_from", from: colour }),
        { class: "big tf-colour-button", "data-from": colour, "aria-label": t("teufel.take_from", { p: who(colour) }) });
      b.style.setProperty("--swatch", colourCss(colour));
      return b;
    })));
  }
  if (p.kind === "give_up") items.push(...giveUpControls(p, ch));
  if (p.kind === "tower") items.push(...towerControls(p, ch));
  if (p.kind === "shuffle") items.push(...shuffleControls(p, ch));
  if (p.kind === "flip_two") items.push(hint(t("teufel.h.flip_two", { n: p.count })));
  fill(box, items);
  showRefusal();
}

function turnControls(s, ch) {
  const p = s.pending;
  const modes = [["move", "step"], ["exchange", "exchange"], ["shuffle", "pick_up"], ["pass", "pass"]];
  const row = el("div", { class: "tf-modes" }, modes.map(([m, type]) => {
    const legal = Boolean(ch[type]);
    const said = (s.unavailable_said || {})[type];
    const reason = said ? eventText(said, false) : "";
    return button(t("teufel.mode." + m), () => {
      if (!legal) refuse(reason);
      else if (m === "pass") send({ type: "pass" });
      else setMode(m);
    }, { class: "tf-mode" + (legal ? "" : " unavailable"), "aria-pressed": mode === m ? "true" : "false",
      "data-mode": m, title: reason });
  }));
  const name = who(p.player);
  const text = mode === "exchange" ? t("teufel.h.exchange", { p: name, n: picks.length })
    : mode === "shuffle" ? t("teufel.h.pick_first", { p: name })
    : t("teufel.h.step", { p: name });
  return [row, hint(text)];
}

function giveUpControls(p, ch) {
  const letters = ch.give_up_letters || [];
  const count = p.count;
  const toggles = el("div", { class: "tf-letters-pick" }, letters.map((letter) => {
    const on = picks.includes(letter);
    const b = button(letter, () => {
      picks = on ? picks.filter((x) => x !== letter) : [...picks, letter];
      render();
    }, { class: "tf-letter-toggle big", "aria-pressed": on ? "true" : "false", "data-letter": letter });
    b.style.setProperty("--swatch", colourCss(p.player));
    b.style.setProperty("--swatch-ink", inkOn(p.player));
    return b;
  }));
  const ready = picks.length === count;
  return [
    hint(t("teufel.h.give_up", { p: who(p.player), n: count })),
    toggles,
    button(ready ? t("teufel.give_up", { letters: [...picks].sort().join(", ") }) : t("teufel.give_up_n", { n: count - picks.length }),
      () => send({ type: "give_up_letters", letters: [...picks].sort() }),
      { class: "primary big", id: "give-up", disabled: !ready }),
  ];
}

function towerControls(p, ch) {
  const items = [];
  if (mode === "peek") {
    items.push(hint(t("teufel.h.peek", { p: who(p.player) })));
    items.push(button(t("teufel.cancel"), () => setMode("tower"), { class: "secondary" }));
    return items;
  }
  items.push(hint(t("teufel.h.tower", { p: who(p.player) })));
  const row = el("div", { class: "tf-stack" });
  if (ch.peek) row.append(button(t("teufel.peek"), () => setMode("peek"), { class: "big", id: "peek" }));
  else if (p.peeked) row.append(el("p", { class: "muted small" }, t("teufel.peeked")));
  if (ch.return_devil) row.append(button(t("teufel.return_devil"), () => send({ type: "return_devil" }), { class: "big", id: "return-devil" }));
  row.append(button(t("teufel.done"), () => send({ type: "done" }), { class: "primary big", id: "tower-done" }));
  items.push(row);
  return items;
}

function shuffleControls(p, ch) {
  const hand = (p.hand || []).map((h) => el("li", {}, h.card ? cardName(h.card) : t("teufel.face_down"), " ",
    el("span", { class: "muted" }, t("teufel.from", { sq: h.from }))));
  const items = [el("p", { class: "choice-title" }, t("teufel.hand", { n: hand.length })), el("ul", { class: "tf-hand" }, hand)];
  const name = who(p.player);
  if (mode === "lay") {
    items.push(hint(t("teufel.h.lay", { n: p.hand.length, k: picks.length })));
    items.push(button(t("teufel.cancel"), () => setMode("pick"), { class: "secondary" }));
  } else {
    items.push(hint(ch.pick_up ? t("teufel.h.pick", { p: name }) : t("teufel.h.hand_full")));
    if (ch.lay_down) items.push(button(t("teufel.lay", { n: p.hand.length }), () => setMode("lay"), { class: "primary big", id: "lay" }));
  }
  return items;
}

/** The cards that can be on the flipped square, and only those: one row per colour
 *  (players' colours first), then the devil and the tower. */
function picker(s, possible) {
  const colours = [];
  const seen = new Set(possible);
  const add = (c) => { if (!colours.includes(c)) colours.push(c); };
  s.players.forEach((pl) => add(pl.colour));
  possible.filter((c) => c !== "devil" && c !== "tower").forEach((c) => add(splitCard(c)[0]));
  const rows = [];
  const offered = colours.filter((colour) => LETTERS.some((letter) => seen.has(`${colour}-${letter}`)));
  const twoSteps = SHORT_LANDSCAPE.matches && offered.length > 2; // 36 cards do not fit there
  if (twoSteps && !offered.includes(pickColour)) {
    for (const colour of offered) {
      const b = button([el("strong", {}, colourName(colour))], () => { pickColour = colour; render(); },
        { class: "tf-pick tf-colour", "data-colour": colour });
      b.style.setProperty("--swatch", colourCss(colour));
      b.style.setProperty("--swatch-ink", inkOn(colour));
      rows.push(b);
    }
  }
  for (const colour of twoSteps ? offered.filter((c) => c === pickColour) : colours) {
    const cells = LETTERS.map((letter) => {
      const card = `${colour}-${letter}`;
      if (!seen.has(card)) return el("span", { class: "tf-pick-gap", "aria-hidden": "true" });
      const b = button([el("strong", {}, letter), el("small", {}, colourName(colour))],
        () => send({ type: "reveal", card }), { class: "tf-pick", "data-card": card, "aria-label": cardName(card) });
      b.style.setProperty("--swatch", colourCss(colour));
      b.style.setProperty("--swatch-ink", inkOn(colour));
      return b;
    });
    if (cells.some((c) => c.tagName === "BUTTON")) rows.push(...cells);
  }
  if (twoSteps && offered.includes(pickColour)) {
    rows.push(button(t("teufel.other_colour"), () => { pickColour = null; render(); },
      { class: "secondary tf-other", id: "other-colour" }));
  }
  const specials = [];
  if (seen.has("devil")) specials.push(button([devilIcon(26), t("teufel.card.devil_short")], () => send({ type: "reveal", card: "devil" }), { class: "tf-pick special devil", "data-card": "devil" }));
  if (seen.has("tower")) specials.push(button([towerIcon(26), t("teufel.card.tower_short")], () => send({ type: "reveal", card: "tower" }), { class: "tf-pick special tower", "data-card": "tower" }));
  return el("div", { class: "tf-picker", id: "picker" }, el("div", { class: "tf-specials" }, specials), el("div", { class: "tf-grid" }, rows));
}

// --- players ------------------------------------------------------------------------------

function renderPlayers(s) {
  fill($("players"), s.players.map((pl) => {
    const classes = ["tf-player"];
    if (s.turn === pl.colour) classes.push("turn");
    if (s.pending.player === pl.colour) classes.push("deciding");
    if (pl.left) classes.push("left");
    const status = pl.left ? t("teufel.out", { n: pl.exit_rank })
      : pl.square ? t("teufel.on", { sq: pl.square }) : t("teufel.not_placed");
    const row = el("div", {
      class: classes.join(" "),
      dataset: { colour: pl.colour, letters: pl.letters.join(""), devil: pl.devil ? "1" : "0", left: pl.left ? "1" : "0" },
    },
    el("div", { class: "tf-who" }, sledIcon(pl.colour, 34),
      el("span", { class: "tf-name" }, who(pl.colour)),
      el("span", { class: "tf-status muted" }, status)),
    el("div", { class: "tf-pegs", "aria-label": t("teufel.letters_of", { p: who(pl.colour), l: pl.letters.join(" ") || "—" }) },
      LETTERS.map((letter) => {
        const held = pl.letters.includes(letter);
        const peg = el("span", { class: "tf-letter-peg" + (held ? " held" : "") }, letter);
        if (held) {
          peg.style.setProperty("--swatch", colourCss(pl.colour));
          peg.style.setProperty("--swatch-ink", inkOn(pl.colour));
        }
        return peg;
      }),
      el("span", { class: "tf-devil-peg" + (pl.devil ? " held" : ""), title: pl.devil ? t("teufel.possessed") : "" },
        pl.devil ? devilIcon(24) : null)));
    return row;
  }));
  const exit = $("exit-order");
  exit.hidden = !s.exit_order.length;
  exit.textContent = t("teufel.exit_order", { list: s.exit_order.map((c, i) => `${i + 1}. ${who(c)}`).join(", ") });
}

// --- odds ---------------------------------------------------------------------------------

function renderOdds(s) {
  const box = $("odds");
  box.hidden = !odds.open;
  if (!odds.open) return;
  const onBoard = s.players.filter((pl) => !pl.left).map((pl) => pl.colour);
  const players = el("div", { class: "tf-odds-players" }, onBoard.map((colour) => {
    const b = button(who(colour), () => { odds.player = colour; odds.version = -1; loadOdds(); render(); },
      { class: "tf-colour-button", "aria-pressed": colour === odds.player ? "true" : "false", "data-player": colour });
    b.style.setProperty("--swatch", colourCss(colour));
    return b;
  }));
  const metrics = el("div", { class: "tf-modes three" }, ["letters", "devil", "tower"].map((m) => button(
    t("teufel.odds." + m),
    () => { odds.metric = m; render(); },
    { class: "tf-mode", "aria-pressed": odds.metric === m ? "true" : "false", "data-metric": m })));
  const summary = el("p", { class: "tf-odds-summary", id: "odds-summary" });
  const data = odds.data;
  if (data && data.player === odds.player) {
    const entries = Object.entries(data.squares).sort((a, b) => b[1][odds.metric] - a[1][odds.metric]);
    if (!entries.length) summary.textContent = t("teufel.odds.none");
    else {
      const best = entries[0][1][odds.metric];
      const top = entries.filter((e) => Math.abs(e[1][odds.metric] - best) < 1e-9).map((e) => e[0]);
      summary.textContent = top.length === entries.length
        ? t("teufel.odds.even", { pct: percent(best) })
        : t("teufel.odds.best", { sq: top.slice(0, 4).join(", ") + (top.length > 4 ? "…" : ""), pct: percent(best) });
      if (odds.metric === "letters") {
        summary.append(el("br"), t("teufel.odds.missing", { l: data.missing.join(" ") || "—" }));
      }
    }
  }
  fill(box, el("p", { class: "small muted" }, t("teufel.odds.for")), players, metrics, summary);
}

async function loadOdds() {
  if (!view) return;
  const s = view.state;
  const onBoard = s.players.filter((pl) => !pl.left).map((pl) => pl.colour);
  if (!onBoard.includes(odds.player)) {
    odds.player = onBoard.includes(s.pending.player) ? s.pending.player
      : onBoard.includes(s.turn) ? s.turn : onBoard[0] || null;
  }
  if (!odds.player) return;
  odds.version = view.version;
  try {
    odds.data = await api("GET", `/api/games/${gameId}/odds?player=${encodeURIComponent(odds.player)}`);
    render();
  } catch (err) {
    toast(err.message);
  }
}

$("odds-toggle").addEventListener("click", () => {
  odds.open = !odds.open;
  $("odds-toggle").textContent = odds.open ? t("odds.hide") : t("odds.show");
  $("odds-toggle").setAttribute("aria-pressed", odds.open ? "true" : "false");
  if (odds.open) loadOdds();
  render();
});

// --- wiring -------------------------------------------------------------------------------

function onGame(envelope) {
  if (view && envelope.version < view.version) return; // an older frame
  if (view && envelope.version > view.version) {
    const [before, after] = [view.state, envelope.state];
    const possessed = after.players.some((p, i) => p.devil && !before.players[i].devil);
    if (after.phase === "over" && before.phase !== "over") play("finish");
    else if (possessed) play("devil");
    else play("pop");
  }
  const changed = !view || envelope.version !== view.version;
  view = envelope;
  if (changed) {
    mode = defaultMode(envelope.state.pending);
    picks = [];
    pickColour = null;
    refusal = "";
  }
  render();
}

const undoButton = $("undo");
if (undoButton) {
  undoButton.addEventListener("click", async (e) => {
    if (busy) return;
    busy = true;
    e.currentTarget.disabled = true;
    try {
      const r = await changeGame(`/api/games/${gameId}/undo`);
      refusal = "";
      onGame(r.view);
    } catch (err) {
      refuse(refusalText(err));
    } finally {
      busy = false;
      render();
    }
  });
}

live([topic], { [topic]: onGame });
