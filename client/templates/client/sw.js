// The service worker (served at /sw.js, scope /): the app shell for offline use, pushed notifications.
// The shell's list and version are written in by the server (client.views.service_worker).
const SHELL = {{ shell|safe }};
const VERSION = {{ version|safe }};
const ICON = {{ icon|safe }};
const CACHE = `maumau-shell-${VERSION}`;

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) if (name.startsWith("maumau-shell-") && name !== CACHE) await caches.delete(name);
    await self.clients.claim();
  })());
});

// The page: the network first (it is small and says what is current), the cached shell when offline.
// Static files: hashed names never change, so the cache first. The API is never cached.
self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === "navigate" && url.pathname === "/") {
    event.respondWith(fetch(request).catch(async () => (await caches.match("/")) || Response.error()));
  } else if (url.pathname.startsWith("/static/")) {
    event.respondWith(caches.match(request).then((hit) => hit || fetch(request)));
  }
});

// A push (RFC 8030; the payload the server encrypted, decrypted by the browser): the kind, the game, the
// texts in the player's language, the URL to open. One notification per game and kind (tag).
self.addEventListener("push", (event) => {
  let data = {};
  try { data = event.data ? event.data.json() : {}; } catch (exc) { data = { title: "Mau-Mau", body: event.data ? event.data.text() : "" }; }
  const title = data.title || "Mau-Mau";
  event.waitUntil(self.registration.showNotification(title, {
    body: data.body || "", tag: data.tag || data.kind || "maumau", renotify: true, icon: ICON, badge: ICON,
    data: { url: data.url || "/#/lobby", kind: data.kind, game: data.game },
  }));
});

// A click opens the game: a window of the app already open is focused and sent there, else one is opened.
self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const target = new URL((event.notification.data && event.notification.data.url) || "/#/lobby", self.location.origin);
  if (target.origin !== self.location.origin) return;
  event.waitUntil((async () => {
    const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
    const open = windows.find((client) => new URL(client.url).origin === self.location.origin);
    if (open) {
      open.postMessage({ type: "open", url: target.href });
      try { await open.focus(); } catch (exc) { /* focusing needs the click's activation */ }
      return;
    }
    await self.clients.openWindow(target.href);
  })());
});
