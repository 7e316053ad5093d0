// The game screen: the caller's view of one round, kept current by the round's event stream.
//
// Only the view's legal_actions can be chosen: a card is playable when some play action leads
// with it; a lead with several ways (a jack's wish, the queen of hearts' target, a joker's name,
// an ace with its cover) asks which. Calls (Mau, Mau-Mau, Pik, Hermann) are buttons: one the
// rules already owe is said at once (a `say` action), else it is armed and rides on the next play.
// Each ledger row from the stream is added to the list of moves and the view is read again;
// a dropped stream resumes after the last row it delivered (Last-Event-ID).

import { get, openStream, post } from "./api.js";
import { cardName, suitName, suitSign, t } from "./i18n.js";
import { attempt, cardFace, cardsText, fill, h, section, toast } from "./ui.js";
import { onResync, withBackoff } from "./resync.js";

const WORDS = ["mau", "maumau", "pik", "hermann"];
const LOG_LENGTH = 12;

export function gameScreen(id, { go, onNotice, currentPlayer, scoreTable }) {
  let alive = true;
  let view = null;
  let table = null;
  let stream = null;
  let reading = null;
  let again = false;
  const rows = [];
  const armed = new Set();
  let streamState = "connecting";

  const root = h("div", { class: "game", id: "game", "data-game": id });
  main().replaceChildren(root);
  const tick = setInterval(updateClock, 250);

  function main() { return document.getElementById("main"); }
  const nameOf = (seat) => (view && view.players[seat] ? view.players[seat].name : `#${seat}`);

  // --- reading ------------------------------------------------------------------------------

  async function readView() {
    if (reading) { again = true; return reading; }
    // `reading` is cleared however the read ends: a read cut by the network must not leave every
    // later read waiting on its failure, with moves shown in the log and a board behind them.
    reading = (async () => {
      try {
        do {
          again = false;
          const fresh = await get(`games/${id}`);
          if (!view || fresh.version >= view.version || fresh.id !== view.id) view = fresh;
        } while (again);
      } finally {
        reading = null;
      }
      render();
    })();
    return reading;
  }

  async function readLedger() {
    let after = 0;
    for (;;) {
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
    await readView();
    const [tableRead, last, messages] = await Promise.all([
      get(`tables/${view.table}`).catch(() => null), readLedger(), optionalGet(`tables/${view.table}/messages`)]);
    table = tableRead;
    if (messages) chat = chatBox(Array.isArray(messages) ? messages : messages.results || []);
    if (!alive) return;
    render();
    stream = openStream(() => (chat ? `games/${id}/stream?messages_after=${chat.last}` : `games/${id}/stream`), {
      after: last,
      onEvent: (kind, data) => {
        if (kind === "message" && chat) {
          chat.add(data);
        } else if (kind === "move") {
          if (rows.some((row) => row.seq === data.seq)) return;
          rows.push(data);
          renderLog();
          attempt(readView);
        } else if (kind === "end") {
          attempt(readView);
        }
      },
      onState: (state) => { streamState = state; renderStreamState(); if (state === "open") attempt(readView); },
    });
  }

  // --- table chat (when the server has it) ---------------------------------------------------

  let chat = null;

  async function optionalGet(path) {
    try { return await get(path); } catch (exc) { return null; }
  }

  function chatBox(initial) {
    const list = h("ul", { class: "chat", id: "chat", "aria-live": "polite" });
    const input = h("input", { name: "text", maxlength: 500, required: true, autocomplete: "off", "aria-label": t("table.chat") });
    const seen = new Set();
    const box = {
      last: 0,
      add(message) {
        if (seen.has(message.id)) return;
        seen.add(message.id);
        box.last = Math.max(box.last, message.id);
        list.append(h("li", {}, h("strong", {}, message.player.name), ": ", message.text));
        while (list.children.length > 30) list.firstChild.remove();
      },
      node: section(t("table.chat"), list, h("form", { class: "chat-form", onsubmit: (event) => {
        event.preventDefault();
        const text = input.value.trim();
        if (!text) return;
        attempt(async () => { box.add(await post(`tables/${view.table}/messages`, { text })); input.value = ""; });
      } }, input, h("button", {}, t("table.say")))),
    };
    initial.forEach(box.add);
    return box;
  }

  // --- acting -------------------------------------------------------------------------------

  async function send(action) {
    const body = { ...action, expected_version: view.version };
    if (body.type === "play") {
      const words = (action.say || []).filter((word) => armed.has(word));
      if (words.length) body.say = words; else delete body.say;
    }
    const fresh = await attempt(() => post(`games/${id}/actions`, body));
    armed.clear();
    if (fresh) { view = fresh; render(); } else { await attempt(readView); }
  }

  function playsLeadingWith(card) {
    return view.legal_actions.filter((action) => action.type === "play" && action.cards[0] === card);
  }

  function describe(action) {
    const parts = [];
    if (action.cards.length > 1) parts.push(`${t("game.choose.with")} ${cardsText(action.cards.slice(1))}`);
    if (action.wish) parts.push(`${t("game.choose.wish")}: ${suitSign(action.wish)} ${suitName(action.wish)}`);
    if (action.target !== undefined) parts.push(`${t("game.choose.target")} ${nameOf(action.target)}`);
    return parts.join(" · ");
  }

  // The dialog for a lead card with more than one way to play it.
  function choose(card, options) {
    const dialog = h("dialog", { class: "chooser", "aria-labelledby": "chooser-title" });
    const close = () => { dialog.close(); dialog.remove(); };
    const rowsOut = options.map((option) => {
      const selects = {};
      // A joker's names to choose from come in `as_choices` (`as` holds the first).
      const jokerFields = Object.entries(option.as_choices || {}).map(([joker, names]) => {
        if (names.length === 1) return h("span", {}, `${t("game.choose.as")} ${cardName(names[0])}`);
        selects[joker] = h("select", { "aria-label": `${cardName(joker)}: ${t("game.choose.as")}` },
          names.map((name) => h("option", { value: name }, cardName(name))));
        return h("label", {}, `${t("game.choose.as")} `, selects[joker]);
      });
      const what = describe(option);
      return h("li", { class: "option" },
        what ? h("div", { class: "what" }, what) : null,
        h("div", { class: "how" }, jokerFields.length ? jokerFields : h("span", {}, cardName(card)), h("button", { type: "button", class: "primary", onclick: () => {
          const { as_choices: _choices, ...action } = option;
          if (option.as) {
            action.as = Object.fromEntries(Object.entries(option.as).map(([joker, name]) =>
              [joker, selects[joker] ? selects[joker].value : name]));
          }
          close();
          send(action);
        } }, t("game.play"))));
    });
    dialog.append(h("h2", { id: "chooser-title" }, t("game.choose", { card: cardName(card) })),
      h("ul", { class: "list" }, rowsOut),
      h("button", { type: "button", onclick: close }, t("game.cancel")));
    dialog.addEventListener("cancel", (event) => { event.preventDefault(); close(); });
    document.body.append(dialog);
    dialog.showModal();
  }

  let lastCard = null;  // the card last chosen, for focus after the chooser closed and the view changed

  function playCard(card) {
    lastCard = card;
    const options = playsLeadingWith(card);
    if (!options.length) { toast(`${cardName(card)}: ${t("game.unplayable")}`); return; }
    const simple = options.length === 1 && !Object.values(options[0].as || {}).some((names) => Array.isArray(names) && names.length > 1)
      && options[0].wish === undefined && options[0].target === undefined && options[0].cards.length === 1;
    if (simple) {
      const action = { ...options[0] };
      if (action.as) action.as = Object.fromEntries(Object.entries(action.as).map(([k, v]) => [k, Array.isArray(v) ? v[0] : v]));
      send(action);
    } else {
      choose(card, options);
    }
  }

  // --- words --------------------------------------------------------------------------------

  function describeEvent(event) {
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
    const badge = root.querySelector("#stream-state");
    if (!badge) return;
    badge.dataset.state = streamState;
    markInteractive();
    badge.textContent = streamState === "lost" ? t("game.stream.lost") : streamState === "open" ? t("game.stream.open") : "";
  }

  function renderLog() {
    const list = root.querySelector("#moves");
    if (!list) return;
    const shown = rows.slice(-LOG_LENGTH).reverse().map((row) => [row, describeRow(row)]).filter(([, text]) => text);
    fill(list, ...shown.map(([row, text]) => h("li", { "data-seq": row.seq }, text)));
    list.dataset.last = rows.length ? rows[rows.length - 1].seq : 0;
  }

  function duration(seconds) {
    if (seconds < 60) return String(seconds);
    const parts = [Math.floor(seconds / 3600), Math.floor(seconds / 60) % 60, seconds % 60];
    const shown = parts[0] ? parts : parts.slice(1);
    return shown.map((part, index) => (index ? String(part).padStart(2, "0") : String(part))).join(":");
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

  function seatLine(player) {
    const turn = view.status === "active" && player.seat === view.turn;
    const online = "online" in player ? player.online : null;
    return h("li", { class: `seat${turn ? " turn" : ""}${player.seat === view.seat ? " me" : ""}`, "data-seat": player.seat,
      "aria-current": turn ? "true" : null },
    h("span", { class: "name" }, player.name),
    h("span", { class: "count", "data-count": player.card_count },
      player.card_count === 1 ? t("game.card") : t("game.cards", { n: player.card_count })),
    player.bot || player.bot_controlled ? h("span", { class: "badge" }, t("game.bot")) : null,
    online === null ? null : h("span", { class: `presence ${online ? "on" : "off"}` }, online ? t("game.online") : t("game.offline")),
    player.owes && player.owes.length ? h("span", { class: "badge warn" }, t("game.owes")) : null);
  }

  function callButtons() {
    const options = (table && table.options) || {};
    const enabled = {
      mau: options.announcements, maumau: options.announcements, pik: options.pik_call, hermann: options.king_of_diamonds_hermann,
    };
    const words = WORDS.filter((word) => enabled[word]);
    if (!words.length || view.seat === null || view.seat === undefined) return null;
    const sayable = new Set(view.legal_actions.filter((a) => a.type === "say").map((a) => a.word));
    const riding = new Set(view.legal_actions.flatMap((a) => (a.type === "play" ? a.say || [] : [])));
    return h("div", { class: "calls", role: "group", "aria-label": t("game.calls") }, words.map((word) => {
      const now = sayable.has(word);
      return h("button", { type: "button", class: `call${armed.has(word) ? " armed" : ""}`, "data-word": word,
        "aria-pressed": now ? null : String(armed.has(word)), disabled: !now && !riding.has(word),
        onclick: () => {
          if (now) { send({ type: "say", word }); return; }
          if (armed.has(word)) armed.delete(word); else armed.add(word);
          render();
        } }, t(`word.${word}`));
    }));
  }

  function resultPanel() {
    const result = view.result;
    if (!result) return null;
    const host = table && currentPlayer() && table.host.id === currentPlayer().id;
    return section(t("game.over"),
      h("p", { class: "winner" }, result.winner === null || result.winner === undefined
        ? t("game.nowinner") : t("game.winner", { name: nameOf(result.winner) })),
      h("div", { class: "scroll" }, h("table", { class: "scores", id: "result" },
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("game.rank")), h("th", { scope: "col" }, t("score.player")),
          h("th", { scope: "col" }, t("game.left")), h("th", { scope: "col" }, t("score.points")))),
        h("tbody", {}, result.players.map((row) => h("tr", {}, h("td", {}, row.rank), h("td", {}, row.name || nameOf(row.seat)),
          h("td", {}, row.cards_left), h("td", {}, row.points ?? row.raw_points ?? "")))))),
      h("div", { class: "actions" },
        host ? h("button", { type: "button", class: "primary", id: "next-round", onclick: () => attempt(async () => {
          const game = await post(`tables/${view.table}/rounds`, {});
          go(`#/game/${game.id}`);
        }) }, t("table.next")) : null,
        h("a", { class: "button", href: `#/table/${view.table}` }, t("game.back")),
        h("a", { class: "button", href: "#/lobby" }, t("game.lobby"))));
  }

  function render() {
    if (!alive || !view) return;
    const seated = view.seat !== null && view.seat !== undefined;
    const yours = view.status === "active" && seated && view.turn === view.seat;
    const leads = new Set(view.legal_actions.filter((a) => a.type === "play").map((a) => a.cards[0]));
    const simple = (type) => view.legal_actions.find((a) => a.type === type);
    const active = document.activeElement;
    const focused = (active && active.dataset && active.dataset.card)
      || (lastCard && (!active || active === document.body) ? lastCard : null);
    lastCard = null;
    const typing = chat && chat.node.contains(document.activeElement) ? document.activeElement : null;

    const top = view.top_card ? cardFace(view.top_joker || view.top_card, view.top_joker ? view.top_card : null, { id: "top-card" }) : null;
    const hand = (view.hand || []).map((card) => {
      const playable = leads.has(card);
      return h("button", { type: "button", class: `hand-card${playable ? " playable" : " unplayable"}${card === view.drawn_card ? " drawn" : ""}`,
        "data-card": card, "aria-disabled": playable ? null : "true",
        title: playable ? cardName(card) : `${cardName(card)}: ${t("game.unplayable")}`,
        onclick: () => playCard(card) }, cardFace(card));
    });

    fill(root,
      h("div", { class: "game-head" },
        h("h1", {}, t("game.title", { number: view.number, table: view.table })),
        view.practice ? h("span", { class: "badge" }, t("game.practice")) : null,
        h("span", { id: "stream-state", class: "stream", role: "status" })),
      h("ol", { class: "seats", id: "seats", "aria-label": t("table.seats") }, view.players.map(seatLine)),
      h("div", { class: "felt" },
        h("div", { class: "pile" }, h("span", { class: "label" }, t("game.top")), top),
        h("div", { class: "facts" },
          h("div", { id: "stock" }, `${t("game.stock")}: `, h("strong", {}, view.stock_count)),
          view.wish ? h("div", { id: "wish", class: "wish" }, `${t("game.wish")}: `,
            h("strong", { class: "HD".includes(view.wish) ? "red" : "" }, `${suitSign(view.wish)} ${suitName(view.wish)}`)) : null,
          view.pending_draw ? h("div", { id: "pending", class: "pending" }, t("game.pending", { n: view.pending_draw })) : null,
          view.hermann ? h("div", { class: "pending" }, t("game.hermann")) : null,
          h("div", {}, `${t("game.direction")}: `, view.direction === 1 ? "↻" : "↺"),
          h("div", { id: "deadline", class: "deadline", "aria-live": "off" }))),
      resultPanel(),
      view.status === "active" ? h("p", { id: "turn", class: `turn-line${yours ? " yours" : ""}`, role: "status" },
        !seated ? t("game.spectator") : yours ? t("game.turn.you") : t("game.turn.other", { name: nameOf(view.turn) })) : null,
      seated ? h("section", { class: "hand-box", "aria-label": t("game.hand") },
        h("h2", { class: "sr-only" }, t("game.hand")),
        h("div", { class: "hand", id: "hand" }, hand),
        view.drawn_card ? h("p", { class: "muted" }, t("game.drawn", { card: cardName(view.drawn_card) })) : null,
        view.status !== "active" ? null : h("div", { class: "actions" },
          simple("draw") ? h("button", { type: "button", id: "draw", onclick: () => send({ type: "draw" }) }, t("game.draw")) : null,
          simple("pass") ? h("button", { type: "button", id: "pass", onclick: () => send({ type: "pass" }) }, t("game.pass")) : null,
          callButtons(),
          simple("resign") ? h("button", { type: "button", class: "quiet", onclick: () => send({ type: "resign" }) }, t("game.resign")) : null))
        : null,
      section(t("game.moves"), h("ol", { class: "moves", id: "moves", reversed: true })),
      chat ? chat.node : null,
    );
    renderLog();
    renderStreamState();
    updateClock();
    document.title = yours ? `● ${t("game.turn.you")} · Mau-Mau` : "Mau-Mau";  // seen on a background tab
    root.dataset.version = view.version;
    root.dataset.status = view.status;
    if (typing) typing.focus();
    if (focused) {
      // Keyboard play: focus stays on the card, or moves to the next choice when that card was laid.
      const again = root.querySelector(`.hand-card[data-card="${focused}"]`)
        || root.querySelector(".hand-card.playable, #draw, #pass, .hand-card");
      if (again) again.focus();
    }
  }

  attempt(load);
  // Offline: the badge says the connection is down; online or visible again: the view is read again.
  const stopResync = onResync((online) => {
    if (!online) { streamState = "lost"; renderStreamState(); return; }
    withBackoff(readView, () => !alive).catch(() => {});
  });
  const stop = onNotice((kind, data) => {
    if (kind === "round_started" && view && data.table === view.table && data.game && String(data.game) !== String(id)) {
      go(`#/game/${data.game}`);
    }
  });
  return () => { alive = false; clearInterval(tick); stop(); stopResync(); if (stream) stream.close(); document.title = "Mau-Mau"; };
}

