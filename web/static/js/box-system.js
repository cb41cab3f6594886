// The Box page's "the box itself" card (referee): its clock against this phone's, take the
// phone's time, restart the service, shut the box down. Each asks for a confirmation; the
// box switches every coil off first.
import { api, ask, referee, t, toast } from "./common.js";
import { apart } from "./clock.js";

const $ = (id) => document.getElementById(id);

async function showClock() {
  const report = await api("GET", "/api/box/clock?phone=" + Date.now() / 1000);
  const sync = report.synchronised === true ? t("clock.ntp_yes")
    : report.synchronised === false ? t("clock.ntp_no") : t("clock.ntp_unknown");
  const gap = Math.abs(report.offset_s) <= 1 ? t("clock.same")
    : t(report.offset_s > 0 ? "clock.behind_short" : "clock.ahead_short", { d: apart(report.offset_s) });
  $("clock-status").textContent = `${sync} · ${gap}`;
}

function power(button, what) {
  button.addEventListener("click", async () => {
    const r = await ask({ title: t(`box.${what}`), text: t(`box.${what}_confirm`), go: t(`box.${what}`),
      danger: true, call: () => api("POST", `/api/box/${what}`, { confirm: true }) });
    if (r) toast(t(`box.${what}_done`), "ok");
  });
}

if (referee && $("system-card")) {
  showClock().catch((err) => { $("clock-status").textContent = err.message; });
  $("clock-set").addEventListener("click", async () => {
    const r = await ask({ title: t("clock.take"), text: t("clock.take_confirm"), go: t("clock.take"),
      call: () => api("POST", "/api/box/clock", { time: Date.now() / 1000 }) });
    if (r) { toast(t("clock.set"), "ok"); showClock(); }
  });
  power($("restart"), "restart");
  power($("poweroff"), "poweroff");
}
