// @ts-check
// "Your turn", wherever the player is: the rounds waiting for them (from the your_turn notices of
// /me/stream, the lobby's reading of their games, the game screen's own view) show in the tab's title
// ("(2) Your turn · Mau-Mau"), in the installed app's badge (navigator.setAppBadge) and, away from that
// round's table, in a banner with a link to it.

import { t } from "./i18n.js";
import { fill, h } from "./ui.js";

/** @type {Map<number, number>} */
const waiting = new Map();  // game id -> table id, the rounds where it is the player's turn
/** @type {number | null} */
let shownGame = null;  // the round on the screen (its own turn line says it; no banner for it)

/** @returns {HTMLElement} */
function banner() {
  let box = document.getElementById("turn-banner");
  if (!box) {
    box = h("div", { id: "turn-banner", class: "turn-banner", role: "status", "aria-live": "polite", hidden: true });
    document.body.append(box);
  }
  return box;
}

function show() {
  const count = waiting.size;
  document.title = count ? `(${count}) ${t("game.turn.you")} · Mau-Mau` : "Mau-Mau";
  document.documentElement.dataset.yourTurns = String(count);
  if ("setAppBadge" in navigator) {
    (count ? navigator.setAppBadge(count) : navigator.clearAppBadge()).catch(() => {});
  }
  const elsewhere = [...waiting.entries()].filter(([game]) => game !== shownGame);
  const box = banner();
  if (!elsewhere.length) { box.hidden = true; fill(box); return; }
  const [game, table] = elsewhere[0];
  const text = elsewhere.length === 1 ? t("turns.one", { table }) : t("turns.many", { n: elsewhere.length });
  fill(box, h("span", {}, text), h("a", { class: "button primary", href: `#/game/${game}` }, t("turns.open")));
  box.hidden = false;
}

// It is (or is no longer) the player's turn in `game` at `table`.
/** @param {number | string} game @param {number | string | null} table @param {boolean} yours */
export function turnIs(game, table, yours) {
  const key = Number(game);
  const had = waiting.has(key);
  if (yours) waiting.set(key, Number(table));
  else waiting.delete(key);
  if (had !== Boolean(yours)) show();
}

// The full list, as the lobby read it: [[game, table], ...] of the rounds where it is the player's turn.
/** @param {Iterable<[number, number]>} pairs */
export function turnsAre(pairs) {
  waiting.clear();
  for (const [game, table] of pairs) waiting.set(Number(game), Number(table));
  show();
}

// The screen shows this round (null: none); its own turn line speaks for it.
/** @param {number | string | null | undefined} game */
export function onScreen(game) {
  shownGame = game === null || game === undefined ? null : Number(game);
  show();
}

export function forgetTurns() { waiting.clear(); shownGame = null; show(); }

// A notice from /me/stream: your_turn adds a round; a round that ended drops it.
/**
 * @param {string} kind
 * @param {import("maumau-schema").components["schemas"]["Notification"] | null} data
 */
export function noticed(kind, data) {
  if (!data || !data.game) return;
  if (kind === "your_turn") turnIs(data.game, data.table, true);
  else if (kind === "round_over") turnIs(data.game, data.table, false);
}
