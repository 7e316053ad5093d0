// Leagues: the list (the caller's and the public ones), creating one, a league's page with its
// invitation link, standings, the race to the limit as an SVG chart and its finished rounds.
//
// Reads: GET leagues, GET leagues?mine=true, POST leagues, GET leagues/{id}, GET leagues/{id}/standings,
// and where the server has league nights: POST leagues/{id}/join, GET leagues/{id}/race,
// GET leagues/{id}/rounds. Without them the race is summed from the caller's rounds in the league
// (GET me/history, GET games/{id} for each round's points).

import { ApiError, get, post } from "./api.js";
import { t } from "./i18n.js";
import { attempt, field, fill, h, section, toast } from "./ui.js";

const RULES = ["classic", "tavern", "house"];
const COLOURS = ["#0b5d1e", "#b00020", "#1a56db", "#8a4b00", "#6a1b9a", "#00796b", "#c2185b", "#37474f"];
const SVG = "http://www.w3.org/2000/svg";

async function optional(path) {
  try { return await get(path); } catch (exc) {
    if (exc instanceof ApiError && (exc.status === 404 || exc.status === 405)) return null;
    throw exc;
  }
}

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
  const create = h("form", { class: "stack", id: "create-league", onsubmit: (event) => {
    event.preventDefault();
    attempt(async () => {
      const league = await post("leagues", { name: name.value.trim(), rules: rules.value });
      location.hash = `#/league/${league.id}`;
    });
  } }, field(t("league.name"), name), field(t("lobby.rules"), rules), h("button", { class: "primary" }, t("league.create.go")));
  fill(document.getElementById("main"), h("h1", {}, t("nav.leagues")), h("div", { class: "columns" },
    section(t("league.mine"), mine), section(t("league.create"), create), section(t("league.public"), others)));
  attempt(async () => {
    const [own, all] = await Promise.all([get("leagues?mine=true"), get("leagues")]);
    if (!alive) return;
    const ownIds = new Set(own.map((league) => league.id));
    fill(mine, own.length ? own.map(leagueLine) : h("li", { class: "muted" }, t("league.none")));
    const rest = all.filter((league) => !ownIds.has(league.id)).slice(0, 30);
    fill(others, rest.length ? rest.map(leagueLine) : h("li", { class: "muted" }, t("league.none")));
  });
  return () => { alive = false; };
}

// Cumulative points per player after each counted round: the server's race where it has one,
// else summed from the caller's own rounds in this league.
async function race(id) {
  const first = await optional(`leagues/${id}/race`);
  if (first) {
    const results = [...first.results];
    let next = first.next;
    for (let pages = 0; next !== null && next !== undefined && pages < 10; pages += 1) {
      const page = await get(`leagues/${id}/race?after=${next}`);
      results.push(...page.results);
      next = page.next;
    }
    return { limit: first.limit, players: first.players, results };
  }
  const history = await get("me/history?limit=100");
  const lines = (history.results || []).filter((line) => line.league === Number(id)).reverse().slice(-60);
  const games = await Promise.all(lines.map((line) => get(`games/${line.game}`).catch(() => null)));
  const players = new Map();
  const totals = {};
  const results = [];
  games.filter((game) => game && game.result).forEach((game, index) => {
    for (const row of game.result.players) {
      const player = game.players[row.seat];
      players.set(player.player, { id: player.player, name: player.name });
      totals[player.player] = (totals[player.player] || 0) + (row.points || 0);
    }
    results.push({ round: index + 1, id: game.id, totals: { ...totals } });
  });
  return { limit: null, players: [...players.values()], results };
}

export function raceChart(data, limit) {
  // Drawn at the size it is shown (the page's width), so that its text reads the same on a phone.
  const width = Math.round(Math.max(300, Math.min(1000, (document.getElementById("main").clientWidth || 640) - 48)));
  const height = Math.round(Math.min(320, Math.max(220, width * 0.45)));
  const pad = { left: 44, right: 16, top: 14, bottom: 30 };
  const rounds = data.results.length;
  const top = Math.max(1, limit || 0, ...data.results.flatMap((step) => Object.values(step.totals)));
  const tickStep = [10, 20, 25, 50, 100, 200, 250, 500, 1000].find((size) => size * 6 >= top * 1.05) || Math.ceil(top / 6);
  const ticks = Math.ceil((top * 1.05) / tickStep);
  const most = (tickStep * ticks) / 1.08;
  const x = (step) => pad.left + (rounds ? (step / rounds) * (width - pad.left - pad.right) : 0);
  const y = (points) => height - pad.bottom - (points / (most * 1.08)) * (height - pad.top - pad.bottom);
  const el = (tag, attrs, ...children) => {
    const node = document.createElementNS(SVG, tag);
    for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
    node.append(...children);
    return node;
  };
  const svg = el("svg", { viewBox: `0 0 ${width} ${height}`, class: "race", id: "race", role: "img", "aria-labelledby": "race-title" },
    el("title", { id: "race-title" }, t("league.race.title", { n: rounds })));
  for (let tick = 0; tick <= ticks; tick += 1) {
    const value = tickStep * tick;
    svg.append(el("line", { x1: pad.left, x2: width - pad.right, y1: y(value), y2: y(value), class: "grid" }),
      el("text", { x: pad.left - 6, y: y(value) + 4, class: "axis", "text-anchor": "end" }, String(value)));
  }
  svg.append(el("text", { x: width - pad.right, y: height - 8, class: "axis", "text-anchor": "end" }, t("league.race.rounds", { n: rounds })));
  if (limit) {
    svg.append(el("line", { x1: pad.left, x2: width - pad.right, y1: y(limit), y2: y(limit), class: "limit", id: "race-limit" }),
      el("text", { x: pad.left + 6, y: y(limit) - 6, class: "limit-label" }, t("league.race.limit", { n: limit })));
  }
  const legend = h("ul", { class: "legend" });
  data.players.forEach((player, index) => {
    const colour = COLOURS[index % COLOURS.length];
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

// The league's own rounds (league nights): who won, each player's points, the replay.
function roundList(rounds) {
  return h("ul", { class: "list rounds" }, rounds.map((round, index) => {
    const winner = (round.players || []).find((line) => line.won);
    return h("li", { class: "row" },
      h("span", { class: "grow" }, t("history.round", { n: index + 1 }),
        winner ? ` · ${t("game.winner", { name: winner.player.name })}` : "",
        h("span", { class: "muted" }, ` · ${(round.players || []).map((line) => `${line.player.name} ${line.points}`).join(", ")}`)),
      h("a", { class: "button", href: `#/replay/${round.game}` }, t("replay.open")));
  }));
}

export function leagueScreen(id, rest, { scoreTable, roundLinks, finishedRounds }) {
  let alive = true;
  const main = document.getElementById("main");
  const box = h("div", { class: "league" }, h("p", { class: "muted" }, "…"));
  fill(main, box);
  attempt(async () => {
    if (rest[0] === "join" && rest[1]) {
      await attempt(() => post(`leagues/${id}/join`, { code: rest[1] }).catch((exc) => {
        if (!(exc instanceof ApiError && exc.status === 405)) throw exc;  // a server without league members
      }));
    }
    const [league, standings, running, played] = await Promise.all([get(`leagues/${id}`), get(`leagues/${id}/standings`), race(id),
      optional(`leagues/${id}/rounds`)]);
    if (!alive) return;
    const limit = league.league_limit || running.limit || null;
    const rows = (standings.standings || standings.players || []).map((row, index) => ({ ...row, position: row.position ?? index + 1 }));
    const link = `${location.origin}${location.pathname}#/league/${id}${league.invite_code ? `/join/${league.invite_code}` : ""}`;
    const finished = played
      ? roundList((played.results || []).filter((round) => round.game))
      : roundLinks(await finishedRounds((line) => line.league === Number(id)));
    const startTable = h("button", { type: "button", class: "primary", id: "league-table", onclick: () => attempt(async () => {
      const table = await post("tables", { rules: league.rules, league: Number(id), options: { turn_seconds: 0 } });
      location.hash = `#/table/${table.id}`;
    }) }, t("league.table"));
    fill(box, h("h1", {}, t("league.title", { name: league.name })),
      h("p", { class: "muted" }, `${t(`rules.${league.rules}`)}${limit ? ` · ${t("league.race.limit", { n: limit })}` : ""}`,
        league.status === "finished" && league.loser ? ` · ${t("league.loser", { name: league.loser.name })}` : ""),
      h("div", { class: "columns" },
        section(t("league.standings"), rows.length ? scoreTable({ players: rows, practice_rounds: 0 }, { points: league.scoring !== "wins" })
          : h("p", { class: "muted" }, t("league.empty")), h("div", { class: "actions" }, league.status === "active" ? startTable : null)),
        section(t("league.invite"), h("p", { class: "muted" }, t("league.invite.help")),
          h("div", { class: "inline" }, h("input", { readonly: true, value: link, id: "league-invite", "aria-label": t("league.invite") }),
            h("button", { type: "button", onclick: () => attempt(async () => { await navigator.clipboard.writeText(link); toast(t("table.copied")); }) },
              t("table.copy"))))),
      section(t("league.race"), running.results.length ? raceChart(running, limit) : h("p", { class: "muted" }, t("league.empty"))),
      section(t("league.rounds"), finished.children.length ? finished : h("p", { class: "muted" }, t("league.empty"))));
  });
  return () => { alive = false; };
}
