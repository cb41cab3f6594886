// Teufel Teufel's 7×7 board as SVG, drawn from the game's view (Table.view's "state"):
// cards face down and face up in their colours, vines, the devil face with its pegs,
// the sleds, where the mover can go, the move under way and (on request) the odds.
// Every square is a <g data-square data-card data-sleds> so tests and taps can find it.
import { svgEl, t } from "../common.js";
import { cardName, colourCss, colourName, inkOn } from "./teufel-colours.js";
import { eventText } from "./teufel-words.js";

export const CELL = 48;
const LEFT = 16; // room for the rank numbers
const TOP = 2;
const FILES = "abcdefg";

/** An SVG element: svg("rect", {x: 1, onclick: f, dataset: {...}}, child, ...). */
export const svg = svgEl;

/** The top-left corner of a square ("c4") in board units. */
function corner(square, size) {
  const file = FILES.indexOf(square[0]);
  const rank = Number(square.slice(1));
  return [LEFT + file * CELL, TOP + (size - rank) * CELL];
}

/** A devil's head (horns, face, eyes) centred on (cx, cy), radius r. */
export function devilHead(cx, cy, r, cls = "tf-devil-head") {
  return svg("g", { class: cls },
    svg("polygon", { class: "horn", points: `${cx - r * 0.85},${cy - r * 0.35} ${cx - r * 0.55},${cy - r * 1.45} ${cx - r * 0.15},${cy - r * 0.8}` }),
    svg("polygon", { class: "horn", points: `${cx + r * 0.85},${cy - r * 0.35} ${cx + r * 0.55},${cy - r * 1.45} ${cx + r * 0.15},${cy - r * 0.8}` }),
    svg("circle", { class: "face", cx, cy, r }),
    svg("polygon", { class: "eye", points: `${cx - r * 0.6},${cy - r * 0.25} ${cx - r * 0.12},${cy - r * 0.05} ${cx - r * 0.5},${cy + r * 0.12}` }),
    svg("polygon", { class: "eye", points: `${cx + r * 0.6},${cy - r * 0.25} ${cx + r * 0.12},${cy - r * 0.05} ${cx + r * 0.5},${cy + r * 0.12}` }),
    svg("path", { class: "mouth", d: `M${cx - r * 0.5} ${cy + r * 0.4} Q${cx} ${cy + r * 0.8} ${cx + r * 0.5} ${cy + r * 0.4}` }));
}

/** A tower (three merlons and a door) centred on (cx, cy), about 2s high. */
export function towerGlyph(cx, cy, s) {
  const p = (dx, dy) => `${cx + dx * s} ${cy + dy * s}`;
  const d = `M${p(-0.8, 1)}L${p(-0.6, -0.45)}L${p(-0.8, -0.45)}L${p(-0.8, -1)}L${p(-0.4, -1)}` +
    `L${p(-0.4, -0.75)}L${p(-0.15, -0.75)}L${p(-0.15, -1)}L${p(0.15, -1)}L${p(0.15, -0.75)}` +
    `L${p(0.4, -0.75)}L${p(0.4, -1)}L${p(0.8, -1)}L${p(0.8, -0.45)}L${p(0.6, -0.45)}L${p(0.8, 1)}Z`;
  const door = `M${p(-0.22, 1)}V${cy + 0.55 * s}A${0.22 * s} ${0.22 * s} 0 0 1 ${p(0.22, 0.55)}V${cy + s}Z`;
  return svg("g", { class: "tf-tower-glyph" }, svg("path", { class: "body", d }), svg("path", { class: "door", d: door }));
}

/** A sled of `colour` standing on (cx, base), `w` wide. */
export function sledGlyph(colour, cx, base, w, mover = false) {
  const fillColour = colourCss(colour);
  const ink = inkOn(colour);
  const h = w * 0.32;
  const left = cx - w / 2;
  const runner = `M${left - 1} ${base}H${left + w * 0.9}Q${left + w + 3} ${base} ${left + w + 1} ${base - h * 0.7}` +
    `M${left + w * 0.2} ${base - h * 0.55}V${base}M${left + w * 0.72} ${base - h * 0.55}V${base}`;
  return svg("g", { class: "tf-sled" + (mover ? " mover" : ""), "data-colour": colour },
    svg("rect", { class: "tf-sled-plate", x: left - 3, y: base - h * 1.55 - 2.5, width: w + 6, height: h * 1.55 + 4.5, rx: 4 }),
    mover ? svg("ellipse", { class: "tf-mover-ring", cx, cy: base - h * 0.8, rx: w * 0.72, ry: h * 1.35 }) : null,
    svg("path", { class: "tf-runner", d: runner, stroke: fillColour === "#f7f5f2" ? "#6b6470" : fillColour }),
    svg("rect", { class: "tf-sled-body", x: left, y: base - h * 1.55, width: w * 0.9, height: h, rx: 2,
      fill: fillColour, stroke: ink === "#ffffff" ? "#ffffff" : "#1d1a1f" }));
}

function cardShape(x, y, card, cls) {
  const [cx, w, h] = [x + CELL / 2, 36, 40];
  const rect = (extra, fillColour) => svg("rect", { x: cx - w / 2, y: y + 4, width: w, height: h, rx: 5, class: `tf-card ${extra}`, fill: fillColour });
  if (!card) return null;
  if (card.face === "down") {
    return svg("g", { class: cls },
      rect("tf-back"),
      svg("rect", { x: cx - w / 2 + 4, y: y + 8, width: w - 8, height: h - 8, rx: 3, class: "tf-back-line" }),
      svg("polygon", { class: "tf-back-mark", points: `${cx},${y + 15} ${cx + 7},${y + 24} ${cx},${y + 33} ${cx - 7},${y + 24}` }));
  }
  if (card.kind === "devil") return svg("g", { class: cls }, rect("tf-devil-card"), devilHead(cx, y + 21, 9));
  if (card.kind === "tower") return svg("g", { class: cls }, rect("tf-tower-card"), towerGlyph(cx, y + 20, 11));
  return svg("g", { class: cls },
    rect("tf-letter-card", colourCss(card.colour)),
    svg("text", { x: cx, y: y + 27, class: "tf-letter", fill: inkOn(card.colour) }, card.letter));
}

function vineGlyph(x, y, small) {
  if (small) {
    return svg("path", { class: "tf-vine small", d: `M${x + 38} ${y + 3}q6 2 6 8q-6 0 -6 -8z` });
  }
  const cx = x + CELL / 2;
  return svg("g", { class: "tf-vine" },
    svg("path", { class: "stem", d: `M${cx - 14} ${y + 40}C${cx - 14} ${y + 24} ${cx + 12} ${y + 30} ${cx + 10} ${y + 12}` }),
    svg("path", { class: "leaf", d: `M${cx - 8} ${y + 30}q-9 -2 -10 -11q9 1 10 11z` }),
    svg("path", { class: "leaf", d: `M${cx + 4} ${y + 26}q9 -4 13 2q-8 5 -13 -2z` }),
    svg("path", { class: "leaf", d: `M${cx + 10} ${y + 12}q-2 -8 5 -10q2 7 -5 10z` }));
}

function facePegs(x, y, onFace) {
  const spots = [[9, 9], [39, 9], [9, 39], [39, 39]];
  return spots.map(([dx, dy], i) => svg("circle", {
    cx: x + dx, cy: y + dy, r: 5, class: i < onFace ? "tf-peg" : "tf-peg empty",
  }));
}

/** What a square shows, in words (its SVG title: long-press or hover). */
function squareTitle(square, info, state) {
  const parts = [square];
  const card = info.card;
  if (square === state.devil_face) parts.push(t("teufel.face_title", { n: state.devils_on_face }));
  if (!card) parts.push(info.vine ? t("teufel.vine") : t("teufel.no_card"));
  else if (card.face === "down") parts.push(t("teufel.face_down"));
  else parts.push(cardName(card.card));
  if (info.sleds.length) parts.push(t("teufel.sleds_on", { who: info.sleds.map(colourName).join(", ") }));
  return parts.join(" · ");
}

/** How strongly a chance `p` (0–1) tints a card: absolute, so equal odds look equal;
 *  one chance in two or more is the full colour. */
function heat(p) {
  return 0.08 + 0.87 * Math.min(1, p / 0.5);
}

/** The data-card value of a square: "none", "down" or the card's name. */
export function cardKey(card) {
  if (!card) return "none";
  return card.face === "down" ? "down" : card.card;
}

/**
 * Draw `state` into the <svg> `root`. `opts`: `targets` (Set of squares the referee may
 * tap now, outlined), `selected` (Set, picked in a multi-tap choice), `odds` ({squares,
 * metric} to shade face-down cards), `onTap(square)` (null: nothing is tappable).
 */
export function drawBoard(root, state, opts = {}) {
  const size = state.size;
  const targets = opts.targets || new Set();
  const selected = opts.selected || new Set();
  const reach = state.reachable || {};
  const blocked = state.blocked || {};
  const odds = opts.odds;
  const mover = state.turn;
  const width = LEFT + size * CELL + 2;
  const height = TOP + size * CELL + 16;
  root.setAttribute("viewBox", `0 0 ${width} ${height}`);
  root.classList.toggle("tappable", Boolean(opts.onTap));
  const parts = [];
  for (const [square, info] of Object.entries(state.squares)) {
    const [x, y] = corner(square, size);
    const cx = x + CELL / 2;
    const isFace = square === state.devil_face;
    const classes = ["tf-sq"];
    if (targets.has(square)) classes.push("target");
    if (selected.has(square)) classes.push("selected");
    const g = svg("g", {
      class: classes.join(" "),
      dataset: { square, card: cardKey(info.card), sleds: info.sleds.join(" "), reach: reach[square] || "" },
      onclick: opts.onTap ? () => opts.onTap(square) : null,
    });
    g.append(svg("rect", { x: x + 1, y: y + 1, width: CELL - 2, height: CELL - 2, rx: 6, class: isFace ? "tf-cell tf-face" : "tf-cell" }));
    if (isFace) {
      g.dataset.pegs = state.devils_on_face;
      g.append(devilHead(cx, y + 26, 12, "tf-devil-head big"), ...facePegs(x, y, state.devils_on_face));
    }
    if (info.vine) g.append(vineGlyph(x, y, Boolean(info.card)));
    const card = cardShape(x, y, info.card, "tf-card-g");
    if (card) g.append(card);
    const chance = odds && info.card && info.card.face === "down" ? odds.squares[square] : null;
    if (chance) {
      const p = chance[odds.metric];
      g.append(
        svg("rect", { x: cx - 22, y: y + 4, width: 44, height: 40, rx: 5, class: "tf-odds-base" }),
        svg("rect", { x: cx - 22, y: y + 4, width: 44, height: 40, rx: 5, class: `tf-odds ${odds.metric}`, "fill-opacity": heat(p).toFixed(2) }),
        svg("text", { x: cx, y: y + 22, class: "tf-odds-text" }, Math.round(p * 100) + "%"));
      g.dataset.odds = p.toFixed(4);
    }
    info.sleds.forEach((colour, i) => {
      const two = info.sleds.length > 1;
      g.append(sledGlyph(colour, two ? cx + (i ? 11.5 : -11.5) : cx, y + 44, two ? 19 : 30, colour === mover));
    });
    if (reach[square]) g.append(svg("rect", { x: x + 3, y: y + 3, width: CELL - 6, height: CELL - 6, rx: 5, class: "tf-reach " + reach[square] }));
    if (blocked[square]) {
      g.append(svg("g", { class: "tf-blocked" },
        svg("circle", { cx: x + 40, cy: y + 8, r: 6 }),
        svg("path", { d: `M${x + 36} ${y + 12}L${x + 44} ${y + 4}` })));
    }
    g.append(svg("rect", { x: x + 2, y: y + 2, width: CELL - 4, height: CELL - 4, rx: 6, class: "tf-outline" }));
    const why = (state.blocked_said || {})[square];
    const title = squareTitle(square, info, state) + (why ? " — " + eventText(why, false) : "");
    g.append(svg("title", {}, title));
    parts.push(g);
  }
  const path = state.move ? state.move.path : [];
  if (path.length > 1) {
    const points = path.map((sq) => corner(sq, size)).map(([x, y]) => `${x + CELL / 2},${y + CELL / 2}`).join(" ");
    parts.push(svg("polyline", { class: "tf-path", points }));
  }
  for (let i = 0; i < size; i++) {
    parts.push(svg("text", { class: "tf-label", x: LEFT + i * CELL + CELL / 2, y: TOP + size * CELL + 13 }, FILES[i]));
    parts.push(svg("text", { class: "tf-label", x: 7, y: TOP + (size - 1 - i) * CELL + CELL / 2 + 4 }, i + 1));
  }
  root.replaceChildren(...parts);
}

/** A small stand-alone SVG: a devil peg (for the players' panel and buttons). */
export function devilIcon(size = 22) {
  return svg("svg", { class: "tf-icon", viewBox: "0 0 24 24", width: size, height: size, "aria-hidden": "true" },
    devilHead(12, 14, 8));
}

/** A small stand-alone SVG of a sled of `colour`. */
export function sledIcon(colour, size = 30) {
  return svg("svg", { class: "tf-icon", viewBox: "0 0 34 20", width: size, height: size * 20 / 34, "aria-hidden": "true" },
    sledGlyph(colour, 16, 17, 26));
}

/** A small stand-alone SVG of a tower. */
export function towerIcon(size = 22) {
  return svg("svg", { class: "tf-icon", viewBox: "0 0 24 24", width: size, height: size, "aria-hidden": "true" },
    towerGlyph(12, 12, 10));
}
