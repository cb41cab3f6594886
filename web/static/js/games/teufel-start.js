// The home page's "start a game" form, Teufel Teufel's part: the players as colours
// tapped in seat order (clockwise), and who places and plays first.
import { boot, el, fill, t } from "../common.js";
import { colourCss, colourName, inkOn } from "./teufel-colours.js";

const MIN_PLAYERS = 2;
const MAX_PLAYERS = 6;

/** Wire the Teufel fieldset of the form; returns `options()` (null while incomplete). */
export function setupTeufelForm(kindSelect) {
  const field = document.getElementById("teufel-field");
  if (!field) return () => null;
  const colours = ((boot.kind_pages || {}).teufel || { defaults: {} }).defaults.colours || [];
  const seats = []; // colours in seat order
  let first = null;

  const palette = document.getElementById("teufel-colours");
  const firstBox = document.getElementById("teufel-first");
  const hint = document.getElementById("teufel-count");

  function toggle(colour) {
    const at = seats.indexOf(colour);
    if (at >= 0) seats.splice(at, 1);
    else if (seats.length < MAX_PLAYERS) seats.push(colour);
    if (!seats.includes(first)) first = seats[0] || null;
    render();
    // the form hears of the new seats (its player pickers follow): the tapped button was
    // just redrawn, so its own click no longer bubbles from inside the form
    field.dispatchEvent(new Event("change", { bubbles: true }));
  }

  function render() {
    fill(palette, colours.map((colour) => {
      const seat = seats.indexOf(colour);
      const button = el("button", {
        type: "button", class: "tf-colour", "data-colour": colour,
        "aria-pressed": seat >= 0 ? "true" : "false",
        onclick: () => toggle(colour),
      }, el("span", { class: "tf-seat-no" }, seat >= 0 ? seat + 1 : ""), colourName(colour));
      button.style.setProperty("--swatch", colourCss(colour));
      button.style.setProperty("--swatch-ink", inkOn(colour));
      return button;
    }));
    fill(firstBox, seats.map((colour) => el("label", {},
      el("input", { type: "radio", name: "teufel-first", value: colour, checked: colour === first,
        onchange: () => { first = colour; } }),
      el("span", {}, colourName(colour)))));
    document.getElementById("teufel-first-field").hidden = seats.length < MIN_PLAYERS;
    hint.textContent = seats.length < MIN_PLAYERS
      ? t("teufel.need_players", { min: MIN_PLAYERS, max: MAX_PLAYERS })
      : t("teufel.seat_count", { n: seats.length, list: seats.map(colourName).join(" → ") });
  }

  const sync = () => { field.hidden = kindSelect.value !== "teufel"; };
  kindSelect.addEventListener("change", sync);
  sync();
  render();
  return () => (seats.length >= MIN_PLAYERS ? { players: [...seats], first } : null);
}
