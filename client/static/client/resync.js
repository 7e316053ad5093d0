// @ts-check
// Coming back: when the browser is online again or the tab visible again, the screens re-read what they
// show (the game, the lobby); a read that fails is tried again with backoff. Offline, the header says so.

/** @type {Set<(online: boolean) => void>} */
const listeners = new Set();
/** @type {Record<string, string>} */
const TEXTS = {
  en: "Offline: showing what was saved; reconnecting when the network is back.",
  de: "Offline: gespeicherter Stand; verbinde neu, sobald das Netz zurück ist.",
  fr: "Hors ligne : affichage de l'état enregistré ; reconnexion dès le retour du réseau.",
};
/** @type {Record<string, string>} */
const TEXTS_AT = {
  en: "Offline: showing what was saved at {time}; reconnecting when the network is back.",
  de: "Offline: Stand von {time}; verbinde neu, sobald das Netz zurück ist.",
  fr: "Hors ligne : état enregistré à {time} ; reconnexion dès le retour du réseau.",
};
/** @type {number | null} */
let shownAt = null;  // the time of the oldest saved answer on the screen, while offline

// listener(online) on every online/offline change and whenever the tab becomes visible; returns an unsubscribe.
/** @param {(online: boolean) => void} listener */
export function onResync(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** @param {boolean} online */
function tell(online) {
  showOffline(!online);
  for (const listener of [...listeners]) listener(online);
}

// read() again until it resolves: 0.5 s, 1 s, 2 s ... at most 15 s apart; stops when stop() says so.
/**
 * @template T
 * @param {() => Promise<T>} read
 * @param {() => boolean} [stop]
 * @returns {Promise<T>}
 */
export async function withBackoff(read, stop = () => false) {
  let delay = 500;
  for (;;) {
    try { return await read(); } catch (exc) {
      if (stop()) throw exc;
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 15000);
    }
  }
}

// A screen shows answers saved at `at` (ms): the banner says as of when.
/** @param {number} at */
export function savedAt(at) {
  shownAt = shownAt === null ? at : Math.min(shownAt, at);
  showOffline(true);
}

/** @param {boolean} offline */
export function showOffline(offline) {
  const banner = document.getElementById("offline");
  if (!banner) return;
  const language = (document.documentElement.lang || "en").slice(0, 2);
  if (!offline) shownAt = null;
  const time = shownAt === null ? null : new Date(shownAt).toLocaleString(language, { dateStyle: "short", timeStyle: "short" });
  banner.textContent = time ? (TEXTS_AT[language] || TEXTS_AT.en).replace("{time}", time) : TEXTS[language] || TEXTS.en;
  banner.hidden = !offline;
  document.documentElement.dataset.offline = offline ? "true" : "false";
}

window.addEventListener("online", () => tell(true));
window.addEventListener("offline", () => tell(false));
document.addEventListener("visibilitychange", () => { if (document.visibilityState === "visible") tell(navigator.onLine); });
showOffline(!navigator.onLine);
