// A game's rules page: its pictures are real positions (made by the rules engine, in the
// page's boot data) drawn by the game page's own drawing code.
import { boot } from "./common.js";

const DRAW = {
  sauteur: async (svg, example) => (await import("./games/sauteur-board.js")).drawBoard(svg, example.state),
  teufel: async (svg, example) => (await import("./games/teufel-board.js")).drawBoard(svg, example.state),
  tails: async (svg, example) => {
    const board = await import("./games/tails-board.js");
    board.drawBoard(svg, board.geometry(example.layout), example.state, {});
  },
};

for (const svg of document.querySelectorAll("svg[data-example]")) {
  const example = (boot.examples || {})[svg.dataset.example];
  const draw = DRAW[boot.kind];
  if (example && draw) draw(svg, example).then(() => { svg.dataset.drawn = "true"; });
}
