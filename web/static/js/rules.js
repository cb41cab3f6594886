// A game's rules page: its pictures are real positions (made by the rules engine, in the
// page's boot data) drawn by the game page's own drawing code, its kind module's
// drawExample (see home.js). This file never names a kind.
import { boot } from "./common.js";

const module = (boot.kind_page || {}).module;
const own = module ? await import(module) : {};

for (const svg of document.querySelectorAll("svg[data-example]")) {
  const example = (boot.examples || {})[svg.dataset.example];
  if (example && own.drawExample) {
    Promise.resolve(own.drawExample(svg, example)).then(() => { svg.dataset.drawn = "true"; });
  }
}
