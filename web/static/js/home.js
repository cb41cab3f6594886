// Home: games in progress (live), start a game (referee), the QR code to join.
import { act, api, el, fill, live, t, toast } from "./common.js";
import { setupTeufelForm } from "./games/teufel-start.js";

const list = document.getElementById("games");

function render(games) {
  const open = games.filter((g) => !g.finished).reverse();
  if (!open.length) { fill(list, el("li", { class: "muted" }, t("home.none"))); return; }
  fill(list, open.map((g) => el("li", {},
    el("a", { href: `/games/${g.id}`, class: "game-link", "data-game": g.id },
      el("strong", {}, g.title || t("kind." + g.kind)),
      el("span", { class: g.damaged ? "error damaged" : "muted" },
        ` #${g.id} · ${g.damaged ? t("hist.damaged", { reason: g.damaged }) : t("home.actions", { n: g.actions ?? 0 })}`)))));
}

live(["games"], { games: render });

const form = document.getElementById("new-game");
if (form) {
  const kind = document.getElementById("kind");
  // each game's own options sit in a fieldset marked data-kind; a game without one has none
  const syncRule = () => {
    for (const field of form.querySelectorAll("fieldset[data-kind]")) field.hidden = field.dataset.kind !== kind.value;
  };
  kind.addEventListener("change", syncRule);
  syncRule();
  const teufelOptions = setupTeufelForm(kind);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const body = { kind: data.get("kind"), title: data.get("title") || "", options: {} };
    if (body.kind === "sauteur") body.options.rule = data.get("rule");
    if (body.kind === "tails") body.options.players = Number(data.get("tails_players"));
    if (body.kind === "teufel") {
      body.options = teufelOptions();
      if (!body.options) { toast(t("teufel.need_players", { min: 2, max: 6 })); return; }
    }
    const made = await act(document.getElementById("create"), () => api("POST", "/api/games", body));
    if (made) location.href = `/games/${made.view.id}`;
  });
}
