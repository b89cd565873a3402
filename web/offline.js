// Registers the service worker (web/sw.js) that lets a revisit work
// offline (docs/embedding.md#offline). web/boot.js imports this once the
// first result is drawn, so a first visit's loading shares nothing with
// it. Only a finished build registers it: web/finish.mjs writes its
// version, a hash of the build's files (a development build's files
// change under the same names). The worker keeps the files this visit
// loaded, whose addresses this sends whenever a worker takes control of
// the page, and from then on each file as it is fetched.
const tag = document.querySelector("script[data-lbsim-js]");
const version = tag?.dataset.lbsimOffline;
const sw = navigator.serviceWorker;
if (version && sw) {
  // As web/boot.js starts it: the page's glue in the query.
  const glue = new URL(tag.dataset.lbsimJs, document.baseURI).href;
  const worker = new URL(`./worker.js?glue=${encodeURIComponent(glue)}`, document.baseURI).href;
  const tell = () =>
    sw.controller?.postMessage({
      page: location.href,
      files: [worker, ...performance.getEntriesByType("resource").map((e) => e.name)],
    });
  sw.addEventListener("controllerchange", tell);
  tell();
  sw.register(`sw.js${version}`).catch(() => {});
}
