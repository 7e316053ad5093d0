// @ts-check
// Pacing, sound and vibration for the table: how long a row of the ledger stays on screen, whether
// anything moves (prefers-reduced-motion turns motion off), a short tone on your turn and on a
// call (off until the player turns it on; remembered), a buzz where the device has one.

import { t } from "./i18n.js";
import { h } from "./ui.js";

const SOUND_KEY = "maumau.sound";
const PACE_KEY = "maumau.pace";  // ms per row, for a player who wants it faster (and for the tests)
const STEP_MS = 650;
const HIDDEN_MS = 60;
const QUIET_MS = 300;

const reduced = window.matchMedia ? window.matchMedia("(prefers-reduced-motion: reduce)") : { matches: false };

export function motionOff() { return reduced.matches; }

// How long one row is shown: about 0.65 s, less for a row where nothing moves, little when the
// tab is hidden (the story catches up while nobody watches), shorter without motion.
/** @param {number | boolean} [moving]  whether anything moves in the row */
export function pace(moving = 1) {
  if (document.visibilityState === "hidden") return HIDDEN_MS;
  const stored = Number(localStorage.getItem(PACE_KEY));
  const base = Number.isFinite(stored) && localStorage.getItem(PACE_KEY) !== null ? Math.min(2000, Math.max(0, stored)) : STEP_MS;
  if (motionOff()) return Math.min(base, QUIET_MS);
  return moving ? base : base * 0.6;
}

export function soundOn() { return localStorage.getItem(SOUND_KEY) === "on"; }

/** @type {AudioContext | null} */
let audio = null;

/** @param {number[]} frequencies @param {number} [length]  seconds per tone */
function tone(frequencies, length = 0.12) {
  // Older Safari names it webkitAudioContext.
  const Context = window.AudioContext || /** @type {{webkitAudioContext?: typeof AudioContext}} */ (/** @type {unknown} */ (window)).webkitAudioContext;
  if (!Context) return;
  audio = audio || new Context();
  let at = audio.currentTime;
  for (const frequency of frequencies) {
    const oscillator = audio.createOscillator();
    const gain = audio.createGain();
    oscillator.type = "sine";
    oscillator.frequency.value = frequency;
    gain.gain.setValueAtTime(0.0001, at);
    gain.gain.exponentialRampToValueAtTime(0.2, at + 0.015);
    gain.gain.exponentialRampToValueAtTime(0.0001, at + length);
    oscillator.connect(gain).connect(audio.destination);
    oscillator.start(at);
    oscillator.stop(at + length + 0.02);
    at += length * 0.9;
  }
}

// "turn": your turn; "call": someone called Mau, Mau-Mau, Pik or Hermann.
/** @param {"turn" | "call"} kind */
export function cue(kind) {
  if (!soundOn()) return;
  try {
    tone(kind === "turn" ? [660, 880] : [523, 523, 784], kind === "turn" ? 0.14 : 0.09);
  } catch (exc) { /* a browser without audio output: nothing to play */ }
  if (kind === "turn" && navigator.vibrate) navigator.vibrate(120);
}

export function soundControl() {
  const button = h("button", { type: "button", class: "quiet sound", id: "sound", "aria-pressed": String(soundOn()),
    onclick: () => {
      localStorage.setItem(SOUND_KEY, soundOn() ? "off" : "on");
      button.setAttribute("aria-pressed", String(soundOn()));
      button.textContent = soundOn() ? t("game.sound.on") : t("game.sound.off");
      if (soundOn()) cue("turn");
    } }, soundOn() ? t("game.sound.on") : t("game.sound.off"));
  return button;
}
