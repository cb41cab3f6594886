// Home: games in progress (live), start a game (referee), the QR code to join.
import { act, api, colourMark, el, fill, live, said, seatList, t, toast } from "./common.js";
import { setupTeufelForm } from "./games/teufel-start.js";
import { colourName } from "./games/teufel-colours.js";

const list = document.getElementById("games");

function render(games) {
  const open = games.filter((g) => !g.finished).reverse();
  if (!open.length) { fill(list, el("li", { class: "muted" }, t("home.none"))); return; }
  fill(list, open.map((g) => el("li", {},
    el("a", { href: `/games/${g.id}`, class: "game-link", "data-game": g.id },
      el("strong", {}, g.default_title || !g.title ? t("kind." + g.kind) : g.title),
      g.on_box ? el("span", { class: "badge on-box", "data-on-box": "true" }, t("home.onbox")) : null,
      el("span", { class: g.damaged ? "error damaged" : "muted" },
        ` #${g.id} · ${g.damaged ? t("hist.damaged", { reason: said(g.damaged_said || g.damaged) }) : t("home.actions", { n: g.actions ?? 0 })}`),
      seatList(g.seats) ? el("span", { class: "muted small seats-line" }, seatList(g.seats)) : null))));
}

live(["games"], { games: render });

// --- the roster (referee) --------------------------------------------------------------------

let roster = [];

function markOf(player) {
  return player.mark.startsWith("#")
    ? colourMark(player.mark)
    : el("span", { class: "mark emoji", "aria-hidden": "true" }, player.mark);
}

function renderRoster() {
  const box = document.getElementById("roster");
  if (!box) return;
  fill(box, roster.length
    ? roster.map((p) => el("li", { "data-player": p.id },
      el("button", { type: "button", class: "roster-edit", "aria-label": t("roster.edit", { name: p.name }),
        onclick: () => editPlayer(p) }, markOf(p), el("span", {}, p.name))))
    : el("li", { class: "muted" }, t("roster.none")));
  syncSeats();
}

async function loadRoster() {
  try { roster = (await api("GET", "/api/players")).players; } catch { roster = []; }
  renderRoster();
}

const playerForm = document.getElementById("new-player");

/** Tap a roster player: the form changes that player (name, colour or emoji). */
function editPlayer(player) {
  playerForm.dataset.id = player.id;
  document.getElementById("player-name").value = player.name;
  const emoji = !player.mark.startsWith("#");
  document.getElementById("player-emoji").value = emoji ? player.mark : "";
  if (!emoji) document.getElementById("player-mark").value = player.mark;
  document.getElementById("add-player").textContent = t("roster.save");
  document.getElementById("player-name").focus();
}

if (playerForm) {
  playerForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    const emoji = document.getElementById("player-emoji").value.trim();
    const body = { name: document.getElementById("player-name").value, mark: emoji || document.getElementById("player-mark").value };
    if (playerForm.dataset.id) body.id = Number(playerForm.dataset.id);
    const made = await act(document.getElementById("add-player"), () => api("POST", "/api/players", body));
    if (made) {
      playerForm.reset();
      delete playerForm.dataset.id;
      document.getElementById("add-player").textContent = t("roster.add");
      await loadRoster();
      toast(t(body.id ? "roster.saved" : "roster.added", { name: made.name }));
    }
  });
}

// --- seats of a new game: a roster player, a guest, or the computer ---------------------------

function seatLabels() {
  const kind = document.getElementById("kind");
  if (!kind) return [];
  if (kind.value === "sauteur") return [t("player.p1"), t("player.p2")];
  if (kind.value === "tails") {
    const n = Number((document.querySelector('input[name="tails_players"]:checked') || {}).value || 2);
    return Array.from({ length: n }, (_, i) => t("tails.player", { n: i + 1 }));
  }
  if (kind.value === "teufel") {
    return [...document.querySelectorAll("#teufel-colours [aria-pressed='true']")]
      .sort((a, b) => Number(a.querySelector(".tf-seat-no").textContent) - Number(b.querySelector(".tf-seat-no").textContent))
      .map((node) => colourName(node.dataset.colour));
  }
  return [];
}

function syncSeats() {
  const box = document.getElementById("seats");
  if (!box) return;
  const labels = seatLabels();
  const kept = [...box.querySelectorAll(".seat")].map((row) => [row.querySelector("select").value, row.querySelector("input").value]);
  const computer = document.getElementById("kind").value === "sauteur";
  fill(box, labels.map((label, i) => {
    const select = el("select", { name: `seat${i}`, "aria-label": t("seats.for", { seat: label }) },
      el("option", { value: "" }, t("seats.nobody")),
      roster.map((p) => el("option", { value: `player:${p.id}` }, p.name)),
      el("option", { value: "guest" }, t("seats.guest")),
      computer ? ["random", "heuristic", "optimal"].map((lv) =>
        el("option", { value: `computer:${lv}` }, t("seat.computer", { level: t("level." + lv) }))) : null);
    const guest = el("input", { name: `guest${i}`, maxlength: 24, autocomplete: "off", placeholder: t("seats.guest_name"),
      "aria-label": t("seats.guest_name"), hidden: true });
    if (kept[i]) { select.value = kept[i][0]; guest.value = kept[i][1]; }
    if (!select.value) select.value = "";
    guest.hidden = select.value !== "guest";
    select.addEventListener("change", () => { guest.hidden = select.value !== "guest"; if (!guest.hidden) guest.focus(); });
    return el("div", { class: "seat" }, el("span", { class: "seat-label" }, label), select, guest);
  }));
  document.getElementById("seats-field").hidden = !labels.length;
}

/** The seats as POST /api/games takes them, or null when nobody was named. */
function chosenSeats() {
  const rows = [...document.querySelectorAll("#seats .seat")];
  const seats = rows.map((row) => {
    const value = row.querySelector("select").value;
    if (value.startsWith("player:")) return { player: Number(value.slice(7)) };
    if (value.startsWith("computer:")) return { computer: value.slice(9) };
    if (value === "guest") return { guest: row.querySelector("input").value };
    return null;
  });
  return seats.some(Boolean) ? seats : null;
}

const form = document.getElementById("new-game");
if (form) {
  const kind = document.getElementById("kind");
  // each game's own options sit in a fieldset marked data-kind; a game without one has none
  const syncRule = () => {
    for (const field of form.querySelectorAll("fieldset[data-kind]")) field.hidden = field.dataset.kind !== kind.value;
  };
  kind.addEventListener("change", syncRule);
  syncRule();
  form.addEventListener("change", (event) => { if (!event.target.closest("#seats")) syncSeats(); });
  form.addEventListener("click", (event) => { if (event.target.closest("#teufel-field")) setTimeout(syncSeats, 0); });
  loadRoster();
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
    const seats = chosenSeats();
    if (seats) body.seats = seats;
    const made = await act(document.getElementById("create"), () => api("POST", "/api/games", body));
    if (made) location.href = `/games/${made.view.id}`;
  });
}
