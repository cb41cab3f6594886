// Step through one game: the view after each action, drawn as the live page draws it.
import { api, boot, el, fill, playerName, t } from "./common.js";
import { eventText } from "./games/teufel-words.js";
import { drawBoard, drawScores, figureLabel } from "./games/sauteur-board.js";
import { drawBoard as drawTails, geometry as tailsGeometry } from "./games/tails-board.js";
import { drawBoard as drawTeufel } from "./games/teufel-board.js";

const gameId = boot.game_id;
const $ = (id) => document.getElementById(id);
let steps = 0;
let current = 0;
let snapshots = null; // the camera's pictures of popped dice (sauteur), fetched once

/** One action in words (sauteur vocabulary; other games' actions as JSON). */
function describe(action, events = null) {
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
  if (boot.kind === "sauteur" && words[action.type]) return words[action.type]();
  if (boot.kind === "teufel" && events && events.length) return events.map((e) => eventText(e)).join(" ");
  if (boot.kind === "tails" && action.type === "place") {
    return `${action.cell} ← ${action.kind}${action.rotation ? " ↻" + action.rotation : ""}`;
  }
  const { type, ...rest } = action;
  const detail = Object.entries(rest).map(([k, v]) => `${k} ${Array.isArray(v) ? v.join(" ") : v}`);
  return [type.replaceAll("_", " "), ...detail].join(" · ");
}

const BOARD_CLASS = { tails: "tails-board", teufel: "tf-board" }; // each page's own styles
let tailsGeo = null; // the tail-tile board's geometry, fetched once

/** Each game's own board drawing, as on its live page (spectator's view, nothing tappable). */
const boards = {
  sauteur: async (state) => { drawBoard($("board"), state); drawScores($("scores"), state); },
  teufel: async (state) => { drawTeufel($("board"), state); $("scores").replaceChildren(); },
  tails: async (state) => {
    tailsGeo = tailsGeo || tailsGeometry(await api("GET", `/api/games/${gameId}/layout`));
    drawTails($("board"), tailsGeo, state);
    $("scores").replaceChildren();
  },
};

async function show(step) {
  try {
    const data = await api("GET", `/api/games/${gameId}/steps/${step}`);
    steps = data.steps;
    current = data.step;
    $("step").max = steps;
    $("step").value = current;
    $("step-label").textContent = t("hist.step", { i: current, n: steps });
    $("step-action").textContent = data.action ? describe(data.action, data.state.events_said) : t("hist.setup");
    for (const b of document.querySelectorAll("#moves button")) {
      if (Number(b.dataset.step) === current) b.setAttribute("aria-current", "step");
      else b.removeAttribute("aria-current");
    }
    await showSnapshot(data);
    $("state").textContent = JSON.stringify(data.state, null, 1);
    const board = boards[boot.kind];
    $("board").setAttribute("class", `board ${BOARD_CLASS[boot.kind] || ""}`);
    $("board-card").hidden = !board;
    $("state-card").open = !board;
    if (board) await board(data.state);
    $("step-error").hidden = true;
  } catch (err) {
    $("step-error").textContent = err.message;
    $("step-error").hidden = false;
  }
}

/** Beside a face: the camera's picture of that die, when the box kept one (named after
 *  the die's round, hiding and key, read from the state just before the face). */
async function showSnapshot(data) {
  const img = $("step-snap");
  img.hidden = true;
  if (boot.kind !== "sauteur" || !data.action || data.action.type !== "face") return;
  if (snapshots === null) snapshots = (await api("GET", `/api/games/${gameId}`)).extras.snapshots || [];
  if (!snapshots.length) return;
  const before = (await api("GET", `/api/games/${gameId}/steps/${data.step - 1}`)).state;
  const name = `${before.round}-${before.hiding}-${before.face_pending_key}`;
  if (!snapshots.includes(name) || current !== data.step) return;
  img.src = `/api/games/${gameId}/snapshots/${name}.jpg`;
  img.alt = t("camera.snapshot", { k: before.face_pending_key });
  img.hidden = false;
}

$("first").addEventListener("click", () => show(0));
$("prev").addEventListener("click", () => show(Math.max(0, current - 1)));
$("next").addEventListener("click", () => show(Math.min(steps, current + 1)));
$("last").addEventListener("click", () => show(steps));
$("step").addEventListener("input", (e) => show(Number(e.target.value)));
document.addEventListener("keydown", (e) => {
  if (e.key === "ArrowLeft") show(Math.max(0, current - 1));
  if (e.key === "ArrowRight") show(Math.min(steps, current + 1));
});

/** Every move as a button (the journal's entries, an undo included): a tap shows it. */
async function listMoves() {
  const record = await api("GET", `/api/games/${gameId}/export`);
  fill($("moves"), [el("li", {}, el("button", { type: "button", class: "move", "data-step": 0,
    onclick: () => show(0) }, t("hist.setup"))),
  ...record.entries.map((entry, i) => el("li", {}, el("button", { type: "button", class: "move",
    "data-step": i + 1, onclick: () => show(i + 1) },
    `${i + 1}. ${entry.undo ? t("game.undo") : describe(entry.action)}`)))]);
}

listMoves().catch(() => { $("moves").closest("section").hidden = true; });

// start at the end: the final position
api("GET", `/api/games/${gameId}/steps/0`).then((d) => show(d.steps)).catch((err) => {
  $("step-error").textContent = err.message;
  $("step-error").hidden = false;
});
