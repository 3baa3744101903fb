// The app's service worker, served at /sw.js after two lines the server writes (VERSION,
// the hash of the app's files; FILES, their URLs): it keeps the app's own files so a
// tablet opens the app without a connection. Network first: online, every file comes
// from the server as before (an upgrade shows at once); only when the network fails does
// the kept copy answer. GraphQL, exports, tickets and proofs are never kept: what the
// server decides is read from the server.
const CACHE = "pressroom-" + VERSION;
const KEPT = new Set(FILES);
// Navigations the app's shell does not answer: pages and files the server makes itself.
const NOT_THE_APP = ["/graphql", "/display/", "/c/", "/static/", "/export/", "/proofs/"];

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(FILES.map((url) => new Request(url, { cache: "reload" }))))
      .then(() => self.skipWaiting()),
  );
});

// The new release's files replace the old ones, whose cache goes.
self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) =>
        Promise.all(names.filter((n) => n.startsWith("pressroom-") && n !== CACHE).map((n) => caches.delete(n))),
      )
      .then(() => self.clients.claim()),
  );
});

// The kept copy that answers a request when the network does not, or null: the file
// itself, or the shell for any of the app's own pages (/queues, /orders/...), which are
// all one page routed in the browser.
function keptFor(request) {
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return null;
  if (KEPT.has(url.pathname)) return url.pathname;
  const last = url.pathname.split("/").pop();
  if (request.mode === "navigate" && !last.includes(".") && !NOT_THE_APP.some((p) => url.pathname.startsWith(p))) {
    return "/";
  }
  return null;
}

self.addEventListener("fetch", (event) => {
  const key = keptFor(event.request);
  if (key === null) return;
  event.respondWith(
    fetch(event.request).catch((error) =>
      caches.open(CACHE).then((cache) => cache.match(key)).then((kept) => kept || Promise.reject(error)),
    ),
  );
});
