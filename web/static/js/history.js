// History: finished games and all games (live), export links, import (referee).
import { api, el, fill, live, said, seatList, t } from "./common.js";

function row(g) {
  return el("li", {},
    el("a", { href: g.finished ? `/history/${g.id}` : `/games/${g.id}`, class: "game-link", "data-game": g.id },
      el("strong", {}, g.default_title || !g.title ? t("kind." + g.kind) : g.title),
      el("span", { class: "muted" }, ` #${g.id} · ${g.abandoned ? t("hist.abandoned") : g.finished ? t("hist.done") : t("hist.inprogress")}`),
      seatList(g.seats) ? el("span", { class: "muted small seats-line" }, " ", seatList(g.seats)) : null,
      g.damaged ? el("span", { class: "error damaged" }, ` · ${t("hist.damaged", { reason: said(g.damaged_said || g.damaged) })}`) : null),
    g.finished || g.damaged ? el("a", { href: `/api/games/${g.id}/export`, class: "chip", download: `diablotin-game-${g.id}.json` }, t("hist.export")) : null);
}

live(["games"], {
  games: (games) => {
    const finished = games.filter((g) => g.finished).reverse();
    fill(document.getElementById("finished"), finished.length ? finished.map(row) : el("li", { class: "muted" }, t("hist.none")));
    fill(document.getElementById("all"), games.slice().reverse().map(row));
  },
});

const input = document.getElementById("import-file");
if (input) {
  input.addEventListener("change", async () => {
    const out = document.getElementById("import-result");
    const file = input.files[0];
    if (!file) return;
    try {
      const data = JSON.parse(await file.text());
      const r = await api("POST", "/api/import", data);
      fill(out, el("a", { href: `/history/${r.id}` }, t("hist.imported", { id: r.id })));
    } catch (err) {
      out.textContent = err.message;
    }
    input.value = "";
  });
}
