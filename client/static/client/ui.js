// Small DOM helpers shared by the screens: elements, cards, messages.

import { cardName, cardParts, rankShort, suitSign, t } from "./i18n.js";

// h("button", {class: "x", onclick: fn}, "text", child) -> element; null/false children are skipped.
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "class") node.className = value;
    // Through the CSSOM: the page's Content-Security-Policy refuses style attributes.
    else if (key === "style") node.style.cssText = String(value);
    else if (value === true) node.setAttribute(key, "");
    else node.setAttribute(key, String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// node.replaceChildren without the null/false children that conditional parts leave.
export function fill(node, ...children) {
  node.replaceChildren(...children.flat(Infinity).filter((child) => child !== null && child !== undefined && child !== false));
  return node;
}

export function toast(message) {
  const box = document.getElementById("toast");
  box.textContent = message;
  box.classList.add("shown");
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => box.classList.remove("shown"), 4000);
}

// A card as a face: its rank and suit in the corner and a large suit sign, red or black (a joker
// shows the card it stands for once named), its full name for screen readers. Pure CSS: no images.
export function cardFace(code, as = null, extra = {}) {
  const { joker, rank, suit } = cardParts(code);
  const shown = joker && as ? cardParts(as) : null;
  const colour = joker ? (shown && "HD".includes(shown.suit) ? "red" : "joker") : ("HD".includes(suit) ? "red" : "black");
  const { class: more, ...attrs } = extra;
  const rankText = joker ? (shown ? rankShort(shown.rank) : "★") : rankShort(rank);
  const sign = joker ? (shown ? suitSign(shown.suit) : "★") : suitSign(suit);
  return h("span", { class: `card ${colour}${joker ? " is-joker" : ""}${more ? ` ${more}` : ""}`, "data-card": code, ...attrs },
    h("span", { class: "corner", "aria-hidden": "true" }, h("span", { class: "rank" }, rankText), h("span", { class: "pip" }, sign)),
    h("span", { class: joker && !shown ? "suit joker-label" : "suit", "aria-hidden": "true" }, joker && !shown ? t("joker") : sign),
    h("span", { class: "sr-only" }, cardName(code, as)));
}

// The back of a card (an opponent's hand, the stock).
export function cardBack(extra = {}) {
  return h("span", { class: "card back", ...extra });
}

export function cardsText(cards, as = {}) {
  return cards.map((code) => cardName(code, (as || {})[code])).join(", ");
}

export function section(title, ...children) {
  return h("section", { class: "panel" }, h("h2", {}, title), ...children);
}

export function field(label, input) {
  return h("label", { class: "field" }, h("span", {}, label), input);
}

export function errorText(exc) {
  return exc && exc.code === "offline" ? t("error.offline") : (exc && exc.message) || String(exc);
}

// Runs an async action from a button or form, showing the API's message when it fails.
export async function attempt(action) {
  try {
    return await action();
  } catch (exc) {
    toast(errorText(exc));
    return undefined;
  }
}
