// Teufel Teufel's player colours: the CSS colour of a colour name, readable ink on it,
// and the name in the page's language. Colour names are configurable: a name the
// browser knows as a CSS colour is used as is, any other gets a colour from a palette.
import { t } from "../common.js";

const KNOWN = {
  yellow: "#f2c200",
  green: "#2e9d3a",
  blue: "#1e63d6",
  purple: "#8e44ad",
  white: "#f7f5f2",
  black: "#232027",
  red: "#d32f2f",
  orange: "#ef7d00",
  pink: "#e56aa6",
  brown: "#8d5a2b",
};
const PALETTE = ["#00838f", "#c2185b", "#5d4037", "#7cb342", "#3949ab", "#f4511e"];

/** The CSS colour to paint `name` (a sled, a letter card, a peg). */
export function colourCss(name) {
  if (KNOWN[name]) return KNOWN[name];
  if (typeof CSS !== "undefined" && CSS.supports("color", name)) return name;
  let hash = 0;
  for (const ch of String(name)) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
  return PALETTE[hash % PALETTE.length];
}

/** Dark or light ink, whichever reads better on `name`'s colour. */
export function inkOn(name) {
  const css = colourCss(name);
  const hex = /^#([0-9a-f]{6})$/i.exec(css);
  if (!hex) return ["white", "yellow", "pink"].includes(name) ? "#1d1a1f" : "#ffffff";
  const n = parseInt(hex[1], 16);
  const [r, g, b] = [(n >> 16) & 255, (n >> 8) & 255, n & 255];
  return 0.299 * r + 0.587 * g + 0.114 * b > 150 ? "#1d1a1f" : "#ffffff";
}

/** `name` in the page's language ("bleu" in French), the name itself if unknown. */
export function colourName(name) {
  const key = "teufel.colour." + name;
  const text = t(key);
  return text === key ? name : text;
}

/** "blue-D" → "blue D" in words; "devil" / "tower" translated. */
export function cardName(card) {
  if (card === "devil") return t("teufel.card.devil");
  if (card === "tower") return t("teufel.card.tower");
  const [colour, letter] = splitCard(card);
  return t("teufel.card.letter", { colour: colourName(colour), letter });
}

/** "blue-D" → ["blue", "D"] (colour names may not contain a dash at the end). */
export function splitCard(card) {
  const at = card.lastIndexOf("-");
  return [card.slice(0, at), card.slice(at + 1)];
}
