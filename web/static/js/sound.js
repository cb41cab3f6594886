// Short sounds at the table, synthesised with WebAudio (no files, nothing fetched): a pop, a
// devil, a capture, a finish. The menu's switch turns them on or off (common.js, remembered
// per phone); they start off for spectators and on for the referee.
import { soundOn } from "./common.js";

const TONES = {
  pop: [[660, 0.06]],
  devil: [[220, 0.14], [165, 0.22]],
  capture: [[440, 0.08], [330, 0.08], [220, 0.16]],
  finish: [[523, 0.1], [659, 0.1], [784, 0.24]],
};
let context = null;

/** Play sound `kind` if the phone's sound is on; returns whether it played. */
export function play(kind) {
  const Audio = window.AudioContext || window.webkitAudioContext;
  if (!soundOn() || !TONES[kind] || !Audio) return false;
  context = context || new Audio();
  let at = context.currentTime;
  for (const [hz, seconds] of TONES[kind]) {
    const tone = context.createOscillator();
    const volume = context.createGain();
    tone.frequency.value = hz;
    volume.gain.setValueAtTime(0.2, at);
    volume.gain.exponentialRampToValueAtTime(0.001, at + seconds);
    tone.connect(volume).connect(context.destination);
    tone.start(at);
    tone.stop(at + seconds);
    at += seconds;
  }
  document.documentElement.dataset.lastSound = kind; // what the browser tests read
  return true;
}
