// A game without a page of its own yet: its view as text and its legal moves as buttons.
import { act, boot, changeGame, el, fill, live, referee, t } from "../common.js";

const gameId = boot.game_id;
const topic = "game:" + gameId;
let view = null;
let extras = { legal: [] };

function render() {
  if (!view) return;
  document.getElementById("state").textContent = JSON.stringify(view.state, null, 1);
  const box = document.getElementById("choices");
  if (!referee) { fill(box); return; }
  fill(box, el("p", { class: "choice-title" }, t("generic.legal")),
    (extras.legal || []).slice(0, 60).map((action) => el("button", { type: "button", class: "secondary",
      onclick: async (e) => {
        const r = await act(e.currentTarget, () => changeGame(`/api/games/${gameId}/actions`, action));
        if (r) { view = r.view; extras = r.extras; render(); }
      } }, JSON.stringify(action))));
}

const undo = document.getElementById("undo");
if (undo) undo.addEventListener("click", async (e) => {
  const r = await act(e.currentTarget, () => changeGame(`/api/games/${gameId}/undo`));
  if (r) { view = r.view; extras = r.extras; render(); }
});

live([topic], {
  [topic]: (v) => { if (!view || v.version >= view.version) { view = v; render(); } },
  extras: (x) => { if (!view || x.version >= view.version) { extras = x; render(); } },
});
