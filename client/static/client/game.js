// @ts-check
// The game screen: a card table. Seats sit around a felt (the caller at the bottom), the stock and
// the discard pile in the middle, the caller's hand fanned below.
//
// The round's view (GET games/{id}) is the truth; the ledger rows from the event stream are the
// story of how it got there. Rows are played out one at a time (a card flies from a hand to the
// pile, drawn cards fly to a hand, a skip or a reversal shows on the seat) on a `scene` derived
// from the last settled view; once the queue is empty and the scene has caught up with the newest
// view, the view is drawn with its legal actions. Only legal_actions can be chosen: a card is
// playable when some play action leads with it; a lead with several ways asks which (a jack's wish
// as four suit buttons, the queen of hearts' target by tapping a seat, a joker's name from a
// picker, anything else from a list). Calls are buttons that light up when due.

import { get, openStream, post } from "./api.js";
import { cardName, cardParts, rankShort, suitName, suitSign, t } from "./i18n.js";
import { attempt, cardBack, cardFace, cardsText, fill, h, section, toast } from "./ui.js";
import { cue, motionOff, pace, soundControl } from "./motion.js";
import { onResync, withBackoff } from "./resync.js";
import { onScreen, turnIs } from "./turns.js";

/** @typedef {import("maumau-schema").components["schemas"]} Schemas */
/** @typedef {Schemas["Card"]} Card */
/** @typedef {Schemas["PlayAction"]} PlayAction */
/** @typedef {Parameters<typeof fill>[1]} Child  what ui.js's h() and fill() take */
/** @typedef {Pick<Schemas["LedgerMove"], "seq" | "actor" | "seat" | "events">} Row  a ledger row (the deal: row 0) */
/**
 * What the table shows: the settled view, or the table as a row of the ledger left it (the client's own).
 * @typedef {object} Scene
 * @property {number} version
 * @property {Schemas["RoundStatus"]} status
 * @property {number | null} turn
 * @property {number} direction
 * @property {Card} top
 * @property {Card | null} topAs
 * @property {Schemas["Suit"] | null} wish
 * @property {number} pending
 * @property {number} stock
 * @property {boolean} hermann
 * @property {number[]} counts
 * @property {Card[]} hand
 * @property {number | null} lastSeat
 */

/** What a joker stands for, by joker (a play's `as`), as a plain lookup. */
const namesIn = (/** @type {Schemas["JokerNames"] | null | undefined} */ as) => /** @type {Partial<Record<string, Card>>} */ (as || {});
/**
 * A play's joker choices (`as_choices`) as [joker, names] pairs.
 * @param {PlayAction} option
 * @returns {[string, Card[]][]}
 */
const choicesOf = (option) => Object.entries(option.as_choices || {}).flatMap(([joker, names]) => (names ? [[joker, names]] : []));

/** @type {Schemas["CallWord"][]} */
const WORDS = ["mau", "maumau", "pik", "hermann"];
const LOG_LENGTH = 12;
const SUITS = ["C", "S", "H", "D"];
const FAN_MAX = 12;  // card backs drawn on a seat; the count says the rest

// One event in words (the move log, the replay).
/**
 * @param {Schemas["Event"]} event
 * @param {(seat: number) => string} nameOf
 * @returns {string | null}
 */
export function eventText(event, nameOf) {
  switch (event.type) {
    case "dealt": return t("ev.dealt", { card: cardName(event.starter) });
    case "played": return t("ev.played", { name: nameOf(event.seat), cards: cardsText(event.cards, event.as) });
    case "drew": {
      const text = event.cards && event.cards.length
        ? t("ev.drew.cards", { name: nameOf(event.seat), cards: cardsText(event.cards) })
        : t(event.count === 1 ? "ev.drew.one" : "ev.drew", { name: nameOf(event.seat), n: event.count });
      return event.reason ? `${text} (${t(`reason.${event.reason}`)})` : text;
    }
    case "passed": return t("ev.passed", { name: nameOf(event.seat) });
    case "said": return t("ev.said", { name: nameOf(event.seat), word: t(`word.${event.word}`) });
    case "mau": return t("ev.mau", { name: nameOf(event.seat) });
    case "penalty_grew": return t("ev.penalty_grew", { name: nameOf(event.seat), n: event.pending_draw });
    case "wish": return t("ev.wish", { name: nameOf(event.seat), suit: `${suitSign(event.suit)} ${suitName(event.suit)}` });
    case "hands_swapped": return t("ev.hands_swapped", { a: nameOf(event.seats[0]), b: nameOf(event.seats[1]) });
    case "hermann_started": return t("ev.hermann_started");
    case "hermann_closed": return t("ev.hermann_closed");
    case "direction": return t("ev.direction");
    case "skipped": return t("ev.skipped", { name: nameOf(event.seat) });
    case "reshuffled": return t("ev.reshuffled");
    case "timeout": return t("ev.timeout", { name: nameOf(event.seat) });
    case "round_over": return t("ev.round_over");
    case "resigned": return t("ev.resigned", { name: nameOf(event.seat) });
    case "aborted": return t("ev.aborted");
    default: return null;
  }
}

/**
 * @param {string} id
 * @param {object} how
 * @param {(hash: string) => void} how.go
 * @param {(listener: (kind: string, data: Schemas["Notification"]) => void) => () => void} how.onNotice
 * @param {() => {id: number} | null} how.currentPlayer
 * @param {(board: Pick<Schemas["ScoreboardOutput"], "players" | "practice_rounds">, options?: {points?: boolean}) => HTMLElement} how.scoreTable
 */
export function gameScreen(id, { go, onNotice, currentPlayer, scoreTable }) {
  let alive = true;
  /** @type {Schemas["GameView"] | null} */
  let view = null;       // the newest view read
  /** @type {Scene | null} */
  let scene = null;      // what the table shows (the settled view, or a row being played out)
  let shown = 0;         // the last ledger row shown
  /** @type {Schemas["Table"] | null} */
  let table = null;
  /** @type {Schemas["ScoreboardOutput"] | null} */
  let board = null;      // the table's scoreboard, read when the round is over
  /** @type {ReturnType<typeof openStream> | null} */
  let stream = null;
  /** @type {Promise<void> | null} */
  let reading = null;
  let again = false;
  let playing = false;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let jumpTimer;
  /** @type {{card: Card, options: PlayAction[]} | null} */
  let targeting = null;  // the queen of hearts' options while a seat is to be tapped
  /** @type {Row[]} */
  const queue = [];
  /** @type {Row[]} */
  const rows = [];
  /** @type {Set<Schemas["CallWord"]>} */
  const armed = new Set();
  /** @type {"connecting" | "open" | "lost" | "ended"} */
  let streamState = "connecting";
  let wasYours = false;
  let flights = 0;

  const root = h("div", { class: "game", id: "game", "data-game": id, "data-animations": "0" });
  /** @type {HTMLElement} */ (document.getElementById("main")).replaceChildren(root);
  const tick = setInterval(updateClock, 250);

  const nameOf = (/** @type {number | null} */ seat) => (view && seat !== null && view.players[seat] ? view.players[seat].name : `#${seat}`);
  const seated = () => Boolean(view && view.seat !== null && view.seat !== undefined);
  const settled = () => Boolean(!playing && !queue.length && view && view.version === shown);

  // --- reading ------------------------------------------------------------------------------

  async function readView() {
    if (reading) { again = true; return reading; }
    // `reading` is cleared however the read ends: a read cut by the network must not leave every
    // later read waiting on its failure, with moves shown in the log and a board behind them.
    reading = (async () => {
      try {
        do {
          again = false;
          /** @type {Schemas["GameView"]} */
          const fresh = await get(`games/${id}`);
          take(fresh);
        } while (again);
      } finally {
        reading = null;
      }
    })();
    return reading;
  }

  /** @param {Schemas["GameView"] | null | undefined} fresh */
  function take(fresh) {
    if (!fresh || (view && fresh.version < view.version && fresh.id === view.id)) return;
    view = fresh;
    if (view.status === "finished" && !board) {
      get(`tables/${view.table}/scoreboard`).then((read) => { board = read; if (settled()) render(); }).catch(() => {});
    }
    settle();
  }

  async function readLedger() {
    let after = 0;
    for (;;) {
      /** @type {Schemas["Ledger"]} */
      const page = await get(`games/${id}/events?after=${after}`);
      if (page.deal && !rows.length) rows.push({ seq: 0, actor: "system", seat: null, events: [page.deal] });
      rows.push(...page.moves);
      if (!page.moves.length || page.next_after === after) break;
      after = page.next_after;
      if (page.moves.length < 100) break;
    }
    return rows.length ? rows[rows.length - 1].seq : 0;
  }

  async function load() {
    /** @type {Schemas["GameView"]} */
    const first = await get(`games/${id}`);
    view = first;
    /** @type {[Schemas["Table"] | null, number, Schemas["Message"][] | null]} */
    const [tableRead, last, messages] = await Promise.all([
      get(`tables/${view.table}`).catch(() => null), readLedger(), optionalGet(`tables/${view.table}/messages`)]);
    table = tableRead;
    if (messages) chat = chatBox(messages);
    if (!alive) return;
    shown = Math.max(last, 0);
    if (view.version > shown) shown = view.version;
    if (first.status === "finished") board = await get(`tables/${first.table}/scoreboard`).catch(() => null);
    scene = sceneOf(first);
    render();
    stream = openStream(() => (chat ? `games/${id}/stream?messages_after=${chat.last}` : `games/${id}/stream`), {
      after: last,
      onEvent: (kind, data) => {
        if (kind === "message" && chat) {
          chat.add(/** @type {Schemas["Message"]} */ (data));
        } else if (kind === "move") {
          const move = /** @type {Schemas["LedgerMove"]} */ (data);
          if (move.seq <= shown || rows.some((row) => row.seq === move.seq)) return;
          rows.push(move);
          queue.push(move);
          renderLog();
          play();
          attempt(readView);
        } else if (kind === "end") {
          attempt(readView);
        }
      },
      onState: (state) => { streamState = state; renderStreamState(); if (state === "open") attempt(readView); },
    });
  }

  // --- the scene: the table as a row of the ledger left it ----------------------------------

  /** @param {Schemas["GameView"]} from @returns {Scene} */
  function sceneOf(from) {
    return {
      version: from.version, status: from.status, turn: from.turn, direction: from.direction,
      top: from.top_joker || from.top_card, topAs: from.top_joker ? from.top_card : null,
      wish: from.wish, pending: from.pending_draw, stock: from.stock_count, hermann: !!from.hermann,
      counts: from.players.map((player) => player.card_count), hand: [...(from.hand || [])],
      lastSeat: scene && scene.version === from.version ? scene.lastSeat : null,
    };
  }

  /**
   * What a row did, for the flights: the cards laid, drawn, the seats skipped, the calls.
   * @typedef {object} Marks
   * @property {{seat: number, cards: Card[], as: Partial<Record<string, Card>>} | null} played
   * @property {{seat: number, count: number, cards: Card[]}[]} drew
   * @property {number[]} skipped
   * @property {boolean} reversed
   * @property {{seat: number, word: Schemas["CallWord"]}[]} said
   * @property {number[] | null} swapped
   */
  /** @param {Row} row @returns {Marks} */
  function apply(row) {
    /** @type {Marks} */
    const marks = { played: null, drew: [], skipped: [], reversed: false, said: [], swapped: null };
    const scene_ = scene, view_ = view;
    if (!scene_ || !view_) return marks;
    for (const event of row.events || []) {
      switch (event.type) {
        case "played": {
          const seat = event.seat;
          const cards = event.cards || [];
          scene_.counts[seat] = Math.max(0, (scene_.counts[seat] || 0) - cards.length);
          if (seat === view_.seat) scene_.hand = scene_.hand.filter((card) => !cards.includes(card));
          const last = cards[cards.length - 1];
          scene_.top = last;
          scene_.topAs = namesIn(event.as)[last] || null;
          scene_.wish = null;
          scene_.lastSeat = seat;
          marks.played = { seat, cards, as: namesIn(event.as) };
          break;
        }
        case "drew": {
          const seat = event.seat;
          const count = event.count || (event.cards || []).length;
          scene_.counts[seat] = (scene_.counts[seat] || 0) + count;
          scene_.stock = Math.max(0, scene_.stock - count);
          if (seat === view_.seat && event.cards) scene_.hand.push(...event.cards);
          if (event.reason === "seven") scene_.pending = 0;
          marks.drew.push({ seat, count, cards: seat === view_.seat ? event.cards || [] : [] });
          break;
        }
        case "wish": scene_.wish = event.suit; break;
        case "penalty_grew": scene_.pending = event.pending_draw; break;
        case "direction": scene_.direction = -scene_.direction; marks.reversed = true; break;
        case "skipped": marks.skipped.push(event.seat); break;
        case "said": marks.said.push({ seat: event.seat, word: event.word }); break;
        case "hands_swapped": {
          const [a, b] = event.seats;
          [scene_.counts[a], scene_.counts[b]] = [scene_.counts[b], scene_.counts[a]];
          marks.swapped = event.seats;
          break;
        }
        case "reshuffled": scene_.stock = view_.stock_count; break;
        case "hermann_started": scene_.hermann = true; break;
        case "hermann_closed": scene_.hermann = false; break;
        case "round_over": case "aborted": scene_.status = "finished"; break;
        default: break;
      }
    }
    scene_.version = row.seq;
    const next = queue.find((other) => other.seat !== null && other.seat !== undefined);
    if (next) scene_.turn = next.seat;
    else if (view_.version === row.seq) scene_.turn = view_.turn;
    return marks;
  }

  // One row at a time: where its cards start, the table redrawn as it left it, the flights.
  /** @param {Row} row */
  async function step(row) {
    /** @type {Map<number, Element>} */
    const starts = new Map();
    for (const seatNode of /** @type {NodeListOf<HTMLElement>} */ (root.querySelectorAll(".seat"))) starts.set(Number(seatNode.dataset.seat), seatNode.querySelector(".backs") || seatNode);
    const handRects = new Map([.../** @type {NodeListOf<HTMLElement>} */ (root.querySelectorAll(".hand-card"))].map((node) => [node.dataset.card, node.getBoundingClientRect()]));
    const stockRect = rectOf(root.querySelector("#stock-pile"));
    const seatRects = new Map([...starts].map(([seat, node]) => [seat, node.getBoundingClientRect()]));
    const marks = apply(row);
    render();
    root.dataset.shown = String(row.seq);
    const mySeat = view ? view.seat : null;
    /** @type {Promise<void>[]} */
    const moving = [];
    if (marks.played) {
      const { seat, cards, as } = marks.played;
      const target = /** @type {HTMLElement | null} */ (root.querySelector("#top-card"));
      const last = cards[cards.length - 1];
      const from = seat === mySeat && handRects.get(last) ? handRects.get(last) : seatRects.get(seat);
      moving.push(fly(from, target, cardFace(last, as[last] || null), true));
    }
    for (const drawn of marks.drew) {
      const count = Math.min(drawn.count, 4);
      for (let index = 0; index < count; index += 1) {
        const card = drawn.cards[drawn.cards.length - 1 - index];
        const target = /** @type {HTMLElement | null} */ (card ? root.querySelector(`.hand-card[data-card="${card}"]`) : root.querySelector(`.seat[data-seat="${drawn.seat}"] .backs`));
        moving.push(fly(stockRect, target, card ? cardFace(card) : cardBack(), false, index * 70));
      }
    }
    for (const seat of marks.skipped) flash(seat, "skipped");
    if (marks.reversed) { const arrow = root.querySelector("#direction"); if (arrow) arrow.classList.add("turning"); }
    if (marks.swapped) marks.swapped.forEach((seat) => flash(seat, "swapped"));
    for (const said of marks.said) {
      flash(said.seat, "saying", t(`word.${said.word}`));
      cue("call");
    }
    const wait = pace(moving.length || marks.said.length || marks.skipped.length);
    await Promise.all([...moving, new Promise((resolve) => setTimeout(resolve, wait))]);
  }

  /** @param {Element | null} node */
  function rectOf(node) { return node ? node.getBoundingClientRect() : null; }

  /** @param {number} seat @param {string} kind @param {string | null} [text] */
  function flash(seat, kind, text = null) {
    const node = root.querySelector(`.seat[data-seat="${seat}"]`);
    if (!node) return;
    node.classList.add(kind);
    if (text) node.append(h("span", { class: "bubble", "aria-hidden": "true" }, `${text}!`));
    if (kind === "skipped") node.append(h("span", { class: "bubble skip", "aria-hidden": "true" }, "⊘"));
  }

  // A card from one place to another as a compositor-only transform; none with reduced motion.
  /**
   * @param {DOMRect | null | undefined} fromRect
   * @param {HTMLElement | null} target
   * @param {HTMLElement} node
   * @param {boolean} hideTarget
   * @param {number} [delay]  ms
   * @returns {Promise<void>}
   */
  function fly(fromRect, target, node, hideTarget, delay = 0) {
    if (motionOff() || !fromRect || !target) return Promise.resolve();
    const to = target.getBoundingClientRect();
    if (!to.width) return Promise.resolve();
    flights += 1;
    root.dataset.animations = String(flights);
    node.classList.add("flying");
    node.setAttribute("aria-hidden", "true");
    Object.assign(node.style, { left: `${to.left}px`, top: `${to.top}px`, width: `${to.width}px`, height: `${to.height}px` });
    document.body.append(node);
    if (hideTarget) target.style.visibility = "hidden";
    const scale = fromRect.width && to.width ? Math.min(1.4, Math.max(0.3, fromRect.width / to.width)) : 1;
    const dx = fromRect.left + fromRect.width / 2 - (to.left + to.width / 2);
    const dy = fromRect.top + fromRect.height / 2 - (to.top + to.height / 2);
    const animation = node.animate([
      { transform: `translate(${dx}px, ${dy}px) scale(${scale}) rotate(-8deg)`, opacity: 0.9 },
      { transform: "translate(0, 0) scale(1) rotate(0)", opacity: 1 },
    ], { duration: Math.max(120, pace(1) * 0.75), delay, easing: "cubic-bezier(.2,.75,.3,1)", fill: "backwards" });
    const done = () => { node.remove(); target.style.visibility = ""; };
    return animation.finished.then(done, done);
  }

  async function play() {
    if (playing) return;
    playing = true;
    try {
      while (queue.length && alive) {
        const row = queue.shift();
        if (row && row.seq > shown) {
          await step(row);
          shown = row.seq;
        }
      }
    } finally {
      playing = false;
    }
    if (alive) settle();
  }

  // The newest view is drawn once the rows up to it are shown; a view ahead of every row that came
  // (a stream that is not open, a row lost) is drawn after a short wait for its rows.
  function settle() {
    if (!alive || !view || playing || queue.length) return;
    clearTimeout(jumpTimer);
    if (view.version === shown || view.version < shown) {
      if (view.version < shown) { attempt(readView); return; }
      scene = sceneOf(view);
      render();
      return;
    }
    jumpTimer = setTimeout(() => {
      if (!alive || playing || queue.length || !view || view.version <= shown) return;
      shown = view.version;
      scene = sceneOf(view);
      render();
    }, streamState === "open" ? 1500 : 0);
  }

  // --- table chat (when the server has it) ---------------------------------------------------

  /** @type {{last: number, add(message: Schemas["Message"]): void, node: HTMLElement} | null} */
  let chat = null;

  /** @param {string} path @returns {Promise<any>}  what `get` answers (the caller names its type), or null */
  async function optionalGet(path) {
    try { return await get(path); } catch (exc) { return null; }
  }

  /** @param {Schemas["Message"][]} initial */
  function chatBox(initial) {
    const list = h("ul", { class: "chat", id: "chat", "aria-live": "polite" });
    const input = h("input", { name: "text", maxlength: 500, required: true, autocomplete: "off", "aria-label": t("table.chat") });
    /** @type {Set<number>} */
    const seen = new Set();
    /** @type {NonNullable<typeof chat>} */
    const box = {
      last: 0,
      add(message) {
        if (seen.has(message.id)) return;
        seen.add(message.id);
        box.last = Math.max(box.last, message.id);
        list.append(h("li", {}, h("strong", {}, message.player.name), ": ", message.text));
        while (list.children.length > 30) list.firstChild?.remove();
      },
      node: section(t("table.chat"), list, h("form", { class: "chat-form", onsubmit: (/** @type {SubmitEvent} */ event) => {
        event.preventDefault();
        const text = input.value.trim();
        const at = view && view.table;
        if (!text || !at) return;
        attempt(async () => {
          /** @type {Schemas["Message"]} */
          const said = await post(`tables/${at}/messages`, { text });
          box.add(said);
          input.value = "";
        });
      } }, input, h("button", {}, t("table.say")))),
    };
    initial.forEach(box.add);
    return box;
  }

  // --- acting -------------------------------------------------------------------------------

  /** @param {Schemas["Action"]} action @param {boolean} [hinted]  the call hint was shown */
  async function send(action, hinted = false) {
    targeting = null;
    if (action.type === "play" && !hinted && untaught(action).length) { callHint(untaught(action), action); return; }
    if (!view) return;
    /** @type {Record<string, unknown>} */
    const body = { ...action, expected_version: view.version };
    delete body.as_choices;
    if (action.type === "play") {
      const words = (action.say || []).filter((word) => armed.has(word));
      if (words.length) body.say = words; else delete body.say;
    }
    /** @type {Schemas["MoveResult"] | undefined} */
    const fresh = await attempt(() => post(`games/${id}/actions`, body));
    armed.clear();
    if (fresh) take(fresh); else await attempt(readView);
  }

  /** @param {Card} card */
  function playsLeadingWith(card) {
    if (!view) return [];
    return view.legal_actions.filter((action) => action.type === "play").filter((action) => action.cards[0] === card);
  }

  const namesOf = (/** @type {PlayAction} */ option) => choicesOf(option).map(([, names]) => names).filter((names) => names.length > 1);
  const plain = (/** @type {PlayAction} */ option) => option.cards.length === 1 && !namesOf(option).length;

  /** @param {PlayAction} option @returns {PlayAction} */
  function firstNames(option) {
    const action = { ...option };
    if (action.as) action.as = Object.fromEntries(Object.entries(action.as).map(([k, v]) => [k, Array.isArray(v) ? v[0] : v]));
    return action;
  }

  /** @param {PlayAction} action */
  function describe(action) {
    const parts = [];
    const as = namesIn(action.as);
    if (action.cards.length > 1) parts.push(`${t("game.choose.with")} ${cardsText(action.cards.slice(1), as)}`);
    if (action.wish) parts.push(`${t("game.choose.wish")}: ${suitSign(action.wish)} ${suitName(action.wish)}`);
    if (action.target !== undefined) parts.push(`${t("game.choose.target")} ${nameOf(action.target)}`);
    if (action.cards.length === 1 && action.as && as[action.cards[0]] && !namesOf(action).length) {
      parts.push(cardName(action.cards[0], as[action.cards[0]]));
    }
    return parts.join(" · ");
  }

  /**
   * @param {string} title
   * @param {...(Child | ((close: () => void) => Child))} body
   */
  function dialog(title, ...body) {
    const node = h("dialog", { class: "chooser", "aria-labelledby": "chooser-title" });
    const close = () => { node.close(); node.remove(); };
    const parts = /** @type {unknown[]} */ (body.map((part) => (typeof part === "function" ? part(close) : part)).flat(Infinity));
    node.append(h("h2", { id: "chooser-title" }, title), ...parts
      .filter((part) => part !== null && part !== undefined && part !== false).map((part) => (part instanceof Node ? part : String(part))),
      h("button", { type: "button", class: "quiet", onclick: close }, t("game.cancel")));
    node.addEventListener("cancel", (event) => { event.preventDefault(); close(); });
    document.body.append(node);
    node.showModal();
    return close;
  }

  // The jack's wish: four large suit buttons in their colours, whatever the number of jacks in the hand.
  // Going out with extra jacks laid on the last one (house: no wish, the others' points multiplied) is a
  // small control of its own below them.
  /** @param {Card} card @param {PlayAction[]} options */
  function wishChooser(card, options) {
    const wishes = options.filter((option) => option.wish !== undefined);
    const finals = options.filter((option) => option.wish === undefined);
    dialog(t("game.choose.wish"),
      (close) => h("div", { class: "suits", role: "group", "aria-label": t("game.choose.wish") },
        SUITS.filter((suit) => wishes.some((option) => option.wish === suit)).map((suit) =>
          h("button", { type: "button", class: `suit-button suit-${suit}`, "data-suit": suit,
            onclick: () => {
              close();
              const wished = wishes.find((option) => option.wish === suit);
              if (wished) send(firstNames(wished));
            } },
          h("span", { class: "sign", "aria-hidden": "true" }, suitSign(suit)), h("span", {}, suitName(suit))))),
      finals.length ? (close) => h("div", { class: "extra-jacks", role: "group", "aria-labelledby": "extra-jacks-title" },
        h("h3", { id: "extra-jacks-title" }, t("game.jacks.extra")),
        finals.map((option) => h("button", { type: "button", class: "extra-jacks-go", "data-extra": option.cards.length - 1,
          onclick: () => { close(); send(firstNames(option)); } },
        t("game.jacks.go", { cards: cardsText(option.cards.slice(1)), m: option.cards.length }))),
        h("p", { class: "muted" }, t("game.jacks.help"))) : null);
  }

  // A jack's ways: a wish with this jack alone, or going out with only jacks laid on it.
  const jackOnly = (/** @type {PlayAction} */ option) => option.target === undefined && !namesOf(option).length
    && (option.wish !== undefined ? option.cards.length === 1 : option.cards.length > 1
      && option.cards.every((one) => /^J[CSHD]$/.test(one)));

  // How to play under this table's rule set, from its options: reachable from the table at any time.
  function helpDialog() {
    /** @type {Partial<Schemas["RuleOptions"]>} */
    const options = (table && table.options) || {};
    const rules = (table && table.rules) || "classic";
    const clock = options.turn_seconds;
    const lines = [
      t("help.basic"),
      options.seven_draws ? t("help.seven") : null,
      options.eight_skips ? t("help.eight") : null,
      options.nine_skips_second ? t("help.nine") : null,
      options.nine_reverses ? t("help.nine.reverses") : null,
      options.ten_reverses ? t("help.ten") : null,
      options.jack_wild ? t("help.jack") : null,
      options.ace_needs_cover ? t("help.ace") : null,
      options.ace_skips ? t("help.ace.skips") : null,
      options.queen_of_hearts_swap ? t("help.queen") : null,
      options.joker && options.jokers ? t("help.joker") : null,
      options.final_jacks ? t("help.finaljacks") : null,
      clock ? t("help.clock", { s: duration(clock) }) : null,
    ].filter(Boolean);
    const calls = [options.pik_call ? t("help.pik") : null, options.announcements ? t("help.mau") : null,
      options.king_of_diamonds_hermann ? t("help.hermann") : null].filter(Boolean);
    const node = h("dialog", { class: "chooser help", id: "help", "aria-labelledby": "help-title" });
    const close = () => { node.close(); node.remove(); };
    fill(node, h("h2", { id: "help-title" }, t("help.title", { rules: t(`rules.${rules}`) })),
      h("ul", { class: "help-list" }, lines.map((line) => h("li", {}, line))),
      calls.length ? [h("h3", {}, t("game.calls")), h("p", {}, t("help.calls")), h("ul", { class: "help-list" }, calls.map((line) => h("li", {}, line)))]
        : h("p", {}, t("help.automau")),
      h("button", { type: "button", class: "primary", onclick: close }, t("help.close")));
    node.addEventListener("cancel", (event) => { event.preventDefault(); close(); });
    node.addEventListener("close", () => node.remove());
    document.body.append(node);
    node.showModal();
    // Read from the top: the heading takes the focus (not the Close button at the end of a long text).
    const title = /** @type {HTMLElement | null} */ (node.querySelector("#help-title"));
    if (title) {
      title.tabIndex = -1;
      title.focus();
    }
  }

  // The first time a play asks for a call the player has not armed, the client says so before it costs a
  // card: once per call and browser, in every round alike (it explains the rule; it never says the call).
  const HINTED = "maumau.hinted";
  /** @param {PlayAction} action */
  function untaught(action) {
    const taught = new Set((localStorage.getItem(HINTED) || "").split(",").filter(Boolean));
    return (action.say || []).filter((word) => !armed.has(word) && !taught.has(word));
  }
  /** @param {Schemas["CallWord"][]} words @param {PlayAction} action */
  function callHint(words, action) {
    const taught = new Set((localStorage.getItem(HINTED) || "").split(",").filter(Boolean));
    for (const word of words) taught.add(word);
    localStorage.setItem(HINTED, [...taught].join(","));
    const said = words.map((word) => t(`word.${word}`)).join(" + ");
    dialog(t("hint.title", { word: said }), words.map((word) => h("p", {}, t(`hint.${word}`))), h("p", { class: "muted" }, t("hint.once")),
      (close) => h("div", { class: "actions" },
        h("button", { type: "button", class: "primary", id: "hint-say", onclick: () => {
          close();
          for (const word of words) armed.add(word);
          send(action, true);
        } }, t("hint.say", { word: said })),
        h("button", { type: "button", id: "hint-skip", onclick: () => { close(); send(action, true); } }, t("hint.skip"))));
  }

  // A joker's name: its suit, then its rank, from the names the rules allow.
  /** @param {Card} card @param {PlayAction} option */
  function jokerPicker(card, option) {
    const found = choicesOf(option).find(([, list]) => list.length > 1);
    if (!found) return;
    const [joker, names] = found;
    const ranks = h("div", { class: "ranks", role: "group", "aria-label": t("game.choose.as") });
    /** @type {(() => void) | null} */
    let closeIt = null;
    const red = (/** @type {string | null} */ suit) => suit !== null && "HD".includes(suit);
    const pick = (/** @type {string | null} */ suit) => {
      for (const node of suitRow.querySelectorAll("button")) node.setAttribute("aria-pressed", String(node.dataset.suit === suit));
      fill(ranks, names.filter((name) => cardParts(name).suit === suit || (!cardParts(name).suit && suit === null)).map((name) =>
        h("button", { type: "button", class: `rank-button${red(cardParts(name).suit) ? " red" : ""}`, "data-name": name,
          "aria-label": cardName(name), onclick: () => {
            if (closeIt) closeIt();
            const action = firstNames(option);
            action.as = { ...(action.as || {}), [joker]: name };
            send(action);
          } }, `${rankShort(cardParts(name).rank)}${suitSign(cardParts(name).suit)}`)));
    };
    const suits = SUITS.filter((suit) => names.some((name) => cardParts(name).suit === suit));
    const suitRow = h("div", { class: "suits small", role: "group", "aria-label": t("game.choose.suit") }, suits.map((suit) =>
      h("button", { type: "button", class: `suit-button suit-${suit}`, "data-suit": suit, "aria-pressed": "false", onclick: () => pick(suit) },
        h("span", { class: "sign", "aria-hidden": "true" }, suitSign(suit)), h("span", {}, suitName(suit)))));
    closeIt = dialog(`${cardName(card)}: ${t("game.choose.as")}`, suitRow, ranks);
    pick(suits[0]);
  }

  // Anything else: one line per way to play the card.
  /** @param {Card} card @param {PlayAction[]} options */
  function listChooser(card, options) {
    dialog(t("game.choose", { card: cardName(card) }), (close) => h("ul", { class: "list" }, options.map((option) => {
      /** @type {Record<string, HTMLSelectElement>} */
      const selects = {};
      const jokerFields = choicesOf(option).map(([joker, names]) => {
        if (names.length === 1) return h("span", {}, `${t("game.choose.as")} ${cardName(names[0])}`);
        selects[joker] = h("select", { "aria-label": `${cardName(joker)}: ${t("game.choose.as")}` },
          names.map((name) => h("option", { value: name }, cardName(name))));
        return h("label", {}, `${t("game.choose.as")} `, selects[joker]);
      });
      const what = describe(option);
      return h("li", { class: "option" },
        what ? h("div", { class: "what" }, what) : null,
        h("div", { class: "how" }, jokerFields.length ? jokerFields : h("span", {}, cardName(card)), h("button", { type: "button", class: "primary", onclick: () => {
          const action = firstNames(option);
          if (option.as) {
            action.as = Object.fromEntries(Object.entries(option.as).map(([joker, name]) =>
              [joker, selects[joker] ? selects[joker].value : (Array.isArray(name) ? name[0] : name)]));
          }
          close();
          send(action);
        } }, t("game.play"))));
    })));
  }

  /** @type {Card | null} */
  let lastCard = null;  // the card last chosen, for focus after the chooser closed and the view changed

  /** @param {Card} card */
  function playCard(card) {
    if (!settled()) return;
    lastCard = card;
    const options = playsLeadingWith(card);
    if (!options.length) { toast(`${cardName(card)}: ${t("game.unplayable")}`); return; }
    const only = options.length === 1 && plain(options[0]);
    if (only && options[0].wish === undefined && options[0].target === undefined) {
      send(firstNames(options[0]));
    } else if (options.some((o) => o.wish !== undefined) && options.every(jackOnly)) {
      wishChooser(card, options);
    } else if (options.every((o) => plain(o) && o.target !== undefined && o.wish === undefined)) {
      targeting = { card, options };
      render();
      const first = /** @type {HTMLElement | null} */ (root.querySelector(".seat.target"));
      if (first) first.focus();
    } else if (options.length === 1 && namesOf(options[0]).length === 1 && options[0].cards.length === 1
      && options[0].wish === undefined && options[0].target === undefined) {
      jokerPicker(card, options[0]);
    } else {
      listChooser(card, options);
    }
  }

  // --- words --------------------------------------------------------------------------------

  const describeEvent = (/** @type {Schemas["Event"]} */ event) => eventText(event, nameOf);

  /** @param {Row} row */
  function describeRow(row) {
    const texts = (row.events || []).map(describeEvent).filter(Boolean);
    if (!texts.length && row.actor === "system") return t("ev.refused", { name: nameOf(row.seat) });
    return texts.join(" · ");
  }

  // --- drawing ------------------------------------------------------------------------------

  // The first moment the hand can be played and moves arrive live: bench.client reads this mark.
  let interactive = false;
  function markInteractive() {
    if (interactive || !view || streamState !== "open") return;
    interactive = true;
    performance.mark("maumau:game-interactive");
  }

  function renderStreamState() {
    const badge = /** @type {HTMLElement | null} */ (root.querySelector("#stream-state"));
    if (!badge) return;
    badge.dataset.state = streamState;
    markInteractive();
    badge.textContent = streamState === "lost" ? t("game.stream.lost") : streamState === "open" ? t("game.stream.open") : "";
  }

  // The log keeps each row's own number (the ledger's seq), newest first.
  function renderLog() {
    const list = /** @type {HTMLElement | null} */ (root.querySelector("#moves"));
    if (!list) return;
    const shownRows = rows.filter((row) => row.seq <= Math.max(shown, 0) || !queue.includes(row));
    const items = shownRows.slice(-LOG_LENGTH).reverse().map((row) => /** @type {[Row, string]} */ ([row, describeRow(row)])).filter(([, text]) => text);
    fill(list, ...items.map(([row, text]) => h("li", { "data-seq": row.seq, value: row.seq }, text)));
    list.dataset.last = String(rows.length ? rows[rows.length - 1].seq : 0);
  }

  /** @param {number} seconds */
  function duration(seconds) {
    if (seconds >= 86400) {
      return `${Math.floor(seconds / 86400)} ${t("unit.day")} ${Math.floor(seconds / 3600) % 24} ${t("unit.hour")}`;
    }
    if (seconds < 60) return `${seconds} s`;
    const parts = [Math.floor(seconds / 3600), Math.floor(seconds / 60) % 60, seconds % 60];
    const shownParts = parts[0] ? parts : parts.slice(1);
    return `${shownParts.map((part, index) => (index ? String(part).padStart(2, "0") : String(part))).join(":")} ${parts[0] ? t("unit.hour") : "min"}`;
  }

  function updateClock() {
    const clock = root.querySelector("#deadline");
    if (!clock || !view) return;
    const due = view.hermann_deadline || view.deadline;
    if (!due || view.status !== "active") { clock.textContent = ""; return; }
    const seconds = Math.max(0, Math.ceil((Date.parse(due) - Date.now()) / 1000));
    clock.textContent = t("game.deadline", { s: duration(seconds) });
    clock.classList.toggle("urgent", seconds <= 5);
  }

  // Seats around the felt: the caller (or seat 0 for a spectator) at the bottom, the others over the
  // top from left to right in playing order.
  /** @param {number} seat @param {number} count */
  function placeOf(seat, count) {
    const mine = view && view.seat !== null && view.seat !== undefined ? view.seat : 0;
    const offset = (seat - mine + count) % count;
    if (offset === 0) return { x: 50, y: 88, bottom: true };
    const angle = Math.PI * (1 - offset / count);
    return { x: 50 + 41 * Math.cos(angle), y: 50 - 38 * Math.sin(angle) + (count > 4 ? 6 : 4), bottom: false };
  }

  // A name that fits a seat on a phone: a bot's "(basic)" goes (its badge says bot), then a long name
  // keeps its first word, else it is cut with an ellipsis. The full name is the seat's accessible name
  // and its tooltip, and a tap on the name shows it.
  /** @param {string} name */
  function shortName(name) {
    const most = 12;
    let short = name.length > most ? name.replace(/\s*\([^)]*\)\s*$/, "") : name;
    if (short.length > most) {
      const first = short.split(/\s+/)[0];
      short = first.length >= 3 && first.length <= most ? first : `${short.slice(0, most - 1)}…`;
    }
    return short;
  }

  /** @param {Schemas["GamePlayer"]} player @param {boolean | null} online */
  function nameNode(player, online) {
    const short = shortName(player.name);
    const shortened = short !== player.name;
    return h("span", { class: "name", title: player.name,
      onclick: shortened && !targeting ? () => toast(player.name) : null },
    shortened ? [h("span", { "aria-hidden": "true" }, short), h("span", { class: "sr-only" }, player.name)] : player.name,
    online === null ? null : h("span", { class: `presence ${online ? "on" : "off"}`, title: online ? t("game.online") : t("game.offline") },
      h("span", { class: "sr-only" }, online ? t("game.online") : t("game.offline"))));
  }

  /** @param {Schemas["GamePlayer"]} player */
  function seatNode(player) {
    if (!view || !scene) return null;
    const count = view.players.length;
    const place = placeOf(player.seat, count);
    const turn = scene.status === "active" && player.seat === scene.turn;
    const online = "online" in player ? player.online : null;
    const cards = scene.counts[player.seat] ?? player.card_count;
    const target = targeting && targeting.options.find((option) => option.target === player.seat);
    const backs = place.bottom && seated() ? null : h("span", { class: "backs", "aria-hidden": "true" },
      Array.from({ length: Math.min(cards, FAN_MAX) }, (_, index) => h("span", {
        class: "back", style: `--i:${index - (Math.min(cards, FAN_MAX) - 1) / 2}` })));
    const attrs = {
      class: `seat${turn ? " turn" : ""}${player.seat === view.seat ? " me" : ""}${place.bottom ? " bottom" : ""}${target ? " target" : ""}${cards === 1 ? " last-card" : ""}`,
      "data-seat": player.seat, style: `left:${place.x.toFixed(1)}%;top:${place.y.toFixed(1)}%`,
      "aria-current": turn ? "true" : null,
    };
    // Every seat has the same lines whoever's turn it is (the clock's line stays, empty): nothing moves
    // when the turn passes.
    const parts = [
      nameNode(player, online),
      backs,
      h("span", { class: "meta" },
        h("span", { class: "count", "data-count": cards }, cards === 1 ? t("game.card") : t("game.cards", { n: cards })),
        player.bot || player.bot_controlled ? h("span", { class: "badge" }, t("game.bot")) : null,
        player.owes && player.owes.length ? h("span", { class: "badge warn" }, t("game.owes")) : null),
      h("span", { id: turn ? "deadline" : null, class: "deadline", "aria-live": "off" }),
    ];
    if (target) {
      return h("li", attrs, h("button", { type: "button", class: "seat-pick", "aria-label": `${t("game.choose.target")} ${player.name}`,
        onclick: () => send(firstNames(target)) }, parts));
    }
    return h("li", attrs, parts);
  }

  function callButtons() {
    /** @type {Partial<Schemas["RuleOptions"]>} */
    const options = (table && table.options) || {};
    /** @type {Record<string, boolean | undefined>} */
    const enabled = {
      mau: options.announcements, maumau: options.announcements, pik: options.pik_call, hermann: options.king_of_diamonds_hermann,
    };
    const words = WORDS.filter((word) => enabled[word]);
    const seen = view;
    if (!words.length || !seen || seen.seat === null || seen.seat === undefined) return null;
    const ready = settled();
    const sayable = new Set(ready ? seen.legal_actions.filter((a) => a.type === "say").map((a) => a.word) : []);
    const riding = new Set(ready ? seen.legal_actions.flatMap((a) => (a.type === "play" ? a.say || [] : [])) : []);
    return h("div", { class: "calls", role: "group", "aria-label": t("game.calls") }, words.map((word) => {
      const now = sayable.has(word);
      return h("button", { type: "button", class: `call${armed.has(word) ? " armed" : ""}${now ? " due" : ""}${riding.has(word) ? " ready" : ""}`,
        "data-word": word, "aria-pressed": now ? null : String(armed.has(word)), disabled: !now && !riding.has(word),
        onclick: () => {
          if (now) { send({ type: "say", word }); return; }
          if (armed.has(word)) armed.delete(word); else armed.add(word);
          render();
        } }, t(`word.${word}`));
    }));
  }

  function scoring() { return (table && table.options && table.options.scoring) || "ranking"; }

  /** @param {number} rank */
  function ordinal(rank) { return t(`place.${Math.min(rank, 9)}`); }

  function resultCard() {
    const seen = view;
    if (!seen) return null;
    const result = seen.result;
    if (!result || seen.status !== "finished") return null;
    const self = currentPlayer();
    const host = table && self && table.host.id === self.id;
    const mine = seated() ? result.players.find((row) => row.seat === seen.seat) : null;
    const points = scoring() !== "wins";
    const multiplier = scoring() === "points" && result.multiplier > 1;
    const lines = [...result.players].sort((a, b) => a.rank - b.rank || a.seat - b.seat);
    const rated = result.players.some((row) => row.rating);
    const signed = (/** @type {number} */ n) => (n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "±0");
    const myRating = mine && mine.rating;
    return h("section", { class: "result-card", id: "result-card", "aria-labelledby": "result-title" },
      h("h2", { id: "result-title" }, t("game.over")),
      mine ? h("p", { class: `place${mine.rank === 1 ? " first" : ""}`, id: "place" },
        t("game.place", { place: ordinal(mine.rank), n: result.players.length })) : null,
      h("p", { class: "winner" }, result.winner === null || result.winner === undefined
        ? t("game.nowinner") : t("game.winner", { name: nameOf(result.winner) })),
      multiplier ? h("p", { class: "multiplier", id: "multiplier" }, t("game.multiplier", { n: result.multiplier })) : null,
      myRating ? h("p", { class: `rating-change${myRating.change >= 0 ? " up" : " down"}`, id: "rating-change" },
        t("game.rating.yours", { before: myRating.before, after: myRating.after, change: signed(myRating.change) }),
        myRating.provisional ? h("span", { class: "badge" }, t("ratings.provisional")) : null)
        : mine && !seen.practice && "rating" in mine ? h("p", { class: "muted", id: "rating-change" }, t("game.rating.none")) : null,
      h("div", { class: "scroll" }, h("table", { class: "scores", id: "result" },
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("game.rank")), h("th", { scope: "col" }, t("score.player")),
          h("th", { scope: "col" }, t("game.left")), points ? h("th", { scope: "col" }, t("score.points")) : null,
          multiplier ? h("th", { scope: "col" }, t("game.times")) : null, rated ? h("th", { scope: "col" }, t("game.rating")) : null)),
        h("tbody", {}, lines.map((row) => h("tr", { class: row.seat === seen.seat ? "yours" : null },
          h("td", {}, row.rank), h("td", {}, row.name || nameOf(row.seat)),
          h("td", {}, row.cards_left), points ? h("td", {}, row.points ?? row.raw_points ?? "") : null,
          multiplier ? h("td", {}, row.multiplier > 1 ? `×${row.multiplier}` : "") : null,
          rated ? h("td", { class: "rating-cell" }, row.rating ? [`${row.rating.after} `,
            h("span", { class: row.rating.change >= 0 ? "up" : "down" }, `(${signed(row.rating.change)})`)] : "—") : null))))),
      board ? h("div", { class: "board" }, h("h3", {}, t("table.scoreboard")), scoreTable(board, { points })) : null,
      h("div", { class: "actions" },
        host ? h("button", { type: "button", class: "primary", id: "next-round", onclick: () => attempt(async () => {
          /** @type {Schemas["GameView"]} */
          const game = await post(`tables/${seen.table}/rounds`, {});
          go(`#/game/${game.id}`);
        }) }, t("table.next")) : null,
        h("a", { class: "button", href: `#/replay/${seen.id}`, id: "replay-link" }, t("replay.open")),
        h("a", { class: "button", href: `#/table/${seen.table}` }, t("game.back")),
        h("a", { class: "button", href: "#/lobby" }, t("game.lobby"))));
  }

  /** @param {boolean} ready @param {Set<Card>} leads */
  function handNode(ready, leads) {
    if (!view || !scene) return [];
    const hand = scene.hand;
    const fresh = ready ? view.drawn_card : null;
    return hand.map((card, index) => {
      const playable = ready && leads.has(card);
      return h("button", { type: "button",
        class: `hand-card${playable ? " playable" : " unplayable"}${card === fresh ? " drawn" : ""}`,
        style: `--i:${index - (hand.length - 1) / 2};--n:${hand.length}`,
        "data-card": card, "aria-disabled": playable ? null : "true",
        title: playable ? cardName(card) : `${cardName(card)}: ${t("game.unplayable")}`,
        onclick: () => playCard(card) }, cardFace(card));
    });
  }

  function render() {
    if (!alive || !view || !scene) return;
    const ready = settled();
    const isSeated = seated();
    const yours = ready && view.status === "active" && isSeated && view.turn === view.seat;
    if (yours && !wasYours) cue("turn");
    wasYours = yours;
    if (!yours) targeting = null;
    const legal = view.legal_actions;
    const leads = new Set(ready ? legal.filter((a) => a.type === "play").map((a) => a.cards[0]) : []);
    const simple = (/** @type {Schemas["Action"]["type"]} */ type) => (ready ? legal.find((a) => a.type === type) : null);
    const active = /** @type {HTMLElement | null} */ (document.activeElement);
    const focused = (active && active.dataset && active.dataset.card)
      || (lastCard && (!active || active === document.body) ? lastCard : null);
    if (ready) lastCard = null;
    const typing = chat && chat.node.contains(active) ? active : null;

    const top = scene.top ? cardFace(scene.top, scene.topAs, { id: "top-card", class: scene.lastSeat !== null && scene.lastSeat !== undefined ? "last" : null }) : null;
    const stockBacks = Math.min(4, Math.ceil(scene.stock / 8));
    const turnText = scene.status !== "active" ? null
      : !isSeated ? t("game.spectator") : (ready ? yours : scene.turn === view.seat) ? t("game.turn.you") : t("game.turn.other", { name: nameOf(scene.turn) });

    fill(root,
      h("div", { class: "game-head" },
        h("h1", {}, t("game.title", { number: view.number, table: view.table })),
        view.practice ? h("span", { class: "badge" }, t("game.practice")) : null,
        h("span", { id: "stream-state", class: "stream", role: "status" }),
        h("button", { type: "button", class: "quiet help-open", id: "help-open", onclick: helpDialog }, t("help.open")),
        soundControl()),
      h("div", { class: `felt seats-${view.players.length}`, id: "felt" },
        h("ol", { class: "seats", id: "seats", "aria-label": t("table.seats") }, view.players.map(seatNode)),
        h("div", { class: "middle" },
          h("div", { class: "stock", id: "stock-pile" },
            h("span", { class: "stack", "aria-hidden": "true" }, Array.from({ length: Math.max(1, stockBacks) }, (_, i) => cardBack({ style: `--i:${i}` }))),
            h("span", { id: "stock", class: "label" }, `${t("game.stock")}: `, h("strong", {}, scene.stock))),
          h("div", { class: "pile" }, h("span", { class: "sr-only" }, t("game.top")), top,
            h("span", { class: "label by" }, scene.lastSeat !== null && scene.lastSeat !== undefined && view.players[scene.lastSeat]
              ? shortName(nameOf(scene.lastSeat)) : "")),
          h("div", { class: "facts" },
            scene.wish ? h("div", { id: "wish", class: `wish suit-${scene.wish}` }, h("span", { class: "sr-only" }, `${t("game.wish")}: `),
              h("span", { class: "sign", "aria-hidden": "true" }, suitSign(scene.wish)), h("span", { class: "word" }, suitName(scene.wish))) : null,
            scene.pending ? h("div", { id: "pending", class: "pending" }, t("game.pending", { n: scene.pending })) : null,
            scene.hermann ? h("div", { class: "pending" }, t("game.hermann")) : null,
            h("div", { id: "direction", class: `direction${scene.direction === 1 ? "" : " back"}`, title: t("game.direction") },
              h("span", { class: "sr-only" }, `${t("game.direction")}: `), h("span", { "aria-hidden": "true" }, scene.direction === 1 ? "↻" : "↺"),
              h("span", { class: "sr-only" }, scene.direction === 1 ? t("game.clockwise") : t("game.anticlockwise"))))),
        resultCard()),
      turnText ? h("p", { id: "turn", class: `turn-line${yours ? " yours" : ""}`, role: "status" }, turnText) : null,
      targeting ? h("div", { class: "targeting", role: "status" }, t("game.choose.tap"),
        h("button", { type: "button", class: "quiet", onclick: () => { targeting = null; render(); } }, t("game.cancel"))) : null,
      isSeated ? h("section", { class: "hand-box", "aria-label": t("game.hand") },
        h("h2", { class: "sr-only" }, t("game.hand")),
        h("div", { class: "hand", id: "hand" }, handNode(ready, leads)),
        ready && view.drawn_card ? h("p", { class: "muted" }, t("game.drawn", { card: cardName(view.drawn_card) })) : null,
        view.status !== "active" ? null : h("div", { class: "actions" },
          simple("draw") ? h("button", { type: "button", id: "draw", class: "primary", onclick: () => send({ type: "draw" }) }, t("game.draw")) : null,
          simple("pass") ? h("button", { type: "button", id: "pass", onclick: () => send({ type: "pass" }) }, t("game.pass")) : null,
          callButtons(),
          simple("resign") ? h("button", { type: "button", class: "quiet", onclick: () => send({ type: "resign" }) }, t("game.resign")) : null))
        : null,
      h("div", { class: "side" },
        section(t("game.moves"), h("ol", { class: "moves", id: "moves", reversed: true })),
        chat ? chat.node : null),
    );
    renderLog();
    renderStreamState();
    updateClock();
    if (ready && isSeated) turnIs(view.id, view.table, yours);  // the tab's title, the app's badge
    if (ready) {
      root.dataset.version = String(view.version);
      root.dataset.status = view.status;
    }
    root.dataset.settled = String(ready);
    root.dataset.shown = String(shown);
    fitHand();
    if (typing) typing.focus();
    if (focused && ready) {
      // Keyboard play: focus stays on the card, or moves to the next choice when that card was laid.
      const againNode = /** @type {HTMLElement | null} */ (root.querySelector(`.hand-card[data-card="${focused}"]`)
        || root.querySelector(".hand-card.playable, #draw, #pass, .hand-card"));
      if (againNode) againNode.focus();
    }
  }

  // The fan overlaps the cards just enough that the hand fits its width.
  function fitHand() {
    const hand = /** @type {HTMLElement | null} */ (root.querySelector("#hand"));
    if (!hand || !hand.children.length) return;
    const card = hand.children[0].getBoundingClientRect().width || 70;
    const n = hand.children.length;
    const room = hand.clientWidth - 8;
    const step = n > 1 ? Math.min(card + 6, (room - card) / (n - 1)) : card;
    hand.style.setProperty("--overlap", `${Math.min(6, step - card).toFixed(1)}px`);
  }

  const onResize = () => fitHand();
  window.addEventListener("resize", onResize);
  // A hidden page closes its stream: the server then knows nobody looks at the board and pushes "your
  // turn" at once; shown again, the stream resumes after its last row and the view is read again.
  const onVisibility = () => {
    if (!stream) return;
    if (document.visibilityState === "hidden") stream.pause();
    else if (navigator.onLine) stream.resume();
  };
  document.addEventListener("visibilitychange", onVisibility);
  onScreen(id);
  attempt(load);
  // Offline: the stream is closed at once (a connection the network dropped could otherwise look alive
  // until its stall timer) and the badge says so; online or visible again: the stream resumes after its
  // last row and the view is read again.
  const stopResync = onResync((online) => {
    if (!online) { if (stream) stream.pause(); streamState = "lost"; renderStreamState(); return; }
    if (stream && document.visibilityState === "visible") stream.resume();
    withBackoff(readView, () => !alive).catch(() => {});
  });
  const stop = onNotice((kind, data) => {
    if (kind === "round_started" && view && data.table === view.table && data.game && String(data.game) !== String(id)) {
      go(`#/game/${data.game}`);
    }
  });
  return () => {
    alive = false; clearInterval(tick); clearTimeout(jumpTimer); stop(); stopResync(); window.removeEventListener("resize", onResize);
    if (stream) stream.close();
    document.removeEventListener("visibilitychange", onVisibility); onScreen(null);
    for (const node of document.querySelectorAll(".flying, dialog.chooser")) node.remove();
  };
}
