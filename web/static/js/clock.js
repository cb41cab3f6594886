// The referee's clock check: the box has no real-time clock and no internet. Once per
// session, compare the box's clock with this phone's; when they are more than a minute apart
// and the box is not synchronised by NTP, offer to give the box this phone's time.
import { api, el, t, toast } from "./common.js";

const DONE = "diablotin.clock-checked";

/** "5 min 3 s" / "2 h 10 min": how far apart the two clocks are. */
export function apart(seconds) {
  const s = Math.round(Math.abs(seconds));
  if (s >= 3600) return t("clock.h_min", { h: Math.floor(s / 3600), m: Math.floor((s % 3600) / 60) });
  if (s >= 60) return t("clock.min_s", { m: Math.floor(s / 60), s: s % 60 });
  return t("clock.s", { s });
}

/** Give the box this phone's time now; resolves to the answer, or toasts why not. */
export async function takePhoneTime() {
  try {
    const r = await api("POST", "/api/box/clock", { time: Date.now() / 1000 });
    toast(t("clock.set"), "ok");
    return r;
  } catch (err) {
    toast(err.message);
    return null;
  }
}

export async function checkClock({ force = false } = {}) {
  if (!force && sessionStorage.getItem(DONE)) return null;
  const report = await api("GET", "/api/box/clock?phone=" + Date.now() / 1000);
  sessionStorage.setItem(DONE, "1");
  if (!report.offer) return report;
  const banner = el("section", { class: "card notice clock-offer", id: "clock-offer", role: "alert" },
    el("p", {}, t(report.offset_s > 0 ? "clock.behind" : "clock.ahead", { d: apart(report.offset_s) })),
    el("div", { class: "row wrap" },
      el("button", { type: "button", class: "primary", id: "clock-take", onclick: async () => {
        if (await takePhoneTime()) banner.remove();
      } }, t("clock.take")),
      el("button", { type: "button", class: "secondary", id: "clock-skip", onclick: () => banner.remove() }, t("clock.skip"))));
  document.getElementById("main").prepend(banner);
  return report;
}
