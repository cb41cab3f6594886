// The tail-tile game's part of the generic pages (home.js, history_game.js): see home.js
// for what a kind module exports.
import { api, t } from "../common.js";
import { drawBoard, geometry } from "./tails-board.js";

export const seatLabel = (key) => t("tails.player", { n: Number(key) + 1 });

/** A seat id on the stats page ("seat1", controller/games/tails/stats.py) in the page's
 * language; null for another kind's. */
export function seatWord(key) {
  const seat = /^seat(\d)$/.exec(key);
  return seat ? t("tails.player", { n: Number(seat[1]) }) : null;
}

function players() {
  return Number((document.querySelector('input[name="tails_players"]:checked') || {}).value || 2);
}

export function startForm() {
  return {
    seatLabels: () => Array.from({ length: players() }, (_, i) => t("tails.player", { n: i + 1 })),
    options: () => ({ players: players() }),
  };
}

export function describe(action) {
  if (action.type !== "place") return null;
  return `${action.cell} ← ${action.kind}${action.rotation ? " ↻" + action.rotation : ""}`;
}

let geo = null; // the board's geometry, fetched once

export const board = {
  cls: "tails-board",
  draw: async (state, { board: svg, scores, gameId }) => {
    geo = geo || geometry(await api("GET", `/api/games/${gameId}/layout`));
    drawBoard(svg, geo, state);
    scores.replaceChildren();
  },
};

/** A picture on its rules page: a position the engine made, with its board's layout. */
export const drawExample = (svg, example) => drawBoard(svg, geometry(example.layout), example.state, {});

/** A side's colour on the charts (``side0``…): the board's own (--tails-side0…), so the
 *  stats page's legend matches the board; null for another key. */
export function colour(key) {
  const side = /^side(\d)$/.exec(key);
  if (!side) return null;
  return getComputedStyle(document.documentElement).getPropertyValue(`--tails-side${side[1]}`).trim() || null;
}
