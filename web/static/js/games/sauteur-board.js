// The Diable sauteur board drawn as SVG from the game's view (Table.view's "state"):
// rule A's track (squares 0..track_length, a serpentine) with the devil and the
// popper's figures; rule B's circuit (a ring) with both players' figures.
import { el, fill, t, playerName } from "../common.js";

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

function devilToken(x, y, r) {
  // A red devil: a disc with two horns.
  return el("g", { class: "token devil" },
    el("polygon", { points: `${x - r * 0.8},${y - r * 0.5} ${x - r * 0.35},${y - r * 1.5} ${x - r * 0.1},${y - r * 0.7}`, class: "horn" }),
    el("polygon", { points: `${x + r * 0.8},${y - r * 0.5} ${x + r * 0.35},${y - r * 1.5} ${x + r * 0.1},${y - r * 0.7}`, class: "horn" }),
    el("circle", { cx: x, cy: y, r, class: "devil-body" }),
    el("title", {}, t("track.devil")));
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
  for (let sq = 0; sq <= last; sq++) {
    const [x, y] = pos(sq);
    const cls = sq === last ? "square finish" : "square";
    const sqEl = el("rect", { x: x - cell * 0.42, y: y - cell * 0.42, width: cell * 0.84, height: cell * 0.84, rx: 4, class: cls });
    if (sq === state.options.devil_start) sqEl.classList.add("start-devil");
    if (starts[sq]) { sqEl.style.stroke = starts[sq]; sqEl.classList.add("start"); }
    parts.push(sqEl);
    if (sq % 5 === 0 || sq === last) {
      parts.push(el("text", { x, y: y - cell * 0.55, class: "sq-label" }, sq === last ? t("track.finish") : sq));
    }
  }
  // tokens: figures in play and arrived on their square, captured ones beside the board
  const occupancy = {};
  const place = (sq) => { occupancy[sq] = (occupancy[sq] || 0) + 1; return occupancy[sq] - 1; };
  const r = cell * 0.3;
  state.figures.forEach((fig, i) => {
    const [x, y] = pos(Math.min(fig.position, last));
    const n = place(fig.position);
    const cx = x + (n % 2 ? r * 0.7 : -r * 0.7) * (n ? 1 : 0);
    const cy = y + (n > 1 ? r * 0.9 : 0);
    const token = el("g", { class: "token figure " + fig.status, dataset: { figure: fig.name } },
      el("circle", { cx, cy, r, fill: figureColour(fig.name, i) }),
      fig.status === "captured" ? el("path", { d: `M${cx - r * 0.6} ${cy - r * 0.6}L${cx + r * 0.6} ${cy + r * 0.6}M${cx + r * 0.6} ${cy - r * 0.6}L${cx - r * 0.6} ${cy + r * 0.6}`, class: "cross" }) : null,
      el("title", {}, `${figureLabel(fig.name)}: ${fig.position} (${t("status." + fig.status)})`));
    parts.push(token);
  });
  const [dx, dy] = pos(Math.min(state.devil, last));
  parts.push(devilToken(dx, dy + (occupancy[state.devil] ? r * 0.4 : 0), r * 1.05));
  fill(svg, parts);
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
      el("title", {}, `${playerName(p.player)}: ${p.progress}/${n}`)));
  });
  parts.push(el("text", { x: c, y: c - 8, class: "centre-label" }, t("pot", { pot: state.pot })));
  state.players.forEach((p, i) => {
    parts.push(el("text", { x: c, y: c + 16 + i * 20, class: "centre-small", fill: PLAYER_COLOURS[p.player] },
      `${playerName(p.player)} ${p.progress}/${n}`));
  });
  fill(svg, parts);
}

const FR_EFFECTS = [
  [/^devil \+(\d+) to (\d+)/, "diable +$1 jusqu’à $2"],
  [/, captured (.+)$/, (m, names) => ", capture : " + names.split(", ").map(figureLabel).join(", ")],
  [/^(\w+) \+(\d+) to (\d+)/, (m, name, n, to) => `${figureLabel(name)} +${n} jusqu’à ${to}`],
  [/, arrived$/, ", arrivé"],
  [/^pot of (\d+) lost/, "cagnotte de $1 perdue"],
  [/^no move/, "pas de déplacement"],
  [/^pot (\d+)/, "cagnotte $1"],
  [/, third number/, ", troisième chiffre"],
  [/(p[12]) stops/, (m, p) => `${playerName(p)} s’arrête`],
  [/: (p[12]) \+(\d+)/, (m, p, n) => ` : ${playerName(p)} +${n}`],
  [/, lap complete$/, ", tour bouclé"],
];

/** A history line's effect (the engine writes English) in the page's language. */
export function effectText(effect, lang) {
  if (lang !== "fr") return effect;
  return FR_EFFECTS.reduce((text, [pattern, by]) => text.replace(pattern, by), effect);
}

/** The scores row: one card per player with role and points. */
export function drawScores(box, state) {
  fill(box, ["p1", "p2"].map((player) => {
    const role = state.roles.popper === player ? "popper" : "hider";
    return el("div", { class: "score " + role + (state.winner === player ? " winner" : ""), dataset: { player } },
      el("span", { class: "who" }, playerName(player)),
      el("span", { class: "role" }, state.over ? "" : t("game." + role)),
      el("strong", { class: "points" }, state.scores[player]));
  }));
}
