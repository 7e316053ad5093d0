// Installable app and notifications away from the board: the service worker, Web Push (asked for only
// after a tap), the settings screen (kinds, e-mail, devices), and the worker's "open this game" messages.

import { api, del, get, post, token } from "./api.js";
import { lang, t } from "./i18n.js";
import { attempt, h, fill, section, toast } from "./ui.js";

const KINDS = ["your_turn", "deadline_soon", "challenge_received", "game_started", "round_over", "league_over",
  "season_over"];

// --- the service worker -------------------------------------------------------------------------

export function installApp() {
  if (!("serviceWorker" in navigator)) return;
  navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => {});
  // A click on a notification: the worker asks this window to open the game.
  navigator.serviceWorker.addEventListener("message", (event) => {
    const data = event.data || {};
    if (data.type !== "open" || !data.url) return;
    const target = new URL(data.url, location.origin);
    if (target.origin === location.origin) location.hash = target.hash || "#/lobby";
  });
}

// --- Web Push -----------------------------------------------------------------------------------

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

// Only ever called from a tap: the browser's permission prompt comes after the player asked for it.
async function pushTurnOn() {
  const permission = await Notification.requestPermission();
  if (permission !== "granted") throw new Error(t("settings.denied"));
  const { public_key: key } = await get("push/vapid-public-key");
  if (!key) throw new Error(t("settings.server_off"));
  const registration = await navigator.serviceWorker.ready;
  let subscription = await registration.pushManager.getSubscription();
  if (!subscription) {
    subscription = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(key) });
  }
  await post("me/push-subscriptions", { ...subscription.toJSON(), name: deviceName() });
}

async function pushTurnOff() {
  const registration = await navigator.serviceWorker.ready;
  const subscription = await registration.pushManager.getSubscription();
  if (subscription) await subscription.unsubscribe();
}

// --- the settings screen (#/settings) -----------------------------------------------------------

export function settingsScreen() {
  let alive = true;
  const root = h("div", { class: "settings", id: "settings" });
  document.getElementById("main").replaceChildren(root);

  async function render() {
    const [prefs, subscriptions, devices] = await Promise.all([
      get("me/notifications"), get("me/push-subscriptions"), get("me/devices")]);
    if (!alive) return;
    fill(root, h("h1", {}, t("settings.title")), pushPanel(prefs), kindsPanel(prefs), emailPanel(prefs),
      devicesPanel(subscriptions, devices));
  }

  function pushPanel(prefs) {
    const box = h("div", {});
    if (!pushSupported()) box.append(h("p", { class: "muted" }, t("settings.unsupported")));
    else if (prefs.channels.web_push !== "on") box.append(h("p", { class: "muted" }, t("settings.server_off")));
    else if (Notification.permission === "denied") box.append(h("p", { class: "muted" }, t("settings.denied")));
    else if (Notification.permission === "granted") {
      box.append(h("p", {}, t("settings.enabled")),
        h("button", { type: "button", id: "push-off", onclick: () => attempt(async () => { await pushTurnOff(); await render(); }) }, t("settings.off")));
    }
    if (pushSupported() && prefs.channels.web_push === "on" && Notification.permission !== "denied") {
      box.append(h("button", { type: "button", class: "primary", id: "push-on",
        onclick: () => attempt(async () => { await pushTurnOn(); toast(t("settings.saved")); await render(); }) }, t("settings.on")));
    }
    return section(t("settings.push"), box);
  }

  function kindsPanel(prefs) {
    const row = (kind) => {
      const box = (channel, label) => h("input", { type: "checkbox", name: `${kind}.${channel}`, "aria-label": `${t(`settings.${kind}`)}: ${label}`,
        checked: prefs.kinds[kind][channel], onchange: (event) => attempt(async () => {
          const change = channel === "web_push" ? { web_push: event.target.checked, fcm: event.target.checked, apns: event.target.checked }
            : { [channel]: event.target.checked };
          await api("PATCH", "me/notifications", { kinds: { [kind]: change } });
          toast(t("settings.saved"));
        }) });
      return h("tr", {}, h("th", { scope: "row" }, t(`settings.${kind}`)), h("td", {}, box("web_push", t("settings.push_col"))), h("td", {}, box("email", t("settings.mail_col"))));
    };
    const start = h("input", { type: "time", name: "quiet-start", value: prefs.quiet_hours ? prefs.quiet_hours.start : "", "aria-label": `${t("settings.quiet")} ${t("settings.from")}` });
    const end = h("input", { type: "time", name: "quiet-end", value: prefs.quiet_hours ? prefs.quiet_hours.end : "", "aria-label": `${t("settings.quiet")} ${t("settings.to")}` });
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
    const quiet = h("form", { class: "inline", onsubmit: (event) => { event.preventDefault(); attempt(async () => {
      const hours = start.value && end.value ? { start: start.value.slice(0, 5), end: end.value.slice(0, 5) } : null;
      await api("PATCH", "me/notifications", { quiet_hours: hours, time_zone: zone, language: lang() });
      toast(t("settings.saved"));
    }); } }, h("span", {}, `${t("settings.quiet")}: ${t("settings.from")} `), start, ` ${t("settings.to")} `, end,
    h("button", { type: "submit" }, t("settings.save")));
    return section(t("settings.kinds"), h("div", { class: "scroll" }, h("table", { class: "scores", id: "kinds" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("settings.kind")), h("th", { scope: "col" }, t("settings.push_col")), h("th", { scope: "col" }, t("settings.mail_col")))),
      h("tbody", {}, KINDS.map(row)))), quiet);
  }

  function emailPanel(prefs) {
    const input = h("input", { type: "email", name: "email", id: "email", maxlength: 254, autocomplete: "email",
      value: prefs.email ? prefs.email.address : "" });
    const state = prefs.email ? h("p", { class: "muted", id: "email-state" }, prefs.email.verified ? t("settings.verified") : t("settings.unverified")) : null;
    return section(t("settings.email"), h("form", { class: "inline", onsubmit: (event) => { event.preventDefault(); attempt(async () => {
      await api("PUT", "me/email", { address: input.value.trim() });
      toast(t("settings.sent"));
      await render();
    }); } }, h("label", { for: "email", class: "sr-only" }, t("settings.email")), input, h("button", { type: "submit" }, t("settings.save"))), state);
  }

  function devicesPanel(subscriptions, devices) {
    const items = [
      ...subscriptions.map((s) => ({ id: s.id, name: s.name || s.endpoint_origin, what: "Web Push", path: `me/push-subscriptions/${s.id}` })),
      ...devices.map((d) => ({ id: d.id, name: d.name || d.platform.toUpperCase(), what: d.platform.toUpperCase(), path: `me/devices/${d.id}` })),
    ];
    const list = h("ul", { class: "list", id: "devices" }, items.length ? items.map((item) => h("li", { class: "row" },
      h("span", { class: "grow" }, item.name, h("span", { class: "badge" }, item.what)),
      h("button", { type: "button", onclick: () => attempt(async () => { await del(item.path); await render(); }) }, t("settings.remove"))))
      : h("li", { class: "muted" }, t("settings.none")));
    return section(t("settings.devices"), list);
  }

  if (token()) attempt(render);
  return () => { alive = false; };
}
