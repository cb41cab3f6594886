// The Box page: link, faults, live sensors, coil test within the limits, simulated toy.
import { act, api, ask, boot, el, fill, live, referee, said, pair, svgEl, t, toast } from "./common.js";
import "./box-system.js";

const $ = (id) => document.getElementById(id);
let status = null;
const flashing = {};

function slotPresent(key) {
  const slots = status.slots || {};
  return slots[key] ?? slots[String(key)];
}

const clockTime = new Intl.DateTimeFormat(boot.lang || "en", { hour: "2-digit", minute: "2-digit", second: "2-digit" });

/** The box's notices, newest first, each with its time; the same words said again in a row
 *  are one line "×n" (the last time). */
function noticeRows(notices) {
  const rows = [];
  for (const n of notices) {
    const text = said(n);
    const last = rows[rows.length - 1];
    if (last && last.text === text) { last.count += 1; last.time = n.time; }
    else rows.push({ text, time: n.time, count: 1 });
  }
  if (!rows.length) return [el("li", { class: "muted" }, t("box.no_notice"))];
  return rows.reverse().map((r) => el("li", {},
    r.time ? el("time", { class: "muted small", datetime: new Date(r.time * 1000).toISOString() },
      clockTime.format(new Date(r.time * 1000))) : null,
    " ", r.text, r.count > 1 ? el("span", { class: "muted" }, ` ×${r.count}`) : null));
}

function render() {
  if (!status) return;
  // a real box names its pins' library (a maker's word, as it is); a simulated one says so
  const pins = [status.backend, status.factory].filter(Boolean).join(" ");
  $("backend").textContent = status.simulated ? t("box.pins_simulated") : pins;
  const up = status.link === undefined || status.link === "local" || status.link === true || status.link === "up";
  $("link").textContent = status.link === "local" ? t("box.local")
    : typeof status.link === "string" && status.link !== "up" && status.link !== "down"
      ? status.link : up ? t("box.up") : t("box.down");
  $("link").dataset.ok = up ? "yes" : "no";
  $("lid").textContent = status.lid === null || status.lid === undefined ? t("box.lid_none")
    : status.lid ? t("box.lid_closed") : t("box.lid_open");
  fill($("sensors"), [1, 2, 3, 4].map((key) => {
    const present = slotPresent(key);
    return el("div", { class: "slot" + (present ? " full" : " empty") + (flashing[key] ? " firing" : ""), "data-key": key },
      el("div", { class: "slot-head" },
        el("span", { class: "slot-key" }, key),
        el("span", { class: "die", "aria-hidden": "true" }),
        el("span", { class: "sensor" }, present ? t("slot.full") : t("slot.empty"))));
  }));
  const faults = status.faults || [];
  showFaults(faults);
  const jammed = (status.watch && status.watch.jammed) || null;
  fill($("jam-actions"), referee && jammed ? [
    el("button", { type: "button", class: "primary big", onclick: (e) => jam(e, jammed, "retry") }, t("box.retry", { k: jammed })),
    el("button", { type: "button", class: "secondary big", onclick: (e) => jam(e, jammed, "popped") }, t("box.popped_by_hand", { k: jammed })),
  ] : []);
  const lim = status.limits || {};
  if ($("limits") && lim.pulse_ms) {
    $("limits").textContent = t("box.limits", { max: 100, gap: lim.min_gap_ms, duty: Math.round(lim.max_duty * 100), win: lim.duty_window_s });
    if (!$("pulse").value) $("pulse").value = lim.pulse_ms;
  }
  fill($("notices"), noticeRows(status.notices || []));
  renderToy();
  renderCamera();
}

// A latched coil-deadline fault (a coil stayed on too long): the referee clears it here,
// after a confirmation; the box refuses, with its reason, while the cause is still there.
let faultsSeen = null;

function faultList(faults) {
  fill($("faults"), faults.length ? faults.map((f) => el("li", { class: "fault" }, typeof f === "string" ? f : pair(f.name, f.detail)))
    : el("li", { class: "muted" }, t("box.nofault")));
}

/** The faults, each as "name: detail" (GET /api/box/faults, asked again when they change). */
function showFaults(faults) {
  const seen = JSON.stringify(faults);
  if (seen === faultsSeen) return;
  faultsSeen = seen;
  faultList(faults);
  if (!faults.length) { fill($("fault-clear"), []); return; }
  api("GET", "/api/box/faults").then((r) => {
    faultList([...r.toy, ...r.faults]);
    const clearable = referee ? r.faults.filter((f) => f.clearable) : [];
    fill($("fault-clear"), clearable.map((f) => el("button", { type: "button", class: "primary danger big", id: "fault-clear-go",
      onclick: () => clearFault(f.name) }, t("Clear the coil fault"))));
  }).catch(() => {});
}

async function clearFault(name) {
  const r = await ask({ title: t("Clear the coil fault"), text: t("Clear the coil-deadline fault? A coil stayed on too long and every coil was forced off. Clear it only once you know why: pulses are allowed again."),
    go: t("Clear the coil fault"), danger: true, call: () => api("POST", "/api/box/faults/clear", { fault: name }) });
  if (r) { toast(t("The coil fault is cleared."), "ok"); faultsSeen = null; }
}

// The camera: facts, its reading of the table now (the die it found and the face it reads,
// drawn over a picture of the table, at most once a second while the page is seen),
// and the referee's one tap on a face the camera proposes but is not sure of.
let teachAsked = false;

/** A die's face as the page says it: 1-6, the devil in the page's words, "?" unread. */
const faceWord = (face) => (face === "devil" ? t("face.devil") : face ?? "?");

function renderCamera() {
  const cam = status.camera || { kind: "none" };
  $("camera-card").hidden = cam.kind === "none";
  if (cam.kind === "none") return;
  if (referee && !teachAsked) { // only a box with a camera has lessons (no 404 without one)
    teachAsked = true;
    api("GET", "/api/box/camera/teach").then(renderTeach).catch(() => {});
  }
  $("camera-kind").textContent = pair(t("camera.kind_" + cam.kind), `${cam.up ? t("box.up") : t("box.down")}${cam.error ? ` (${said(cam.error_said || cam.error)})` : ""}`);
  const last = cam.last_read;
  $("camera-last").textContent = last
    ? `${t("box.camera_read", { k: last.key, face: faceWord(last.face), c: Math.round(last.confidence * 100) })} ${new Date(last.at * 1000).toLocaleTimeString(boot.lang)}`
    : "—";
  const p = cam.proposal;
  fill($("camera-confirm"), referee && p && p.face !== null ? [
    el("button", { type: "button", class: "primary big",
      onclick: (e) => act(e.currentTarget, () => api("POST", `/api/games/${p.game}/actions`, { type: "face", face: p.face, source: "camera-confirmed" })) },
      t("box.camera_confirm", { face: faceWord(p.face) })),
  ] : []);
}

// Teaching the camera (referee): show face X, take 5 snapshots, next face; the last
// snapshot calibrates and the new profile is used from the next read.
function renderTeach(state) {
  const face = state.face === "devil" ? t("face.devil") : state.face;
  $("teach-step").textContent = state.error ? said(state.error_said || state.error)
    : state.active ? t("teach.show", { face, i: state.taken + 1, n: state.shots_per_face })
    : t("teach.intro");
  $("teach-progress").value = state.progress;
  $("teach-snap").hidden = !state.active;
  $("teach-skip").hidden = !state.active || state.face === "devil"; // the devil has no pips to count
  $("teach-cancel").hidden = !state.active;
  $("teach-start").textContent = state.active ? t("teach.restart") : t("teach.start");
}

async function teach(button, body) {
  const r = await act(button, () => api("POST", "/api/box/camera/teach", body));
  if (r) {
    renderTeach(r);
    if (body.do === "snap" && !r.active) toast(t("teach.done"), "notice");
  } else if (body.do === "snap") {
    api("GET", "/api/box/camera/teach").then(renderTeach).catch(() => {});
  }
}

$("camera-legend").textContent = t("The numbers mark where the last die from each key landed");

if (referee && $("teach")) {
  $("teach-start").addEventListener("click", (e) => teach(e.currentTarget, { do: "start" }));
  $("teach-snap").addEventListener("click", (e) => teach(e.currentTarget, { do: "snap" }));
  $("teach-skip").textContent = t("Skip this face");
  $("teach-skip").addEventListener("click", (e) => teach(e.currentTarget, { do: "skip" }));
  $("teach-cancel").addEventListener("click", (e) => teach(e.currentTarget, { do: "cancel" }));
}

let shown = null; // the reading whose picture is loading or shown
let asking = false;

async function showReading() {
  const cam = status && status.camera;
  if (asking || !cam || cam.kind === "none" || !cam.up || document.hidden) return;
  asking = true;
  try {
    const r = await api("GET", "/api/box/camera/reading");
    if (shown && r.frame === shown.frame) return;
    shown = r;
    $("camera-view").src = `/api/box/camera/reading/${r.frame}.jpg`; // drawn over once it loads
  } catch { /* the camera went down: the card says so */ } finally { asking = false; }
}

/** The reading over its picture: the die's outline, the pips counted, the face in words,
 *  and where the last die from each key landed (its number in a dashed ring): the
 *  calibration does not know where the slots are, the box learns it from the dice it reads. */
function drawReading() {
  const r = shown;
  if (!r) return;
  const overlay = $("camera-overlay");
  overlay.setAttribute("viewBox", `0 0 ${r.width} ${r.height}`);
  const stroke = Math.max(2, r.width / 200);
  const ring = r.width / 16; // about a die's size at 640 pixels
  const landed = Object.entries(r.landed || {});
  fill(overlay, [
    ...landed.map(([key, [x, y]]) => {
      // the key's number in a badge just outside the ring, above it (below it at the top
      // edge), never over a die lying in the ring: its pips stay in sight
      const up = y - ring * 1.75 >= ring * 0.5;
      const by = up ? y - ring * 1.75 : y + ring * 1.75;
      return svgEl("g", { class: "slot-mark", "data-key": key },
        svgEl("circle", { class: "slot-ring", cx: x, cy: y, r: ring, "stroke-width": stroke }),
        svgEl("circle", { class: "slot-badge", cx: x, cy: by, r: ring * 0.5, "stroke-width": stroke / 2 }),
        svgEl("text", { x, y: by, "font-size": ring * 0.75, "text-anchor": "middle", "dominant-baseline": "central" }, key));
    }),
    r.die.length ? svgEl("polygon", { class: "die-outline", points: r.die.map((p) => p.join(",")).join(" "), "stroke-width": stroke }) : null,
    ...r.pips.map(([x, y]) => svgEl("circle", { class: "die-pip", cx: x, cy: y, r: stroke * 2.5 })),
  ].filter(Boolean));
  $("camera-legend").hidden = !landed.length;
  const caption = r.face === null ? t("The camera finds no die it can read")
    : t("The camera reads {face} ({c} %)", { face: faceWord(r.face), c: Math.round(r.confidence * 100) });
  $("camera-caption").textContent = caption;
  $("camera-view").alt = pair(t("the camera's picture of the table, with the die it found"), caption);
  $("camera-reading").hidden = false; // shown once a picture has loaded: never a broken one
}

$("camera-view").addEventListener("load", drawReading);
setInterval(showReading, 1000);

async function jam(event, key, what) {
  await act(event.currentTarget, () => api("POST", "/api/box/jam", { key, do: what }));
}

function renderCoils() {
  if (!referee) return;
  fill($("coils"), [1, 2, 3, 4].map((key) => el("button", { type: "button", class: "big coil", "data-key": key,
    onclick: async (e) => {
      // an empty field is the configured pulse; any number typed is sent, so 0 is refused
      const typed = $("pulse").value.trim();
      const r = await act(e.currentTarget, () => api("POST", `/api/box/coils/${key}/fire`, typed ? { pulse_ms: Number(typed) } : {}));
      if (r) toast(t("box.fired", { k: key, ms: r.pulse_ms }), "notice");
    } }, t("box.fire", { k: key }))));
}

function renderToy() {
  const card = $("toy-card");
  if (!card || !referee) return;
  card.hidden = !status.simulated;
  if (!status.simulated) return;
  const toy = status.toy || {};
  const jams = toy.jam || {};
  fill($("toy-press"), [1, 2, 3, 4].map((key) => el("button", { type: "button", class: "big", "data-press": key,
    disabled: !slotPresent(key),
    onclick: (e) => act(e.currentTarget, () => api("POST", "/api/box/toy", { do: "press", key })) }, t("box.press", { k: key }))));
  const toggle = (label, on, body) => el("button", { type: "button", class: "toggle", "aria-pressed": on ? "true" : "false",
    onclick: async (e) => {
      const r = await act(e.currentTarget, () => api("POST", "/api/box/toy", body(!on)));
      if (r) { status = { ...status, toy: r.toy }; renderToy(); }
    } }, on ? `${label} ✓` : label);
  fill($("toy-faults"), [
    ...[1, 2, 3, 4].map((key) => toggle(t("box.jam", { k: key }), String(key) in jams, (on) => ({ do: "jam", key, on }))),
    toggle(t("box.chatter"), Boolean(toy.chatter), (on) => ({ do: "chatter", on })),
    ...[1, 2, 3, 4].map((key) => toggle(t("box.missing", { k: key }), toy.missing_die === key, (on) => ({ do: "missing_die", key, on }))),
  ]);
}

const hide = $("toy-hide");
if (hide) hide.addEventListener("click", (e) => act(e.currentTarget, () => api("POST", "/api/box/toy", { do: "hide" })));
renderCoils();

live(["box"], {
  box: (data) => {
    if (data.event === "Status") status = data.status;
    else if (!status) return;
    else if (data.event === "SlotChanged") status = { ...status, slots: { ...status.slots, [data.key]: data.present } };
    else if (data.event === "LidChanged") status = { ...status, lid: data.closed };
    else if (data.event === "CoilFired") {
      flashing[data.key] = true;
      setTimeout(() => { flashing[data.key] = false; render(); }, 300);
    } else return;
    render();
  },
});
