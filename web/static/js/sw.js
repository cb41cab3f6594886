// The service worker: keeps every page's scripts, the stylesheet and icons so the
// home-screen app opens at once; pages, the API and the live stream always go to the box.
// `/sw.js` is served with two constants written in front of this file by the server:
// SHELL (the hashed URLs of every page's scripts, CSS and icons) and CACHE (named after
// the static files' digest, so a new version replaces the old cache).
/* global SHELL, CACHE */

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
  if (url.pathname.startsWith("/static/v/")) {
    // a hashed URL never changes: the cached copy first
    event.respondWith(caches.match(event.request).then((hit) => hit || fetch(event.request)));
    return;
  }
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
