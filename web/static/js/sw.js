// A minimal service worker: keeps the dashboard's shell (CSS, scripts, icons) so the
// home-screen app opens at once; pages, the API and the live stream always go to the box.
const CACHE = "diablotin-shell-v1";
const SHELL = [
  "/static/app.css",
  "/static/js/common.js",
  "/static/js/home.js",
  "/static/js/box.js",
  "/static/js/history.js",
  "/static/js/history_game.js",
  "/static/js/games/sauteur.js",
  "/static/js/games/sauteur-board.js",
  "/static/js/games/generic.js",
  "/static/icons/icon.svg",
  "/static/icons/icon-192.png",
];

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()));
});

self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== "GET" || url.origin !== location.origin || !url.pathname.startsWith("/static/")) return;
  // network first (the box is on the table), the cached copy when it does not answer
  event.respondWith(
    fetch(event.request)
      .then((resp) => {
        const copy = resp.clone();
        caches.open(CACHE).then((cache) => cache.put(event.request, copy));
        return resp;
      })
      .catch(() => caches.match(event.request)));
});
