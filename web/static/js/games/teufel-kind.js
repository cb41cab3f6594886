// Teufel Teufel's part of the generic pages (home.js, history_game.js): see home.js for
// what a kind module exports.
import { t } from "../common.js";
import { drawBoard } from "./teufel-board.js";
import { colourCss, colourName } from "./teufel-colours.js";
import { setupTeufelForm } from "./teufel-start.js";
import { eventText, person } from "./teufel-words.js";

export const seatLabel = (key) => colourName(key);

export function startForm(kindSelect) {
  const options = setupTeufelForm(kindSelect);
  return {
    seatLabels: () => [...document.querySelectorAll("#teufel-colours [aria-pressed='true']")]
      .sort((a, b) => Number(a.querySelector(".tf-seat-no").textContent) - Number(b.querySelector(".tf-seat-no").textContent))
      .map((node) => colourName(node.dataset.colour)),
    options,
    incomplete: () => t("teufel.need_players", { min: 2, max: 6 }),
  };
}

/** A step in words: what it did (its events, one sentence each), or, for a move that says
 *  nothing at the table (a step onto a free square, the end of a move), the move itself. */
export function describe(action, events) {
  if (events && events.length) return events.map((e) => eventText(e)).join(". ");
  const silent = { step: action.to, end_move: "", pass_over: "", done: "" };
  if (!(action.type in silent) || !action.player) return null;
  return t("teufel.did." + action.type, { who: person(action.player), sq: silent[action.type] });
}

export const board = {
  cls: "tf-board",
  draw: async (state, { board: svg, scores }) => { drawBoard(svg, state); scores.replaceChildren(); },
};

/** A picture on its rules page: a position the engine made (see rules_pages.py). */
export const drawExample = (svg, example) => drawBoard(svg, example.state);

/** A seat id (a colour) on the stats page, in the page's language; null for another kind's. */
export function seatWord(key) {
  const word = "teufel.colour." + key;
  return t(word) === word ? null : colourName(key);
}

/** A player's colour on the charts. */
export const colour = (key) => colourCss(key);
