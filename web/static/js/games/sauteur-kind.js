// Le Diable sauteur's part of the generic pages (home.js, history_game.js): see home.js
// for what a kind module exports.
import { api, playerName, t } from "../common.js";
import { PLAYER_COLOURS, drawBoard, drawScores, figureColour, figureLabel } from "./sauteur-board.js";

export const seatLabel = (key) => t("player." + key);

export function startForm() {
  return {
    seatLabels: () => [t("player.p1"), t("player.p2")],
    options: () => ({ rule: (document.querySelector('input[name="rule"]:checked') || {}).value || "A" }),
  };
}

export function describe(action) {
  const who = action.by ? playerName(action.by) : "";
  const face = action.face === "devil" ? t("face.devil") : action.face;
  const words = {
    hidden: () => t("act.hidden"),
    pop: () => t("act.pop", { who, k: action.key }),
    face: () => t("act.face", { face }),
    advance: () => t("act.advance", { who, name: figureLabel(action.figure) }),
    rehide: () => t("act.rehide", { who }),
    stop: () => t("act.stop", { who }),
  };
  return words[action.type] ? words[action.type]() : null;
}

export const board = {
  cls: "",
  draw: async (state, { board: svg, scores }) => { drawBoard(svg, state); drawScores(scores, state); },
};

let snapshots = null; // the camera's pictures of popped dice, fetched once

/** Beside a face: the camera's picture of that die, when the box kept one (named after
 *  the die's round, hiding and key, read from the state just before the face). */
export async function picture(data, gameId) {
  if (!data.action || data.action.type !== "face") return null;
  if (snapshots === null) snapshots = (await api("GET", `/api/games/${gameId}`)).extras.snapshots || [];
  if (!snapshots.length) return null;
  const before = (await api("GET", `/api/games/${gameId}/steps/${data.step - 1}`)).state;
  const name = `${before.round}-${before.hiding}-${before.face_pending_key}`;
  if (!snapshots.includes(name)) return null;
  return { src: `/api/games/${gameId}/snapshots/${name}.jpg`, alt: t("camera.snapshot", { k: before.face_pending_key }) };
}

/** A picture on its rules page: a position the engine made (see rules_pages.py). */
export const drawExample = (svg, example) => drawBoard(svg, example.state);

/** A seat id's label on the stats page ("Player 1"), or null for another kind's. */
export const seatWord = (key) => (key === "p1" || key === "p2" ? t("player." + key) : null);

/** A figure's (or player's) colour on the charts: the board's. */
export const colour = (key) => PLAYER_COLOURS[key] || figureColour(key, 0);
