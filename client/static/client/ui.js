// @ts-check
// Small DOM helpers shared by the screens: elements, cards, messages.

import { ApiError } from "./api.js";
import { cardName, cardParts, rankShort, suitSign, t } from "./i18n.js";

/** @typedef {import("maumau-schema").components["schemas"]["Card"]} Card */

/** @typedef {Node | string | number | boolean | null | undefined} Leaf */
/** @typedef {Leaf | Leaf[] | (Leaf | Leaf[])[]} Child  what h() and fill() take (lists are flattened) */
/** @typedef {Record<string, unknown>} Attributes  `on*`: listeners; `class`, `style`; the rest attributes */

// h("button", {class: "x", onclick: fn}, "text", child) -> element; null/false children are skipped.
/**
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Attributes | null} [attrs]
 * @param {...Child} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), /** @type {EventListener} */ (value));
    else if (key === "class") node.className = String(value);
    // Through the CSSOM: the page's Content-Security-Policy refuses style attributes.
    else if (key === "style") node.style.cssText = String(value);
    else if (value === true) node.setAttribute(key, "");
    else node.setAttribute(key, String(value));
  }
  for (const child of /** @type {unknown[]} */ (children.flat(Infinity))) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// node.replaceChildren without the null/false children that conditional parts leave.
/**
 * @template {Element} E
 * @param {E} node
 * @param {...Child} children
 * @returns {E}
 */
export function fill(node, ...children) {
  const kept = /** @type {unknown[]} */ (children.flat(Infinity)).filter((child) => child !== null && child !== undefined && child !== false);
  node.replaceChildren(...kept.map((child) => child instanceof Node ? child : String(child)));
  return node;
}

/** @type {ReturnType<typeof setTimeout> | undefined} */
let toastTimer;

/** @param {string} message */
export function toast(message) {
  const box = document.getElementById("toast");
  if (!box) return;
  box.textContent = message;
  box.classList.add("shown");
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => box.classList.remove("shown"), 4000);
}

// A card as a face: its rank and suit in the corner and a large suit sign, red or black (a joker
// shows the card it stands for once named), its full name for screen readers. Pure CSS: no images.
/**
 * @param {Card} code
 * @param {Card | null} [as]  what a joker stands for, once named
 * @param {Attributes} [extra]
 */
export function cardFace(code, as = null, extra = {}) {
  const { joker, rank, suit } = cardParts(code);
  const shown = joker && as ? cardParts(as) : null;
  const red = (/** @type {string | null} */ mark) => mark !== null && "HD".includes(mark);
  const colour = joker ? (shown && red(shown.suit) ? "red" : "joker") : (red(suit) ? "red" : "black");
  const { class: more, ...attrs } = extra;
  const rankText = joker ? (shown ? rankShort(shown.rank) : "★") : rankShort(rank);
  const sign = joker ? (shown ? suitSign(shown.suit) : "★") : suitSign(suit);
  return h("span", { class: `card ${colour}${joker ? " is-joker" : ""}${more ? ` ${more}` : ""}`, "data-card": code, ...attrs },
    h("span", { class: "corner", "aria-hidden": "true" }, h("span", { class: "rank" }, rankText), h("span", { class: "pip" }, sign)),
    h("span", { class: joker && !shown ? "suit joker-label" : "suit", "aria-hidden": "true" }, joker && !shown ? t("joker") : sign),
    h("span", { class: "sr-only" }, cardName(code, as)));
}

// The back of a card (an opponent's hand, the stock).
/** @param {Attributes} [extra] */
export function cardBack(extra = {}) {
  return h("span", { class: "card back", ...extra });
}

/** @param {Card[]} cards @param {Partial<Record<string, Card>> | null} [as]  what each joker stands for */
export function cardsText(cards, as = {}) {
  return cards.map((code) => cardName(code, (as || {})[code])).join(", ");
}

/** @param {string} title @param {...Child} children */
export function section(title, ...children) {
  return h("section", { class: "panel" }, h("h2", {}, title), ...children);
}

/** @param {string} label @param {Child} input */
export function field(label, input) {
  return h("label", { class: "field" }, h("span", {}, label), input);
}

/** @param {unknown} exc  an ApiError, or anything a failed action threw */
export function errorText(exc) {
  if (exc instanceof ApiError && exc.code === "offline") return t("error.offline");
  return (exc instanceof Error && exc.message) || String(exc);
}

// Runs an async action from a button or form, showing the API's message when it fails.
/**
 * @template T
 * @param {() => Promise<T> | T} action
 * @returns {Promise<T | undefined>}
 */
export async function attempt(action) {
  try {
    return await action();
  } catch (exc) {
    toast(errorText(exc));
    return undefined;
  }
}
