// @ts-check
// The client's shell: the router (#/lobby, #/table/1, #/game/1, #/league/1, #/ratings), sign-up and
// log-in, the lobby, a table with its scoreboard, league standings. The game screen is game.js.

import { ApiError, del, forgetSaved, get, onSaved, openStream, post, setLanguage, setToken, token } from "./api.js";
import { lang, setLang, t } from "./i18n.js";
import { attempt, field, fill, h, section, toast } from "./ui.js";
import { gameScreen } from "./game.js";
import { leagueScreen, leaguesScreen } from "./league.js";
import { replayScreen } from "./replay.js";
import { installApp, settingsScreen } from "./notify.js";
import { onResync, savedAt, withBackoff } from "./resync.js";
import { forgetTurns, noticed, turnsAre } from "./turns.js";

/** @typedef {import("maumau-schema").components["schemas"]} Schemas */
/** @typedef {(kind: string, data: Schemas["Notification"]) => void} NoticeListener */
/**
 * A screen by the hash's first part: (id, the rest of the path, the raw id) -> a cleanup function.
 * @typedef {(id: string | null, rest: string[], name?: string) => ((() => void) | null | "")} Route
 */

const main = /** @type {HTMLElement} */ (document.getElementById("main"));
// The links in the bar, in order (a screen added elsewhere adds its link here and its route to ROUTES).
export const NAV = [["#/lobby", "nav.lobby"], ["#/leagues", "nav.leagues"], ["#/history", "nav.history"], ["#/ratings", "nav.ratings"],
  ["#/settings", "settings.nav"]];
let cleanup = () => {};
/** @type {Schemas["Me"] | null} */
let me = null;
/** @type {ReturnType<typeof openStream> | null} */
let notices = null;
/** @type {Set<NoticeListener>} */
const noticeListeners = new Set();

/** @param {string} hash */
export function go(hash) {
  if (location.hash === hash) route();
  else location.hash = hash;
}

/** @param {NoticeListener} listener */
export function onNotice(listener) {
  noticeListeners.add(listener);
  return () => noticeListeners.delete(listener);
}

// The caller's notifications (your turn, round started, player joined ...) over one stream.
function listen() {
  if (notices || !token()) return;
  notices = openStream("me/stream", {
    onEvent: (kind, data) => {
      const notice = /** @type {Schemas["Notification"]} */ (data);  // every frame of me/stream is one
      noticed(kind, notice);
      for (const listener of [...noticeListeners]) listener(kind, notice);
    },
  });
  myGames().then(({ games }) => turnsAre(games.filter(myTurn).map(({ view }) => [view.id, view.table]))).catch(() => {});
}

function stopListening() {
  if (notices) notices.close();
  notices = null;
}

async function whoAmI() {
  if (!token()) return null;
  try {
    me = await get("me");
    localStorage.setItem("maumau.me", JSON.stringify(me));
  } catch (exc) {
    if (exc instanceof ApiError && exc.status === 401) { setToken(null); me = null; localStorage.removeItem("maumau.me"); }
    // No answer, or any failure while the browser says it is offline: the player saved at the last answer.
    else if (((exc instanceof ApiError && exc.status === 0) || !navigator.onLine) && localStorage.getItem("maumau.me")) {
      me = JSON.parse(localStorage.getItem("maumau.me") || "null");
    } else throw exc;
  }
  return me;
}

export function currentPlayer() { return me; }

function renderNav() {
  const nav = document.getElementById("nav");
  if (!nav) return;
  fill(nav);
  if (!me) return;
  nav.append(
    ...NAV.map(([hash, key]) => h("a", { href: hash }, t(key))),
    h("span", { class: "who" }, me.name),
    h("button", { class: "link", type: "button", onclick: logout }, t("nav.logout")),
  );
}

async function logout() {
  await attempt(() => post("auth/logout", undefined).catch((exc) => { if (exc.status !== 401) throw exc; }));
  setToken(null);
  me = null;
  stopListening();
  forgetSaved();  // what was kept for offline use is this player's
  forgetTurns();
  go("#/");
}

/** @param {string} newToken */
async function signedIn(newToken) {
  forgetSaved();
  setToken(newToken);
  await whoAmI();
  listen();
  go(/^#\/(join\/|league\/\d+\/join\/)/.test(location.hash) ? location.hash : "#/lobby");  // an invitation is kept
}

// --- sign up / log in --------------------------------------------------------------------------

function authScreen() {
  const guestName = h("input", { name: "name", required: true, maxlength: 40, autocomplete: "nickname" });
  const guest = h("form", { class: "stack", onsubmit: (/** @type {SubmitEvent} */ event) => {
    event.preventDefault();
    attempt(async () => {
      /** @type {Schemas["PlayerCreated"]} */
      const created = await post("players", { name: guestName.value.trim() });
      await signedIn(created.token);
    });
  } }, field(t("auth.name"), guestName), h("button", { class: "primary" }, t("auth.guest.go")));

  const account = (/** @type {boolean} */ login) => {
    const username = h("input", { name: "username", required: true, autocomplete: "username" });
    const password = h("input", { name: "password", type: "password", required: true,
      autocomplete: login ? "current-password" : "new-password" });
    return h("form", { class: "stack", onsubmit: (/** @type {SubmitEvent} */ event) => {
      event.preventDefault();
      attempt(async () => {
        const body = { username: username.value.trim(), password: password.value, device: t("auth.device") };
        /** @type {Schemas["LoginResult"] | Schemas["AccountCreated"]} */
        const answer = await post(login ? "auth/login" : "accounts", body);
        await signedIn(answer.token);
      });
    } }, field(t("auth.username"), username), field(t("auth.password"), password),
    h("button", {}, login ? t("auth.login.go") : t("auth.signup.go")));
  };

  const invited = /^#\/join\/(\d{1,18})\//.exec(location.hash);
  fill(main, h("h1", {}, t("auth.title")),
    invited ? h("p", { class: "invited", id: "invited" }, t("invite.signin", { id: invited[1] })) : null,
    h("div", { class: "columns" },
    section(t("auth.guest"), guest), section(t("auth.login"), account(true)), section(t("auth.signup"), account(false))));
  guestName.focus();
  return () => {};
}

// --- lobby -------------------------------------------------------------------------------------

/** @type {Schemas["Rules"][]} */
const RULES = ["classic", "tavern", "house"];
/** @param {string | undefined} name @returns {name is Schemas["Rules"]} */
const isRules = (name) => /** @type {(string | undefined)[]} */ (RULES).includes(name);

/** @param {Schemas["Table"] | Schemas["MyTable"]} table @param {...Parameters<typeof fill>[1]} actions */
function tableLine(table, ...actions) {
  const names = ("seats" in table ? table.seats : []).map((seat) => seat.player.name).join(", ");
  return h("li", { class: "row" },
    h("span", { class: "grow" }, h("strong", {}, t(`rules.${table.rules}`)), ` · ${t("table.title", { id: table.id })}`,
      names ? h("span", { class: "muted" }, ` · ${names}`) : null),
    ...actions);
}

/** @param {{view: Schemas["GameView"]}} game */
const myTurn = ({ view }) => view.seat !== null && view.seat !== undefined && view.turn === view.seat;

async function myGames() {
  const tables = (me && me.tables) || [];
  const running = tables.filter((table) => table.current_game);
  /** @type {(Schemas["GameView"] | null)[]} */
  const views = await Promise.all(running.slice(0, 20).map((table) =>
    get(`games/${table.current_game}`).catch(() => null)));
  const games = views.flatMap((view, index) => (view && view.status === "active" ? [{ table: running[index], view }] : []));
  games.sort((a, b) => Number(myTurn(b)) - Number(myTurn(a)));
  return { games, waiting: tables.filter((table) => !table.current_game || !games.some((g) => g.table.id === table.id)) };
}

// The lobby's parts from issue 14 (quick play, challenges) appear when the server has them.
/** @param {string} path @returns {Promise<any>}  what `get` answers (the caller names its type), or null */
async function optional(path) {
  try {
    return await get(path);
  } catch (exc) {
    if (exc instanceof ApiError && (exc.status === 404 || exc.status === 405)) return null;
    throw exc;
  }
}

function rulesSelect(name = "rules") {
  return h("select", { name, "aria-label": t("lobby.rules") }, RULES.map((rules) => h("option", { value: rules }, t(`rules.${rules}`))));
}

// A person's time controls (the 5 s house default is for bots and tests) and the bots that fill
// the seats nobody took after BOTS_AFTER seconds; both remembered.
/** @type {[number, string][]} */
const CLOCKS = [[20, "clock.20s"], [60, "clock.1m"], [86400, "clock.1d"]];
const BOTS_AFTER = 20;
const CLOCK_KEY = "maumau.clock";
const BOTS_KEY = "maumau.bots";

function chosenClock() {
  const stored = Number(localStorage.getItem(CLOCK_KEY));
  return CLOCKS.some(([seconds]) => seconds === stored) ? stored : 60;
}

function clockPicker() {
  const group = h("div", { class: "segmented", role: "radiogroup", "aria-label": t("lobby.clock"), id: "clock" },
    CLOCKS.map(([seconds, key]) => h("label", {},
      h("input", { type: "radio", name: "clock", value: seconds, checked: seconds === chosenClock(),
        onchange: () => localStorage.setItem(CLOCK_KEY, String(seconds)) }), h("span", {}, t(key)))));
  return group;
}

/** @param {Schemas["Seek"][]} seeks @param {() => Promise<void>} refresh */
function playNow(seeks, refresh) {
  const self = me;
  const mine = seeks.filter((seek) => self && seek.player.id === self.id && seek.status === "open");
  const players = h("select", { name: "players", "aria-label": t("lobby.players") },
    [2, 3, 4].map((n) => h("option", { value: n }, t("lobby.players.n", { n }))));
  const bots = h("input", { type: "checkbox", name: "bots", checked: localStorage.getItem(BOTS_KEY) !== "off",
    onchange: () => localStorage.setItem(BOTS_KEY, bots.checked ? "on" : "off") });
  const start = (/** @type {Schemas["Rules"]} */ rules) => attempt(async () => {
    /** @type {Schemas["SeekCreateRequest"]} */
    const body = { rules, players: Number(players.value), turn_seconds: chosenClock() };
    if (bots.checked) body.fill_with_bots_after = BOTS_AFTER;
    /** @type {Schemas["Seek"]} */
    const seek = await post("seeks", body);
    if (seek.game) go(`#/game/${seek.game}`); else await refresh();
  });
  const waiting = mine.map((seek) => h("li", { class: "row" },
    h("span", { class: "grow" }, `${t(`rules.${seek.rules}`)} · ${seek.players} · ${t("lobby.seeking")}`,
      seek.fill_with_bots_after !== null ? h("span", { class: "muted" }, ` · ${t("lobby.bots.soon", { s: seek.fill_with_bots_after })}`) : null),
    h("button", { type: "button", onclick: () => attempt(async () => { await del(`seeks/${seek.id}`); await refresh(); }) },
      t("lobby.cancel"))));
  const others = seeks.filter((seek) => !(self && seek.player.id === self.id) && seek.status === "open");
  return h("section", { class: "panel play-now", id: "quick-play" }, h("h2", {}, t("lobby.quick")),
    h("div", { class: "choices" }, clockPicker(), players,
      h("label", { class: "check" }, bots, ` ${t("lobby.quick.bots", { s: BOTS_AFTER })}`)),
    h("div", { class: "play-buttons" }, RULES.map((rules) => h("button", { type: "button", class: "primary play", "data-rules": rules,
      onclick: () => start(rules) }, h("span", {}, t("lobby.quick.go")), h("strong", {}, t(`rules.${rules}`))))),
    h("ul", { class: "list", id: "seeks" }, waiting,
      others.map((seek) => h("li", { class: "row" },
        h("span", { class: "grow" }, `${seek.player.name} · ${t(`rules.${seek.rules}`)} · ${seek.players}`)))));
}

/** @param {Schemas["Challenge"][]} list @param {() => Promise<void>} refresh */
function challenges(list, refresh) {
  const to = h("input", { name: "to", required: true, autocomplete: "off", maxlength: 30, "aria-label": t("lobby.challenge.to"),
    placeholder: t("lobby.challenge.to") });
  const rules = rulesSelect();
  const form = h("form", { class: "inline", id: "challenge", onsubmit: (/** @type {SubmitEvent} */ event) => {
    event.preventDefault();
    attempt(async () => {
      const names = to.value.split(/[ ,]+/).filter(Boolean);
      await post("challenges", { to_usernames: names, rules: rules.value, options: { turn_seconds: chosenClock() } });
      to.value = "";
      await refresh();
    });
  } }, to, rules, h("button", {}, t("lobby.challenge.go")));
  const link = h("button", { type: "button", id: "invite-link", onclick: () => attempt(async () => {
    /** @type {Schemas["Table"]} */
    const table = await post("tables", { rules: rules.value, max_players: 2, visibility: "private", options: { turn_seconds: chosenClock() } });
    go(`#/table/${table.id}`);
  }) }, t("lobby.challenge.link"));
  const self = me;
  const rows = list.filter((c) => c.status === "open" || c.game).map((c) => {
    const received = self && c.from.id !== self.id;
    const mineAnswer = received && c.to.find((invitee) => invitee.player.id === self.id)?.answer;
    const who = received ? `${t("lobby.from")} ${c.from.name}` : `${t("lobby.to")} ${c.to.map((i) => i.player.name).join(", ")}`;
    return h("li", { class: "row" }, h("span", { class: "grow" }, `${t(`rules.${c.rules}`)} · ${who}`),
      c.game ? h("a", { class: "button", href: `#/game/${c.game}` }, t("table.game")) : null,
      !c.game && received && mineAnswer === "pending" ? [
        h("button", { type: "button", class: "primary", onclick: () => attempt(async () => {
          /** @type {Schemas["Challenge"] | null} */
          const answer = await post(`challenges/${c.id}/accept`, {});
          if (answer && answer.game) go(`#/game/${answer.game}`); else await refresh();
        }) }, t("lobby.accept")),
        h("button", { type: "button", onclick: () => attempt(async () => { await post(`challenges/${c.id}/decline`, {}); await refresh(); }) },
          t("lobby.decline"))] : null,
      !c.game && !received ? h("button", { type: "button", onclick: () => attempt(async () => {
        await del(`challenges/${c.id}`); await refresh();
      }) }, t("lobby.cancel")) : null);
  });
  return section(t("lobby.challenges"), h("ul", { class: "list", id: "challenges" }, rows), form,
    h("p", { class: "actions" }, link, h("span", { class: "muted" }, t("lobby.challenge.linkhelp"))));
}

function lobbyScreen() {
  let alive = true;
  const mineList = h("ul", { class: "list", id: "my-games" });
  const openList = h("ul", { class: "list", id: "open-tables" });
  const watchList = h("ul", { class: "list", id: "running-tables" });
  // Every panel is there from the first paint, filled when the answers come: nothing below them jumps
  // down when they arrive (the lobby's layout shift).
  // The caller's tables are known already (GET me): a line each until their rounds are read.
  const known = ((me && me.tables) || []).filter((table) => table.status !== "closed");
  if (known.length) {
    mineList.append(...known.map((table) => tableLine(table, h("a", { class: "button", href: `#/table/${table.id}` }, t("lobby.open_table")))));
  } else mineList.append(h("li", { class: "muted placeholder" }, "…"));
  openList.append(h("li", { class: "muted" }, "…"));
  const quickSlot = h("div", { class: "slot" }, playNow([], () => refresh()));
  const challengeSlot = h("div", { class: "slot" }, challenges([], () => refresh()));
  const watchSection = section(t("lobby.running"), watchList);
  watchSection.hidden = true;
  const savedNote = h("p", { class: "muted saved-at", id: "saved-at", hidden: true });
  // Offline, the reads answer from what was kept: the oldest answer's time is shown ("as of").
  /** @type {number | null} */
  let oldest = null;
  const stopSaved = onSaved((at) => { oldest = oldest === null ? at : Math.min(oldest, at); });
  // Offline, a part never read before stays empty instead of failing the whole lobby.
  /**
   * @template T, F
   * @param {Promise<T>} promise
   * @param {F} fallback
   * @returns {Promise<T | F>}
   */
  const soft = (promise, fallback) => promise.catch((exc) => {
    if (exc instanceof ApiError && exc.status === 0) return fallback;
    throw exc;
  });

  async function refresh() {
    oldest = null;
    await whoAmI();
    renderNav();
    /** @type {[Awaited<ReturnType<typeof myGames>>, Schemas["Table"][], Schemas["Table"][], Schemas["Seek"][] | null, Schemas["Challenge"][] | null]} */
    const [{ games, waiting }, open, playing, seeks, received] = await Promise.all([
      myGames(), soft(get("tables?status=open"), []), soft(get("tables?status=playing"), []),
      soft(optional("seeks"), null), soft(optional("challenges"), null)]);
    if (!alive) return;
    turnsAre(games.filter(myTurn).map(({ view }) => [view.id, view.table]));
    savedNote.hidden = oldest === null;
    const asOf = oldest;
    fill(savedNote, asOf === null ? null : t("offline.asof", { time: new Date(asOf).toLocaleString(lang(), { dateStyle: "short", timeStyle: "short" }) }));
    fill(mineList,
      ...games.map(({ table, view }) => {
        const yours = view.turn === view.seat;
        return h("li", { class: `row${yours ? " yours" : ""}` },
          h("span", { class: "grow" }, h("strong", {}, t(`rules.${table.rules}`)), ` · ${t("table.title", { id: table.id })}`),
          h("span", { class: yours ? "badge turn" : "badge" }, yours ? t("lobby.yourturn") : t("lobby.waiting")),
          h("a", { class: "button", href: `#/game/${view.id}` }, t("table.game")));
      }),
      ...waiting.filter((table) => table.status !== "closed").map((table) =>
        tableLine(table, h("a", { class: "button", href: `#/table/${table.id}` }, t("lobby.open_table")))),
    );
    if (!mineList.children.length) mineList.append(h("li", { class: "muted" }, t("lobby.none")));
    const seated = new Set(((me && me.tables) || []).map((table) => table.id));
    // A full table is not offered: its Join would only answer that it is full.
    fill(openList, ...open.filter((table) => !seated.has(table.id) && table.free_seats > 0).map((table) => tableLine(table,
      h("span", { class: "muted" }, t("table.free.n", { n: table.free_seats })),
      h("button", { type: "button", onclick: () => attempt(async () => {
        await post(`tables/${table.id}/join`, {});
        go(`#/table/${table.id}`);
      }) }, t("lobby.join")))));
    if (!openList.children.length) openList.append(h("li", { class: "muted" }, t("lobby.noopen")));
    const watchable = playing.filter((table) => !seated.has(table.id) && table.current_game
      && (table.spectators === undefined || table.spectators === "anyone"));
    watchSection.hidden = !watchable.length;
    fill(watchList, watchable.slice(0, 20).map((table) => tableLine(table,
      h("a", { class: "button", href: `#/game/${table.current_game}` }, t("lobby.spectate")))));
    fill(quickSlot, seeks ? playNow(seeks, refresh) : null);
    // A challenge being typed survives the panel drawn again (the first answer comes while it may be).
    const typed = /** @type {HTMLInputElement | null} */ (challengeSlot.querySelector("#challenge input[name=to]"));
    const typing = typed && typed.value ? { value: typed.value, focused: document.activeElement === typed } : null;
    fill(challengeSlot, received ? challenges(received, refresh) : null);
    const again = typing && /** @type {HTMLInputElement | null} */ (challengeSlot.querySelector("#challenge input[name=to]"));
    if (again) { again.value = typing.value; if (typing.focused) again.focus(); }
  }

  const rules = rulesSelect();
  const seats = h("input", { name: "max_players", type: "number", min: 2, max: 8, value: 4, required: true });
  const turn = h("select", { name: "turn_seconds" }, [...CLOCKS, /** @type {[number, string]} */ ([0, "clock.none"])].map(([seconds, key]) =>
    h("option", { value: seconds, selected: seconds === chosenClock() }, t(key))));
  const create = h("form", { class: "stack", id: "create-table", onsubmit: (/** @type {SubmitEvent} */ event) => {
    event.preventDefault();
    attempt(async () => {
      const body = { rules: rules.value, max_players: Number(seats.value), options: { turn_seconds: Number(turn.value) } };
      /** @type {Schemas["Table"]} */
      const table = await post("tables", body);
      go(`#/table/${table.id}`);
    });
  } }, field(t("lobby.rules"), rules), field(t("lobby.players"), seats), field(t("lobby.turn"), turn),
  h("button", { class: "primary" }, t("lobby.create.go")));

  fill(main, h("h1", { class: "sr-only" }, t("nav.lobby")), h("div", { class: "lobby" },
    section(t("lobby.mine"), savedNote, mineList), quickSlot, challengeSlot, section(t("lobby.open"), openList),
    h("details", { class: "panel", id: "more" }, h("summary", {}, t("lobby.create")), create), watchSection));
  attempt(refresh);
  const stop = onNotice((kind, data) => {
    if (kind === "game_started" && data.game) { go(`#/game/${data.game}`); return; }
    attempt(refresh);
  });
  const onFocus = () => { if (document.visibilityState === "visible") attempt(refresh); };
  document.addEventListener("visibilitychange", onFocus);
  return () => { alive = false; stop(); stopSaved(); document.removeEventListener("visibilitychange", onFocus); };
}

// --- a table: seats, bots, rounds, scoreboard ---------------------------------------------------

// A scoreboard (a table's or a league's standings); `points: false` for a rule set that scores only wins.
/**
 * @param {Pick<Schemas["ScoreboardOutput"], "players" | "practice_rounds">} board  a standings' rows have more
 * @param {{points?: boolean}} [options]
 * @returns {HTMLElement}
 */
export function scoreTable(board, { points = true } = {}) {
  /** @type {(Schemas["ScoreboardLine"] & Partial<Pick<Schemas["StandingLine"], "lost" | "display_rating" | "rating_provisional">>)[]} */
  const players = board.players;
  const rated = players.some((row) => row.display_rating !== undefined);
  const self = me;
  const rows = players.map((row) => h("tr", { class: self && row.player.id === self.id ? "yours" : null },
    h("td", {}, row.position), h("td", {}, row.player.name, row.player.bot ? h("span", { class: "badge" }, t("game.bot")) : null,
      row.lost ? h("span", { class: "badge warn" }, t("league.lost")) : null),
    h("td", {}, row.rounds), h("td", {}, row.wins), points ? h("td", {}, row.points) : null,
    rated ? h("td", {}, row.display_rating ?? "—",
      row.display_rating !== null && row.rating_provisional ? h("span", { class: "badge" }, t("ratings.provisional")) : null) : null));
  return h("div", { class: "scroll" }, h("table", { class: "scores" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("score.position")), h("th", { scope: "col" }, t("score.player")),
      h("th", { scope: "col" }, t("score.rounds")), h("th", { scope: "col" }, t("score.wins")),
      points ? h("th", { scope: "col" }, t("score.points")) : null, rated ? h("th", { scope: "col" }, t("ratings.rating")) : null)),
    h("tbody", {}, rows)),
  board.practice_rounds ? h("p", { class: "muted" }, t("score.practice", { n: board.practice_rounds })) : null);
}

// The caller's finished rounds (newest first), each linked to its replay.
/**
 * @param {(line: Schemas["HistoryLine"]) => boolean} [filter]
 * @param {number} [limit]
 */
async function finishedRounds(filter = () => true, limit = 100) {
  /** @type {Pick<Schemas["HistoryOutput"], "results">} */
  const page = await get(`me/history?limit=${limit}`).catch(() => ({ results: [] }));
  return (page.results || []).filter(filter);
}

/** @param {Schemas["HistoryLine"][]} lines */
export function roundLinks(lines) {
  return h("ul", { class: "list rounds" }, lines.map((line) => h("li", { class: "row" },
    h("span", { class: "grow" }, `${t(`rules.${line.rules}`)} · ${t("table.title", { id: line.table })} · ${t("history.round", { n: line.round })}`,
      h("span", { class: "muted" }, ` · ${t("history.rank", { n: line.rank })}`)),
    h("a", { class: "button", href: `#/replay/${line.game}` }, t("replay.open")))));
}

function historyScreen() {
  const box = h("div", {}, h("p", { class: "muted" }, "…"));
  const ratings = h("section", { class: "panel", id: "my-ratings", "aria-labelledby": "my-ratings-title" },
    h("h2", { id: "my-ratings-title" }, t("ratings.yours")),
    h("ul", { class: "list" }, RULES.map((rules) => h("li", { class: "row" }, h("span", { class: "grow" }, t(`rules.${rules}`)), "…"))));
  fill(main, h("h1", {}, t("nav.history")), ratings, box);
  attempt(async () => {
    const [lines, mine] = await Promise.all([finishedRounds(), myRatings()]);
    const list = ratings.querySelector("ul");
    if (mine && list) {
      fill(list, RULES.map((rules) => {
        const rating = mine.ratings[rules];
        return h("li", { class: "row", "data-rules": rules },
          h("a", { class: "grow", href: `#/ratings/${rules}` }, t(`rules.${rules}`)),
          h("strong", {}, ratingText(rating.display_rating, rating.provisional)),
          h("span", { class: "muted" }, rating.rounds ? t(rating.rounds === 1 ? "ratings.you.one" : "ratings.you.line", { rating: "", n: rating.rounds }).trim()
            : t("ratings.unrated")));
      }));
    }
    fill(box, lines.length ? roundLinks(lines) : h("p", { class: "muted" }, t("history.none")));
  });
  return () => {};
}

// An invitation link (#/join/{id}/{code}) opened by someone without a seat: the table, its host and
// seats, and one button to take a seat; a wrong code, a full or a closed table said in words.
/**
 * @param {string} id
 * @param {string} code
 * @param {Schemas["Table"]} table
 * @param {() => Promise<void>} refresh
 */
function invitation(id, code, table, refresh) {
  const seats = h("ul", { class: "list", id: "invite-seats" }, table.seats.filter((seat) => !seat.left).map((seat) => h("li", { class: "row" },
    h("span", { class: "grow" }, seat.player.name),
    seat.player.bot ? h("span", { class: "badge" }, t("game.bot")) : null,
    seat.player.id === table.host.id ? h("span", { class: "badge" }, t("table.host")) : null)),
  Array.from({ length: table.free_seats || 0 }, () => h("li", { class: "muted" }, t("table.free"))));
  const closed = table.status === "closed";
  const full = !closed && !(table.free_seats > 0);
  const take = h("button", { type: "button", class: "primary", id: "take-seat", onclick: () => attempt(async () => {
    take.disabled = true;
    try {
      await post(`tables/${id}/join`, code ? { invite_code: code } : {});
    } catch (exc) {
      take.disabled = false;
      if (exc instanceof ApiError && exc.status === 404) { inviteRefused(id); return; }
      if (exc instanceof ApiError && exc.status === 409) { await refresh(); return; }
      throw exc;
    }
    await whoAmI();
    go(`#/table/${id}`);
  }) }, t("table.join"));
  const clock = table.options && table.options.turn_seconds;
  const panel = section(t("invite.title"),
    h("p", { class: "lead" }, t("invite.from", { name: table.host.name, rules: t(`rules.${table.rules}`) })),
    clock ? h("p", { class: "muted" }, t("table.clock", { s: clock >= 86400 ? t("clock.1d") : clock >= 60 ? `${Math.round(clock / 60)} min` : `${clock} s` })) : null,
    h("h3", {}, t("table.seats")), seats,
    closed ? h("p", { class: "refusal", id: "invite-state" }, t("invite.closed"))
      : full ? h("p", { class: "refusal", id: "invite-state" }, t("invite.full"))
        : h("div", { class: "actions" }, take),
    closed || full ? h("p", {}, h("a", { class: "button", href: "#/lobby" }, t("invite.lobby"))) : null);
  panel.classList.add("invitation");
  return panel;
}

/** @param {string} id */
function inviteRefused(id) {
  const panel = section(t("invite.title"),
    h("p", { class: "refusal", id: "invite-state" }, t("invite.wrong")),
    h("p", {}, h("a", { class: "button", href: "#/lobby" }, t("invite.lobby"))));
  panel.classList.add("invitation");
  fill(main, h("h1", {}, t("table.title", { id })), panel);
}

/** @param {string} id @param {string | null} [code]  from an invitation link */
function tableScreen(id, code = null) {
  let alive = true;
  const box = h("div", { class: "columns" });
  fill(main, h("h1", {}, t("table.title", { id })), box);
  const query = code ? `?invite_code=${encodeURIComponent(code)}` : "";
  // What the seats were last drawn from. Every notice of the table reads it again, and a bot seated by
  // the host's own click comes back twice (the click's read and the notice's): drawing the same seats
  // again would replace the buttons under the host's next click, and that click would be lost.
  let drawn = "";

  async function refresh() {
    /** @type {Schemas["Table"]} */
    let table;
    try {
      table = await get(`tables/${id}${query}`);
    } catch (exc) {
      if (code && exc instanceof ApiError && exc.status === 404) { if (alive) inviteRefused(id); return; }
      throw exc;
    }
    if (!alive) return;
    const self = me;
    const seated = self && table.seats.some((seat) => seat.player.id === self.id && !seat.left);
    if (!seated && code) { drawn = ""; fill(box, invitation(id, code, table, refresh)); return; }
    /** @type {[Schemas["ScoreboardOutput"] | null, Schemas["HistoryLine"][]]} */
    const [board, rounds] = await Promise.all([get(`tables/${id}/scoreboard`).catch(() => null),
      finishedRounds((line) => line.table === Number(id), 50)]);
    if (!alive) return;
    const reading = JSON.stringify([table, board, rounds, self && self.id]);
    if (reading === drawn) return;
    drawn = reading;
    const host = me && table.host.id === me.id;
    const seats = h("ul", { class: "list" }, table.seats.map((seat) => h("li", { class: "row" },
      h("span", { class: "grow" }, seat.player.name),
      seat.player.bot ? h("span", { class: "badge" }, t("game.bot")) : null,
      seat.player.id === table.host.id ? h("span", { class: "badge" }, t("table.host")) : null)),
    Array.from({ length: table.free_seats || 0 }, () => h("li", { class: "muted" }, t("table.free"))));
    const actions = h("div", { class: "actions" });
    if (host && table.status !== "closed" && table.free_seats > 0 && !table.current_game) {
      for (const level of BOT_LEVELS) actions.append(botButton(id, level, refresh));
    }
    const running = table.current_game && table.status === "playing";
    if (running) {
      actions.append(h("a", { class: "button primary", href: `#/game/${table.current_game}` }, t("table.game")));
    } else if (host && table.seats.length >= 2) {
      actions.append(h("button", { class: "primary", type: "button", onclick: () => attempt(async () => {
        /** @type {Schemas["GameView"]} */
        const game = await post(`tables/${id}/rounds`, {});
        go(`#/game/${game.id}`);
      }) }, table.rounds_started ? t("table.next") : t("table.start")));
    } else if (host) {
      actions.append(h("p", { class: "muted", id: "table-state" }, t("table.waiting.players")));
    } else if (seated) {
      actions.append(h("p", { class: "muted", id: "table-state" }, t("table.waiting")));
    }
    if (!seated && table.status === "open" && table.free_seats > 0) {
      actions.append(h("button", { type: "button", class: "primary", onclick: () => attempt(async () => {
        await post(`tables/${id}/join`, code ? { invite_code: code } : {});
        await refresh();
      }) }, t("table.join")));
    }
    if (seated) {
      actions.append(h("button", { type: "button", class: "quiet", onclick: () => attempt(async () => {
        await post(`tables/${id}/leave`, {});
        go("#/lobby");
      }) }, t("table.leave")));
    }
    const link = table.invite_code && table.free_seats > 0
      ? `${location.origin}${location.pathname}#/join/${id}/${table.invite_code}` : null;
    const clock = table.options && table.options.turn_seconds;
    fill(box,
      section(`${t(`rules.${table.rules}`)} · ${t("table.seats")}`,
        clock ? h("p", { class: "muted" }, t("table.clock", { s: clock >= 86400 ? t("clock.1d") : clock >= 60 ? `${Math.round(clock / 60)} min` : `${clock} s` })) : null,
        seats, actions),
      link ? section(t("table.invite"), h("p", { class: "muted" }, t("table.invite.help")),
        h("div", { class: "inline" }, h("input", { readonly: true, value: link, id: "invite", "aria-label": t("table.invite") }),
          h("button", { type: "button", onclick: () => attempt(async () => {
            await navigator.clipboard.writeText(link); toast(t("table.copied"));
          }) }, t("table.copy")))) : null,
      board ? section(t("table.scoreboard"), scoreTable(board, { points: table.options.scoring !== "wins" })) : null,
      rounds.length ? section(t("table.rounds"), roundLinks(rounds)) : null,
      table.league ? h("p", {}, h("a", { href: `#/league/${table.league}` }, t("lobby.leagues"))) : null,
    );
  }

  attempt(refresh);
  const stop = onNotice((kind, data) => {
    if (data.table !== Number(id)) return;
    if ((kind === "round_started" || kind === "your_turn") && data.game && location.hash === `#/table/${id}`) {
      go(`#/game/${data.game}`);
    } else {
      attempt(refresh);
    }
  });
  return () => { alive = false; stop(); };
}

// --- the bots a host may seat --------------------------------------------------------------------

/** @typedef {"easy" | "medium" | "hard"} BotLevel */

/** The bot levels a host may seat, weakest first. @type {BotLevel[]} */
const BOT_LEVELS = ["easy", "medium", "hard"];

/**
 * Each level's measured strength on the ratings' scale, where a new player reads 1500: the ratings the
 * three levels settled at when played against each other in two-player tavern rounds, to the nearest
 * 50 (docs/benchmarks.md, "The bot levels": easy and medium lie within each other's noise there).
 * @type {Record<BotLevel, number>}
 */
const BOT_STRENGTH = { easy: 2000, medium: 2000, hard: 2200 };

/**
 * The host's button that seats a bot of `level`, its measured strength on a line under the label.
 * @param {string} id the table's id
 * @param {BotLevel} level
 * @param {() => Promise<void>} refresh redraws the table once the bot sits
 * @returns {HTMLElement}
 */
function botButton(id, level, refresh) {
  return h("button", { type: "button", class: "bot-level", "data-level": level, onclick: () => attempt(async () => {
    await post(`tables/${id}/bots`, { level });
    await refresh();
  }) }, h("span", {}, `${t("table.bot.add")}: ${t(`table.bot.${level}`)}`),
  h("small", { class: "muted" }, t("table.bot.strength", { r: BOT_STRENGTH[level] })));
}

// --- league standings and ratings ---------------------------------------------------------------

// A rating as the client shows it: the familiar number, marked provisional below `provisional_rounds`.
/** @param {number | string} value @param {boolean} provisional */
export function ratingText(value, provisional) {
  return [String(value), provisional ? h("span", { class: "badge" }, t("ratings.provisional")) : null];
}

// The caller's own ratings (GET players/{id}/ratings): one rule set's, or none when it cannot be read.
/** @returns {Promise<Schemas["PlayerRatingsOutput"] | null>} */
async function myRatings() {
  if (!me) return null;
  return optional(`players/${me.id}/ratings?history=0`).catch(() => null);
}

/** @param {Schemas["Rules"]} [rules] */
function ratingsScreen(rules = "classic") {
  let alive = true;
  let peopleOnly = localStorage.getItem("maumau.people_only") !== "false";
  const body = h("tbody", {});
  const more = h("button", { type: "button", hidden: true }, "…");
  const note = h("p", { class: "muted", id: "leaderboard-note" });
  const mine = h("div", { class: "panel", id: "my-rating", "aria-live": "polite" },
    h("h2", {}, t("ratings.you")), h("p", { class: "muted" }, "…"));
  const people = h("input", { type: "checkbox", checked: peopleOnly, onchange: () => {
    peopleOnly = people.checked;
    localStorage.setItem("maumau.people_only", String(peopleOnly));
    fill(body);
    attempt(() => page(null));
  } });
  const picker = h("div", { class: "tabs", role: "tablist" }, RULES.map((name) => h("a", {
    href: `#/ratings/${name}`, role: "tab", "aria-selected": String(name === rules) }, t(`rules.${name}`))));
  /** @type {Schemas["RuleSetRating"] | null} */
  let own = null;    // the caller's rating under these rules
  let listed = false;  // whether the caller's line is on the pages read so far

  /**
   * @param {{player: Pick<Schemas["PlayerRef"], "id" | "name">} & Pick<Schemas["LeaderboardLine"], "mu" | "sigma" | "display_rating" | "provisional" | "rounds">} row
   * @param {number | string} position
   */
  function line(row, position) {
    return h("tr", { class: me && row.player.id === me.id ? "yours" : null },
      h("td", {}, position), h("td", {}, row.player.name),
      h("td", { title: `μ ${row.mu.toFixed(1)} · σ ${row.sigma.toFixed(1)}` }, ratingText(row.display_rating, row.provisional)),
      h("td", {}, row.rounds));
  }

  // Not on the board (yet): the caller's own line below it, with the reason.
  /** @param {Schemas["LeaderboardOutput"]} answer */
  function ownLine(answer) {
    for (const node of body.querySelectorAll("tr.own")) node.remove();
    if (!own || listed || !me) return;
    const row = line({ player: { id: me.id, name: me.name }, mu: own.mu, sigma: own.sigma, display_rating: own.display_rating,
      provisional: own.provisional, rounds: own.rounds }, "—");
    row.classList.add("own");
    body.append(row);
    if (answer && own.rounds < answer.min_rounds) note.textContent = t("ratings.notyet", { min: answer.min_rounds, n: own.rounds });
  }

  /** @param {string | null} after */
  async function page(after) {
    const query = `people_only=${peopleOnly}${after ? `&after=${encodeURIComponent(after)}` : ""}`;
    /** @type {[Schemas["LeaderboardOutput"] | null, Schemas["PlayerRatingsOutput"] | null]} */
    const [answer, ratings] = await Promise.all([optional(`ratings/${rules}?${query}`), after ? null : myRatings()]);
    if (!alive) return;
    if (answer === null) { note.textContent = "—"; return; }
    if (ratings) {
      const rating = ratings.ratings[rules];
      own = rating;
      fill(mine, h("h2", {}, t("ratings.you")), h("p", { class: "big" }, ratingText(rating.display_rating, rating.provisional)),
        h("p", { class: "muted" }, rating.rounds ? t(rating.rounds === 1 ? "ratings.you.one" : "ratings.you.line", { rating: rating.display_rating, n: rating.rounds })
          : t("ratings.you.none")),
        rating.provisional ? h("p", { class: "muted" }, t("ratings.provisional.help", { n: ratings.provisional_rounds })) : null);
    }
    const rows = answer.results || [];
    const start = body.querySelectorAll("tr:not(.own)").length;
    if (!after) listed = false;
    listed = listed || rows.some((row) => me && row.player.id === me.id);
    for (const node of body.querySelectorAll("tr.own")) node.remove();
    body.append(...rows.map((row, index) => line(row, row.position || start + index + 1)));
    note.textContent = !start && !rows.length ? t("ratings.empty", { min: answer.min_rounds ?? 10 }) : "";
    ownLine(answer);
    more.hidden = !answer.next;
    more.onclick = () => attempt(() => page(answer.next));
  }

  fill(main, h("h1", {}, t("ratings.title")), picker, mine,
    h("label", { class: "check" }, people, ` ${t("ratings.people")}`),
    h("div", { class: "scroll" }, h("table", { class: "scores", id: "leaderboard" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("score.position")), h("th", { scope: "col" }, t("score.player")),
        h("th", { scope: "col" }, t("ratings.rating")), h("th", { scope: "col" }, t("score.rounds")))), body)),
    note, more);
  attempt(() => page(null));
  return () => { alive = false; };
}

// --- router ------------------------------------------------------------------------------------

// Every screen by the hash's first part: (id, rest of the path) -> a cleanup function. A screen
// added in its own module adds itself here (and its link to NAV).
/** @type {Record<string, Route>} */
export const ROUTES = {
  lobby: () => lobbyResynced(),
  table: (id) => id && tableScreen(id),
  join: (id, [code]) => id && tableScreen(id, code || null),
  game: (id) => id && gameScreen(id, { go, onNotice, currentPlayer, scoreTable }),
  replay: (id) => id && replayScreen(id),
  leagues: () => leaguesScreen(),
  league: (id, rest) => id && leagueScreen(id, rest, { scoreTable, me: currentPlayer, onNotice }),
  history: () => historyScreen(),
  ratings: (id, rest, name) => ratingsScreen(isRules(name) ? name : "classic"),
  settings: () => settingsScreen(),
};

// The lobby, read again when the browser is back online or the tab visible again (retried with
// backoff until the API answers).
function lobbyResynced() {
  const screenCleanup = lobbyScreen();
  let current = true;
  const stopResync = onResync((online) => {
    if (online) withBackoff(() => get("me"), () => !current).then(() => { if (current) route(); }).catch(() => {});
  });
  return () => { current = false; stopResync(); screenCleanup(); };
}

async function route() {
  cleanup();
  cleanup = () => {};
  const [screen, id, ...rest] = location.hash.replace(/^#\/?/, "").split("/");
  const number = /^\d{1,18}$/.test(id || "") ? id : null;
  if (!me && token()) {
    const asking = attempt(whoAmI);
    // The game screen needs only the token: it starts while the caller is read (a shorter way to the cards).
    if (screen === "game" && number) asking.then(() => { renderNav(); if (!token()) route(); });
    else await asking;
  }
  renderNav();
  if (!token() || (!me && !(screen === "game" && number))) {
    cleanup = authScreen();
    return;
  }
  listen();
  const open = ROUTES[screen];
  cleanup = (open && open(number, rest, id)) || lobbyResynced();
  main.focus({ preventScroll: true });
}

function start() {
  const picker = /** @type {HTMLSelectElement} */ (document.getElementById("lang"));
  picker.value = lang();
  document.documentElement.lang = lang();
  setLanguage(lang());
  picker.addEventListener("change", () => {
    setLang(picker.value);
    setLanguage(picker.value);
    route();
  });
  window.addEventListener("hashchange", route);
  onSaved((at) => savedAt(at));  // offline, any screen that shows saved answers: the header says as of when
  installApp();
  route().catch((exc) => toast(String(exc)));
}

start();
