// Shared by every page: boot data, translations, the JSON API, the live stream,
// the referee login dialog and small DOM helpers. No framework, no build step.

const bootEl = document.getElementById("boot");
export const boot = JSON.parse(bootEl ? bootEl.textContent : "{}");
export const referee = Boolean(boot.referee);

/** Translate `key`, filling `{name}` placeholders from `values`. */
export function t(key, values = {}) {
  let text = (boot.messages && boot.messages[key]) || key;
  if (Array.isArray(text)) text = text[pluralIndex(Number(values.n ?? 1))] ?? text[text.length - 1];
  if (boot.lang === "fr") text = elided(text, values);
  // Python's str.format, as far as the catalogs use it: {name}, {name!r}, {{ and }}
  return text.replace(/\{\{|\}\}|\{(\w+)(!r)?\}/g, (m, name, repr) => {
    if (m === "{{") return "{";
    if (m === "}}") return "}";
    if (!(name in values)) return m;
    return repr && typeof values[name] === "string" ? `'${values[name]}'` : shown(values[name]);
  });
}

/** French elision before a name filled in, as controller/translation.py's ``elided``:
 *  "de {p}" is "d’{p}" and "que {p}" "qu’{p}" when p is a word starting with a vowel or
 *  an h ("d’Élodie"), not a square or a number ("de e2", "de 8"). */
function elided(text, values) {
  return text.replace(/\b([Dd]e|[Qq]ue) \{(\w+)\}/g, (m, word, name) => {
    const value = values[name];
    if (typeof value !== "string" || !/^[aeiouyhàâäéèêëîïôöûüœæ][^\s\d]*(\s|$)/i.test(value)) return m;
    return `${word[0]}${/[dD]/.test(word[0]) ? "’" : "u’"}{${name}}`;
  });
}

/** "label: value" in the page's language ("label : value" in French, the colon kept with
 *  its label). */
export const pair = (label, value) => t("punct.pair", { label, value });

const percentFormat = new Intl.NumberFormat(boot.lang || "en", { style: "percent", maximumFractionDigits: 0 });

/** A share (0–1) as a whole percentage, the page's language's way: 33%, 33 %. */
export const percent = (x) => percentFormat.format(x);

/** An engine's sentence ({template, params}, e.g. a refusal or a notice) in the page's
 * language; its English `reason`/`text` when it has no template. */
export function said(x) {
  if (!x) return "";
  if (typeof x === "string") return x;
  if (!x.template) return x.reason || x.text || "";
  const params = {}; // a param that is a sentence itself ({template, params}) is made too
  for (const [name, value] of Object.entries(x.params || {})) {
    const made = Array.isArray(value) ? value.map(sentenceOf) : sentenceOf(value);
    params[name] = name === "choices" && Array.isArray(made) ? orList.format(made.map(String)) : made;
  }
  return t(x.template, params);
}

const orList = new Intl.ListFormat(boot.lang || "en", { type: "disjunction" });

function sentenceOf(value) {
  return value && typeof value === "object" && value.template ? said(value) : value;
}

const CLDR_ORDER = ["zero", "one", "two", "few", "many", "other"];
const pluralRules = new Intl.PluralRules(boot.lang || "en");
const pluralOrder = CLDR_ORDER.filter((c) => pluralRules.resolvedOptions().pluralCategories.includes(c));
const numberFormat = new Intl.NumberFormat(boot.lang || "en");

/** The catalog's form for count n: its CLDR category, in CLDR order (as Babel writes them). */
function pluralIndex(n) {
  return Math.max(0, pluralOrder.indexOf(pluralRules.select(n)));
}

const listFormat = new Intl.ListFormat(boot.lang || "en");

/** A value as the page's language writes it: fractions with its decimal sign (0,5), lists
 * with its words ("a, b und c"). */
function shown(value) {
  if (Array.isArray(value)) return listFormat.format(value.map(shown));
  return typeof value === "number" && !Number.isInteger(value) ? numberFormat.format(value) : String(value);
}

/** Create an element: el("button", {class: "x", onclick: f}, "text", child, ...). */
const SVG_TAGS = ["svg", "g", "circle", "rect", "path", "text", "line", "polygon", "title"];

/** An HTML element (or an SVG one for the usual SVG tags): el("p", {class, onclick}, ...). */
export function el(tag, attrs = {}, ...children) {
  return build(SVG_TAGS.includes(tag) ? svgNode(tag) : document.createElement(tag), attrs, children);
}

/** Always an SVG element (any SVG tag): svgEl("ellipse", {cx: 1}, child, ...). */
export function svgEl(tag, attrs = {}, ...children) {
  return build(svgNode(tag), attrs, children);
}

const svgNode = (tag) => document.createElementNS("http://www.w3.org/2000/svg", tag);

function build(node, attrs, children) {
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else if (name === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** A player's colour mark: a round swatch of ``colour`` ("#d94f30"), coloured through the
 *  CSSOM (a ``style`` attribute would be blocked by the Content-Security-Policy). */
export function colourMark(colour) {
  const mark = el("span", { class: "mark", "aria-hidden": "true" });
  mark.style.backgroundColor = colour;
  return mark;
}

/** A number as the page's language writes it, with exactly ``digits`` decimals ("2,6"). */
export function num(x, digits = 1) {
  return new Intl.NumberFormat(boot.lang || "en", { minimumFractionDigits: digits, maximumFractionDigits: digits })
    .format(x);
}

/** Replace the children of `node` with `children`. */
export function fill(node, ...children) {
  node.replaceChildren();
  for (const child of children.flat()) if (child) node.append(child);
}

/** The head card's line of facts ("3 players · 39 cards face down · 3 devils on the face"):
 *  each fact whole on a line, the line wrapping between them (never an ellipsis mid-fact). */
export function metaLine(node, parts) {
  const last = parts.length - 1;
  fill(node, parts.flatMap((part, i) =>
    i < last ? [el("span", { class: "meta-part" }, `${part} ·`), " "] : [el("span", { class: "meta-part" }, part)]));
}

let toastTimer = null;
/** A short message at the bottom of the screen. */
export function toast(text, kind = "error") {
  const box = document.getElementById("toast");
  if (kind === "error" && boot.referee && navigator.vibrate) navigator.vibrate(120); // a refusal
  if (!box) return;
  box.textContent = text;
  box.dataset.kind = kind;
  box.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { box.hidden = true; }, 4000);
}

function csrf() {
  const meta = document.querySelector('meta[name="csrf-token"]');
  return meta ? meta.content : "";
}

/** Call the JSON API. Resolves to the JSON answer; rejects with an Error whose
 *  message is the server's reason (and `.status`, `.code`). A 401 opens the PIN dialog. */
export async function api(method, path, body, headers = {}) {
  const init = {
    method,
    credentials: "same-origin",
    headers: { Accept: "application/json", ...headers },
  };
  if (method !== "GET") init.headers["X-CSRF-Token"] = csrf();
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let resp;
  try {
    resp = await fetch(path, init);
  } catch (err) {
    throw Object.assign(new Error(t("err.network")), { status: 0 });
  }
  const data = await resp.json().catch(() => ({}));
  if (data && data.view && Array.isArray(data.view.seats)) {
    setSeats(data.view.seats);
    showEnded(data.view);
  }
  if (!resp.ok) {
    const err = new Error(data.reason || resp.statusText);
    err.status = resp.status;
    err.code = data.error;
    err.template = data.template; // a refusal of the rules: a page may word it itself
    err.params = data.params || {};
    if (resp.status === 401) openLogin();
    throw err;
  }
  return data;
}

/** Run an API call from a button: disables it meanwhile, toasts a refusal. */
export async function act(button, call) {
  if (button) button.disabled = true;
  try {
    return await call();
  } catch (err) {
    toast(err.message);
    return null;
  } finally {
    if (button) button.disabled = false;
  }
}

// --- the live stream ------------------------------------------------------------------

const liveEl = document.getElementById("live");
let countdown = null;
/** The header's live dot: "on", "connecting", or "reconnecting" with the seconds left
 *  counted down (short text in a fixed-width chip: the header never grows). */
function showLive(state, seconds) {
  clearInterval(countdown);
  document.body.classList.toggle("offline", state === "reconnecting");
  if (!liveEl) return;
  liveEl.dataset.state = state;
  if (state !== "reconnecting") {
    liveEl.textContent = state === "on" ? t("live.on") : t("live.connecting");
    liveEl.title = liveEl.textContent;
    return;
  }
  const until = Date.now() + seconds * 1000;
  const tick = () => {
    const left = Math.max(0, Math.ceil((until - Date.now()) / 1000));
    liveEl.textContent = t("live.retry", { s: left });
    liveEl.title = t("live.reconnecting", { s: left });
  };
  tick();
  countdown = setInterval(tick, 250);
}

/** Subscribe to server-sent events for `topics`; `handlers[eventName](data)`.
 *  On error the EventSource is closed and reopened after 0.5, 1, 2, 4 ... s (max 10 s);
 *  every (re)connect starts with a snapshot of each topic. */
export function live(topics, handlers) {
  let source = null;
  let delay = 0.5;
  let timer = null;
  function connect() {
    showLive("connecting");
    source = new EventSource("/stream?topics=" + encodeURIComponent(topics.join(",")));
    source.onopen = () => { streamed.open = true; showLive("on"); };
    for (const [name, handler] of Object.entries(handlers)) {
      source.addEventListener(name, (event) => {
        delay = 0.5;
        showLive("on");
        const payload = JSON.parse(event.data);
        streamedFrame(name, payload);
        if (payload && Array.isArray(payload.seats) && payload.id === boot.game_id) {
          setSeats(payload.seats);
          showEnded(payload);
        }
        handler(payload);
        if (payload && payload.id === boot.game_id && payload.finished && !payload.abandoned) showBgStats();
      });
    }
    source.onerror = () => {
      streamed.open = false;
      source.close();
      showLive("reconnecting", delay);
      clearTimeout(timer);
      timer = setTimeout(connect, delay * 1000);
      delay = Math.min(10, delay * 2);
    };
  }
  connect();
  return {
    close() { clearTimeout(timer); clearInterval(countdown); if (source) source.close(); },
  };
}

// --- the referee's changes, answered short while the stream is live (issue 25) ----------

/** This page's game as its live stream last brought it, and the changes waiting for it. */
const streamed = { open: false, view: null, extras: null };
const waiting = new Set();

function streamedFrame(name, payload) {
  if (!payload || boot.game_id == null) return;
  if (name === "extras" && payload.game === boot.game_id) streamed.extras = payload;
  else if (name.startsWith("game:") && payload.id === boot.game_id) streamed.view = payload;
  else return;
  for (const wait of waiting) if (holds(wait.version)) { waiting.delete(wait); wait.done(true); }
}

const holds = (version) => streamed.view && streamed.extras
  && streamed.view.version >= version && streamed.extras.version >= version;

/** Resolves true once the stream has brought `version` (view and extras), false after `ms`. */
function arrived(version, ms) {
  if (holds(version)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const wait = { version, done: resolve };
    waiting.add(wait);
    setTimeout(() => { if (waiting.delete(wait)) resolve(false); }, ms);
  });
}

/** A referee's change to this page's game (POST `path`: its actions or undo). While the
 *  live stream is on it asks for the short answer (`Prefer: return=minimal`: the server
 *  then builds no view for it) and resolves once the stream has brought that version, as
 *  `{view, extras, ...}` like the full answer; a stream that does not bring it within 3 s,
 *  or no stream: the full answer. Throws as `api` does (a refusal, the network). */
export async function changeGame(path, body) {
  const live = streamed.open && streamed.view && streamed.extras
    && Boolean(streamed.extras.referee) === referee;
  if (!live) return api("POST", path, body);
  const short = await api("POST", path, body, { Prefer: "return=minimal" });
  if (short.view) return short; // a server that did not apply the preference
  if (await arrived(short.version, 3000)) return { ...short, view: streamed.view, extras: streamed.extras };
  return { ...short, ...(await api("GET", `/api/games/${boot.game_id}`)) };
}

/** A game that has just finished offers "Log in BG Stats" in its menu (issue 24). */
async function showBgStats() {
  const link = document.getElementById("bgstats-link");
  if (!link || !link.hidden || link.dataset.asking) return;
  link.dataset.asking = "true";
  try {
    link.href = (await api("GET", `/api/games/${boot.game_id}/bgstats`)).url;
    link.hidden = false;
  } catch { delete link.dataset.asking; }
}

// --- page chrome: role button and PIN dialog --------------------------------------------

const dialog = document.getElementById("login");

export function openLogin() {
  if (!dialog || dialog.open) return;
  document.getElementById("login-error").hidden = true;
  document.getElementById("pin").value = "";
  dialog.showModal();
  document.getElementById("pin").focus();
}

/** A camera picture whole, in the page's #snap-dialog (templates/_snap_dialog.html), as wide
 *  as the screen allows: `{src, alt, text}` (alt is also the title, text its reading). */
export function showPicture({ src, alt, text }) {
  const box = document.getElementById("snap-dialog");
  if (!box) return;
  document.getElementById("snap-dialog-title").textContent = alt;
  const img = document.getElementById("snap-dialog-img");
  img.src = src;
  img.alt = alt;
  document.getElementById("snap-dialog-text").textContent = text;
  box.showModal();
  document.getElementById("snap-dialog-close").focus();
}

// A greyed button says why it is greyed when tapped (a phone shows no tooltip): its reason
// is its data-why; app.css lets the tap through to its parent, where this finds it.
document.addEventListener("click", (event) => {
  if (!(event.target instanceof Element)) return;
  for (const button of event.target.querySelectorAll("button:disabled[data-why]")) {
    const r = button.getBoundingClientRect();
    if (event.clientX >= r.left && event.clientX <= r.right && event.clientY >= r.top && event.clientY <= r.bottom) {
      toast(button.dataset.why, "notice");
      return;
    }
  }
});

/** Grey ``button`` out when ``why`` is a reason (a tap then shows it), enable it when "". */
export function greyed(button, why) {
  if (!button) return;
  button.disabled = Boolean(why);
  if (why) button.dataset.why = why;
  else delete button.dataset.why;
}

function setupChrome() {
  const role = document.getElementById("role");
  if (role) {
    role.addEventListener("click", async () => {
      if (!referee) { openLogin(); return; }
      const out = await ask({ title: t("login.logout"), text: t("login.logout_confirm"), go: t("login.logout"),
        call: () => api("DELETE", "/api/session") });
      if (out) location.reload();
    });
  }
  if (!dialog) return;
  document.getElementById("login-cancel").addEventListener("click", () => dialog.close());
  document.getElementById("login-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const error = document.getElementById("login-error");
    const pin = document.getElementById("pin").value.trim();
    try {
      const resp = await fetch("/api/session", {
        method: "POST",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        body: JSON.stringify({ pin }),
      });
      const data = await resp.json().catch(() => ({}));
      if (!resp.ok) {
        error.textContent = resp.status === 401 ? t("login.wrong") : (data.reason || resp.statusText);
        error.hidden = false;
        return;
      }
      location.reload();
    } catch (err) {
      error.textContent = t("err.network");
      error.hidden = false;
    }
  });
}

setupChrome();

if ("serviceWorker" in navigator && window.isSecureContext) {
  navigator.serviceWorker.register("/sw.js").catch(() => {});
}

// --- who sits where: a game's seats (GET /api/games/<id>, its live view) -----------------

let seatNames = {};
let people = {}; // the seats a person's name was given to (not the computer's label)

/** Remember a game's seats (``view.seats``): names replace "Player 1" or a colour. */
export function setSeats(seats) {
  seatNames = {};
  people = {};
  for (const seat of seats || []) {
    if (seat.name) people[String(seat.key)] = seat.name;
    const name = seat.name || (seat.computer ? t("seat.computer", { level: t("level." + seat.computer) }) : "");
    if (name) seatNames[String(seat.key)] = name;
  }
}

/** The name of the person in seat ``key`` ("" when nobody was named). */
export function seatName(key) {
  return seatNames[String(key)] || "";
}

/** The name of the person given seat ``key`` ("" when none was: nobody, or the computer). */
export function personName(key) {
  return people[String(key)] || "";
}

/** "Zoé, Max": a game's named seats (a list's line), or "". */
export function seatList(seats) {
  return (seats || []).map((s) => s.name || (s.computer ? t("seat.computer", { level: t("level." + s.computer) }) : ""))
    .filter(Boolean).join(", ");
}

export function playerName(player) {
  return seatName(player) || t("player." + player);
}

// --- the referee's dialogs: one for every question, its confirm button names the action ---

/** Ask the referee before ``call`` (a promise: the API call): a dialog with ``title``,
 *  ``text``, an optional text ``field`` (its value goes to ``call``), "Back" and the action
 *  ``go`` ("Abandon the game", never "OK"). Resolves to ``call``'s answer, or null when the
 *  referee went back; a refusal is shown in the dialog, which stays open. */
export function ask({ title, text, go, call, field = null, danger = false }) {
  const dialog = document.getElementById("game-dialog");
  if (!dialog) return Promise.resolve(null);
  const $ = (id) => document.getElementById(id);
  $("game-dialog-title").textContent = title;
  $("game-dialog-text").textContent = text;
  $("game-dialog-field").hidden = field === null;
  $("game-dialog-input").value = field ?? "";
  $("game-dialog-go").textContent = go;
  $("game-dialog-go").classList.toggle("danger", danger);
  $("game-dialog-error").hidden = true;
  const menu = document.getElementById("menu");
  if (menu) menu.open = false;
  return new Promise((resolve) => {
    const done = (value) => { dialog.close(); cleanup(); resolve(value); };
    const back = () => done(null);
    const submit = async (event) => {
      event.preventDefault();
      $("game-dialog-go").disabled = true;
      try {
        done(await call($("game-dialog-input").value));
      } catch (err) {
        $("game-dialog-error").textContent = err.message;
        $("game-dialog-error").hidden = false;
      } finally {
        $("game-dialog-go").disabled = false;
      }
    };
    const cleanup = () => {
      $("game-dialog-cancel").removeEventListener("click", back);
      $("game-dialog-form").removeEventListener("submit", submit);
      dialog.removeEventListener("cancel", back);
    };
    $("game-dialog-cancel").addEventListener("click", back);
    $("game-dialog-form").addEventListener("submit", submit);
    dialog.addEventListener("cancel", back);
    dialog.showModal();
    (field !== null ? $("game-dialog-input") : $("game-dialog-cancel")).focus();
  });
}

// the referee's menu for this game: rename, rematch, put on the box, abandon, delete
const GAME_DO = {
  rename: { field: true, call: (id, title) => api("PATCH", `/api/games/${id}`, { title }),
    then: () => location.reload() },
  rematch: { call: (id) => api("POST", `/api/games/${id}/rematch`),
    then: (made) => { location.href = `/games/${made.view.id}`; } },
  box: { call: (id) => api("POST", `/api/games/${id}/box`), then: () => location.reload() },
  abandon: { danger: true, call: (id) => api("POST", `/api/games/${id}/abandon`),
    then: () => { location.href = `/history/${boot.game_id}`; } },
  delete: { danger: true, call: (id) => api("DELETE", `/api/games/${id}`),
    then: () => { location.href = "/history"; } },
};

function setupGameMenu() {
  for (const item of document.querySelectorAll("[data-game-do]")) {
    item.addEventListener("click", async () => {
      const doing = item.dataset.gameDo;
      const spec = GAME_DO[doing];
      const result = await ask({
        title: t("gm." + doing),
        text: t("gm." + doing + "_confirm", { title: boot.title || "", id: boot.game_id }),
        go: t("gm." + doing + "_go"),
        field: spec.field ? (boot.title || "") : null,
        danger: Boolean(spec.danger),
        call: (value) => spec.call(boot.game_id, value),
      });
      if (result !== null) spec.then(result);
    });
  }
}

// --- a game that left play: its controls go, and every page says so ----------------------

/** Mark the page of a game that ended (``view``: its envelope): ``body[data-ended]`` is
 *  "finished", "abandoned" or "deleted" (app.css hides the controls), and an abandoned or
 *  deleted game gets a banner saying so. */
export function showEnded(view) {
  if (!view || view.id !== boot.game_id) return;
  const ended = view.deleted ? "deleted" : view.abandoned ? "abandoned" : view.finished ? "finished" : "";
  if (ended) document.body.dataset.ended = ended;
  else delete document.body.dataset.ended;
  let banner = document.getElementById("ended");
  if (ended === "abandoned" || ended === "deleted") {
    if (!banner) {
      banner = el("p", { id: "ended", class: "banner ended", role: "status" });
      const head = document.querySelector('[data-role="head"]') || document.getElementById("main");
      head.prepend(banner);
    }
    banner.textContent = t("game.ended_" + ended);
  } else if (banner) {
    banner.remove();
  }
}

setupGameMenu();

// The referee's clock check, once per session (web/static/js/clock.js).
if (referee) import("./clock.js").then((m) => m.checkClock()).catch(() => {});

// --- game pages: fit the board between the head and the controls ----------------------

/** Side by side (CSS does it all) from 900 px wide or in landscape; keep in step with app.css. */
const SIDE_BY_SIDE = window.matchMedia("(min-width: 900px), (orientation: landscape)");

/** On a phone held upright the page is head, board, controls: give the board what the
 *  screen has left (--board-max, px), so the current step's buttons and the whole board
 *  are on screen together, without scrolling. Never below 160 px. */
function fitBoard() {
  const board = document.querySelector('[data-role="board"]');
  const svg = board && board.querySelector("svg");
  if (!svg) return;
  if (SIDE_BY_SIDE.matches) { document.documentElement.style.removeProperty("--board-max"); return; }
  const bar = document.querySelector("header.bar");
  const head = document.querySelector('[data-role="head"]');
  const controls = document.querySelector('[data-role="controls"]');
  const main = document.querySelector("main");
  const height = (node) => (node ? node.getBoundingClientRect().height : 0);
  const style = getComputedStyle(main);
  const gap = parseFloat(getComputedStyle(svg.closest(".game") || main).rowGap) || 0;
  const around = height(board) - height(svg);
  const used = height(bar) + height(head) + height(controls) + around
    + parseFloat(style.paddingTop) + parseFloat(style.paddingBottom) + 2 * gap + 1;
  const left = Math.max(160, Math.floor(window.innerHeight - used));
  document.documentElement.style.setProperty("--board-max", left + "px");
}

if (document.querySelector('[data-role="board"]') && "ResizeObserver" in window) {
  const watched = ['[data-role="head"]', '[data-role="controls"]', '[data-role="board"] .legend', "header.bar"];
  const observer = new ResizeObserver(() => fitBoard());
  for (const selector of watched) {
    const node = document.querySelector(selector);
    if (node) observer.observe(node);
  }
  window.addEventListener("resize", fitBoard);
  SIDE_BY_SIDE.addEventListener("change", fitBoard);
  fitBoard();
}

// --- a game's title, read whole: the header has room for two short lines; a longer title
// is also written in full at the top of the game's head card (hidden from screen readers,
// which read the header's heading whole) --------------------------------------------------

function showFullTitle() {
  const title = document.getElementById("title");
  const head = document.querySelector('[data-role="head"]');
  if (!title || !head) return;
  const cut = title.scrollHeight > title.clientHeight + 1 || title.scrollWidth > title.clientWidth + 1;
  let full = document.getElementById("full-title");
  if (cut && !full) {
    full = el("p", { id: "full-title", class: "full-title", "aria-hidden": "true" }, title.textContent);
    head.prepend(full);
  }
  if (full) full.hidden = !cut;
}

if (document.getElementById("title") && "ResizeObserver" in window) {
  new ResizeObserver(showFullTitle).observe(document.getElementById("title"));
}

// --- pictures: their labels never drawn under 12 px ---------------------------------------

/** Each SVG picture in the page gets ``--px``: how many of its viewBox units make one screen
 *  pixel; app.css sizes the boards' labels with it (``calc(12.5px * var(--px))``: never
 *  under 12.5 screen px, however small the board is drawn). */
function scalePictures() {
  for (const svg of document.querySelectorAll("main svg[viewBox]")) {
    const box = svg.viewBox.baseVal;
    const { width, height } = svg.getBoundingClientRect();
    if (!box || !box.width || !box.height || !width || !height) continue;
    const scale = Math.min(width / box.width, height / box.height); // "meet"
    svg.style.setProperty("--px", String(1 / scale));
  }
}

let scaling = 0;
const rescale = () => { cancelAnimationFrame(scaling); scaling = requestAnimationFrame(scalePictures); };
if (document.getElementById("main")) {
  new MutationObserver(rescale).observe(document.getElementById("main"),
    { subtree: true, childList: true, attributes: true, attributeFilter: ["viewBox"] });
  window.addEventListener("resize", rescale);
  if ("ResizeObserver" in window) new ResizeObserver(rescale).observe(document.getElementById("main"));
}

// --- sound: the menu's switch (sound.js plays) -----------------------------------------

const SOUND_KEY = "diablotin.sound";

/** Is this phone's sound on? Off by default for spectators, on for the referee. */
export function soundOn() {
  const saved = localStorage.getItem(SOUND_KEY);
  return saved === null ? Boolean(boot.referee) : saved === "1";
}

function showSoundSwitch(button) {
  const on = soundOn();
  button.setAttribute("aria-pressed", String(on));
  button.textContent = `♪ ${t(on ? "sound.on" : "sound.off")}`;
}

const soundSwitch = document.getElementById("sound-switch");
if (soundSwitch) {
  showSoundSwitch(soundSwitch);
  soundSwitch.addEventListener("click", () => {
    localStorage.setItem(SOUND_KEY, soundOn() ? "0" : "1");
    showSoundSwitch(soundSwitch);
  });
}
