// Teufel Teufel's engine writes what happened ("events") in English; the French page
// reads them through this table. A sentence it does not know is shown as written.
import { seatName, t } from "../common.js";
import { cardName, colourName } from "./teufel-colours.js";

const SQ = "([a-g][1-7])";
const WHO = "(\\S+)";
/** A seat's player: the name given to the colour, else the colour's name. */
const person = (colour) => seatName(colour) || colourName(colour);

/** "blue D" / "a devil" / "a tower" / "a face-down card" (the engine's words) in French. */
function frCard(words) {
  if (words === "a devil") return cardName("devil");
  if (words === "a tower") return cardName("tower");
  if (words === "a face-down card") return t("teufel.face_down");
  const m = /^(\S+) ([A-F])$/.exec(words);
  return m ? cardName(`${m[1]}-${m[2]}`) : words;
}

const frList = (text) => text.split(/, | and /).map(colourName).join(", ");
const frOrdinal = (n) => (n === "1" ? "1er" : `${n}e`);

const FRENCH = [
  [`^${WHO} places their sled on ${SQ}$`, (c, sq) => `${person(c)} place son traîneau en ${sq}`],
  [`^${WHO} stops on ${SQ} and flips the card$`, (c, sq) => `${person(c)} s’arrête en ${sq} et retourne la carte`],
  [`^the card on ${SQ} is (.+)$`, (sq, card) => `la carte en ${sq} est : ${frCard(card)}`],
  [`^${WHO} may go on$`, (c) => `${person(c)} peut continuer`],
  [`^${WHO} takes the letter ([A-F])$`, (c, l) => `${person(c)} prend la lettre ${l}`],
  [`^${WHO} stops on a tower$`, (c) => `${person(c)} s’arrête sur une tour`],
  [`^${WHO} stops on (.+)$`, (c, card) => `${person(c)} s’arrête sur : ${frCard(card)}`],
  [`^${WHO} takes a devil from the face$`, (c) => `${person(c)} prend un diable sur la face du diable`],
  [`^${WHO} takes (\\S+)'s devil$`, (c, d) => `${person(c)} prend le diable de ${person(d)}`],
  [`^${WHO} is possessed$`, (c) => `${person(c)} est possédé`],
  [`^devil, devil: both of (\\S+)'s devils fly back to the face$`, (c) => `diable, diable : les deux diables de ${person(c)} retournent sur la face`],
  [`^${WHO} has no letters to lose$`, (c) => `${person(c)} n’a aucune lettre à perdre`],
  [`^${WHO} loses (.+)$`, (c, l) => `${person(c)} perd ${l}`],
  [`^${WHO} stands on a tower: no devil can be given$`, (c) => `${person(c)} est sur une tour : on ne peut pas lui donner le diable`],
  [`^${WHO} gives the devil to (\\S+)$`, (c, d) => `${person(c)} donne le diable à ${person(d)}`],
  [`^${WHO} holds all six letters and no devil: their sled leaves the board \\((\\d+)\\w+ out\\)$`,
    (c, n) => `${person(c)} a ses six lettres et pas de diable : son traîneau quitte le plateau (${frOrdinal(n)} sorti)`],
  [`^only (.+) is left on the board: the game is over$`, (who) => `il ne reste que ${frList(who)} sur le plateau : la partie est finie`],
  [`^every card is face up: judgment day, the game is over$`, () => "toutes les cartes sont retournées : c’est le jugement dernier, la partie est finie"],
  [`^${WHO} flips the card$`, (c) => `${person(c)} retourne la carte`],
  [`^${WHO} flips the card on ${SQ}$`, (c, sq) => `${person(c)} retourne la carte en ${sq}`],
  [`^${WHO} peeks at the card on ${SQ}$`, (c, sq) => `${person(c)} regarde la carte en ${sq}`],
  [`^${WHO} puts their devil back on the face$`, (c) => `${person(c)} remet son diable sur la face`],
  [`^${WHO} exchanges the cards on ${SQ} and ${SQ}$`, (c, a, b) => `${person(c)} échange les cartes en ${a} et ${b}`],
  [`^${WHO} picks up (.+) from ${SQ}$`, (c, card, sq) => `${person(c)} ramasse en ${sq} : ${frCard(card)}`],
  [`^${WHO} shuffles (\\d) cards and lays them face down on (.+)$`, (c, n, sqs) => `${person(c)} mélange ${n} cartes et les pose face cachée en ${sqs}`],
  [`^${WHO} can do nothing and passes$`, (c) => `${person(c)} ne peut rien faire et passe`],
].map(([pattern, to]) => [new RegExp(pattern), to]);

/** An engine sentence in the page's language, with a capital letter. */
export function eventText(sentence, lang) {
  let text = sentence.replace(/^\S+/, (colour) => seatName(colour) || colour);
  if (lang === "fr") {
    for (const [pattern, to] of FRENCH) {
      const m = pattern.exec(sentence);
      if (m) { text = to(...m.slice(1)); break; }
    }
  }
  return text.charAt(0).toUpperCase() + text.slice(1);
}
