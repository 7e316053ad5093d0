// @ts-check
// The service worker (served at /sw.js, scope /): the app shell for offline use, pushed notifications.
// The server writes SHELL (the shell's files), VERSION and ICON in front of this file
// (client.views.service_worker); worker/server.d.ts declares them for the type check.

/**
 * A push's payload (notify.texts.payload; Web Push, not an HTTP answer, so not in the OpenAPI schema).
 * @typedef {object} PushPayload
 * @property {string} [kind]
 * @property {number | null} [game]
 * @property {string} [title]
 * @property {string} [body]
 * @property {string} [url]
 * @property {string} [tag]
 */

const worker = /** @type {ServiceWorkerGlobalScope} */ (/** @type {unknown} */ (self));
const CACHE = `maumau-shell-${VERSION}`;

worker.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(SHELL)).then(() => worker.skipWaiting()));
});

worker.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) if (name.startsWith("maumau-shell-") && name !== CACHE) await caches.delete(name);
    await worker.clients.claim();
  })());
});

// The page: the network first (it is small and says what is current), the cached shell when offline.
// Static files: hashed names never change, so the cache first. The API is never cached.
worker.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== worker.location.origin) return;
  if (request.mode === "navigate" && url.pathname === "/") {
    event.respondWith(fetch(request).catch(async () => (await caches.match("/")) || Response.error()));
  } else if (url.pathname.startsWith("/static/")) {
    event.respondWith(caches.match(request).then((hit) => hit || fetch(request)));
  }
});

// A push (RFC 8030; the payload the server encrypted, decrypted by the browser): the kind, the game, the
// texts in the player's language, the URL to open. One notification per game and kind (tag).
worker.addEventListener("push", (event) => {
  /** @type {PushPayload} */
  let data = {};
  try { data = event.data ? event.data.json() : {}; } catch (exc) { data = { title: "Mau-Mau", body: event.data ? event.data.text() : "" }; }
  const title = data.title || "Mau-Mau";
  // `renotify` (a new buzz for a replaced notification) is not in TypeScript's NotificationOptions.
  /** @type {NotificationOptions & {renotify?: boolean}} */
  const options = {
    body: data.body || "", tag: data.tag || data.kind || "maumau", renotify: true, icon: ICON, badge: ICON,
    data: { url: data.url || "/#/lobby", kind: data.kind, game: data.game },
  };
  event.waitUntil(worker.registration.showNotification(title, options));
});

// A click opens the game: a window of the app already open is focused and sent there, else one is opened.
worker.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const target = new URL((event.notification.data && event.notification.data.url) || "/#/lobby", worker.location.origin);
  if (target.origin !== worker.location.origin) return;
  event.waitUntil((async () => {
    const windows = await worker.clients.matchAll({ type: "window", includeUncontrolled: true });
    const open = windows.find((client) => new URL(client.url).origin === worker.location.origin);
    if (open) {
      open.postMessage({ type: "open", url: target.href });
      try { await open.focus(); } catch (exc) { /* focusing needs the click's activation */ }
      return;
    }
    await worker.clients.openWindow(target.href);
  })());
});
