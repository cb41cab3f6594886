// The Diable sauteur page: board, the four slots with live sensors, one pop button per
// key, face entry in one tap, odds on request, the computer popper, scores and history.
import { play } from "../sound.js";
import { act, api, boot, changeGame, el, fill, live, metaLine, num, percent, personName, referee, said, showPicture, t, toast, playerName, greyed } from "../common.js";
import { drawBoard, drawScores, effectText, figureColour, figureLabel } from "./sauteur-board.js";

const gameId = boot.game_id;
const topic = "game:" + gameId;
const $ = (id) => document.getElementById(id);

let view = null; // Table.view envelope
let extras = { legal: [], refused: [], computer: [], on_box: false };
let slots = {}; // live sensor state from the box: {"1": true, ...}
let watch = null; // what the box waits for (GET /api/box's "watch": phase, jammed)
let simulated = false; // a simulated toy: the page can hide its dice
let oddsOpen = false;
let oddsVersion = -1;


// The referee is offered only what is legal in the state on screen: legal actions
// computed for another version (a frame in flight) count as none.
const legalNow = () => (view && extras.version === view.version ? extras.legal || [] : []);
const legal = (match) => legalNow().find((a) => Object.entries(match).every(([k, v]) => a[k] === v));
const refusedReason = (match) => {
  const r = (extras.refused || []).find((x) => Object.entries(match).every(([k, v]) => x.action[k] === v));
  return r ? said(r) : "";
};

async function submit(button, action) {
  const result = await act(button, () => changeGame(`/api/games/${gameId}/actions`, action));
  if (result) applyPayload(result);
}

function applyPayload(payload) {
  if (payload.view) onGame(payload.view);
  if (payload.extras) onExtras(payload.extras);
}

let facesSeen = -1; // spectators: new faces on a camera game fetch the snapshot list

function onGame(envelope) {
  if (view && envelope.version < view.version) return; // an older frame
  if (view && envelope.version > view.version) soundFor(view.state, envelope.state);
  view = envelope;
  const faces = envelope.state.history.filter((h) => h.face !== null).length;
  if (!referee && faces > facesSeen && facesSeen >= 0 && (extras.snapshots || []).length) {
    api("GET", `/api/games/${gameId}`).then(applyPayload).catch(() => {});
  }
  facesSeen = faces;
  if (Array.isArray(envelope.computer)) extras = { ...extras, computer: envelope.computer };
  render();
}

/** The sound of what changed: a finish, a capture, the devil, or a pop. */
function soundFor(before, after) {
  const fresh = after.history.slice(before.history.length);
  if (after.over && !before.over) play("finish");
  else if (fresh.some((h) => /captured/.test(h.effect))) play("capture");
  else if (fresh.some((h) => h.face === "devil")) play("devil");
  else if (fresh.length) play("pop");
}

function onExtras(data) {
  if (view && data.version < view.version) return;
  extras = data;
  render();
}

function prompt(s) {
  const names = { hider: playerName(s.roles.hider), popper: playerName(s.roles.popper) };
  if (s.over) return t("phase.over");
  if (s.phase === "hiding") return t("phase.hiding", names);
  if (s.phase === "face") return t("phase.face", { key: s.face_pending_key });
  if (s.phase === "advance") return t("phase.advance", { ...names, n: s.pending_squares });
  if (s.numbers_this_hiding >= 3) return t("phase.pop_three", names);
  if (s.popped.length === 0) return t("phase.pop", names);
  const end = t("end." + s.rule, { pot: s.pot });
  return t("phase.pop_more", { ...names, end });
}

function render() {
  if (!view) return;
  const s = view.state;
  document.body.dataset.version = view.version;
  document.body.dataset.phase = s.phase;
  metaLine($("meta"), [t("game.rule", { rule: s.rule }), t("game.round", { r: s.round, n: s.rounds })]);
  drawScores($("scores"), s);
  const banner = $("banner");
  banner.hidden = !s.over;
  if (s.over) banner.textContent = s.winner === "draw" ? t("game.draw") : t("game.winner", { p: playerName(s.winner) });
  $("prompt").textContent = prompt(s);
  $("prompt").dataset.phase = s.phase;
  drawBoard($("board"), s);
  $("board-legend").textContent = s.rule === "A"
    ? s.figures.map((f) => `${figureLabel(f.name)} ${f.position} (${t("status." + f.status)})`).join(" · ")
    : "";
  $("onbox-note").hidden = !referee || extras.on_box || s.over;
  renderSlots(s);
  renderChoices(s);
  renderComputer();
  renderHistory(s);
  const undo = $("undo");
  greyed(undo, view.version === 0 ? t("there is nothing to undo") : "");
  if (oddsOpen && oddsVersion !== view.version) loadOdds();
}

function renderSlots(s) {
  const popper = s.roles.popper;
  fill($("slots"), [1, 2, 3, 4].map((key) => {
    const present = slots[key] ?? slots[String(key)];
    const popped = s.popped.includes(key) && s.phase !== "hiding";
    const action = legal({ type: "pop", key });
    const sensor = present === undefined ? "" : present ? t("slot.full") : t("slot.empty");
    const why = !action ? refusedReason({ type: "pop", key }) : !extras.on_box ? t("game.notonbox")
      : present === false ? t("slot.sensor_empty", { k: key }) : "";
    const button = el("button", {
      type: "button",
      class: "pop big",
      "data-key": key,
      disabled: !referee || !action || !extras.on_box || present === false,
      "data-why": why || null, // a greyed button says why on a tap (common.js)
      onclick: (e) => submit(e.currentTarget, { type: "pop", key, by: popper }),
    }, t("slot.pop", { k: key }));
    return el("div", { class: "slot" + (present ? " full" : " empty") + (popped ? " popped" : ""), "data-key": key },
      el("div", { class: "slot-head" },
        el("span", { class: "slot-key" }, key),
        el("span", { class: "die", "aria-hidden": "true" }),
        el("span", { class: "sensor" }, popped ? t("slot.popped") : sensor)),
      referee ? button : null);
  }));
}

function renderChoices(s) {
  const box = $("choices");
  const items = [];
  if (!referee) { fill(box); return; }
  if (s.phase === "hiding" && !s.over) {
    const inSlots = [1, 2, 3, 4].filter((k) => slots[k] ?? slots[String(k)]).length;
    items.push(el("p", { class: "muted" }, t("hiding.wait", { n: inSlots })));
    if (legal({ type: "hidden" })) {
      items.push(el("button", { type: "button", class: "secondary", id: "hidden-button",
        onclick: (e) => submit(e.currentTarget, { type: "hidden" }) }, t("hiding.done")));
    }
  }
  items.push(...boxWaits(s));
  if (s.phase === "face") {
    items.push(el("p", { class: "choice-title" }, t("face.title", { key: s.face_pending_key })));
    items.push(el("div", { class: "faces" }, legalNow().filter((a) => a.type === "face").map((a) =>
      el("button", { type: "button", class: "face big" + (a.face === "devil" ? " devil" : ""), "data-face": a.face,
        onclick: (e) => submit(e.currentTarget, { type: "face", face: a.face }) },
        a.face === "devil" ? t("face.devil") : a.face))));
  }
  if (s.phase === "advance") {
    items.push(el("div", { class: "faces" }, legalNow().filter((a) => a.type === "advance").map((a) => {
      const index = s.figures.findIndex((f) => f.name === a.figure);
      const b = el("button", { type: "button", class: "advance big", "data-figure": a.figure,
        onclick: (e) => submit(e.currentTarget, a) }, t("advance.move", { name: figureLabel(a.figure), n: s.pending_squares }));
      b.style.borderColor = figureColour(a.figure, index);
      return b;
    })));
  }
  for (const type of ["rehide", "stop"]) {
    const a = legal({ type });
    if (a) {
      items.push(el("button", { type: "button", class: "primary big", id: type + "-button",
        onclick: (e) => submit(e.currentTarget, a) }, t(type, { pot: s.pot })));
    }
  }
  fill(box, items);
}

/** What the box waits for while the game goes on, and the one button that resolves it:
 *  the dice hidden again (the lid opened or a die went back in), or a jammed key. */
function boxWaits(s) {
  if (!extras.on_box || !watch || s.over) return [];
  if (watch.jammed) {
    const k = watch.jammed;
    const jam = (e, what) => act(e.currentTarget, () => api("POST", "/api/box/jam", { key: k, do: what }));
    return [el("p", { class: "note", id: "box-waits" }, t("waits.jam", { k })),
      el("button", { type: "button", class: "primary", onclick: (e) => jam(e, "retry") }, t("box.retry", { k })),
      el("button", { type: "button", class: "secondary", onclick: (e) => jam(e, "popped") }, t("box.popped_by_hand", { k }))];
  }
  if (s.phase === "hiding" || watch.phase !== "hiding") return [];
  return [el("p", { class: "note", id: "box-waits" }, t("waits.hiding")),
    simulated ? el("button", { type: "button", class: "primary", id: "box-hide",
      onclick: (e) => act(e.currentTarget, () => api("POST", "/api/box/toy", { do: "hide" })) }, t("box.hide")) : null];
}

const LEVELS = ["random", "heuristic", "optimal", "adaptive"];

function renderComputer() {
  const box = $("computer");
  if (!box || !referee) return;
  const why = $("computer-why"); // why the computer does not play now, when it does not
  if (why) { why.hidden = !extras.computer_why; why.textContent = said(extras.computer_why); }
  const put = async (target, body) => {
    const r = await act(target, () => api("PUT", `/api/games/${gameId}/computer`, body));
    if (r) { extras = { ...extras, computer: r.computer, levels: r.levels }; renderComputer(); }
  };
  fill(box, ["p1", "p2"].map((player) => {
    const on = (extras.computer || []).includes(player);
    const level = (extras.levels || {})[player] || "adaptive";
    // a seat no person was given is "Player 2 · computer" here, not "Computer · clever · computer"
    const who = personName(player) || t("player." + player);
    const toggle = el("button", { type: "button", class: "toggle big", "aria-pressed": on ? "true" : "false",
      "data-player": player,
      onclick: (e) => put(e.currentTarget, { player, on: !on }) },
      `${who} · ${on ? t("computer.yes") : t("computer.no")}`);
    const select = el("select", { class: "level", "data-player": player, "aria-label": t("computer.level"),
      hidden: !on, // a person plays this seat: no level to choose
      onchange: (e) => put(e.currentTarget, { player, on, level: e.currentTarget.value }) },
      LEVELS.map((name) => el("option", { value: name, selected: name === level ? "selected" : null }, t("level." + name))));
    select.value = level;
    return el("span", { class: "row" }, toggle, select);
  }));
}

/** The camera's picture of the die behind a history line, when the box kept one: a
 *  thumbnail as wide as a die can be seen in (160 px), a tap (or Enter) shows it whole. */
function snapshot(h) {
  const name = `${h.round}-${h.hiding}-${h.key}`;
  if (h.face === null || !(extras.snapshots || []).includes(name)) return null;
  const src = `/api/games/${gameId}/snapshots/${name}.jpg`;
  const alt = t("camera.snapshot", { k: h.key });
  return el("button", { type: "button", class: "h-snap-open", "aria-haspopup": "dialog",
    onclick: () => enlarge(h, src, alt) },
  el("img", { class: "h-snap", src, width: "160", height: "120", loading: "lazy", decoding: "async", alt }));
}

/** The snapshot in a dialog with its reading (the history line: where, the key, the face
 *  and what it did). */
function enlarge(h, src, alt) {
  const face = h.face === "devil" ? t("face.devil") : h.face;
  showPicture({ src, alt, text: `${h.round}.${h.hiding} · ${t("odds.key")} ${h.key} · ${face} · ${effectText(h)}` });
}

function renderHistory(s) {
  fill($("results"), s.results.map((r) => el("li", {},
    s.rule === "A"
      ? t("history.round_result", { r: r.round, p: playerName(r.popper), n: r.arrived, pts: r.points })
      : t("history.race_result", { r: r.round, p: playerName(r.popper) }))));
  const rows = s.history.slice().reverse().map((h) => el("li", {},
    el("span", { class: "h-where" }, `${h.round}.${h.hiding}`),
    h.key ? el("span", { class: "h-key" }, `${t("odds.key")} ${h.key}`) : null,
    h.face !== null ? el("span", { class: "h-face" + (h.face === "devil" ? " devil" : "") }, h.face === "devil" ? t("face.devil") : h.face) : null,
    el("span", { class: "h-effect" }, effectText(h)),
    snapshot(h)));
  if (!rows.length) rows.push(el("li", { class: "muted" }, t("history.none")));
  fill($("history"), rows);
}

async function loadOdds() {
  oddsVersion = view ? view.version : -1;
  try {
    const odds = await api("GET", `/api/games/${gameId}/odds?coach=1${referee ? "&hider=1" : ""}`);
    const rows = odds.keys.map((k) => el("tr", {},
      el("th", {}, k.key),
      el("td", {}, percent(k.devil_chance)),
      el("td", {}, num(k.expected_squares)),
      el("td", {}, (k.devil_captures || []).map(figureLabel).join(", "))));
    const table = el("table", {},
      el("thead", {}, el("tr", {}, el("th", {}, t("odds.key")), el("th", {}, t("odds.devil")),
        el("th", {}, t("odds.gain")), el("th", {}, odds.rule === "A" ? t("odds.captures") : ""))),
      el("tbody", {}, rows));
    const advice = !odds.advice ? null
      : odds.advice.action === "pop" ? t("odds.advice_pop", { k: odds.advice.key, e: num(odds.advice.expected) })
      : t("odds.advice_stop", { e: num(odds.advice.expected ?? 0) });
    fill($("odds"), table, advice ? el("p", { class: "advice" }, t("odds.advice", { a: advice })) : null,
      ...coachBlock(odds.coach));
    if (odds.coach && odds.coach.status === "solving") setTimeout(() => { if (oddsOpen) loadOdds(); }, 1000);
  } catch (err) {
    toast(err.message);
  }
}

// The coach: each option's chance (rule B) or expected round score (rule A) from the
// solved tables, and for the referee only the hider's equilibrium placement.
function optionText(name) {
  const [verb, ...rest] = name.split(" ");
  if (verb === "pop") return t("coach.pop", { k: rest[0] });
  if (verb === "advance") return t("coach.advance", { name: figureLabel(rest.join(" ")) });
  return t("coach." + verb);
}

function coachBlock(coach) {
  if (!coach) return [];
  if (coach.status !== "ready") return [el("p", { class: "muted coach", id: "coach" }, t("coach.solving"))];
  const rows = coach.options.map((o, i) => el("li", { "data-option": o.option },
    optionText(o.option), " — ",
    coach.measure === "points" ? t("coach.points", { e: num(o.points, 2) }) + " · " : "",
    t("coach.win", { p: percent(o.win) }),
    i === 0 ? el("strong", {}, " (" + t("coach.best") + ")") : null));
  const out = [el("div", { class: "coach", id: "coach" }, el("p", { class: "choice-title" }, t("coach.title")), el("ul", {}, rows))];
  const h = coach.hider;
  if (h && h.placement) {
    out.push(el("div", { class: "coach hider", id: "coach-hider" },
      el("p", { class: "choice-title" }, t("coach.hider_title")),
      el("p", {}, Object.entries(h.placement).map(([k, p]) => t("coach.hider_slot", { k, p: percent(p) })).join(" · ")),
      el("p", { class: "muted" }, t("coach.hider_value", { p: percent(h.popper_chance), u: percent(h.popper_chance_uniform) }))));
  }
  const r = coach.read; // the referee's read of the hider (docs/strategy.md, adaptive)
  if (r) {
    const a = r.advice;
    const option = a ? optionText(a.type === "pop" ? "pop " + a.key : a.type === "advance" ? "advance " + a.figure : a.type) : null;
    out.push(el("div", { class: "coach read", id: "coach-read" },
      el("p", { class: "choice-title" }, t("coach.read_title")),
      el("p", {}, r.seen ? t("coach.read_seen", { k: r.top_key, c: r.top, n: r.seen }) : t("coach.read_unseen")),
      option ? el("p", { class: "muted" }, t(r.mode === "read" ? "coach.read_advice" : "coach.read_equilibrium", { option })) : null));
  }
  return out;
}

$("odds-toggle").addEventListener("click", () => {
  oddsOpen = !oddsOpen;
  $("odds").hidden = !oddsOpen;
  $("odds-toggle").textContent = oddsOpen ? t("odds.hide") : t("odds.show");
  if (oddsOpen) loadOdds();
});

const undoButton = $("undo");
if (undoButton) {
  undoButton.addEventListener("click", async (e) => {
    const r = await act(e.currentTarget, () => changeGame(`/api/games/${gameId}/undo`));
    if (r) applyPayload(r);
  });
}

live([topic, "box"], {
  [topic]: onGame,
  extras: onExtras,
  box: (data) => {
    if (data.event === "Status") {
      slots = { ...data.status.slots };
      watch = data.status.watch || null;
      simulated = Boolean(data.status.simulated);
    }
    else if (data.event === "SlotChanged") slots = { ...slots, [data.key]: data.present };
    else if (data.event === "Notice") toast(said(data), "notice");
    else return;
    if (view) { renderSlots(view.state); renderChoices(view.state); }
  },
});


