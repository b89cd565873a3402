// The page's service worker (docs/embedding.md#offline): a revisit works
// offline. web/boot.js registers it once the first result is drawn, as
// `sw.js?v=VERSION`, the version web/finish.mjs writes: a hash of the
// build's files, so a new deploy installs a new worker, which drops the
// old cache.
//
// Every request goes to the network first, through the browser's HTTP
// cache as without a worker, so an online reader always gets the deployed
// files; what comes back is kept, and the kept copy answers only when the
// network fails. The worker never fetches a file the page has not asked
// for: it keeps what the page fetches while it controls the page (a module
// fetched on first use, the glossary) and, when it takes control, the
// files the page had loaded before (their addresses come from the page,
// and come from the HTTP cache).
const CACHE = `lbsim-${new URL(self.location.href).searchParams.get("v")}`;
const scope = self.registration.scope;

// The page under one name: its address without the query (`?embed=1` and
// `?theme=` are views of the same file).
function key(url, page) {
  if (!page) return url;
  const at = new URL(url);
  at.search = "";
  at.hash = "";
  return at.pathname.endsWith("/") ? `${at.href}index.html` : at.href;
}

const keep = (name, response) => caches.open(CACHE).then((cache) => cache.put(name, response));

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) if (name !== CACHE) await caches.delete(name);
      await self.clients.claim();
    })(),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET" || !request.url.startsWith(scope)) return;
  const name = key(request.url, request.mode === "navigate");
  event.respondWith(
    fetch(request).then(
      (response) => {
        if (response.ok) event.waitUntil(keep(name, response.clone()));
        return response;
      },
      async () => (await caches.match(name)) ?? Response.error(),
    ),
  );
});

// The files the page loaded before this worker controlled it.
self.addEventListener("message", (event) => {
  const { page, files } = event.data ?? {};
  const wanted = [[page, true], ...(Array.isArray(files) ? files : []).map((f) => [f, false])];
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      for (const [url, isPage] of wanted) {
        if (typeof url !== "string" || !url.startsWith(scope)) continue;
        const name = key(url, isPage);
        if (await cache.match(name)) continue;
        try {
          const response = await fetch(url);
          if (response.ok) await cache.put(name, response);
        } catch {
          // Offline already: the next visit online keeps it.
        }
      }
    })(),
  );
});
