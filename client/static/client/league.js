// @ts-check
// Leagues: the list (the caller's and the public ones), creating one, a league's page with its
// invitation link, seasons, standings, the race to the limit as an SVG chart, its rounds and the
// scoresheet, on which a scorekeeper records a round played with real cards at the pub (or corrects a
// recorded one with a new entry that names it). The sheet is read again when an answer, a notice or the
// tab coming back may have changed it, and while a round the caller is in waits for its confirmation.
//
// Reads: GET leagues (?mine=true), POST leagues, GET leagues/{id}, POST leagues/{id}/join,
// GET leagues/{id}/standings, GET leagues/{id}/seasons (/{n}/standings), POST leagues/{id}/seasons,
// GET leagues/{id}/race, GET leagues/{id}/rounds, POST leagues/{id}/rounds (with `corrects` too; /{rid}/confirm, /dispute),
// GET leagues/{id}/members, PATCH leagues/{id}/members/{player_id}.

import { ApiError, api, get, post } from "./api.js";
import { t } from "./i18n.js";
import { onResync } from "./resync.js";
import { attempt, field, fill, h, section, toast } from "./ui.js";

/** @typedef {import("maumau-schema").components["schemas"]} Schemas */
/** @typedef {Schemas["LeagueRoundOutput"]} Round */
/**
 * The recorded round the sheet corrects (the client's own state): the round, its number on the sheet,
 * what to do when the server says the sheet changed meanwhile, and how to stop correcting.
 * @typedef {{round: Round, n: number | undefined, stale: () => void, cancel: () => void}} Correction
 */
/**
 * What a league's page shows besides the league (read together, rendered again without a read).
 * @typedef {object} LeagueReads
 * @property {number} season
 * @property {boolean} current
 * @property {Schemas["StandingsOutput"]} standings
 * @property {Awaited<ReturnType<typeof race>>} running
 * @property {Round[]} played
 * @property {Schemas["SeasonOutput"][]} seasons
 * @property {Schemas["MemberLine"][]} members
 */
/** @typedef {(board: Pick<Schemas["ScoreboardOutput"], "players" | "practice_rounds">, options?: {points?: boolean}) => HTMLElement} ScoreTable */

/** @type {Schemas["Rules"][]} */
const RULES = ["classic", "tavern", "house"];
const COLOURS = ["#0b5d1e", "#b00020", "#1a56db", "#8a4b00", "#6a1b9a", "#00796b", "#c2185b", "#37474f"];
const SVG = "http://www.w3.org/2000/svg";
const WATCH_MS = 5000;  // how often a sheet with a round the caller waits for is read again

/** @param {Schemas["LeagueOutput"]} league */
function leagueLine(league) {
  return h("li", { class: "row" },
    h("span", { class: "grow" }, h("strong", {}, league.name), ` · ${t(`rules.${league.rules}`)}`,
      league.status === "finished" ? h("span", { class: "badge" }, t("league.finished")) : null),
    h("a", { class: "button", href: `#/league/${league.id}` }, t("league.open")));
}

export function leaguesScreen() {
  let alive = true;
  const mine = h("ul", { class: "list", id: "my-leagues" });
  const others = h("ul", { class: "list", id: "public-leagues" });
  const name = h("input", { name: "name", required: true, maxlength: 100, autocomplete: "off" });
  const rules = h("select", { name: "rules" }, RULES.map((r) => h("option", { value: r, selected: r === "house" }, t(`rules.${r}`))));
  const visibility = h("select", { name: "visibility" }, ["public", "private"].map((v) => h("option", { value: v }, t(`league.visibility.${v}`))));
  const nextSeason = h("select", { name: "next_season" }, ["owner", "auto"].map((v) => h("option", { value: v }, t(`league.next.${v}`))));
  const create = h("form", { class: "stack", id: "create-league", onsubmit: (/** @type {SubmitEvent} */ event) => {
    event.preventDefault();
    attempt(async () => {
      /** @type {Schemas["LeagueOutput"]} */
      const league = await post("leagues", { name: name.value.trim(), rules: rules.value, visibility: visibility.value,
        next_season: nextSeason.value });
      location.hash = `#/league/${league.id}`;
    });
  } }, field(t("league.name"), name), field(t("lobby.rules"), rules), field(t("league.visibility"), visibility),
  field(t("league.next"), nextSeason), h("button", { class: "primary" }, t("league.create.go")));
  fill(/** @type {HTMLElement} */ (document.getElementById("main")), h("h1", {}, t("nav.leagues")), h("div", { class: "columns" },
    section(t("league.mine"), mine), section(t("league.create"), create), section(t("league.public"), others)));
  attempt(async () => {
    /** @type {[Schemas["LeagueOutput"][], Schemas["LeagueOutput"][]]} */
    const [own, all] = await Promise.all([get("leagues?mine=true"), get("leagues")]);
    if (!alive) return;
    const ownIds = new Set(own.map((league) => league.id));
    fill(mine, own.length ? own.map(leagueLine) : h("li", { class: "muted" }, t("league.none")));
    const rest = all.filter((league) => !ownIds.has(league.id)).slice(0, 30);
    fill(others, rest.length ? rest.map(leagueLine) : h("li", { class: "muted" }, t("league.none")));
  });
  return () => { alive = false; };
}

// A season's race, every page of it: cumulative points per player after each counted round.
/**
 * @param {number | string} id
 * @param {number} season
 * @returns {Promise<{limit: Schemas["RaceOutput"]["limit"], players: Schemas["RacePlayer"][], results: Schemas["RaceStepOutput"][]}>}
 */
async function race(id, season) {
  const base = `leagues/${id}/race?season=${season}`;
  /** @type {Schemas["RaceOutput"]} */
  const first = await get(base);
  const results = [...first.results];
  let next = first.next;
  for (let pages = 0; next !== null && next !== undefined && pages < 20; pages += 1) {
    /** @type {Schemas["RaceOutput"]} */
    const page = await get(`${base}&after=${next}`);
    results.push(...page.results);
    next = page.next;
  }
  return { limit: first.limit, players: first.players, results };
}

// A season's rounds, played and recorded, in the order they were written.
/**
 * @param {number | string} id
 * @param {number} season
 * @returns {Promise<Round[]>}
 */
async function rounds(id, season) {
  const base = `leagues/${id}/rounds?season=${season}&limit=1000`;
  /** @type {Schemas["LeagueRoundsOutput"]} */
  const first = await get(base);
  const results = [...first.results];
  let next = first.next;
  for (let pages = 0; next !== null && next !== undefined && pages < 10; pages += 1) {
    /** @type {Schemas["LeagueRoundsOutput"]} */
    const page = await get(`${base}&after=${next}`);
    results.push(...page.results);
    next = page.next;
  }
  return results;
}

// The most a hand can hold, as the server bounds it: the whole deck's value (scoring.sheet).
/** @param {Schemas["LeagueOutput"]} league */
function handMax(league) {
  const options = league.options || {};
  const ranks = options.deck === "french52" ? ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
    : ["7", "8", "9", "10", "J", "Q", "K", "A"];
  const house = { A: 10, K: 4, Q: 3, J: 20 };
  const ranking = { A: 11, 10: 10, K: 4, Q: 3, J: 2 };
  /** @type {Record<string, number>} */
  const value = league.scoring === "points" ? house : ranking;
  return 4 * ranks.reduce((sum, rank) => sum + (value[rank] || Number(rank)), 0) + 50 * (options.jokers || 0);
}

/**
 * @param {Awaited<ReturnType<typeof race>>} data
 * @param {number | null} limit
 */
export function raceChart(data, limit) {
  // Drawn at the size it is shown (the page's width), so that its text reads the same on a phone.
  const width = Math.round(Math.max(300, Math.min(1000, (document.getElementById("main")?.clientWidth || 640) - 48)));
  const height = Math.round(Math.min(320, Math.max(220, width * 0.45)));
  const pad = { left: 44, right: 16, top: 14, bottom: 30 };
  const rounds = data.results.length;  // steps of the race: rounds and corrections
  const played = data.results.filter((step) => !step.corrects).length;
  const corrections = rounds - played;
  const top = Math.max(1, limit || 0, ...data.results.flatMap((step) => Object.values(step.totals)));
  const tickStep = [10, 20, 25, 50, 100, 200, 250, 500, 1000].find((size) => size * 6 >= top * 1.05) || Math.ceil(top / 6);
  const ticks = Math.ceil((top * 1.05) / tickStep);
  const most = (tickStep * ticks) / 1.08;
  const x = (/** @type {number} */ step) => pad.left + (rounds ? (step / rounds) * (width - pad.left - pad.right) : 0);
  const y = (/** @type {number} */ points) => height - pad.bottom - (points / (most * 1.08)) * (height - pad.top - pad.bottom);
  /** @param {string} tag @param {Record<string, string | number>} attrs @param {...(Node | string)} children */
  const el = (tag, attrs, ...children) => {
    const node = document.createElementNS(SVG, tag);
    for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
    node.append(...children);
    return node;
  };
  const svg = el("svg", { viewBox: `0 0 ${width} ${height}`, class: "race", id: "race", role: "img", "aria-labelledby": "race-title" },
    el("title", { id: "race-title" }, `${t("league.race.title", { n: played })}${corrections ? ` · ${t("league.race.corrections", { n: corrections })}` : ""}`));
  for (let tick = 0; tick <= ticks; tick += 1) {
    const value = tickStep * tick;
    svg.append(el("line", { x1: pad.left, x2: width - pad.right, y1: y(value), y2: y(value), class: "grid" }),
      el("text", { x: pad.left - 6, y: y(value) + 4, class: "axis", "text-anchor": "end" }, String(value)));
  }
  svg.append(el("text", { x: width - pad.right, y: height - 8, class: "axis", "text-anchor": "end" },
    `${t("league.race.rounds", { n: played })}${corrections ? ` · ${t("league.race.corrections", { n: corrections })}` : ""}`));
  // A correction's step is marked on the axis: a step of the race, not a round played.
  data.results.forEach((step, at) => {
    if (!step.corrects) return;
    svg.append(el("line", { x1: x(at + 1), x2: x(at + 1), y1: pad.top, y2: height - pad.bottom, class: "correction" }),
      el("text", { x: x(at + 1), y: height - pad.bottom + 13, class: "axis correction-label", "text-anchor": "middle" }, "✎",
        el("title", {}, t("league.race.correction"))));
  });
  if (limit) {
    svg.append(el("line", { x1: pad.left, x2: width - pad.right, y1: y(limit), y2: y(limit), class: "limit", id: "race-limit" }),
      el("text", { x: pad.left + 6, y: y(limit) - 6, class: "limit-label" }, t("league.race.limit", { n: limit })));
  }
  const legend = h("ul", { class: "legend" });
  data.players.forEach((player, index) => {
    const colour = COLOURS[index % COLOURS.length];
    /** @type {[number, number][]} */
    const points = [[0, 0]];
    data.results.forEach((step, at) => {
      const total = step.totals[String(player.id)];
      if (total !== undefined) points.push([at + 1, total]);
    });
    svg.append(el("polyline", { points: points.map(([step, total]) => `${x(step).toFixed(1)},${y(total).toFixed(1)}`).join(" "),
      class: "runner", stroke: colour, "data-player": player.id }));
    const [lastStep, lastTotal] = points[points.length - 1];
    svg.append(el("circle", { cx: x(lastStep), cy: y(lastTotal), r: 4, fill: colour }));
    legend.append(h("li", {}, h("span", { class: "swatch", style: `background:${colour}` }), `${player.name}: ${lastTotal}`));
  });
  return h("figure", { class: "race-figure" }, svg, h("figcaption", {}, legend));
}

// The sheet's numbers: a round played or recorded is the next round; a correction is not a round of
// its own, it carries the number of the round it corrects (as the standings and seasons count).
/**
 * @param {Round[]} played
 * @returns {Map<number, number>}
 */
function roundNumbers(played) {
  /** @type {Map<number, number>} */
  const numbers = new Map();
  let next = 0;
  for (const round of played) {
    const corrected = round.corrects ? numbers.get(round.corrects) : undefined;
    if (corrected !== undefined) numbers.set(round.id, corrected);
    else { next += 1; numbers.set(round.id, next); }
  }
  return numbers;
}

// Whether a scorekeeper may correct this round: a recorded one that still stands (the server's rule).
/** @param {Round} round */
function correctable(round) {
  return round.source === "recorded" && (round.status === "pending" || round.status === "counted");
}

// One round of the sheet: played or recorded, its status, who won, each player's points; Confirm and
// Dispute for the players of a pending round (the recorder does not confirm their own entry); Correct
// for a scorekeeper on a recorded round that still stands.
/**
 * @param {Round} round
 * @param {object} how
 * @param {{id: number} | null} how.me
 * @param {(round: Round, what: "confirm" | "dispute") => void} how.act
 * @param {((round: Round, n: number | undefined) => void) | null} how.correct
 * @param {Map<number, number>} how.numbers
 */
function roundRow(round, { me, act, correct, numbers }) {
  const number = numbers.get(round.id);
  const lines = round.players || [];
  const winner = lines.find((line) => line.won);
  const mine = me && lines.some((line) => line.player.id === me.id);
  const pending = round.status === "pending";
  const recorder = me && round.recorded_by && round.recorded_by.id === me.id;
  const badge = round.status === "counted" ? "badge" : (round.status === "pending" ? "badge warn" : "badge muted");
  const corrects = round.corrects ? numbers.get(round.corrects) : null;
  return h("li", { class: "row round", id: `round-${round.id}`, tabindex: -1, "data-round": round.id, "data-status": round.status },
    h("span", { class: "grow" }, h("strong", {}, corrects ? t("league.correction.of", { n: corrects }) : t("history.round", { n: number })),
      ` · ${t(`league.source.${round.source}`)}`, h("span", { class: badge }, t(`league.status.${round.status}`)),
      h("span", { class: "detail" }, winner ? t("game.winner", { name: winner.player.name }) : "",
        round.multiplier > 1 ? ` · ×${round.multiplier}` : "",
        h("span", { class: "muted" }, ` · ${lines.map((line) => `${line.player.name} ${line.points}`).join(", ")}`))),
    pending && mine && !recorder ? h("button", { type: "button", class: "primary", onclick: () => act(round, "confirm") }, t("league.confirm")) : null,
    pending && mine ? h("button", { type: "button", onclick: () => act(round, "dispute") }, t("league.dispute")) : null,
    correct && correctable(round) ? h("button", { type: "button", id: `correct-${round.id}`, "data-correct": round.id,
      "aria-label": t("league.correct.of", { n: number }), onclick: () => correct(round, number) }, t("league.correct")) : null,
    round.game ? h("a", { class: "button", href: `#/replay/${round.game}` }, t("replay.open")) : null);
}

// The computed sheet the server answered: each player's points, the multiplier, the status.
/** @param {Round} round @param {Map<number, number>} numbers */
function sheetAnswer(round, numbers) {
  const corrects = round.corrects ? numbers.get(round.corrects) : null;
  const badge = round.status === "counted" ? "badge" : (round.status === "pending" ? "badge warn" : "badge muted");
  return h("div", { class: "sheet-answer", id: "sheet-answer", role: "status", tabindex: -1, "data-round": round.id,
    "data-status": round.status },
    h("p", {}, h("strong", {}, t("league.sheet.recorded")), h("span", { class: badge }, t(`league.status.${round.status}`)),
      corrects ? ` · ${t("league.corrects", { n: corrects })}` : "",
      round.multiplier > 1 ? ` · ${t("game.multiplier", { n: round.multiplier })}` : ""),
    h("ul", { class: "list" }, (round.players || []).map((line) => h("li", { class: "row" },
      h("span", { class: "grow" }, line.player.name, line.won ? h("span", { class: "badge" }, t("league.sheet.won")) : null),
      h("strong", {}, t("league.sheet.points", { n: line.points }))))));
}

// The scoresheet: seats from the members in seat order, the winner, each other hand's points (or
// its cards) and the extra jacks; POST leagues/{id}/rounds. Correcting (`fix`: the round and its number
// on the sheet), it starts from that entry's seats, winner, hands' points and jacks and names it in
// `corrects`.
/**
 * @param {Schemas["LeagueOutput"]} league
 * @param {Schemas["MemberLine"][]} members
 * @param {(round: Round, seatsChosen: string[]) => void} onRecorded
 * @param {Correction | null} [fix]
 * @param {unknown[] | null} [lineup]  the seats (player ids) of the last entry recorded here
 */
function sheetForm(league, members, onRecorded, fix = null, lineup = null) {
  const seated = fix ? [...(fix.round.players || [])].sort((a, b) => a.seat - b.seat) : [];
  const seats = Math.max(seated.length,
    Math.min(members.length, (league.options && league.options.players ? league.options.players[1] : 6)));
  // A new entry starts from the line-up of the last one recorded here (a pub night keeps its seats),
  // else from the first two members; a correction from the entry it corrects.
  const kept = (lineup || []).map(String);
  const startsWith = (/** @type {number} */ seat, /** @type {number} */ player, /** @type {number} */ at) => (kept.length ? kept[seat] === String(player) : at === seat && seat < 2);
  const most = handMax(league);
  const lines = h("div", { class: "sheet-lines" });
  /** @type {HTMLSelectElement[]} */
  const pickers = [];
  const choose = (/** @type {number} */ seat) => h("select", { name: `seat-${seat}`, id: `sheet-seat-${seat}`, onchange: redraw },
    h("option", { value: "" }, t("league.sheet.nobody")),
    members.map((line, at) => h("option", { value: line.player.id,
      selected: fix ? Boolean(seated[seat]) && seated[seat].player.id === line.player.id : startsWith(seat, line.player.id, at) },
    line.player.name)));
  for (let seat = 0; seat < seats; seat += 1) pickers.push(choose(seat));
  const extra = fix && league.scoring === "points" ? Math.max(0, Math.min(3, (fix.round.multiplier || 1) - 1)) : 0;
  const jacks = h("input", { type: "number", name: "extra_jacks", id: "sheet-jacks", min: 0, max: 3, step: 1, value: extra, inputmode: "numeric" });
  /** @type {Map<number, {points: string, cards: string}>} */
  const state = new Map();  // player id -> {points, cards}, kept while seats change
  for (const line of seated) {
    if (!line.won) state.set(line.player.id, { points: String(line.raw_points ?? line.points ?? ""), cards: "" });
  }
  const won = seated.find((line) => line.won);
  let winner = fix ? (fix.round.winner ?? (won ? won.player.id : null)) : null;

  function chosen() {
    const ids = pickers.map((select) => Number(select.value)).filter(Boolean);
    return ids.filter((pid, at) => ids.indexOf(pid) === at).flatMap((pid) => {
      const line = members.find((member) => member.player.id === pid);
      return line ? [line.player] : [];
    });
  }
  function redraw() {
    const players = chosen();
    if (!players.some((player) => player.id === winner)) winner = players.length ? players[0].id : null;
    fill(lines, players.length < 2 ? h("p", { class: "muted" }, t("league.sheet.pick")) : h("fieldset", { class: "sheet-winner" },
      h("legend", {}, t("league.sheet.winner")),
      players.map((player) => h("label", { class: "check" }, h("input", { type: "radio", name: "winner", value: player.id,
        checked: player.id === winner, onchange: () => { winner = player.id; redraw(); } }), player.name))),
    players.filter((player) => player.id !== winner).map((player) => {
      const kept = state.get(player.id) || { points: "", cards: "" };
      state.set(player.id, kept);
      const points = h("input", { type: "number", name: `points-${player.id}`, id: `sheet-points-${player.id}`, min: 0, max: most,
        step: 1, inputmode: "numeric", value: kept.points, oninput: () => { kept.points = points.value; } });
      const cards = h("input", { name: `cards-${player.id}`, id: `sheet-cards-${player.id}`, autocomplete: "off", maxlength: 240,
        placeholder: "QH JS 10C", value: kept.cards, oninput: () => { kept.cards = cards.value; } });
      return h("div", { class: "sheet-line", "data-player": player.id }, h("strong", {}, player.name),
        field(t("league.sheet.points.of", { name: player.name, n: most }), points),
        field(t("league.sheet.cards.of", { name: player.name }), cards));
    }));
  }
  const form = h("form", { class: "stack sheet", id: "sheet", onsubmit: (/** @type {SubmitEvent} */ event) => {
    event.preventDefault();
    attempt(async () => {
      /** @type {Schemas["SheetLineInputRequest"][]} */
      const players = chosen().map((player) => {
        if (player.id === winner) return { player: player.id, cards: [] };
        const kept = state.get(player.id) || { points: "", cards: "" };
        const cards = kept.cards.trim() ? kept.cards.trim().toUpperCase().split(/[\s,;]+/).filter(Boolean) : null;
        if (cards) return { player: player.id, cards };
        return kept.points === "" ? { player: player.id } : { player: player.id, points: Number(kept.points) };
      });
      // No winner (fewer than two seats) is the server's to refuse, in its words.
      /** @type {Omit<Schemas["RoundRecordInputRequest"], "winner"> & {winner: number | null}} */
      const body = { players, winner, extra_jacks: Number(jacks.value || 0) };
      if (fix) body.corrects = fix.round.id;
      /** @type {Round} */
      let round;
      try {
        round = await post(`leagues/${league.id}/rounds`, body);
      } catch (exc) {
        if (fix && exc instanceof ApiError && exc.code === "correction_stale") fix.stale();  // the sheet changed meanwhile: read it again
        throw exc;
      }
      onRecorded(round, pickers.map((select) => select.value));
    });
  }, "data-corrects": fix ? fix.round.id : null },
  h("fieldset", { class: "sheet-seats" }, h("legend", {}, t("league.sheet.seats")),
    h("div", { class: "seat-pickers" }, pickers.map((select, seat) => field(t("league.sheet.seat", { n: seat + 1 }), select)))),
  lines,
  league.scoring === "points" ? field(t("league.sheet.jacks"), jacks) : null,
  h("div", { class: "actions" }, h("button", { class: "primary" }, t(fix ? "league.sheet.correct.go" : "league.sheet.go")),
    fix ? h("button", { type: "button", id: "sheet-cancel", onclick: fix.cancel }, t("league.sheet.correct.cancel")) : null));
  redraw();
  return form;
}

// Every season, newest first, with its loser; a button shows that season's standings and race.
/**
 * @param {Schemas["SeasonOutput"][]} seasons
 * @param {number} showing
 * @param {(number: number) => void} pick
 */
function seasonList(seasons, showing, pick) {
  return h("ul", { class: "list", id: "seasons" }, seasons.slice().reverse().map((season) => h("li", { class: "row" },
    h("span", { class: "grow" }, h("strong", {}, t("league.season", { n: season.number })),
      season.status === "active" ? h("span", { class: "badge" }, t("league.season.running")) : null,
      season.loser ? h("span", { class: "muted" }, ` · ${t("league.season.loser", { name: season.loser.name })}`) : "",
      h("span", { class: "muted" }, ` · ${t("league.season.rounds", { n: season.rounds })}`,
        season.corrections ? ` · ${t("league.season.corrections", { n: season.corrections })}` : "")),
    h("button", { type: "button", "aria-pressed": String(season.number === showing), onclick: () => pick(season.number) },
      t("league.season.show", { n: season.number })))));
}

/**
 * @param {Schemas["LeagueOutput"]} league
 * @param {Schemas["MemberLine"][]} members
 * @param {object} how
 * @param {{id: number} | null} how.me
 * @param {(line: Schemas["MemberLine"], role: Schemas["AssignableLeagueRole"]) => void} how.setRole
 */
function memberList(league, members, { me, setRole }) {
  const owner = league.your_role === "owner";
  return h("ul", { class: "list", id: "members" }, members.map((line) => h("li", { class: "row", "data-player": line.player.id },
    h("span", { class: "grow" }, line.player.name, h("span", { class: "badge" }, t(`league.role.${line.role}`)),
      me && line.player.id === me.id ? h("span", { class: "muted" }, ` · ${t("league.you")}`) : null),
    owner && line.role !== "owner" ? h("button", { type: "button", onclick: () => setRole(line, line.role === "scorekeeper" ? "member" : "scorekeeper") },
      t(line.role === "scorekeeper" ? "league.role.unmake" : "league.role.make", { name: line.player.name })) : null)));
}

/**
 * @param {number | string} id
 * @param {string[]} rest  after the id: ["join", code] from an invitation link
 * @param {object} how
 * @param {ScoreTable} how.scoreTable
 * @param {() => {id: number} | null} [how.me]
 * @param {(listener: (kind: string) => void) => () => void} [how.onNotice]
 */
export function leagueScreen(id, rest, { scoreTable, me = () => null, onNotice = () => () => {} }) {
  let alive = true;
  /** @type {number | null} */
  let showing = null;  // the season shown; null: the current one
  /** @type {Round | null} */
  let answer = null;   // the sheet the server answered for the last round recorded here, as last read
  /** @type {Correction | null} */
  let correcting = null;  // {round, n}: the recorded round the sheet corrects; null: it records a new one
  /** @type {HTMLFormElement | null} */
  let form = null;     // the sheet's form, kept across renders (what is typed in it stays) ...
  let formKey = "";    // ... while it is for the same entry and members
  /** @type {[Schemas["LeagueOutput"], LeagueReads] | null} */
  let shown = null;    // what the last render showed, to render again without a read
  /** @type {{season: number, key: string} | null} */
  let seen = null;     // the shown season's rounds and their statuses, as last read
  /** @type {string | null} */
  let focusNext = null;  // the id of the element that takes the focus after the next render
  const LINEUP = `maumau.lineup.${id}`;  // the seats of the last entry recorded here, kept for the next one
  const lineup = () => { try { return JSON.parse(localStorage.getItem(LINEUP) || "null"); } catch (exc) { return null; } };
  const main = /** @type {HTMLElement} */ (document.getElementById("main"));
  const box = h("div", { class: "league" }, h("p", { class: "muted" }, "…"));
  fill(main, box);

  async function load() {
    /** @type {Schemas["LeagueOutput"]} */
    const league = await get(`leagues/${id}`);
    const member = league.your_role !== null && league.your_role !== undefined;
    const season = showing || league.season;
    const current = season === league.season;
    /** @type {[Schemas["StandingsOutput"], LeagueReads["running"], Round[], Schemas["SeasonsOutput"], Schemas["MembersOutput"]]} */
    const [standings, running, played, seasons, members] = await Promise.all([
      get(current ? `leagues/${id}/standings` : `leagues/${id}/seasons/${season}/standings`),
      race(id, season), rounds(id, season), get(`leagues/${id}/seasons`),
      member ? get(`leagues/${id}/members`) : Promise.resolve({ results: [] })]);
    if (!alive) return;
    const last = answer;
    if (last) answer = played.find((round) => round.id === last.id) || (last.season === league.season ? last : null);
    const fixing = correcting;
    if (fixing) {
      const still = current && played.find((round) => round.id === fixing.round.id);
      if (!still || !correctable(still)) { correcting = null; form = null; }
    }
    seen = { season, key: sheetKey(played) };
    render(league, { season, current, standings, running, played, seasons: seasons.results || [], members: members.results || [] });
  }
  const reload = () => attempt(load);
  const sheetKey = (/** @type {Round[]} */ played) => played.map((round) => `${round.id}:${round.status}`).join(",");

  // One read of the shown season's rounds; the whole page only when one of them came, went or changed.
  let checking = false;
  async function check() {
    const last = seen;
    if (!alive || !last || checking) return;
    checking = true;
    try {
      const fresh = sheetKey(await rounds(id, last.season));
      if (seen && fresh !== seen.key) await load();  // as read now: a load meanwhile may have moved it
    } finally { checking = false; }
  }
  // Waiting: a pending round of the current season that the caller recorded or plays in.
  function awaited() {
    const player = me();
    if (!shown || !shown[1].current || !player) return false;
    return shown[1].played.some((round) => round.status === "pending" && ((round.recorded_by && round.recorded_by.id === player.id)
      || (round.players || []).some((line) => line.player.id === player.id)));
  }
  const watch = setInterval(() => {
    if (document.visibilityState === "visible" && awaited()) check().catch(() => {});
  }, WATCH_MS);
  const stopNotice = onNotice((kind) => { if (kind === "league_over") reload(); else check().catch(() => {}); });
  const stopResync = onResync((online) => { if (online) check().catch(() => {}); });

  /** @param {Schemas["LeagueOutput"]} league @param {LeagueReads} reads */
  function render(league, { season, current, standings, running, played, seasons, members }) {
    shown = [league, { season, current, standings, running, played, seasons, members }];
    // The last render's reads, whichever render made this (a correction's Cancel outlives its render).
    const again = () => { if (shown) render(...shown); };
    const focused = document.activeElement && document.activeElement.id;
    const player = me();
    const limit = league.league_limit || running.limit || null;
    const rows = (standings.standings || []).map((row, index) => ({ ...row, position: row.position ?? index + 1 }));
    const link = `${location.origin}${location.pathname}#/league/${id}${league.invite_code ? `/join/${league.invite_code}` : ""}`;
    const keeper = league.your_role === "owner" || league.your_role === "scorekeeper";
    const waiting = league.status === "finished";
    const numbers = roundNumbers(played);
    const act = (/** @type {Round} */ round, /** @type {"confirm" | "dispute"} */ what) => attempt(async () => {
      /** @type {Round | null} */
      const answered = await post(`leagues/${id}/rounds/${round.id}/${what}`);
      if (answer && answered && answered.id === answer.id) answer = answered;
      toast(t(what === "confirm" ? "league.confirmed" : "league.disputed"));
      focusNext = `round-${round.id}`;
      await load();
    });
    const mayCorrect = keeper && current && !waiting && members.length >= 2;
    const correct = (/** @type {Round} */ round, /** @type {number | undefined} */ n) => {
      correcting = { round, n, stale: reload,
        cancel: () => { correcting = null; form = null; focusNext = `correct-${round.id}`; again(); } };
      form = null;
      focusNext = "sheet-title";
      again();
    };
    const startTable = h("button", { type: "button", class: "primary", id: "league-table", onclick: () => attempt(async () => {
      /** @type {Schemas["Table"]} */
      const table = await post("tables", { rules: league.rules, league: Number(id), options: { turn_seconds: 0 } });
      location.hash = `#/table/${table.id}`;
    }) }, t("league.table"));
    const nextSeason = league.your_role === "owner" && (waiting || !league.league_limit)
      ? h("button", { type: "button", class: waiting ? "primary" : null, id: "next-season", onclick: () => attempt(async () => {
        /** @type {Schemas["SeasonOutput"]} */
        const started = await post(`leagues/${id}/seasons`);
        showing = null;
        toast(t("league.season.started", { n: started.number }));
        await load();
      }) }, t(waiting ? "league.season.next" : "league.season.close", { n: league.season + 1 })) : null;
    const roundRows = played.map((round) => roundRow(round, { me: player, act, correct: mayCorrect ? correct : null, numbers }));
    const key = `${correcting ? correcting.round.id : "new"}:${members.map((line) => line.player.id).join(",")}`;
    if (keeper && current && !waiting && members.length >= 2 && (!form || formKey !== key)) {
      formKey = key;
      form = sheetForm(league, members, (round, seatsChosen) => {
        if (!correcting) localStorage.setItem(LINEUP, JSON.stringify(seatsChosen));
        if (correcting) toast(t("league.sheet.corrected"));
        answer = round;
        correcting = null;
        form = null;
        focusNext = "sheet-answer";
        reload();
      }, correcting, lineup());
    }
    const sheet = keeper && current && !waiting ? section(correcting ? t("league.correct.of", { n: correcting.n }) : t("league.sheet"),
      h("p", { class: "muted" }, correcting ? t("league.sheet.correct.help", { n: correcting.n })
        : t(league.scorekeeper_alone ? "league.sheet.help.alone" : "league.sheet.help")),
      answer && !correcting ? sheetAnswer(answer, numbers) : null,
      members.length >= 2 ? form : h("p", { class: "muted" }, t("league.sheet.few"))) : null;
    if (sheet) {
      sheet.classList.add("sheet-panel");
      const title = sheet.querySelector("h2");
      if (title) {
        title.id = "sheet-title";
        title.tabIndex = -1;
      }
    }
    fill(box, h("h1", {}, t("league.title", { name: league.name })),
      h("p", { class: "muted", id: "league-facts" }, `${t(`rules.${league.rules}`)}${limit ? ` · ${t("league.race.limit", { n: limit })}` : ""}`,
        ` · ${t("league.season", { n: league.season })}`, ` · ${t(`league.visibility.${league.visibility}`)}`,
        waiting ? ` · ${t("league.waiting")}` : "",
        waiting && league.loser ? ` · ${t("league.loser", { name: league.loser.name })}` : ""),
      nextSeason ? h("div", { class: "actions" }, nextSeason) : null,
      !current ? h("p", { class: "notice", id: "season-shown" }, t("league.season.past", { n: season }),
        h("button", { type: "button", class: "link", onclick: () => { showing = null; reload(); } }, t("league.season.back"))) : null,
      // With the sheet: on a phone right below the standings; wider, beside the standings and the invitation.
      h("div", { class: sheet ? "league-top" : "columns" },
        section(current ? t("league.standings") : t("league.standings.of", { n: season }),
          rows.length ? scoreTable({ players: rows, practice_rounds: 0 }, { points: league.scoring !== "wins" })
            : h("p", { class: "muted" }, t("league.empty")),
          running.results.some((step) => step.corrects) ? h("p", { class: "muted", id: "counts-help" }, t("league.counts.help")) : null,
          h("div", { class: "actions" }, league.status === "active" && league.your_role ? startTable : null)),
        sheet,
        league.invite_code ? section(t("league.invite"), h("p", { class: "muted" }, t("league.invite.help")),
          h("div", { class: "inline" }, h("input", { readonly: true, value: link, id: "league-invite", "aria-label": t("league.invite") }),
            h("button", { type: "button", onclick: () => attempt(async () => { await navigator.clipboard.writeText(link); toast(t("table.copied")); }) },
              t("table.copy")))) : null),
      section(current ? t("league.race") : t("league.race.of", { n: season }),
        running.results.length ? raceChart(running, limit) : h("p", { class: "muted" }, t("league.empty"))),
      section(t("league.rounds"), roundRows.length ? h("ul", { class: "list rounds", id: "league-rounds" }, roundRows)
        : h("p", { class: "muted" }, t("league.empty"))),
      h("div", { class: "columns" },
        section(t("league.seasons"), seasonList(seasons, season, (/** @type {number} */ number) => {
          showing = number === league.season ? null : number;
          reload();
        })),
        members.length ? section(t("league.members"), memberList(league, members, { me: player, setRole: (/** @type {Schemas["MemberLine"]} */ line, /** @type {Schemas["AssignableLeagueRole"]} */ role) => attempt(async () => {
          await api("PATCH", `leagues/${id}/members/${line.player.id}`, { role });
          toast(t("league.role.saved", { name: line.player.name, role: t(`league.role.${role}`) }));
          await load();
        }) })) : null));
    // The element asked for, or the one that had the focus before this render (its node may be new).
    const target = document.getElementById(focusNext || "") || (document.activeElement === document.body && focused
      ? document.getElementById(focused) : null);
    focusNext = null;
    if (target) {
      target.focus({ preventScroll: true });
      if (target.getBoundingClientRect().top < 0 || target.getBoundingClientRect().bottom > innerHeight) target.scrollIntoView({ block: "center" });
    }
  }

  attempt(async () => {
    if (rest[0] === "join" && rest[1]) await attempt(() => post(`leagues/${id}/join`, { code: rest[1] }));
    await load();
  });
  return () => { alive = false; clearInterval(watch); stopNotice(); stopResync(); };
}
