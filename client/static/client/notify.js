// @ts-check
// Installable app and notifications away from the board: the service worker, Web Push (asked for only
// after a tap), the settings screen (kinds, e-mail, devices), and the worker's "open this game" messages.

import { ApiError, api, del, get, post, token } from "./api.js";
import { lang, t } from "./i18n.js";
import { attempt, h, fill, section, toast } from "./ui.js";

/** @typedef {import("maumau-schema").components["schemas"]} Schemas */
/**
 * This browser's push state (the client's own reading of the browser and the server).
 * @typedef {{state: "unsupported" | "server_off" | "denied" | "ask" | "off"} | {state: "on", id: Schemas["PushSubscription"]["id"]}} PushState
 */

/** @type {(keyof Schemas["KindState"])[]} */
const KINDS = ["your_turn", "deadline_soon", "challenge_received", "game_started", "round_over", "league_over",
  "season_over"];

// --- the service worker -------------------------------------------------------------------------

export function installApp() {
  if (!("serviceWorker" in navigator)) return;
  navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => {});
  // A click on a notification: the worker asks this window to open the game.
  navigator.serviceWorker.addEventListener("message", (/** @type {MessageEvent<{type?: string, url?: string} | null>} */ event) => {
    const data = event.data || {};
    if (data.type !== "open" || !data.url) return;
    const target = new URL(data.url, location.origin);
    if (target.origin === location.origin) location.hash = target.hash || "#/lobby";
  });
}

// --- Web Push -----------------------------------------------------------------------------------

/** @param {string} base64url */
function keyBytes(base64url) {
  const text = atob(base64url.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (base64url.length % 4)) % 4));
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}

function pushSupported() {
  return "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;
}

function deviceName() {
  const agent = navigator.userAgent;
  const browser = /Firefox\//.test(agent) ? "Firefox" : /Edg\//.test(agent) ? "Edge" : /Chrom/.test(agent) ? "Chrome"
    : /Safari\//.test(agent) ? "Safari" : "Browser";
  const system = /Android/.test(agent) ? "Android" : /iPhone|iPad/.test(agent) ? "iOS" : /Mac OS/.test(agent) ? "macOS"
    : /Windows/.test(agent) ? "Windows" : /Linux/.test(agent) ? "Linux" : "";
  return `${browser}${system ? ` (${system})` : ""}`.slice(0, 64);
}

// This browser's subscription as the server knows it ({id, endpoint}), kept when it was registered.
const PUSH_KEY = "maumau.push";
const SUBSCRIBE_MS = 15000;  // a push service that has not answered by then will not (see pushTurnOn)

/** @returns {{id: Schemas["PushSubscription"]["id"], endpoint: string} | null} */
function knownSubscription() {
  try { return JSON.parse(localStorage.getItem(PUSH_KEY) || "null") || null; } catch (exc) { return null; }
}

// A refusal or failure in the player's words: `reason` names a "settings.why.*" text; never the browser's raw error.
class PushRefused extends Error {
  /** @param {string} reason */
  constructor(reason) { super(reason); this.reason = reason; }
}

/**
 * @template T
 * @param {Promise<T>} promise
 * @param {number} ms
 * @returns {Promise<T>}
 */
function withinTime(promise, ms) {
  /** @type {Promise<never>} */
  const late = new Promise((resolve, reject) => setTimeout(() => reject(new PushRefused("push_service")), ms));
  return Promise.race([promise, late]);
}

// This browser's real state: "unsupported", "server_off", "denied", "ask" (permission not asked yet),
// "off" (allowed, but no subscription the server knows), "on" (subscribed here and on the server).
/**
 * @param {Schemas["Preferences"]} prefs
 * @param {Schemas["PushSubscription"][]} subscriptions
 * @returns {Promise<PushState>}
 */
export async function pushState(prefs, subscriptions) {
  if (!pushSupported()) return { state: "unsupported" };
  if (prefs.channels.web_push !== "on") return { state: "server_off" };
  if (Notification.permission === "denied") return { state: "denied" };
  if (Notification.permission !== "granted") return { state: "ask" };
  const registration = await navigator.serviceWorker.getRegistration("/");
  const subscription = registration ? await registration.pushManager.getSubscription() : null;
  const known = knownSubscription();
  const listed = known && subscriptions.find((s) => s.id === known.id);
  if (subscription && listed && known.endpoint === subscription.endpoint) return { state: "on", id: listed.id };
  return { state: "off" };
}

// Only ever called from a tap: the browser's permission prompt comes after the player asked for it.
// Why a browser may answer nothing for long: pushManager.subscribe() waits for the browser's push service
// (Chrome's is Google's; a Chromium built without Google's keys, or a machine that cannot reach it,
// waits ~20 s and then fails with a bare AbortError). So the screen says at once what it is doing, and
// a push service that does not answer within SUBSCRIBE_MS is said in words.
async function pushTurnOn() {
  const permission = Notification.permission === "granted" ? "granted" : await Notification.requestPermission();
  if (permission === "denied") throw new PushRefused("refused");
  if (permission !== "granted") throw new PushRefused("dismissed");
  /** @type {Schemas["VapidKey"]} */
  const { public_key: key } = await get("push/vapid-public-key");
  if (!key) throw new PushRefused("server_off");
  const registration = await withinTime(navigator.serviceWorker.ready, SUBSCRIBE_MS);
  let subscription = await registration.pushManager.getSubscription();
  if (!subscription) {
    try {
      subscription = await withinTime(registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(key) }),
        SUBSCRIBE_MS);
    } catch (exc) {
      if (exc instanceof PushRefused) throw exc;
      throw new PushRefused(exc instanceof DOMException && exc.name === "NotAllowedError" ? "refused" : "push_service");
    }
  }
  /** @type {Schemas["PushSubscription"]} */
  let saved;
  try {
    saved = await post("me/push-subscriptions", { ...subscription.toJSON(), name: deviceName() });
  } catch (exc) {
    if (exc instanceof ApiError && exc.code === "offline") throw exc;
    throw new PushRefused("server_refused");
  }
  localStorage.setItem(PUSH_KEY, JSON.stringify({ id: saved.id, endpoint: subscription.endpoint }));
}

// Off on this device: the browser's subscription ends, and the server forgets it.
async function pushTurnOff() {
  const registration = await navigator.serviceWorker.getRegistration("/");
  const subscription = registration ? await registration.pushManager.getSubscription() : null;
  const known = knownSubscription();
  if (known) await del(`me/push-subscriptions/${known.id}`).catch((exc) => { if (exc.status !== 404) throw exc; });
  if (subscription) await subscription.unsubscribe().catch(() => {});
  localStorage.removeItem(PUSH_KEY);
}

// --- the settings screen (#/settings) -----------------------------------------------------------

export function settingsScreen() {
  let alive = true;
  const root = h("div", { class: "settings", id: "settings" });
  /** @type {HTMLElement} */ (document.getElementById("main")).replaceChildren(root);

  async function render() {
    /** @type {[Schemas["Preferences"], Schemas["PushSubscription"][], Schemas["Device"][]]} */
    const [prefs, subscriptions, devices] = await Promise.all([
      get("me/notifications"), get("me/push-subscriptions"), get("me/devices")]);
    const state = await pushState(prefs, subscriptions);
    if (!alive) return;
    fill(root, h("h1", {}, t("settings.title")), section(t("settings.push"), h("div", { id: "push-panel" }, pushPanel(prefs, state))),
      kindsPanel(prefs), emailPanel(prefs), devicesPanel(subscriptions, devices, state));
  }

  // One honest switch: what this browser really does, and the one action that fits it.
  /** @type {string | null} */
  let trouble = null;  // the last refusal, in words ("settings.why.*"), shown until the next render
  let busy = false;

  /**
   * @param {Schemas["Preferences"]} prefs
   * @param {PushState} state
   * @returns {HTMLElement}
   */
  function pushPanel(prefs, state) {
    const box = h("div", { id: "push", "data-state": busy ? "working" : state.state });
    const say = (/** @type {string} */ key, /** @type {Record<string, unknown>} */ attrs = {}) => h("p", { id: "push-state", ...attrs }, t(key));
    /** @param {string} id @param {string} key @param {() => Promise<unknown>} action @param {boolean} [primary] */
    const act = (id, key, action, primary = true) => h("button", { type: "button", id, class: primary ? "primary" : null,
      disabled: busy, onclick: () => run(action) }, t(key));
    /** @param {() => Promise<unknown>} action */
    async function run(action) {
      busy = true; trouble = null;
      const panel = root.querySelector("#push-panel");
      if (panel) fill(panel, pushPanel(prefs, state));
      try {
        await action();
      } catch (exc) {
        trouble = exc instanceof PushRefused ? exc.reason : exc instanceof ApiError && exc.code === "offline" ? "offline" : "server_refused";
      }
      busy = false;
      await render();
    }
    const turnOn = () => pushTurnOn().then(() => toast(t("settings.saved")));
    switch (state.state) {
      case "unsupported":
        box.append(say("settings.unsupported"), act("push-mail", "settings.use_mail", async () => document.getElementById("email")?.focus(), false));
        break;
      case "server_off":
        box.append(say("settings.server_off"), act("push-mail", "settings.use_mail", async () => document.getElementById("email")?.focus(), false));
        break;
      case "denied":
        box.append(say("settings.denied"), act("push-check", "settings.check", async () => {}, false));
        break;
      case "ask":
        box.append(say("settings.state.ask"), act("push-on", "settings.on", turnOn));
        break;
      case "off":
        box.append(say("settings.state.off"), act("push-on", "settings.on", turnOn));
        break;
      default:
        box.append(say("settings.enabled"), act("push-off", "settings.off", pushTurnOff, false));
    }
    if (busy) box.append(h("p", { class: "muted", role: "status" }, t("settings.working")));
    // A refusal the browser now shows as "blocked" is said once, by the state's own text.
    else if (trouble && !(trouble === "refused" && state.state === "denied")) box.append(h("p", { class: "refusal", role: "alert", id: "push-trouble" }, t(`settings.why.${trouble}`)));
    return box;
  }

  /** @param {Schemas["Preferences"]} prefs */
  function kindsPanel(prefs) {
    const row = (/** @type {keyof Schemas["KindState"]} */ kind) => {
      const box = (/** @type {"web_push" | "email"} */ channel, /** @type {string} */ label) => h("input", { type: "checkbox", name: `${kind}.${channel}`, "aria-label": `${t(`settings.${kind}`)}: ${label}`,
        checked: prefs.kinds[kind][channel], onchange: (/** @type {Event} */ event) => attempt(async () => {
          const checked = /** @type {HTMLInputElement} */ (event.target).checked;
          /** @type {Partial<Schemas["ChannelState"]>} */
          const change = channel === "web_push" ? { web_push: checked, fcm: checked, apns: checked }
            : { [channel]: checked };
          await api("PATCH", "me/notifications", { kinds: { [kind]: change } });
          toast(t("settings.saved"));
        }) });
      return h("tr", {}, h("th", { scope: "row" }, t(`settings.${kind}`)), h("td", {}, box("web_push", t("settings.push_col"))), h("td", {}, box("email", t("settings.mail_col"))));
    };
    const start = h("input", { type: "time", name: "quiet-start", value: prefs.quiet_hours ? prefs.quiet_hours.start : "", "aria-label": `${t("settings.quiet")} ${t("settings.from")}` });
    const end = h("input", { type: "time", name: "quiet-end", value: prefs.quiet_hours ? prefs.quiet_hours.end : "", "aria-label": `${t("settings.quiet")} ${t("settings.to")}` });
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
    const quiet = h("form", { class: "inline", onsubmit: (/** @type {SubmitEvent} */ event) => { event.preventDefault(); attempt(async () => {
      const hours = start.value && end.value ? { start: start.value.slice(0, 5), end: end.value.slice(0, 5) } : null;
      await api("PATCH", "me/notifications", { quiet_hours: hours, time_zone: zone, language: lang() });
      toast(t("settings.saved"));
    }); } }, h("span", {}, `${t("settings.quiet")}: ${t("settings.from")} `), start, ` ${t("settings.to")} `, end,
    h("button", { type: "submit" }, t("settings.save")));
    return section(t("settings.kinds"), h("div", { class: "scroll" }, h("table", { class: "scores", id: "kinds" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("settings.kind")), h("th", { scope: "col" }, t("settings.push_col")), h("th", { scope: "col" }, t("settings.mail_col")))),
      h("tbody", {}, KINDS.map(row)))), quiet);
  }

  /** @param {Schemas["Preferences"]} prefs */
  function emailPanel(prefs) {
    const input = h("input", { type: "email", name: "email", id: "email", maxlength: 254, autocomplete: "email",
      value: prefs.email ? prefs.email.address : "" });
    const state = prefs.email ? h("p", { class: "muted", id: "email-state" }, prefs.email.verified ? t("settings.verified") : t("settings.unverified")) : null;
    return section(t("settings.email"), h("form", { class: "inline", onsubmit: (/** @type {SubmitEvent} */ event) => { event.preventDefault(); attempt(async () => {
      await api("PUT", "me/email", { address: input.value.trim() });
      toast(t("settings.sent"));
      await render();
    }); } }, h("label", { for: "email", class: "sr-only" }, t("settings.email")), input, h("button", { type: "submit" }, t("settings.save"))), state);
  }

  /**
   * @param {Schemas["PushSubscription"][]} subscriptions
   * @param {Schemas["Device"][]} devices
   * @param {PushState} state
   */
  function devicesPanel(subscriptions, devices, state) {
    /** @type {{id: number, name: string, what: string, path: string, here?: boolean}[]} */
    const items = [
      ...subscriptions.map((s) => ({ id: s.id, name: s.name || s.endpoint_origin, what: "Web Push", path: `me/push-subscriptions/${s.id}`,
        here: state.state === "on" && state.id === s.id })),
      ...devices.map((d) => ({ id: d.id, name: d.name || d.platform.toUpperCase(), what: d.platform.toUpperCase(), path: `me/devices/${d.id}` })),
    ];
    // Removing this browser's own line turns it off here too (the browser's subscription ends as well).
    const remove = (/** @type {typeof items[number]} */ item) => attempt(async () => { if (item.here) await pushTurnOff(); else await del(item.path); await render(); });
    const list = h("ul", { class: "list", id: "devices" }, items.length ? items.map((item) => h("li", { class: "row", "data-here": item.here ? "true" : null },
      h("span", { class: "grow" }, item.name, h("span", { class: "badge" }, item.what), item.here ? h("span", { class: "badge turn" }, t("settings.this_device")) : null),
      h("button", { type: "button", "aria-label": `${t("settings.remove")}: ${item.name}`, onclick: () => remove(item) }, t("settings.remove"))))
      : h("li", { class: "muted" }, t("settings.none")));
    return section(t("settings.devices"), list);
  }

  if (token()) attempt(render);
  return () => { alive = false; };
}
