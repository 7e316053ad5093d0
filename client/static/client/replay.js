// @ts-check
// A finished round stepped through move by move from its ledger (GET games/{id}/events): the deal,
// then each row's events applied to every hand. A player of the round sees every hand once it is
// over (the server reveals them); anyone else sees what a spectator saw (counts, the pile).

import { get } from "./api.js";
import { t } from "./i18n.js";
import { attempt, cardBack, cardFace, fill, h } from "./ui.js";
import { eventText } from "./game.js";

/** @typedef {import("maumau-schema").components["schemas"]} Schemas */
/**
 * The table after a row of the ledger (the client's own state, built from the API's events).
 * @typedef {object} Step
 * @property {(Schemas["Card"][] | null)[]} hands  null: a hand the caller may not see
 * @property {number[]} counts
 * @property {Schemas["Card"]} top
 * @property {Schemas["Card"] | null} topAs
 * @property {Schemas["Suit"] | null} wish
 * @property {number} direction
 * @property {number} pending
 * @property {number | null} seat
 * @property {string | null} text
 */

/**
 * @param {number | string} id
 * @returns {Promise<{deal: Schemas["DealtEvent"] | null, rows: Schemas["LedgerMove"][]}>}
 */
async function ledger(id) {
  /** @type {Schemas["LedgerMove"][]} */
  const rows = [];
  /** @type {Schemas["DealtEvent"] | null} */
  let deal = null;
  let after = 0;
  for (let pages = 0; pages < 50; pages += 1) {
    /** @type {Schemas["Ledger"]} */
    const page = await get(`games/${id}/events?after=${after}`);
    if (page.deal && !deal) deal = page.deal;
    rows.push(...page.moves);
    if (!page.moves.length || page.next_after === after || page.moves.length < 100) break;
    after = page.next_after;
  }
  return { deal, rows };
}

// Every step's table: hands (cards where known, else only a count), top card, wish, direction.
/**
 * @param {Schemas["DealtEvent"]} deal
 * @param {Schemas["LedgerMove"][]} rows
 * @param {(event: Schemas["Event"]) => string | null} describe
 * @returns {Step[]}
 */
export function steps(deal, rows, describe) {
  const hands = (deal.hands || []).map((hand) => (hand ? [...hand] : null));
  const counts = deal.hand_counts ? [...deal.hand_counts] : hands.map((hand) => (hand ? hand.length : 0));
  /** @type {Step} */
  let state = { hands, counts, top: deal.starter, topAs: null, wish: null, direction: 1, pending: 0, seat: null, text: describe(deal) };
  const out = [state];
  for (const row of rows) {
    /** @type {Step} */
    const next = { ...state, hands: state.hands.map((hand) => (hand ? [...hand] : null)), counts: [...state.counts], seat: row.seat };
    for (const event of row.events || []) {
      if (event.type === "played") {
        const seat = event.seat;
        next.counts[seat] -= event.cards.length;
        const hand = next.hands[seat];
        if (hand) next.hands[seat] = hand.filter((card) => !event.cards.includes(card));
        next.top = event.cards[event.cards.length - 1];
        next.topAs = /** @type {Record<string, Schemas["Card"]>} */ (event.as || {})[next.top] || null;
        next.wish = null;
      } else if (event.type === "drew") {
        const seat = event.seat;
        const count = event.count || (event.cards || []).length;
        next.counts[seat] += count;
        const hand = next.hands[seat];
        if (hand) {
          if (event.cards) hand.push(...event.cards); else next.hands[seat] = null;
        }
        if (event.reason === "seven") next.pending = 0;
      } else if (event.type === "wish") {
        next.wish = event.suit;
      } else if (event.type === "penalty_grew") {
        next.pending = event.pending_draw;
      } else if (event.type === "direction") {
        next.direction = -next.direction;
      } else if (event.type === "hands_swapped") {
        const [a, b] = event.seats;
        [next.hands[a], next.hands[b]] = [next.hands[b], next.hands[a]];
        [next.counts[a], next.counts[b]] = [next.counts[b], next.counts[a]];
      }
    }
    next.text = (row.events || []).map(describe).filter(Boolean).join(" · ");
    out.push(next);
    state = next;
  }
  return out;
}

/** @param {number | string} id */
export function replayScreen(id) {
  let alive = true;
  let at = 0;
  /** @type {Step[]} */
  let story = [];
  /** @type {Schemas["GameView"] | null} */
  let view = null;
  const main = /** @type {HTMLElement} */ (document.getElementById("main"));
  const box = h("div", { class: "replay", id: "replay" }, h("p", { class: "muted" }, "…"));
  const title = h("h1", {}, t("replay.open"));
  fill(main, title, box);

  const nameOf = (/** @type {number} */ seat) => (view && view.players[seat] ? view.players[seat].name : `#${seat}`);

  /** @param {number} index */
  function show(index) {
    if (!view) return;
    at = Math.max(0, Math.min(story.length - 1, index));
    const state = story[at];
    const hands = h("ol", { class: "replay-hands" }, view.players.map((player) => {
      const hand = state.hands[player.seat];
      return h("li", { class: `replay-seat${state.seat === player.seat ? " acting" : ""}`, "data-seat": player.seat },
        h("span", { class: "name" }, player.name, h("span", { class: "muted" }, ` · ${state.counts[player.seat] === 1 ? t("game.card") : t("game.cards", { n: state.counts[player.seat] })}`)),
        h("span", { class: "mini-hand" }, hand ? hand.map((card) => cardFace(card)) :
          Array.from({ length: Math.min(state.counts[player.seat], 12) }, () => cardBack())));
    }));
    fill(box,
      h("div", { class: "replay-table felt-flat" },
        h("div", { class: "pile" }, h("span", { class: "sr-only" }, t("game.top")),
          state.top ? cardFace(state.top, state.topAs, { id: "replay-top" }) : null),
        h("div", { class: "facts" },
          state.wish ? h("div", { class: "wish" }, `${t("game.wish")}: ${t(`suit.${state.wish}`)}`) : null,
          state.pending ? h("div", { class: "pending" }, t("game.pending", { n: state.pending })) : null,
          h("div", {}, `${t("game.direction")}: `, state.direction === 1 ? "↻" : "↺"))),
      h("p", { id: "replay-step", class: "step", role: "status" }, t("replay.step", { n: at, total: story.length - 1 })),
      h("p", { id: "replay-text", class: "what" }, state.text || "—"),
      h("div", { class: "actions controls" },
        h("button", { type: "button", id: "replay-first", onclick: () => show(0), disabled: at === 0, "aria-label": t("replay.first") }, "«"),
        h("button", { type: "button", id: "replay-prev", onclick: () => show(at - 1), disabled: at === 0, "aria-label": t("replay.prev") }, "◀"),
        h("input", { type: "range", min: 0, max: story.length - 1, value: at, "aria-label": t("replay.slider"),
          oninput: (/** @type {Event} */ event) => show(Number(/** @type {HTMLInputElement} */ (event.target).value)) }),
        h("button", { type: "button", id: "replay-next", class: "primary", onclick: () => show(at + 1), disabled: at === story.length - 1, "aria-label": t("replay.next") }, "▶"),
        h("button", { type: "button", id: "replay-last", onclick: () => show(story.length - 1), disabled: at === story.length - 1, "aria-label": t("replay.last") }, "»")),
      hands,
      h("p", {}, h("a", { href: `#/table/${view.table}` }, t("game.back"))));
    box.dataset.step = String(at);
    const focusing = document.activeElement && document.activeElement.id;
    if (focusing && focusing.startsWith("replay-")) {
      const again = document.getElementById(focusing);
      if (again && !(/** @type {HTMLButtonElement} */ (again)).disabled) again.focus();
      else box.querySelector(/** @type {"button"} */ ("#replay-next, #replay-prev"))?.focus();
    }
  }

  const onKey = (/** @type {KeyboardEvent} */ event) => {
    if (!story.length || (event.target instanceof Element && event.target.closest("input, textarea, select"))) return;
    if (event.key === "ArrowRight") show(at + 1);
    else if (event.key === "ArrowLeft") show(at - 1);
  };
  document.addEventListener("keydown", onKey);

  attempt(async () => {
    /** @type {[Schemas["GameView"], Awaited<ReturnType<typeof ledger>>]} */
    const [read, { deal, rows }] = await Promise.all([get(`games/${id}`), ledger(id)]);
    if (!alive) return;
    view = read;
    title.textContent = t("replay.title", { id: t("game.title", { number: view.number, table: view.table }) });
    if (!deal) { fill(box, h("p", {}, "—")); return; }
    story = steps(deal, rows, (event) => eventText(event, nameOf));
    box.dataset.steps = String(story.length - 1);
    box.dataset.revealed = String((deal.hands || []).every(Boolean));
    show(0);
    if (view.status !== "finished") box.prepend(h("p", { class: "muted" }, t("replay.running")));
  });
  return () => { alive = false; document.removeEventListener("keydown", onKey); };
}

