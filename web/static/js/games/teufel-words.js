// Teufel Teufel's events in the page's language: the engine keeps each event's English
// template and parameters (`events_said`), the catalogs give the words; colours become the
// players' names, cards their names.
import { said, seatName, t } from "../common.js";
import { cardName, colourName } from "./teufel-colours.js";

/** A seat's player: the name given to the colour, else the colour's name. */
export const person = (colour) => seatName(colour) || colourName(colour);

const FACE_DOWN = "?"; // controller/games/teufel/state.py
const NAMED = {
  who: person,
  other: person,
  colours: (list) => list.map(person),
  card: (card) => (card === FACE_DOWN ? t("teufel.face_down") : cardName(card)),
  cards: (list) => list.map(cardName),
};

/** An event (or a reason) in the page's language; an event starts with a capital letter. */
export function eventText(x, capital = true) {
  const params = Object.fromEntries(Object.entries(x.params || {})
    .map(([name, value]) => [name, NAMED[name] ? NAMED[name](value) : value]));
  const text = said({ template: x.template, params });
  return capital ? text.charAt(0).toUpperCase() + text.slice(1) : text;
}
