// Step through one game: the view after each action, drawn as the live page draws it.
import { api, boot, playerName, t } from "./common.js";
import { drawBoard, drawScores, figureLabel } from "./games/sauteur-board.js";

const gameId = boot.game_id;
const $ = (id) => document.getElementById(id);
let steps = 0;
let current = 0;

/** One action in words (sauteur vocabulary; other games' actions as JSON). */
function describe(action) {
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
  return boot.kind === "sauteur" && words[action.type] ? words[action.type]() : JSON.stringify(action);
}

async function show(step) {
  try {
    const data = await api("GET", `/api/games/${gameId}/steps/${step}`);
    steps = data.steps;
    current = data.step;
    $("step").max = steps;
    $("step").value = current;
    $("step-label").textContent = t("hist.step", { i: current, n: steps });
    $("step-action").textContent = data.action ? describe(data.action) : t("hist.setup");
    $("state").textContent = JSON.stringify(data.state, null, 1);
    const board = boot.kind === "sauteur";
    $("board-card").hidden = !board;
    $("state-card").open = !board;
    if (board) { drawBoard($("board"), data.state); drawScores($("scores"), data.state); }
    $("step-error").hidden = true;
  } catch (err) {
    $("step-error").textContent = err.message;
    $("step-error").hidden = false;
  }
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

// start at the end: the final position
api("GET", `/api/games/${gameId}/steps/0`).then((d) => show(d.steps)).catch((err) => {
  $("step-error").textContent = err.message;
  $("step-error").hidden = false;
});
document.getElementById("live").hidden = true;
