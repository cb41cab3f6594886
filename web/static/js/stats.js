// Stats: players, game kinds and one game move by move, drawn with the vendored uPlot
// (web/static/vendor/uplot, no request leaves the box). Colours come from the theme's CSS
// variables, so the charts follow light/dark mode; text comes from the page's language.
import uPlot from "../vendor/uplot/uPlot.esm.js";
import { api, boot, el, fill, live, pair, percent, referee, t } from "./common.js";

// What is particular to a game (its seats' labels, its colours) comes from its kind
// module (boot.kind_pages, see home.js); this file never names a kind.
const kindModules = Object.fromEntries(await Promise.all(Object.entries(boot.kind_pages || {}).map(
  async ([kind, info]) => [kind, info.module ? await import(info.module) : {}])));

// relative to this module, so it is under the same hashed, long-cached prefix
const css = el("link", { rel: "stylesheet", href: new URL("../vendor/uplot/uPlot.min.css", import.meta.url).pathname });
document.head.append(css);

const PALETTE = ["#1e63d6", "#d32f2f", "#2e9d3a", "#ef7d00", "#8e44ad", "#00838f"];
const charts = [];
const STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000];  // whole-number ticks: pops, moves

/** A seat's display name: translated when it is a seat id or colour, else as it is. */
function who(name) {
  const computer = /^Computer \((\w+)\)$/.exec(name); // controller.stats.seat_names
  if (computer) {
    const level = computer[1] === "computer" ? "heuristic" : computer[1];
    return t("seat.computer", { level: t("level." + level) });
  }
  for (const own of Object.values(kindModules)) {
    const label = own.seatWord ? own.seatWord(name) : null;
    if (label) return label;
  }
  return name;
}

function variantName(key) {
  const [kind, variant] = key.split("/");
  const detail = /^\d+p$/.test(variant)
    ? t("stats.players_n", { n: parseInt(variant, 10) })
    : t("game.rule", { rule: variant });
  return `${t("kind." + kind)} · ${detail}`;
}


function minutes(seconds) {
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = String(s % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${rest}` : `${m}:${rest}`;
}

function themeColours() {
  const style = getComputedStyle(document.documentElement);
  const v = (name) => style.getPropertyValue(name).trim();
  return { ink: v("--ink"), muted: v("--muted"), line: v("--line"), accent: v("--accent") };
}

/** One chart: a captioned figure holding a uPlot canvas labelled with `title`.
 *  `lines`: [{label, colour, data}]; `x`: the x values; `names`: x tick labels (bars). */
function chart(parent, { title, x, lines, xLabel, bars = false, names = null, yMax = null }) {
  const colours = themeColours();
  const figure = el("figure", { class: "chart" }, el("figcaption", {}, title));
  parent.append(figure);
  const axis = { stroke: colours.muted, grid: { stroke: colours.line, width: 1 }, ticks: { stroke: colours.line } };
  const xAxis = { ...axis, label: xLabel || undefined, labelSize: xLabel ? 20 : 0, incrs: STEPS };
  if (names) {
    xAxis.splits = () => x;
    // a name longer than its bar's room is cut with "…" (the table below has it whole):
    // "Anne-Charlotte de La RocComputer · schlau" ran into each other
    const room = (u) => u.bbox.width / (window.devicePixelRatio || 1) / Math.max(1, x.length);
    xAxis.values = (u, splits) => splits.map((i) => fitted(names[i] ?? "", Math.floor(room(u) / 7.5)));
    xAxis.grid = { show: false };
  }
  const opts = {
    width: Math.max(260, figure.clientWidth || parent.clientWidth || 320),
    height: 220,
    scales: {
      x: { time: false, ...(bars ? { range: [-0.6, x.length - 0.4] } : {}) },
      y: { range: (u, min, max) => [Math.min(0, min), yMax ?? Math.max(1, max)] },
    },
    axes: [xAxis, { ...axis, incrs: yMax === null && !bars ? STEPS : undefined }],
    legend: { show: lines.length > 1 || !bars },
    cursor: { drag: { x: false, y: false } },
    series: [
      { label: xLabel || "" },
      ...lines.map((line) => ({
        label: line.label,
        stroke: line.colour,
        width: 2,
        fill: bars ? line.colour + "cc" : undefined,
        paths: bars ? uPlot.paths.bars({ size: [0.6, 64] }) : undefined,
        points: { show: !bars && x.length < 40 },
      })),
    ],
  };
  const plot = new uPlot(opts, [x, ...lines.map((line) => line.data)], figure);
  const canvas = figure.querySelector("canvas");
  canvas.setAttribute("role", "img");
  canvas.setAttribute("aria-label", title);
  charts.push({ plot, figure });
  return plot;
}

/** ``text`` in at most ``chars`` characters (at least 3), cut with "…". */
export function fitted(text, chars) {
  const letters = [...text];
  const most = Math.max(3, chars);
  return letters.length <= most ? text : letters.slice(0, most - 1).join("").trimEnd() + "…";
}

function destroyIn(node) {
  for (let i = charts.length - 1; i >= 0; i--) {
    if (node.contains(charts[i].figure)) {
      charts[i].plot.destroy();
      charts.splice(i, 1);
    }
  }
  node.replaceChildren();
}

const range = (n) => Array.from({ length: n }, (_, i) => i);

// --- players and kinds ------------------------------------------------------------------

/** Under a table wider than its card: "swipe sideways" (hidden when it fits). */
function scrollHint(table) {
  const wrap = table.closest(".table-scroll");
  if (!wrap) return;
  let hint = document.getElementById("players-scroll");
  if (!hint) {
    hint = el("p", { id: "players-scroll", class: "muted small scroll-hint" }, t("stats.scroll_hint"));
    wrap.after(hint);
  }
  hint.hidden = wrap.scrollWidth <= wrap.clientWidth + 1;
}

function renderPlayers(stats) {
  const box = document.getElementById("players-chart");
  destroyIn(box);
  const players = stats.players;
  if (!players.length) {
    fill(document.getElementById("players"));
    return;
  }
  chart(box, {
    title: t("stats.rates_chart"),
    x: range(players.length),
    names: players.map((p) => who(p.name)),
    lines: [{ label: t("stats.rate"), colour: themeColours().accent, data: players.map((p) => Math.round(p.win_rate * 100)) }],
    bars: true,
    yMax: 100,
  });
  const head = el("tr", {},
    el("th", { scope: "col" }, t("stats.player")),
    el("th", { scope: "col", class: "num" }, t("stats.games")),
    el("th", { scope: "col", class: "num" }, t("stats.wins")),
    el("th", { scope: "col", class: "num" }, t("stats.rate")),
    el("th", { scope: "col" }, t("stats.streak")),
    el("th", { scope: "col", class: "num" }, t("stats.best")),
    el("th", { scope: "col" }, t("stats.by")));
  const rows = players.map((p) => {
    const now = p.streaks.current;
    return el("tr", { "data-player": p.name },
      el("th", { scope: "row" }, who(p.name)),
      el("td", { class: "num" }, p.games),
      el("td", { class: "num" }, p.wins),
      el("td", { class: "num" }, percent(p.win_rate)),
      el("td", {}, now ? t(now.win ? "stats.streak_win" : "stats.streak_loss", { n: now.length }) : ""),
      el("td", { class: "num" }, p.streaks.best_wins),
      el("td", { class: "small by" }, Object.entries(p.by)
        .map(([key, by]) => pair(variantName(key), `${by.wins}/${by.games} (${percent(by.win_rate)})`))
        .join(" · ")));
  });
  fill(document.getElementById("players"), el("thead", {}, head), el("tbody", {}, rows));
  scrollHint(document.getElementById("players"));
}

function renderKinds(stats) {
  const box = document.getElementById("kinds");
  destroyIn(box);
  for (const [kind, k] of Object.entries(stats.kinds)) {
    const section = el("div", { class: "kind-stats", "data-kind": kind },
      el("h3", {}, t("kind." + kind)),
      el("p", {}, t("stats.duration_line", {
        min: minutes(k.duration_s.min), median: minutes(k.duration_s.median),
        max: minutes(k.duration_s.max), n: k.actions_median,
      })),
      el("p", {}, t("stats.first", {
        n: k.first_player.wins, games: k.first_player.games,
        rate: percent(k.first_player.win_rate), fair: percent(k.first_player.fair_rate),
      })));
    box.append(section);
    chart(section, {
      title: t("stats.durations_chart", { kind: t("kind." + kind) }),
      x: range(k.games_list.length),
      names: k.games_list.map((g) => "#" + g.id),
      lines: [{ label: t("stats.game"), colour: PALETTE[0], data: k.games_list.map((g) => Math.round(g.duration_s / 6) / 10) }],
      bars: true,
    });
  }
}

// --- one game ---------------------------------------------------------------------------

const gamesById = {};
let gameNames = {}; // the shown game's seats: key ("p1", a colour, "seat1") -> its person

/** A seat of the shown game by its person's name (Zoé, Computer · schlau), else its id's words. */
function seat(key) {
  return gameNames[key] || who(key);
}

/** The colour of a seat or piece on a game's chart: its kind's, else the palette's. */
function colourOf(kind, key, index) {
  const own = kindModules[kind] || {};
  return (own.colour && own.colour(key)) || PALETTE[index % PALETTE.length];
}

function renderGame(series) {
  const box = document.getElementById("game-charts");
  destroyIn(box);
  if (series.chart === "chase") {
    for (const round of series.rounds) {
      const lines = [{ label: t("stats.devil"), colour: themeColours().accent, data: round.devil }];
      for (const [name, at] of Object.entries(round.figures)) {
        lines.push({ label: t("figure." + name), colour: colourOf(series.kind, name, lines.length), data: at });
      }
      chart(box, {
        title: t("stats.chase", { r: round.round, p: seat(round.popper) }),
        x: range(round.devil.length), xLabel: t("stats.x_pop"), lines,
      });
    }
  } else if (series.chart === "race") {
    for (const race of series.races) {
      chart(box, {
        title: t("stats.race", { r: race.race }),
        x: range(race.p1.length), xLabel: t("stats.x_pop"), yMax: Math.max(race.circuit, ...race.pot),
        lines: [
          { label: seat("p1"), colour: PALETTE[0], data: race.p1 },
          { label: seat("p2"), colour: PALETTE[1], data: race.p2 },
          { label: t("stats.pot"), colour: themeColours().muted, data: race.pot },
        ],
      });
    }
  } else if (series.chart === "score") {
    chart(box, {
      title: t("stats.score"), x: range(series.series[0].length), xLabel: t("stats.x_action"),
      lines: series.sides.map((seats, i) => ({ label: seats.map(seat).join(" + "), colour: colourOf(series.kind, `side${i}`, i), data: series.series[i] })),
    });
  } else if (series.chart === "letters") {
    const entries = Object.entries(series.series);
    chart(box, {
      title: t("stats.letters"), x: range(entries[0][1].length), xLabel: t("stats.x_action"), yMax: 6,
      lines: entries.map(([key, data], i) => ({ label: gameNames[key] || who(series.seats[key]), colour: colourOf(series.kind, key, i), data })),
    });
  }
}

async function showGame(id) {
  gameNames = {};
  for (const s of (gamesById[id] || {}).seats || []) {
    const name = s.name || (s.computer ? t("seat.computer", { level: t("level." + s.computer) }) : "");
    if (name) gameNames[String(s.key)] = name;
  }
  try {
    renderGame(await api("GET", `/api/stats/games/${id}`));
  } catch (err) {
    fill(document.getElementById("game-charts"), el("p", { class: "error" }, err.message));
  }
}

function renderPicker(games) {
  const pick = document.getElementById("game-pick");
  const shown = games.filter((g) => g.finished || referee).reverse();
  for (const g of games) gamesById[g.id] = g;
  const wanted = new URLSearchParams(location.search).get("game");
  const current = pick.value || wanted;
  fill(pick, shown.map((g) => el("option", { value: g.id }, `#${g.id} ${g.default_title || !g.title ? t("kind." + g.kind) : g.title}`)));
  if (!shown.length) {
    fill(document.getElementById("game-charts"), el("p", { class: "muted" }, t("stats.pick_none")));
    return;
  }
  if (current && shown.some((g) => String(g.id) === String(current))) pick.value = current;
  showGame(pick.value);
}

document.getElementById("game-pick").addEventListener("change", (event) => showGame(event.target.value));

let finishedSeen = null;
async function refresh() {
  const stats = await api("GET", "/api/stats");
  document.getElementById("stats-count").textContent = stats.games ? t("stats.count", { n: stats.games }) : t("stats.none");
  renderPlayers(stats);
  renderKinds(stats);
}

live(["games"], {
  games: (games) => {
    const finished = games.filter((g) => g.finished).length;
    if (finished === finishedSeen) return;
    finishedSeen = finished;
    refresh().catch((err) => { document.getElementById("stats-count").textContent = err.message; });
    renderPicker(games);
  },
});

// Redraw on a phone's rotation, and when the phone's light/dark setting changes (theme "auto").
let resizeTimer = null;
window.addEventListener("resize", () => {
  clearTimeout(resizeTimer);
  resizeTimer = setTimeout(() => {
    for (const { plot, figure } of charts) plot.setSize({ width: Math.max(260, figure.clientWidth), height: 220 });
    scrollHint(document.getElementById("players"));
  }, 150);
});
window.matchMedia("(prefers-color-scheme: dark)").addEventListener("change", () => {
  finishedSeen = null;
  refresh();
  const pick = document.getElementById("game-pick");
  if (pick.value) showGame(pick.value);
});
