// The Diable sauteur board drawn as SVG from the game's view (Table.view's "state"):
// rule A's track (squares 0..track_length, a serpentine) with the devil and the
// popper's figures; rule B's circuit (a ring) with both players' figures.
import { el, fill, pair, t, playerName } from "../common.js";

const FIGURE_COLOURS = { blue: "#1e63d6", orange: "#ef7d00", green: "#1f9d3a" };
const PALETTE = ["#1e63d6", "#ef7d00", "#1f9d3a", "#8e44ad", "#00838f"];
export const PLAYER_COLOURS = { p1: "#d32f2f", p2: "#ef7d00" };
const WIDTH = 360;

export function figureColour(name, index) {
  return FIGURE_COLOURS[name] || PALETTE[index % PALETTE.length];
}

export function figureLabel(name) {
  const key = "figure." + name;
  const text = t(key);
  return text === key ? name : text;
}

/** Draw `state` (a sauteur view) into the <svg> `svg`. */
export function drawBoard(svg, state) {
  if (state.rule === "A") drawTrack(svg, state);
  else drawCircuit(svg, state);
}

const reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)");

/** The devil piece: a red head with horns, yellow eyes and a grin (never a square). */
function devilToken(x, y, r) {
  return el("g", { class: "token devil", "data-piece": "devil" },
    el("polygon", { points: `${x - r * 0.85},${y - r * 0.35} ${x - r * 0.75},${y - r * 1.45} ${x - r * 0.2},${y - r * 0.8}`, class: "horn" }),
    el("polygon", { points: `${x + r * 0.85},${y - r * 0.35} ${x + r * 0.75},${y - r * 1.45} ${x + r * 0.2},${y - r * 0.8}`, class: "horn" }),
    el("circle", { cx: x, cy: y, r, class: "devil-body" }),
    el("circle", { cx: x - r * 0.38, cy: y - r * 0.2, r: r * 0.17, class: "devil-eye" }),
    el("circle", { cx: x + r * 0.38, cy: y - r * 0.2, r: r * 0.17, class: "devil-eye" }),
    el("path", { d: `M${x - r * 0.45} ${y + r * 0.3} Q${x} ${y + r * 0.75} ${x + r * 0.45} ${y + r * 0.3}`, class: "devil-mouth" }),
    el("title", {}, t("track.devil")));
}

/** A figure: a pawn (head and a flared body) in its colour. */
function pawn(cx, cy, r, colour) {
  const top = cy - r * 1.05, base = cy + r * 1.05;
  return [
    el("path", { d: `M${cx - r * 0.85} ${base} Q${cx - r * 0.75} ${cy} ${cx - r * 0.3} ${cy - r * 0.15}`
      + ` L${cx + r * 0.3} ${cy - r * 0.15} Q${cx + r * 0.75} ${cy} ${cx + r * 0.85} ${base} Z`, fill: colour, class: "pawn" }),
    el("circle", { cx, cy: top + r * 0.45, r: r * 0.45, fill: colour, class: "pawn" }),
  ];
}

/** The finish square: a chequered flag (two by two), nothing like the red devil. */
function finishSquare(x, y, side) {
  const h = side / 2, x0 = x - h, y0 = y - h;
  return el("g", { class: "finish-flag" },
    el("rect", { x: x0, y: y0, width: side, height: side, rx: 3, class: "square finish" }),
    el("rect", { x: x0, y: y0, width: h, height: h, class: "chequer" }),
    el("rect", { x: x, y, width: h, height: h, class: "chequer" }));
}

/** The last move on this board: [{piece: [from, to]}, fresh] where `fresh` is true when it
 *  happened since the previous drawing (then it slides); kept until the next move. */
function lastMove(svg, pieces) {
  const before = svg.__positions || null;
  svg.__positions = pieces;
  const moved = {};
  for (const [name, to] of Object.entries(pieces)) {
    if (before && name in before && before[name] !== to) moved[name] = [before[name], to];
  }
  const fresh = Object.keys(moved).length > 0;
  if (fresh) svg.__lastMove = moved;
  return [svg.__lastMove || {}, fresh];
}

/** Slide a redrawn token from where it stood (dx, dy in SVG units) unless the phone asks
 *  for reduced motion. */
function slide(node, dx, dy) {
  if (reducedMotion.matches || !node.animate || (!dx && !dy)) return;
  node.animate([{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "translate(0, 0)" }],
    { duration: 450, easing: "ease-out" });
}

function drawTrack(svg, state) {
  const last = state.track_length;
  const cols = 11;
  const cell = (WIDTH - 20) / cols;
  const rowGap = cell * 1.6;
  const rows = Math.ceil((last + 1) / cols);
  const height = rows * rowGap + 14;
  svg.setAttribute("viewBox", `0 0 ${WIDTH} ${height}`);
  const pos = (square) => {
    const row = Math.floor(square / cols);
    const col = square % cols;
    const x = 10 + (row % 2 ? cols - 1 - col : col) * cell + cell / 2;
    const y = 14 + row * rowGap + cell / 2;
    return [x, y];
  };
  const starts = {};
  (state.options.figures ? Object.entries(state.options.figures) : []).forEach(([name, sq], i) => {
    starts[sq] = figureColour(name, i);
  });
  const parts = [];
  // the path joining the squares, then the squares
  let d = "";
  for (let sq = 0; sq <= last; sq++) {
    const [x, y] = pos(sq);
    d += (sq ? "L" : "M") + x.toFixed(1) + " " + y.toFixed(1);
  }
  parts.push(el("path", { d, class: "track-line" }));
  const pieces = Object.fromEntries(state.figures.map((f) => [f.name, f.position]));
  pieces.devil = state.devil;
  const [moved, fresh] = lastMove(svg, pieces);
  const trail = new Set();
  for (const [from, to] of Object.values(moved)) {
    for (let sq = Math.min(from, to); sq <= Math.min(Math.max(from, to), last); sq++) trail.add(sq);
  }
  for (let sq = 0; sq <= last; sq++) {
    const [x, y] = pos(sq);
    if (sq === last) { parts.push(finishSquare(x, y, cell * 0.84)); }
    else {
      const sqEl = el("rect", { x: x - cell * 0.42, y: y - cell * 0.42, width: cell * 0.84, height: cell * 0.84, rx: 4, class: "square" });
      if (sq === state.options.devil_start) sqEl.classList.add("start-devil");
      if (starts[sq]) { sqEl.style.stroke = starts[sq]; sqEl.classList.add("start"); }
      parts.push(sqEl);
    }
    if (trail.has(sq)) parts.push(el("rect", { x: x - cell * 0.47, y: y - cell * 0.47, width: cell * 0.94, height: cell * 0.94, rx: 5, class: "trail", "data-trail": sq }));
    if (sq % 5 === 0 || sq === last) {
      parts.push(el("text", { x, y: y - cell * 0.55, class: "sq-label" }, sq === last ? t("track.finish") : sq));
    }
  }
  // tokens: figures in play and arrived on their square, captured ones beside the board
  const occupancy = {};
  const place = (sq) => { occupancy[sq] = (occupancy[sq] || 0) + 1; return occupancy[sq] - 1; };
  const r = cell * 0.34;
  const slides = [];
  const from = (name) => (moved[name] ? pos(Math.min(moved[name][0], last)) : null);
  state.figures.forEach((fig, i) => {
    const [x, y] = pos(Math.min(fig.position, last));
    const n = place(fig.position);
    const cx = x + (n % 2 ? r * 0.7 : -r * 0.7) * (n ? 1 : 0);
    const cy = y + (n > 1 ? r * 0.9 : 0);
    const token = el("g", { class: "token figure " + fig.status + (moved[fig.name] ? " moved" : ""), dataset: { figure: fig.name } },
      pawn(cx, cy, r, figureColour(fig.name, i)),
      fig.status === "captured" ? el("path", { d: `M${cx - r * 0.6} ${cy - r * 0.6}L${cx + r * 0.6} ${cy + r * 0.6}M${cx + r * 0.6} ${cy - r * 0.6}L${cx - r * 0.6} ${cy + r * 0.6}`, class: "cross" }) : null,
      el("title", {}, pair(figureLabel(fig.name), `${fig.position} (${t("status." + fig.status)})`)));
    parts.push(token);
    const was = from(fig.name);
    if (was && fresh) slides.push([token, was[0] - x, was[1] - y]);
  });
  const [dx, dy] = pos(Math.min(state.devil, last));
  const devil = devilToken(dx, dy + (occupancy[state.devil] ? r * 0.4 : 0), r * 1.15);
  if (moved.devil) devil.classList.add("moved");
  parts.push(devil);
  const devilWas = from("devil");
  if (devilWas && fresh) slides.push([devil, devilWas[0] - dx, devilWas[1] - dy]);
  fill(svg, parts);
  for (const [node, x, y] of slides) slide(node, x, y);
}

function drawCircuit(svg, state) {
  const n = state.circuit_length;
  const size = WIDTH;
  const c = size / 2;
  const radius = size / 2 - 26;
  const cell = Math.min(22, (2 * Math.PI * radius) / n * 0.8);
  svg.setAttribute("viewBox", `0 0 ${size} ${size}`);
  const pos = (sq, rr = radius) => {
    const a = (2 * Math.PI * sq) / n - Math.PI / 2;
    return [c + rr * Math.cos(a), c + rr * Math.sin(a)];
  };
  const parts = [el("circle", { cx: c, cy: c, r: radius, class: "track-line" })];
  const starts = {};
  for (const p of state.players) starts[p.start] = PLAYER_COLOURS[p.player];
  for (let sq = 0; sq < n; sq++) {
    const [x, y] = pos(sq);
    const sqEl = el("rect", { x: x - cell / 2, y: y - cell / 2, width: cell, height: cell, rx: 4, class: "square" });
    if (starts[sq] !== undefined) { sqEl.style.stroke = starts[sq]; sqEl.classList.add("start"); }
    parts.push(sqEl);
    if (sq % 5 === 0) {
      const [lx, ly] = pos(sq, radius - cell - 6);
      parts.push(el("text", { x: lx, y: ly + 4, class: "sq-label" }, sq));
    }
  }
  state.players.forEach((p, i) => {
    const [x, y] = pos(p.position, radius + (i ? 9 : -9));
    parts.push(el("g", { class: "token figure", dataset: { player: p.player } },
      el("circle", { cx: x, cy: y, r: cell * 0.42, fill: PLAYER_COLOURS[p.player] }),
      el("title", {}, pair(playerName(p.player), `${p.progress}/${n}`))));
  });
  parts.push(el("text", { x: c, y: c - 8, class: "centre-label" }, t("pot", { pot: state.pot })));
  state.players.forEach((p, i) => {
    parts.push(el("text", { x: c, y: c + 16 + i * 20, class: "centre-small", fill: PLAYER_COLOURS[p.player] },
      `${playerName(p.player)} ${p.progress}/${n}`));
  });
  fill(svg, parts);
}

/** A history line in the page's language: the engine's template from the catalogs, its
 * figures and players named as the page names them. */
export function effectText(line) {
  const names = { figure: figureLabel, figures: (list) => list.map(figureLabel).join(", "), player: playerName };
  const params = Object.fromEntries(Object.entries(line.said.params)
    .map(([name, value]) => [name, names[name] ? names[name](value) : value]));
  return t(line.said.template, params);
}

/** The scores row: one card per player with role and points. */
export function drawScores(box, state) {
  fill(box, ["p1", "p2"].map((player) => {
    const role = state.roles.popper === player ? "popper" : "hider";
    // rule B: the race on the circuit beside the races won (the track's 13/40, not only 0)
    const racer = (state.players || []).find((p) => p.player === player);
    const race = state.rule === "B" && racer ? t("score.race", { n: racer.progress, of: state.circuit_length }) : "";
    return el("div", { class: "score " + role + (state.winner === player ? " winner" : ""), dataset: { player } },
      el("span", { class: "who" }, playerName(player)),
      el("span", { class: "role" }, [state.over ? "" : t("game." + role), race].filter(Boolean).join(" · ")),
      el("strong", { class: "points", "aria-label": state.rule === "B" ? t("score.races_won", { n: state.scores[player] }) : null },
        state.scores[player]));
  }));
}
