// The tail-tile game page: the hexagon with every card's pieces and every devil's tail,
// scores live, whose turn and what the rules expect; the referee enters each placement
// as it happens at the table: tap a cell (only legal ones respond), the kind drawn from
// the seven pictures, turn the picture like the card, Place. Undo, pass, the advisor.
import { play } from "../sound.js";
import { api, boot, changeGame, el, fill, live, metaLine, pair, referee, said, seatName, t, toast, greyed } from "../common.js";
import { cardPicture, drawBoard, geometry } from "./tails-board.js";

const gameId = boot.game_id;
const topic = "game:" + gameId;
const KINDS = ["A", "B", "C", "D", "E", "F", "G"];
const $ = (id) => document.getElementById(id);

let geo = null; // the board's geometry (GET .../layout, once)
let view = null; // Table.view envelope
let extras = {}; // referee: `refusals` (cell -> the engine's reason), for extras.version
// the placement being entered, for the position after `moves` actions
let pick = { moves: -1, cell: null, kind: null, rotation: 0 };
let dropped = null; // a picked cell that someone else's move made illegal: say why
let note = null; // {text, error}: the last refusal or explanation, until the next tap
const advice = { open: false, lookahead: "0", key: null, data: null }; // lookahead: 0, 1 or end

const stateNow = () => (view ? view.state : null);
const due = () => (view ? view.state.pending : null);
const symmetric = (kind) => Boolean(kind && geo && geo.layout.kinds[kind].symmetric);
const fresh = () => view && extras.version === view.version;

function seatNames(seats) {
  if (seats.every((s) => seatName(s))) return seats.map((s) => seatName(s)).join(" & ");
  return seats.length === 1
    ? t("tails.player", { n: seats[0] + 1 })
    : t("tails.players", { list: seats.map((s) => s + 1).join(" & ") });
}

function sideName(s, side) {
  const info = s.sides[side];
  // "(K–T)" kept on one line: word joiners beside the dash (it broke as "(K–" / "T)")
  return `${seatNames(info.seats)} (${info.label.replace(/[–-]/g, "\u2060$&\u2060")})`;
}

// --- the placement being entered -----------------------------------------------------

/** Start afresh whenever the game moved on (anyone's move, an undo). */
function syncPick(s) {
  if (pick.moves === s.moves.length) return;
  const p = s.pending;
  if (pick.cell && pick.moves >= 0 && !(p && p.legal_cells.includes(pick.cell))) dropped = pick.cell;
  pick = { moves: s.moves.length, cell: p && p.mode === "forced" ? p.cell : null, kind: null, rotation: 0 };
  note = null;
}

function canPlace() {
  const p = due();
  return Boolean(referee && p && !p.must_pass && pick.cell && pick.kind
    && p.legal_cells.includes(pick.cell) && stateNow().stock[pick.kind] > 0);
}

function tapCell(id) {
  const p = due();
  if (!referee || !p || p.must_pass) return;
  if (!p.legal_cells.includes(id)) {
    // not tappable: nothing is selected; say why (the engine's reason when we have it)
    const reason = fresh() ? refusalText(id) : null;
    note = { text: reason || t("tails.not_legal", { c: id }), error: true };
    dropped = null;
    renderSheet();
    return;
  }
  pick.cell = id;
  note = null;
  dropped = null;
  render();
}

function tapKind(kind) {
  if (!referee || !due() || stateNow().stock[kind] <= 0) return;
  pick.kind = kind;
  pick.rotation = 0;
  note = null;
  dropped = null;
  render();
}

function rotate() {
  if (!pick.kind || symmetric(pick.kind)) return;
  pick.rotation = (pick.rotation + 1) % 3;
  render();
}

function cancel() {
  const p = due();
  pick = { ...pick, cell: p && p.mode === "forced" ? p.cell : null, kind: null, rotation: 0 };
  note = null;
  render();
}

/** Our own change went in: the cell picked was not taken from us (the stream may have
 *  brought the new position before the answer did). */
function accepted(at, cell) {
  if (pick.moves === at) pick.cell = null;
  if (dropped === cell) dropped = null;
}

async function submit(button, action) {
  const at = pick.moves;
  button.disabled = true;
  try {
    const payload = await changeGame(`/api/games/${gameId}/actions`, action);
    accepted(at, action.cell);
    onGame(payload.view);
    onExtras(payload.extras);
  } catch (err) {
    note = { text: err.message, error: true };
    toast(err.message);
    renderSheet();
  } finally {
    button.disabled = false;
    renderSheet();
  }
}

function place(e) {
  if (!canPlace()) return;
  const action = { type: "place", cell: pick.cell, kind: pick.kind, rotation: symmetric(pick.kind) ? 0 : pick.rotation };
  submit(e.currentTarget, action);
}

// --- live data -------------------------------------------------------------------------

function onGame(envelope) {
  if (view && envelope.version < view.version) return; // an older frame
  if (view && envelope.version > view.version) {
    const [before, after] = [view.state, envelope.state];
    if (after.finished && !before.finished) play("finish");
    else if (after.moves.length > before.moves.length) play("pop");
  }
  view = envelope;
  render();
}

/** The engine's reason why cell `id` cannot take the card, in the page's language. */
function refusalText(id) {
  const reason = (extras.refusals_said || {})[id];
  return reason ? said(reason) : (extras.refusals || {})[id] || null;
}

function onExtras(data) {
  if (view && data.version < view.version) return;
  extras = data;
  render();
}

// --- drawing ---------------------------------------------------------------------------

function render() {
  if (!view || !geo) return;
  const s = view.state;
  syncPick(s);
  const p = s.pending;
  document.body.dataset.version = view.version;
  document.body.dataset.moves = s.moves.length;
  document.body.dataset.mode = s.finished ? "over" : p.must_pass ? "pass" : p.mode;
  document.body.classList.toggle("tails-entry", referee && !s.finished);
  const filled = s.placed.length;
  metaLine($("meta"), [
    t("tails.players_count", { n: s.players }),
    t("tails.turn", { n: s.turn }),
    t("tails.filled", { n: filled, of: geo.cells.size }),
  ]);
  renderScores(s);
  renderPrompt(s);
  drawBoard($("board"), geo, s, {
    interactive: referee && Boolean(p) && !p.must_pass,
    legal: p ? p.legal_cells : [],
    forced: p && p.mode === "forced" ? p.cell : null,
    selected: referee ? pick.cell : null,
    preview: referee && pick.cell && pick.kind ? { cell: pick.cell, kind: pick.kind, rotation: pick.rotation } : null,
    advice: advice.open && advice.data && advice.key === adviceKey() ? [...new Set(advice.data.suggestions.map((x) => x.cell))] : [],
    excludedSector: p ? p.excluded_sector : null,
  });
  renderSheet();
  renderTails(s);
  renderMoves(s);
  const undo = $("undo");
  greyed(undo, s.moves.length === 0 ? t("there is nothing to undo") : "");
  if (advice.open && advice.key !== adviceKey()) loadAdvice();
  else renderAdvice();
}

function renderScores(s) {
  const p = s.pending;
  $("scores").classList.toggle("sides3", s.sides.length === 3);
  fill($("scores"), s.sides.map((info) => {
    const open = s.totals[info.side] - s.secured_totals[info.side];
    const classes = ["score", "tails-score", "tside" + info.side];
    if (p && p.side === info.side) classes.push("to-move");
    if (s.finished && s.winners.includes(info.side)) classes.push("winner");
    return el("div", { class: classes.join(" "), "data-side": info.side },
      el("span", { class: info.seats.length > 1 ? "who team" : "who" }, seatNames(info.seats)),
      el("span", { class: "role" }, el("span", { class: "tails-swatch", "aria-hidden": "true" }), info.label),
      open > 0 ? el("span", { class: "open-note" }, t("tails.open_points", { n: open })) : null,
      el("span", { class: "points" }, s.totals[info.side]));
  }));
  const banner = $("banner");
  banner.hidden = !s.finished;
  if (s.finished) {
    const best = Math.max(...s.totals);
    banner.textContent = s.winners.length === 1
      ? t("tails.wins", { who: sideName(s, s.winners[0]), n: best })
      : t("tails.draw", { n: best });
  }
}

function renderPrompt(s) {
  const p = s.pending;
  const prompt = $("prompt");
  if (!p) { prompt.textContent = t("tails.over"); prompt.dataset.mode = "over"; return; }
  const who = `${seatName(p.seat) || t("tails.player", { n: p.seat + 1 })} (${s.sides[p.side].label})`; // the seat, not the team
  const card = t("tails.card_of", { i: p.placement, n: p.of });
  let text;
  if (p.must_pass) text = t("tails.prompt_pass", { who });
  else if (p.mode === "forced") text = t("tails.prompt_forced", { who, card, c: p.cell });
  else if (p.excluded_sector !== null) text = t("tails.prompt_sector", { who, card, k: p.excluded_sector });
  else text = t("tails.prompt_chosen", { who, card });
  prompt.textContent = text;
  prompt.dataset.mode = p.must_pass ? "pass" : p.mode;
}

function hintText() {
  const p = due();
  if (note) return note;
  if (dropped && fresh() && refusalText(dropped)) {
    return { text: t("tails.dropped", { c: dropped, why: refusalText(dropped) }), error: true };
  }
  if (!p) return { text: "" };
  if (p.must_pass) return { text: t("tails.hint_pass") };
  if (!pick.cell) return { text: pick.kind ? t("tails.hint_cell_for", { k: pick.kind }) : t("tails.hint_cell") };
  if (!pick.kind) return { text: t(p.mode === "forced" ? "tails.hint_kind_forced" : "tails.hint_kind", { c: pick.cell }) };
  return { text: t(symmetric(pick.kind) ? "tails.hint_place" : "tails.hint_rotate", { c: pick.cell, k: pick.kind }) };
}

function renderSheet() {
  if (!view || !geo) return;
  const s = view.state;
  const p = s.pending;
  const up = pick.cell ? geo.cells.get(pick.cell).up : true;
  const entering = referee && p && !p.must_pass;
  const reasons = new Set();
  fill($("kinds"), KINDS.map((kind) => {
    const left = s.stock[kind];
    const chosen = referee && pick.kind === kind;
    const picture = cardPicture(geo.layout, kind, chosen ? pick.rotation : 0, up);
    // the name starts with what the button shows ("A ×8"), then says it (WCAG 2.5.3)
    const label = `${kind} ×${left} — ${t("tails.kind_left", { k: kind, n: left })}`;
    const body = [picture, el("span", { class: "kind-letter" }, kind), el("span", { class: "kind-left" }, "×" + left)];
    if (!referee || s.finished) return el("div", { class: "kind" + (left ? "" : " none"), "data-kind": kind, title: label, "aria-label": label, role: "img" }, body);
    // greyed: why, in words under the cards (a phone has no hover) and on a tap (common.js)
    const why = !p ? t("the game is over") : p.must_pass ? t("tails.hint_pass")
      : left <= 0 ? t("no {kind} cards left", { kind }) : "";
    if (why) reasons.add(why);
    return el("button", {
      type: "button", class: "kind", "data-kind": kind, "aria-label": label, title: label,
      "aria-pressed": String(chosen), disabled: Boolean(why), "data-why": why || null,
      "aria-describedby": !why ? null : p && p.must_pass ? "hint" : "kinds-why",
      onclick: () => tapKind(kind),
    }, body);
  }));
  if ($("kinds-why")) {
    $("kinds-why").textContent = [...reasons].join(" · ");
    $("kinds-why").hidden = !reasons.size || Boolean(p && p.must_pass); // the hint says it then
  }
  $("stock-title").hidden = referee && !s.finished;
  if (!referee) return;
  $("entry-actions").hidden = s.finished;
  const hint = hintText();
  $("hint").textContent = hint.text;
  $("hint").classList.toggle("error", Boolean(hint.error));
  $("hint").hidden = !hint.text;
  // "Feld 22s · Karte E ↻1" (was "22s · E1")
  const turned = pick.kind && !symmetric(pick.kind) && pick.rotation ? ` ↻${pick.rotation}` : "";
  $("pick").textContent = pick.cell
    ? [t("tails.cell", { c: pick.cell }), pick.kind ? t("tails.card", { k: pick.kind }) + turned : ""].filter(Boolean).join(" · ")
    : "—";
  const sheet = $("sheet");
  sheet.dataset.cell = pick.cell || "";
  sheet.dataset.kind = pick.kind || "";
  sheet.dataset.rotation = pick.rotation;
  $("rotate").disabled = !entering || !pick.kind || symmetric(pick.kind);
  $("cancel").disabled = !entering || (!pick.kind && (!pick.cell || (p && p.mode === "forced")));
  const placeButton = $("place");
  placeButton.hidden = Boolean(p && p.must_pass);
  placeButton.disabled = !canPlace();
  // greyed: the hint above says what is missing (and a tap on it shows it, common.js)
  const placeWhy = canPlace() ? "" : hint.text;
  if (placeWhy) placeButton.dataset.why = placeWhy;
  else delete placeButton.dataset.why;
  if (placeWhy) placeButton.setAttribute("aria-describedby", "hint");
  else placeButton.removeAttribute("aria-describedby");
  placeButton.textContent = canPlace() ? t("tails.place_on", { k: pick.kind, c: pick.cell }) : t("tails.place");
  $("pass").hidden = !(p && p.must_pass);
}

function renderTails(s) {
  const byName = new Map(s.devils.map((d) => [d.name, d]));
  fill($("tails"), s.sides.map((info) => el("div", { class: "tails-side tside" + info.side, "data-side": info.side },
    el("span", { class: "tails-side-name" }, el("span", { class: "tails-swatch", "aria-hidden": "true" }), info.label),
    el("span", { class: "chips" }, info.devils.map((name) => {
      const d = byName.get(name);
      const shown = d.end === "open" ? (d.length ? `${d.length}…` : "–") : String(d.points);
      const why = d.end === "open" ? (d.length ? t("tails.end_open", { n: d.length }) : t("tails.end_none"))
        : d.end === "body" ? t("tails.end_body", { d: d.end_devil, n: d.length })
        : t("tails.end_tail", { n: d.length });
      return el("span", { class: `chip-devil end-${d.end}`, "data-devil": name, title: why, "aria-label": pair(name, why) },
        el("b", {}, name), " ", shown);
    })))));
}

function renderMoves(s) {
  $("moves-count").textContent = String(s.moves.length);
  const items = s.moves.map((m) => el("li", {}, m === "pass" ? t("tails.pass_move") : m));
  fill($("moves"), items.length ? items : [el("li", { class: "muted" }, t("tails.no_moves"))]);
}

// --- the advisor -----------------------------------------------------------------------

function adviceKey() {
  const kind = referee && pick.kind ? pick.kind : "";
  return `${view ? view.version : -1}|${kind}|${kind ? advice.lookahead : "0"}`;
}

async function loadAdvice() {
  const key = adviceKey();
  advice.key = key;
  advice.data = null;
  renderAdvice();
  const [, kind, look] = key.split("|");
  const query = kind ? `?kind=${kind}${look !== "0" ? `&lookahead=${look}` : ""}` : "";
  try {
    const data = await api("GET", `/api/games/${gameId}/odds${query}`);
    if (advice.key !== key) return; // asked again meanwhile
    advice.data = data;
    render();
  } catch (err) {
    if (advice.key === key) advice.key = null;
    toast(err.message);
  }
}

function suggestionText(x) {
  const gain = new Intl.NumberFormat(boot.lang || "en", { maximumFractionDigits: 1, signDisplay: "exceptZero" })
    .format(x.gain);
  if (x.kind === null) return t("tails.advice_cell", { c: x.cell, g: gain });
  const rot = symmetric(x.kind) ? "" : x.rotation;
  return t("tails.advice_place", { c: x.cell, k: x.kind + rot, g: gain });
}

function renderAdvice() {
  const box = $("advice");
  box.hidden = !advice.open;
  $("advice-toggle").setAttribute("aria-pressed", String(advice.open));
  $("lookahead-row").hidden = !(advice.open && referee && pick.kind);
  if (!advice.open) return;
  const data = advice.data;
  if (!data || advice.key !== adviceKey()) { fill(box, el("p", { class: "muted" }, t("tails.thinking"))); return; }
  const title = data.mode === "cell" ? t("tails.advice_cells") : t("tails.advice_for", { k: data.kind });
  if (!data.suggestions.length) {
    fill(box, el("p", { class: "muted" }, data.finished ? t("tails.over") : t("tails.hint_pass")));
    return;
  }
  fill(box,
    el("p", { class: "choice-title" }, title),
    el("ol", { class: "tails-advice-list" }, data.suggestions.map((x, rank) => el("li", { class: "rank" + rank, "data-cell": x.cell },
      el("span", {}, suggestionText(x)),
      referee && due() && !due().must_pass ? el("button", { type: "button", class: "secondary use", onclick: () => useSuggestion(x) }, t("tails.use")) : null))),
    el("p", { class: "muted small" }, t("tails.advice_note")));
}

function useSuggestion(x) {
  if (!due() || !due().legal_cells.includes(x.cell)) return;
  pick.cell = x.cell;
  if (x.kind !== null) { pick.kind = x.kind; pick.rotation = x.rotation; }
  note = null;
  render();
}

// --- wiring ----------------------------------------------------------------------------

$("board").addEventListener("click", (e) => {
  const target = e.target.closest("[data-cell]");
  if (target) tapCell(target.dataset.cell);
});
$("board").addEventListener("keydown", (e) => {
  const target = e.target.closest("[data-cell]");
  if (target && (e.key === "Enter" || e.key === " ")) { e.preventDefault(); tapCell(target.dataset.cell); }
});
$("advice-toggle").addEventListener("click", () => {
  advice.open = !advice.open;
  $("advice-toggle").textContent = advice.open ? t("tails.advice_hide") : t("tails.advice_show");
  render();
});
$("lookahead").addEventListener("change", (e) => { advice.lookahead = e.target.value; render(); });
if (referee) {
  $("rotate").addEventListener("click", rotate);
  $("cancel").addEventListener("click", cancel);
  $("place").addEventListener("click", place);
  $("pass").addEventListener("click", (e) => submit(e.currentTarget, { type: "pass" }));
  $("undo").addEventListener("click", async (e) => {
    const button = e.currentTarget;
    const at = pick.moves;
    button.disabled = true;
    try {
      const payload = await changeGame(`/api/games/${gameId}/undo`);
      if (pick.moves === at) pick.cell = null;
      dropped = null; // a pick the undo made impossible needs no explaining
      onGame(payload.view);
      onExtras(payload.extras);
    } catch (err) {
      toast(err.message);
    } finally {
      button.disabled = !view || view.state.moves.length === 0;
    }
  });
}

// the page keeps room below for the referee's entry panel, however tall it is
if (referee && "ResizeObserver" in window) {
  new ResizeObserver(([entry]) => {
    document.body.style.setProperty("--tails-sheet-h", Math.ceil(entry.target.getBoundingClientRect().height) + "px");
  }).observe($("sheet"));
}

api("GET", `/api/games/${gameId}/layout`).then((layout) => {
  geo = geometry(layout);
  render();
}).catch((err) => toast(err.message));

live([topic], { [topic]: onGame, extras: onExtras });
