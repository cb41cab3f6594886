// Home: games in progress (live: moves and whose turn), start a game, the roster and the
// backup (referee), the QR code to join.
//
// What is particular to a game comes from its kind (boot.kind_pages, see pages.py): its
// default options and seats, and its page's kind module, games/<page>-kind.js, which may
// export (each optional):
//   seatLabel(key)          the label of a seat nobody was named for ("Player 1", a colour);
//   startForm(kindSelect)   wires its fieldset of the start form (games/<page>-start.html)
//                           and returns { seatLabels(), options(), incomplete() } (options()
//                           null: not ready, incomplete() says why);
//   describe(action, events), board { cls, draw(state, { board, scores, gameId }) } and
//   picture(data, gameId): the step-through (history_game.js).
// This file never names a kind.
import { act, api, boot, colourMark, el, fill, live, openLogin, said, seatList, t, toast } from "./common.js";

const list = document.getElementById("games");

// --- a spectator's way in: the chip at the top is the login -------------------------------
// (wired before the kind modules are awaited: on a slow box a tap must not wait for them)

const loginHint = document.getElementById("login-hint-go");
if (loginHint) loginHint.addEventListener("click", () => openLogin());

/** Each kind's module (null: none), loaded before anything is drawn. */
const kindModules = Object.fromEntries(await Promise.all(Object.entries(boot.kind_pages || {}).map(
  async ([kind, info]) => [kind, info.module ? await import(info.module) : null])));

/** A seat's name in a games-list row: its person, the computer, or the seat's own label. */
function seatLabel(game, key) {
  const seat = (game.seats || []).find((s) => s.key === key) || {};
  if (seat.name) return seat.name;
  if (seat.computer) return t("seat.computer", { level: t("level." + seat.computer) });
  const own = kindModules[game.kind];
  return own && own.seatLabel ? own.seatLabel(key) : String(key);
}

/** One row: title, the game's kind (when the title is not already its name), #id, moves,
 *  whose turn, the seats; each its own item,
 *  with a separator in the text so no two run together when read or copied. */
function row(g) {
  const title = g.default_title || !g.title ? t("kind." + g.kind) : g.title;
  const facts = [
    g.default_title || !g.title ? null : el("span", { class: "game-kind" }, t("kind." + g.kind)),
    el("span", { class: "game-id" }, `#${g.id}`),
    g.damaged
      ? el("span", { class: "error damaged" }, t("hist.damaged", { reason: said(g.damaged_said || g.damaged) }))
      : el("span", { class: "game-moves", "data-moves": g.actions ?? 0 }, t("home.actions", { n: g.actions ?? 0 })),
    g.to_act != null && !g.damaged
      ? el("span", { class: "game-turn", "data-turn": g.to_act }, t("home.turn", { name: seatLabel(g, g.to_act) }))
      : null,
  ].filter(Boolean);
  const line = [];
  facts.forEach((node, i) => { if (i) line.push(el("span", { class: "sep", "aria-hidden": "true" }, " · ")); line.push(node); });
  return el("li", { "data-game": g.id },
    el("a", { href: `/games/${g.id}`, class: "game-link", "data-game": g.id },
      el("strong", { class: "game-title" }, title),
      g.on_box ? el("span", { class: "badge on-box", "data-on-box": "true" }, " ", t("home.onbox")) : null,
      el("span", { class: "muted game-facts" }, " ", ...line),
      seatList(g.seats) ? el("span", { class: "muted small seats-line" }, " ", seatList(g.seats)) : null));
}

function render(games) {
  const open = games.filter((g) => !g.finished).reverse();
  if (!open.length) { fill(list, el("li", { class: "muted" }, t("home.none"))); return; }
  fill(list, open.map(row));
}

live(["games"], { games: render });

// --- the roster (referee) --------------------------------------------------------------------

let roster = [];

function markOf(player) {
  return player.mark.startsWith("#")
    ? colourMark(player.mark)
    : el("span", { class: "mark emoji", "aria-hidden": "true" }, player.mark);
}

// --- a confirmation that names its action ---------------------------------------------------

/** Ask before doing something that cannot be taken back; resolves true for `go`. */
function confirmAction(title, text, go) {
  const dialog = document.getElementById("confirm-dialog");
  document.getElementById("confirm-title").textContent = title;
  document.getElementById("confirm-text").textContent = text;
  document.getElementById("confirm-go").textContent = go;
  dialog.showModal();
  return new Promise((resolve) => {
    const done = (answer) => { dialog.removeEventListener("close", closed); resolve(answer); };
    const closed = () => done(dialog.returnValue === "go");
    dialog.returnValue = "";
    dialog.addEventListener("close", closed);
  });
}

const confirmDialog = document.getElementById("confirm-dialog");
if (confirmDialog) {
  document.getElementById("confirm-back").addEventListener("click", () => confirmDialog.close(""));
  document.getElementById("confirm-form").addEventListener("submit", (event) => {
    event.preventDefault();
    confirmDialog.close("go");
  });
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
  if (playerForm && !playerForm.dataset.id) offerColour();
}

const playerForm = document.getElementById("new-player");

/** Tap a roster player: the form changes that player (name, colour or emoji). */
function editPlayer(player) {
  playerForm.dataset.id = player.id;
  for (const b of document.querySelectorAll("#roster .roster-edit")) {
    b.setAttribute("aria-pressed", String(b.closest("li").dataset.player === String(player.id)));
  }
  document.getElementById("player-name").value = player.name;
  const emoji = !player.mark.startsWith("#");
  document.getElementById("player-emoji").value = emoji ? player.mark : "";
  if (!emoji) document.getElementById("player-mark").value = player.mark;
  document.getElementById("add-player").textContent = t("roster.save");
  document.getElementById("delete-player").hidden = false;
  document.getElementById("cancel-player").hidden = false;
  document.getElementById("player-name").focus();
}

/** Colours a new player is offered, one not taken yet first (every player was orange). */
const MARKS = ["#d94f30", "#1f6feb", "#2e9d3a", "#8e44ad", "#e0a800", "#00838f", "#c2185b", "#6d4c41"];

/** The colour field offers a colour no player has yet (the name typed is left alone). */
function offerColour() {
  const taken = new Set(roster.map((p) => p.mark.toLowerCase()));
  document.getElementById("player-mark").value = MARKS.find((m) => !taken.has(m)) || MARKS[roster.length % MARKS.length];
}

/** Back to adding a player (after a save, a removal, or Cancel / Escape while changing one). */
function resetPlayerForm() {
  playerForm.reset();
  delete playerForm.dataset.id;
  for (const b of document.querySelectorAll("#roster .roster-edit")) b.removeAttribute("aria-pressed");
  offerColour();
  document.getElementById("add-player").textContent = t("roster.add");
  document.getElementById("delete-player").hidden = true;
  document.getElementById("cancel-player").hidden = true;
}

/** Remove the player being changed, after a confirmation; past games keep the name. */
async function deletePlayer(button) {
  const player = roster.find((p) => p.id === Number(playerForm.dataset.id));
  if (!player) return;
  const sure = await confirmAction(t("roster.delete", { name: player.name }),
    t("roster.delete_confirm", { name: player.name }), t("roster.delete_go"));
  if (!sure) return;
  const done = await act(button, () => api("DELETE", `/api/players/${player.id}`));
  if (done) {
    resetPlayerForm();
    await loadRoster();
    toast(t("roster.deleted", { name: player.name }), "ok");
  }
}

if (playerForm) {
  playerForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    const emoji = document.getElementById("player-emoji").value.trim();
    const body = { name: document.getElementById("player-name").value, mark: emoji || document.getElementById("player-mark").value };
    if (playerForm.dataset.id) body.id = Number(playerForm.dataset.id);
    const made = await act(document.getElementById("add-player"), () => api("POST", "/api/players", body));
    if (made) {
      resetPlayerForm();
      await loadRoster();
      toast(t(body.id ? "roster.saved" : "roster.added", { name: made.name }));
    }
  });
}

if (playerForm) {
  document.getElementById("delete-player").addEventListener("click", (event) => deletePlayer(event.currentTarget));
  document.getElementById("cancel-player").addEventListener("click", resetPlayerForm);
  playerForm.addEventListener("keydown", (event) => { if (event.key === "Escape" && playerForm.dataset.id) resetPlayerForm(); });
}

// --- the backup: download (a link), restore (upload, check, confirm, swap, reconnect) --------

function bytesToBase64(bytes) {
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

const backupFile = document.getElementById("backup-file");
if (backupFile) {
  backupFile.addEventListener("change", async () => {
    const out = document.getElementById("backup-result");
    const file = backupFile.files[0];
    backupFile.value = "";
    if (!file) return;
    out.textContent = "";
    out.classList.remove("error");
    try {
      const data = bytesToBase64(new Uint8Array(await file.arrayBuffer()));
      const checked = await api("POST", "/api/backup/check", { name: file.name, data });
      const sure = await confirmAction(t("backup.restore_title"),
        t("backup.restore_confirm", { file: file.name, holds: t("backup.holds", { n: checked.games }) }),
        t("backup.restore_go"));
      if (!sure) { await api("POST", "/api/backup/restore", { upload: checked.upload, confirm: false }); return; }
      out.textContent = t("backup.restoring");
      await api("POST", "/api/backup/restore", { upload: checked.upload, confirm: true });
      out.textContent = t("backup.restored");
      toast(t("backup.restored"), "ok");
      await loadRoster();
    } catch (err) {
      out.textContent = err.message;
      out.classList.add("error");
    }
  });
}

// --- seats of a new game: a roster player, a guest, or the computer ---------------------------

const startForms = {}; // kind -> its startForm(), once the form is wired

function seatLabels() {
  const kind = document.getElementById("kind");
  if (!kind) return [];
  const own = startForms[kind.value];
  if (own && own.seatLabels) return own.seatLabels();
  return ((boot.kind_pages || {})[kind.value] || { seats: [] }).seats;
}

function syncSeats() {
  const box = document.getElementById("seats");
  if (!box) return;
  const labels = seatLabels();
  const kept = [...box.querySelectorAll(".seat")].map((row) => [row.querySelector("select").value, row.querySelector("input").value]);
  const computer = Boolean(((boot.kind_pages || {})[document.getElementById("kind").value] || {}).computer);
  fill(box, labels.map((label, i) => {
    const select = el("select", { name: `seat${i}`, "aria-label": t("seats.for", { seat: label }) },
      el("option", { value: "" }, t("seats.nobody")),
      roster.map((p) => el("option", { value: `player:${p.id}` }, p.name)),
      el("option", { value: "guest" }, t("seats.guest")),
      computer ? ["random", "heuristic", "optimal", "adaptive"].map((lv) =>
        el("option", { value: `computer:${lv}` }, t("seat.computer", { level: t("level." + lv) }))) : null);
    const guest = el("input", { name: `guest${i}`, autocomplete: "off", placeholder: t("seats.guest_name"),
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
  form.addEventListener("click", (event) => { if (event.target.closest("fieldset[data-kind]")) setTimeout(syncSeats, 0); });
  loadRoster();
  for (const [name, own] of Object.entries(kindModules)) if (own && own.startForm) startForms[name] = own.startForm(kind);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const body = { kind: data.get("kind"), title: data.get("title") || "", options: {} };
    const own = startForms[body.kind];
    if (own && own.options) {
      body.options = own.options();
      if (!body.options) { toast(own.incomplete ? own.incomplete() : t("home.create")); return; }
    }
    const seats = chosenSeats();
    if (seats) body.seats = seats;
    const made = await act(document.getElementById("create"), () => api("POST", "/api/games", body));
    if (made) location.href = `/games/${made.view.id}`;
  });
}
