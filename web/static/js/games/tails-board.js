// The tail-tile board as SVG, from the board's layout (GET /api/games/<id>/layout, fetched
// once) and the game's view: the hexagon's cells with their numbers, each placed card's
// three pieces, every devil's tail in its side's colour (open tails dashed: provisional),
// the devils around the edge. Also the pictures of the seven kinds of card.
// Pure drawing: the page module decides what is legal, selected or advised.
import { el, fill, t } from "../common.js";

const S = 100; // SVG units per cell side
const HEAD_R = 21; // a devil's head, SVG units (its letter stays >= 12 px on a phone)
const PAD = 3; // room around the drawing, SVG units
const HEIGHT = Math.sqrt(3) / 2;
const r1 = (x) => Math.round(x * 10) / 10;

function centreOf(points) {
  const n = points.length;
  return [points.reduce((s, p) => s + p[0], 0) / n, points.reduce((s, p) => s + p[1], 0) / n];
}

function shape(corners, points) {
  return { corners, points, centre: centreOf(corners) };
}

/** Scaled geometry of a layout: cells by id, devils, shared edges, the view box. */
export function geometry(layout) {
  const cells = new Map();
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (const cell of layout.cells) {
    const corners = cell.corners.map(([x, y]) => [x * S, y * S]);
    for (const [x, y] of corners) {
      minX = Math.min(minX, x); maxX = Math.max(maxX, x);
      minY = Math.min(minY, y); maxY = Math.max(maxY, y);
    }
    cells.set(cell.id, { ...cell, ...shape(corners, cell.points.map(([x, y]) => [x * S, y * S])) });
  }
  // every edge once, with the cells on each side (one cell: the boundary)
  const edges = new Map();
  for (const cell of cells.values()) {
    cell.corners.forEach((a, i) => {
      const b = cell.corners[(i + 1) % 3];
      const key = [a, b].map(([x, y]) => `${Math.round(x)},${Math.round(y)}`).sort().join("|");
      if (!edges.has(key)) edges.set(key, { a, b, cells: [] });
      edges.get(key).cells.push(cell);
    });
  }
  const geo = { layout, cells, edges: [...edges.values()], devils: layout.devils.map((d) => devilShape(cells, d)) };
  // the view box: the hexagon and the devils around it, a little room to spare
  for (const d of geo.devils) {
    for (const [x, y] of [d.head, d.tipEnd]) {
      minX = Math.min(minX, x - HEAD_R); maxX = Math.max(maxX, x + HEAD_R);
      minY = Math.min(minY, y - HEAD_R); maxY = Math.max(maxY, y + HEAD_R);
    }
  }
  geo.box = [minX - PAD, minY - PAD, maxX - minX + 2 * PAD, maxY - minY + 2 * PAD];
  return geo;
}

/** Where a devil is drawn: its head beside the body point, the tail's tip beside the tail end,
 *  both pushed out of the board along the edge's outward normal. */
function devilShape(cells, d) {
  const cell = cells.get(d.body[0]);
  const [bx, by] = [d.body_xy[0] * S, d.body_xy[1] * S];
  const [tx, ty] = [d.tail_xy[0] * S, d.tail_xy[1] * S];
  let [nx, ny] = [-(ty - by), tx - bx];
  const len = Math.hypot(nx, ny) || 1;
  [nx, ny] = [nx / len, ny / len];
  if ((cell.centre[0] - bx) * nx + (cell.centre[1] - by) * ny > 0) { nx = -nx; ny = -ny; }
  const head = [bx + nx * 24, by + ny * 24];
  const tail = [tx + nx * 18, ty + ny * 18];
  const [ux, uy] = [ny, -nx];
  const tip = [[tail[0] + nx * 9, tail[1] + ny * 9], [tail[0] + ux * 7, tail[1] + uy * 7], [tail[0] - ux * 7, tail[1] - uy * 7]];
  return { name: d.name, body: [bx, by], end: [tx, ty], head, tail, tip, tipEnd: tip[0] };
}

/** The cell points a card joins: canonical pairs turned by `rotation` (point p → p + 2k). */
export function cardPairs(layout, kind, rotation) {
  const shift = 2 * (rotation || 0);
  return layout.kinds[kind].pairs.map(([a, b]) => [(a + shift) % 6, (b + shift) % 6]);
}

/** Unit normal of the edge carrying `point`, pointing into the cell. */
function inward(cell, point) {
  const edge = Math.floor(point / 2);
  const [x0, y0] = cell.corners[edge];
  const [x1, y1] = cell.corners[(edge + 1) % 3];
  const len = Math.hypot(x1 - x0, y1 - y0);
  let nx = -(y1 - y0) / len, ny = (x1 - x0) / len;
  const [px, py] = cell.points[point];
  if ((cell.centre[0] - px) * nx + (cell.centre[1] - py) * ny < 0) { nx = -nx; ny = -ny; }
  return [nx, ny];
}

/** A piece from point `a` to point `b` of a cell: a curve leaving each edge square-on, so a
 *  tail runs smoothly from card to card. */
export function piecePath(cell, a, b) {
  const [ax, ay] = cell.points[a];
  const [bx, by] = cell.points[b];
  const [nax, nay] = inward(cell, a);
  const [nbx, nby] = inward(cell, b);
  const side = Math.hypot(cell.corners[1][0] - cell.corners[0][0], cell.corners[1][1] - cell.corners[0][1]);
  const span = Math.hypot(bx - ax, by - ay) / side;
  const sameEdge = Math.floor(a / 2) === Math.floor(b / 2);
  const k = side * (sameEdge ? 0.32 : Math.min(0.42, Math.max(0.16, span * 0.55)));
  return `M${r1(ax)} ${r1(ay)}C${r1(ax + nax * k)} ${r1(ay + nay * k)} ${r1(bx + nbx * k)} ${r1(by + nby * k)} ${r1(bx)} ${r1(by)}`;
}

function polygon(points) {
  return points.map(([x, y]) => `${r1(x)},${r1(y)}`).join(" ");
}

/** Points of a triangle shrunk towards its centre by `by` SVG units (outlines drawn inside). */
function inset(cell, by) {
  return cell.corners.map(([x, y]) => {
    const dx = cell.centre[0] - x, dy = cell.centre[1] - y;
    const d = Math.hypot(dx, dy);
    return [x + (dx / d) * by, y + (dy / d) * by];
  });
}

function devilName(name) {
  return t("tails.devil", { d: name });
}

/**
 * Draw the board into `svg`.
 * `state`: the game's view; `overlay` (all optional): `legal` (cell ids the pending
 * placement may use), `forced` (the twin rule's cell), `selected` (cell id), `preview`
 * ({cell, kind, rotation}: the card being entered), `advice` ([cell ids], best first),
 * `excludedSector`, `interactive` (cells are buttons: role, tabindex, aria-disabled).
 * Placed cards are filled (no number shows through), the last one placed is outlined.
 */
export function drawBoard(svg, geo, state, overlay = {}) {
  svg.setAttribute("viewBox", geo.box.map(r1).join(" "));
  const placed = new Map(state.placed.map((p) => [p.cell, p]));
  const legal = new Set(overlay.legal || []);
  const devilSide = new Map(state.devils.map((d) => [d.name, d.side]));
  const cellsLayer = [], linesLayer = [], numbers = [], pieces = [], tails = [], marks = [], devils = [];

  for (const cell of geo.cells.values()) {
    const card = placed.get(cell.id);
    const classes = ["tcell", card ? "taken" : legal.has(cell.id) ? "legal" : "blocked"];
    if (state.players === 3) classes.push("sector-" + (cell.sector % 2 ? "odd" : "even"));
    if (overlay.excludedSector === cell.sector && !card) classes.push("excluded");
    const canTap = overlay.interactive && !card && legal.has(cell.id);
    cellsLayer.push(el("polygon", {
      points: polygon(cell.corners),
      class: classes.join(" "),
      "data-cell": cell.id,
      role: overlay.interactive ? "button" : "img",
      tabindex: canTap ? 0 : null,
      "aria-disabled": overlay.interactive && !canTap ? "true" : null,
      "aria-pressed": overlay.interactive ? String(overlay.selected === cell.id) : null,
      "aria-label": t("tails.cell", { c: cell.id }) + (card ? ` · ${card.kind}${card.rotation}` : ""),
    }));
    // a placed card covers its cell's number (the devils' chips give the points)
    if (!card) numbers.push(el("text", { x: r1(cell.centre[0]), y: r1(cell.centre[1]), class: "tnum", "aria-hidden": "true" }, cell.number));
    const shown = card || (overlay.preview && overlay.preview.cell === cell.id ? overlay.preview : null);
    if (shown) {
      for (const [a, b] of cardPairs(geo.layout, shown.kind, shown.rotation)) {
        pieces.push(el("path", { d: piecePath(cell, a, b), class: card ? "piece" : "piece preview" }));
      }
    }
  }

  // the line between the halves (twins face each other across it), sector lines with 3 players
  for (const edge of geo.edges) {
    const [p, q] = edge.cells;
    let cls = null;
    if (!q) cls = "edge-rim";
    else if (p.half !== q.half) cls = "edge-half";
    else if (state.players === 3 && p.sector !== q.sector) cls = "edge-sector";
    if (cls) linesLayer.push(el("line", { x1: r1(edge.a[0]), y1: r1(edge.a[1]), x2: r1(edge.b[0]), y2: r1(edge.b[1]), class: cls }));
  }

  // tails over the pieces, in their owner's colour
  for (const devil of state.devils) {
    for (const [cellId, a, b] of devil.segments) {
      const cell = geo.cells.get(cellId);
      if (!cell) continue;
      tails.push(el("path", { d: piecePath(cell, a, b), class: `tail tside${devil.side} end-${devil.end}`, "data-devil": devil.name }));
    }
  }

  // outlines on top: advice (dashed), the forced cell, the selected cell
  (overlay.advice || []).forEach((id, rank) => {
    const cell = geo.cells.get(id);
    if (cell) marks.push(el("polygon", { points: polygon(inset(cell, 7)), class: `mark advice rank${rank}`, "data-advice": id }));
  });
  const last = state.placed.reduce((best, p) => (!best || p.order > best.order ? p : best), null);
  for (const [id, cls] of [[last && last.cell, "last"], [overlay.forced, "forced"], [overlay.selected, "selected"]]) {
    const cell = id && geo.cells.get(id);
    if (cell) marks.push(el("polygon", { points: polygon(inset(cell, 3.5)), class: "mark " + cls }));
  }

  // devils: a head with its letter beside the body point, a tip at the tail end
  for (const d of geo.devils) {
    const side = devilSide.get(d.name);
    devils.push(el("g", { class: `devil tside${side}`, "data-devil": d.name },
      el("title", {}, devilName(d.name)),
      el("line", { x1: r1(d.body[0]), y1: r1(d.body[1]), x2: r1(d.head[0]), y2: r1(d.head[1]), class: "neck" }),
      el("line", { x1: r1(d.end[0]), y1: r1(d.end[1]), x2: r1(d.tail[0]), y2: r1(d.tail[1]), class: "neck" }),
      el("polygon", { points: polygon(d.tip), class: "tip" }),
      el("circle", { cx: r1(d.head[0]), cy: r1(d.head[1]), r: HEAD_R, class: "head" }),
      el("text", { x: r1(d.head[0]), y: r1(d.head[1]), class: "dletter" }, d.name)));
  }

  fill(svg,
    el("g", { class: "layer-cells" }, cellsLayer),
    el("g", { class: "layer-deco" }, linesLayer, numbers, pieces, tails, marks, devils));
}

/** A picture of a card of `kind` at `rotation`, pointing up or down like the cell it goes on. */
export function cardPicture(layout, kind, rotation = 0, up = true) {
  const [f1, f2] = layout.point_fractions;
  const h = HEIGHT * S;
  const corners = up ? [[S, h], [0, h], [S / 2, 0]] : [[0, 0], [S, 0], [S / 2, h]];
  const points = [];
  corners.forEach((a, i) => {
    const b = corners[(i + 1) % 3];
    for (const f of [f1, f2]) points.push([a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f]);
  });
  const cell = shape(corners, points);
  return el("svg", { class: "card-picture", viewBox: `-6 -6 ${S + 12} ${r1(h + 12)}`, "aria-hidden": "true" },
    el("polygon", { points: polygon(corners), class: "card-face" }),
    cardPairs(layout, kind, rotation).map(([a, b]) => el("path", { d: piecePath(cell, a, b), class: "card-piece" })));
}
