// Installable app and notifications away from the board: the service worker, Web Push (asked for only
// after a tap), the settings screen (kinds, e-mail, devices), and the worker's "open this game" messages.

import { api, del, get, post, token } from "./api.js";
import { lang } from "./i18n.js";
import { attempt, h, fill, section, toast } from "./ui.js";

const KINDS = ["your_turn", "deadline_soon", "challenge_received", "game_started", "round_over", "league_over"];
const TEXTS = {
  en: {
    nav: "Settings", title: "Notifications", push: "Notifications on this device", on: "Turn on notifications",
    off: "Turn off on this device", denied: "Notifications are blocked in this browser's site settings.",
    unsupported: "This browser cannot receive push notifications here.", enabled: "This device gets notifications.",
    kinds: "What to tell you", kind: "Kind", push_col: "Push", mail_col: "E-mail", email: "E-mail address",
    save: "Save", verified: "verified", unverified: "not verified yet: open the link in the mail we sent",
    devices: "Devices", none: "No devices.", remove: "Remove", saved: "Saved.", sent: "Mail sent: open its link.",
    quiet: "Quiet hours (your time)", from: "from", to: "to", server_off: "This server sends no push messages.",
    your_turn: "Your turn", deadline_soon: "Time running out", challenge_received: "Challenges",
    game_started: "A round starts", round_over: "Round over", league_over: "League over",
  },
  de: {
    nav: "Einstellungen", title: "Benachrichtigungen", push: "Benachrichtigungen auf diesem Gerät",
    on: "Benachrichtigungen einschalten", off: "Auf diesem Gerät ausschalten",
    denied: "Benachrichtigungen sind in den Website-Einstellungen dieses Browsers gesperrt.",
    unsupported: "Dieser Browser kann hier keine Push-Nachrichten empfangen.", enabled: "Dieses Gerät bekommt Benachrichtigungen.",
    kinds: "Worüber wir dich benachrichtigen", kind: "Art", push_col: "Push", mail_col: "E-Mail", email: "E-Mail-Adresse",
    save: "Speichern", verified: "bestätigt", unverified: "noch nicht bestätigt: öffne den Link in unserer Mail",
    devices: "Geräte", none: "Keine Geräte.", remove: "Entfernen", saved: "Gespeichert.", sent: "Mail gesendet: öffne ihren Link.",
    quiet: "Ruhezeit (deine Uhrzeit)", from: "von", to: "bis", server_off: "Dieser Server sendet keine Push-Nachrichten.",
    your_turn: "Du bist dran", deadline_soon: "Zeit läuft ab", challenge_received: "Herausforderungen",
    game_started: "Eine Runde beginnt", round_over: "Runde vorbei", league_over: "Liga vorbei",
  },
  fr: {
    nav: "Réglages", title: "Notifications", push: "Notifications sur cet appareil", on: "Activer les notifications",
    off: "Désactiver sur cet appareil", denied: "Les notifications sont bloquées dans les réglages de ce site.",
    unsupported: "Ce navigateur ne peut pas recevoir de notifications push ici.", enabled: "Cet appareil reçoit les notifications.",
    kinds: "Ce qu'on te signale", kind: "Type", push_col: "Push", mail_col: "E-mail", email: "Adresse e-mail",
    save: "Enregistrer", verified: "confirmée", unverified: "pas encore confirmée : ouvre le lien du message envoyé",
    devices: "Appareils", none: "Aucun appareil.", remove: "Retirer", saved: "Enregistré.", sent: "Message envoyé : ouvre son lien.",
    quiet: "Heures calmes (ton heure)", from: "de", to: "à", server_off: "Ce serveur n'envoie pas de notifications push.",
    your_turn: "À toi de jouer", deadline_soon: "Le temps presse", challenge_received: "Défis",
    game_started: "Une manche commence", round_over: "Manche terminée", league_over: "Ligue terminée",
  },
};

export function nt(key) { return (TEXTS[lang()] || TEXTS.en)[key] || TEXTS.en[key] || key; }

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
  if (permission !== "granted") throw new Error(nt("denied"));
  const { public_key: key } = await get("push/vapid-public-key");
  if (!key) throw new Error(nt("server_off"));
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
    fill(root, h("h1", {}, nt("title")), pushPanel(prefs), kindsPanel(prefs), emailPanel(prefs),
      devicesPanel(subscriptions, devices));
  }

  function pushPanel(prefs) {
    const box = h("div", {});
    if (!pushSupported()) box.append(h("p", { class: "muted" }, nt("unsupported")));
    else if (prefs.channels.web_push !== "on") box.append(h("p", { class: "muted" }, nt("server_off")));
    else if (Notification.permission === "denied") box.append(h("p", { class: "muted" }, nt("denied")));
    else if (Notification.permission === "granted") {
      box.append(h("p", {}, nt("enabled")),
        h("button", { type: "button", id: "push-off", onclick: () => attempt(async () => { await pushTurnOff(); await render(); }) }, nt("off")));
    }
    if (pushSupported() && prefs.channels.web_push === "on" && Notification.permission !== "denied") {
      box.append(h("button", { type: "button", class: "primary", id: "push-on",
        onclick: () => attempt(async () => { await pushTurnOn(); toast(nt("saved")); await render(); }) }, nt("on")));
    }
    return section(nt("push"), box);
  }

  function kindsPanel(prefs) {
    const row = (kind) => {
      const box = (channel, label) => h("input", { type: "checkbox", name: `${kind}.${channel}`, "aria-label": `${nt(kind)}: ${label}`,
        checked: prefs.kinds[kind][channel], onchange: (event) => attempt(async () => {
          const change = channel === "web_push" ? { web_push: event.target.checked, fcm: event.target.checked, apns: event.target.checked }
            : { [channel]: event.target.checked };
          await api("PATCH", "me/notifications", { kinds: { [kind]: change } });
          toast(nt("saved"));
        }) });
      return h("tr", {}, h("th", { scope: "row" }, nt(kind)), h("td", {}, box("web_push", nt("push_col"))), h("td", {}, box("email", nt("mail_col"))));
    };
    const start = h("input", { type: "time", name: "quiet-start", value: prefs.quiet_hours ? prefs.quiet_hours.start : "", "aria-label": `${nt("quiet")} ${nt("from")}` });
    const end = h("input", { type: "time", name: "quiet-end", value: prefs.quiet_hours ? prefs.quiet_hours.end : "", "aria-label": `${nt("quiet")} ${nt("to")}` });
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
    const quiet = h("form", { class: "inline", onsubmit: (event) => { event.preventDefault(); attempt(async () => {
      const hours = start.value && end.value ? { start: start.value.slice(0, 5), end: end.value.slice(0, 5) } : null;
      await api("PATCH", "me/notifications", { quiet_hours: hours, time_zone: zone, language: lang() });
      toast(nt("saved"));
    }); } }, h("span", {}, `${nt("quiet")}: ${nt("from")} `), start, ` ${nt("to")} `, end,
    h("button", { type: "submit" }, nt("save")));
    return section(nt("kinds"), h("div", { class: "scroll" }, h("table", { class: "scores", id: "kinds" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, nt("kind")), h("th", { scope: "col" }, nt("push_col")), h("th", { scope: "col" }, nt("mail_col")))),
      h("tbody", {}, KINDS.map(row)))), quiet);
  }

  function emailPanel(prefs) {
    const input = h("input", { type: "email", name: "email", id: "email", maxlength: 254, autocomplete: "email",
      value: prefs.email ? prefs.email.address : "" });
    const state = prefs.email ? h("p", { class: "muted", id: "email-state" }, prefs.email.verified ? nt("verified") : nt("unverified")) : null;
    return section(nt("email"), h("form", { class: "inline", onsubmit: (event) => { event.preventDefault(); attempt(async () => {
      await api("PUT", "me/email", { address: input.value.trim() });
      toast(nt("sent"));
      await render();
    }); } }, h("label", { for: "email", class: "sr-only" }, nt("email")), input, h("button", { type: "submit" }, nt("save"))), state);
  }

  function devicesPanel(subscriptions, devices) {
    const items = [
      ...subscriptions.map((s) => ({ id: s.id, name: s.name || s.endpoint_origin, what: "Web Push", path: `me/push-subscriptions/${s.id}` })),
      ...devices.map((d) => ({ id: d.id, name: d.name || d.platform.toUpperCase(), what: d.platform.toUpperCase(), path: `me/devices/${d.id}` })),
    ];
    const list = h("ul", { class: "list", id: "devices" }, items.length ? items.map((item) => h("li", { class: "row" },
      h("span", { class: "grow" }, item.name, h("span", { class: "badge" }, item.what)),
      h("button", { type: "button", onclick: () => attempt(async () => { await del(item.path); await render(); }) }, nt("remove"))))
      : h("li", { class: "muted" }, nt("none")));
    return section(nt("devices"), list);
  }

  if (token()) attempt(render);
  return () => { alive = false; };
}
