// Step through one game: the view after each action, drawn as the live page draws it.
// What is particular to the game (its actions in words, its board, a camera picture)
// comes from its kind's module (boot.kind_page.module, see home.js); this file never
// names a kind.
import { api, boot, el, fill, setSeats, showPicture, t } from "./common.js";

const gameId = boot.game_id;
const $ = (id) => document.getElementById(id);
const own = (boot.kind_page || {}).module ? await import(boot.kind_page.module) : {};
let steps = 0;
let current = 0;

/** One action in words: the kind's, or its type and fields. */
function describe(action, events = null) {
  const words = own.describe ? own.describe(action, events) : null;
  if (words) return words;
  const { type, ...rest } = action;
  const detail = Object.entries(rest).map(([k, v]) => `${k} ${Array.isArray(v) ? v.join(" ") : v}`);
  return [type.replaceAll("_", " "), ...detail].join(" · ");
}

let asked = false; // a step was asked for (a tap, a key): the page no longer jumps to the end

let latest = 0; // the last step asked for wins, whichever answer comes back first

async function show(step, byUser = true) {
  asked = asked || byUser;
  const mine = ++latest;
  try {
    const data = await api("GET", `/api/games/${gameId}/steps/${step}`);
    if (mine !== latest) return;
    setSeats(data.seats); // the players' names, not "Player 2" or a colour
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
    const board = own.board;
    $("board").setAttribute("class", `board ${board ? board.cls : ""}`);
    $("board-card").hidden = !board;
    $("state-card").open = !board;
    if (board) await board.draw(data.state, { board: $("board"), scores: $("scores"), gameId });
    $("step-error").hidden = true;
  } catch (err) {
    $("step-error").textContent = err.message;
    $("step-error").hidden = false;
  }
}

let picture = null; // the shown step's picture ({src, alt}), for the dialog

/** Beside a step: the kind's picture of it (the camera's snapshot of a die), if any; a tap
 *  (or Enter) shows it whole with the step's words. */
async function showSnapshot(data) {
  const open = $("step-snap-open");
  open.hidden = true;
  picture = own.picture ? await own.picture(data, gameId) : null;
  if (!picture || current !== data.step) return;
  $("step-snap").src = picture.src;
  $("step-snap").alt = picture.alt;
  open.setAttribute("aria-label", picture.alt);
  open.hidden = false;
}
$("step-snap-open").addEventListener("click", () => {
  if (picture) showPicture({ ...picture, text: `${$("step-label").textContent} · ${$("step-action").textContent}` });
});

$("first").addEventListener("click", () => show(0));
$("prev").addEventListener("click", () => show(Math.max(0, current - 1)));
$("next").addEventListener("click", () => show(Math.min(steps, current + 1)));
$("last").addEventListener("click", () => show(steps));
$("step").addEventListener("input", (e) => show(Number(e.target.value)));
document.addEventListener("keydown", (e) => {
  if (e.key === "ArrowLeft") show(Math.max(0, current - 1));
  if (e.key === "ArrowRight") show(Math.min(steps, current + 1));
});

/** Every step as a button, said as the step itself says it: a tap shows it. */
async function listMoves() {
  const { moves, seats } = await api("GET", `/api/games/${gameId}/moves`);
  setSeats(seats);
  fill($("moves"), [el("li", {}, el("button", { type: "button", class: "move", "data-step": 0,
    onclick: () => show(0) }, t("hist.setup"))),
  ...moves.map((move) => el("li", {}, el("button", { type: "button", class: "move",
    "data-step": move.step, onclick: () => show(move.step) },
    `${move.step}. ${describe(move.action, move.said)}`)))]);
}

listMoves().catch(() => { $("moves").closest("section").hidden = true; });

// start at the end: the final position (unless a move was tapped meanwhile)
api("GET", `/api/games/${gameId}/steps/0`).then((d) => { if (!asked) show(d.steps, false); }).catch((err) => {
  $("step-error").textContent = err.message;
  $("step-error").hidden = false;
});
