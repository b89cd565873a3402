// Starts the page (README, "The playground"): compiles the page's wasm
// module once, hands it to the first worker (web/worker.js) and starts the page.
// Trunk writes the hashed file names into the script tag (Trunk.toml).
// The theme a link chose (`theme=light|dark` in the fragment, else in the
// query; `auto` and none follow the reader's preference), on <html> before
// the page's code starts: the styles and the plots read it there (links.rs,
// apply_theme, keeps it so).
const chosen = (part) => new URLSearchParams(part).get("theme");
const theme = chosen(location.hash.slice(1)) ?? chosen(location.search);
if (theme === "light" || theme === "dark") document.documentElement.dataset.theme = theme;
// The glossary's terms load when the reader nears them (or a link to
// them is followed), watched once the page has laid out its controls and
// plots: the first visit does not carry them. A hidden glossary (an
// embed's) never comes into view, so never loads.
function watchGlossary() {
  const terms = document.getElementById("glossary-terms");
  if (!terms) return;
  new IntersectionObserver((seen, observer) => {
    if (!seen.some((e) => e.isIntersecting)) return;
    observer.disconnect();
    fetch("glossary.html")
      .then((r) => (r.ok ? r.text() : ""))
      .then((html) => { terms.innerHTML = html; }, () => {});
  }, { rootMargin: "300px 0px" }).observe(terms);
}
const tag = document.querySelector("script[data-lbsim-js]");
const glue = new URL(tag.dataset.lbsimJs, document.baseURI).href;
const wasm = new URL(tag.dataset.lbsimWasm, document.baseURI).href;

async function compile() {
  try {
    return await WebAssembly.compileStreaming(fetch(wasm));
  } catch {
    // A host that does not serve .wasm as application/wasm.
    const bytes = await (await fetch(wasm)).arrayBuffer();
    return WebAssembly.compile(bytes);
  }
}

// The modules fetched the first time the page asks (crates/lbsim-web/src/
// lazy.rs), so a first visit does not carry them: `lbsim-panels` (the
// remapping and Config panels) and `lbsim-replay` (the replay view and its
// run). Their file names are not hashed; the built page names their
// version (web/finish.mjs writes data-lbsim-lazy).
const modules = {};
const at = (file) => new URL(file + (tag.dataset.lbsimLazy ?? ""), document.baseURI).href;
// The full simulator, every rule, for a worker the page starts when a run
// names a rule its own module leaves out: the "Your traffic" module's.
window.lbsimFull = { glue: at("lbsim-traffic.js"), module: at("lbsim-traffic_bg.wasm") };
window.lbsimLazy = (name) => {
  modules[name] ??= (async () => {
    const bindings = await import(at(name + ".js"));
    await bindings.default({ module_or_path: at(name + "_bg.wasm") });
    return bindings;
  })();
  // A failed load is tried again the next time.
  modules[name].catch(() => { delete modules[name]; });
  return modules[name];
};

// After the first result is drawn, web/offline.js registers the service
// worker that lets a revisit work offline: a first visit's loading
// carries neither.
function whenFirstDrawn() {
  new MutationObserver((_, observer) => {
    if (document.body.dataset.state !== "ready") return;
    observer.disconnect();
    import("./offline.js").catch(() => {});
  }).observe(document.body, { attributes: true });
}

// The first worker starts at once; the module follows when compiled.
const compiled = compile();
try {
  const worker = new Worker(`./worker.js?glue=${encodeURIComponent(glue)}`, { type: "module" });
  const early = { worker, events: [], taken: false };
  const keep = (event) => {
    if (!early.taken) early.events.push(event);
  };
  worker.addEventListener("message", keep);
  worker.addEventListener("error", keep);
  compiled.then((module) => worker.postMessage({ glue, module }), () => {});
  window.lbsimFirstWorker = early;
} catch {
  // The page starts its own worker, and says so if it cannot.
}
try {
  const [bindings, module] = await Promise.all([import(glue), compiled]);
  window.lbsimModule = { glue, module };
  await bindings.default({ module_or_path: module });
  // This script is async (Trunk.toml): it starts the download, the
  // compilation and the first worker while the page is still parsed, and
  // builds the page once the document is whole.
  if (document.readyState === "loading") {
    await new Promise((parsed) => document.addEventListener("DOMContentLoaded", parsed, { once: true }));
  }
  bindings.start_page();
  watchGlossary();
  whenFirstDrawn();
} catch (e) {
  // The page's own code could not start: say so where the notices go.
  const notice = document.getElementById("notice");
  notice.textContent = `The playground could not start: ${e}. Reload the page to try again.`;
  notice.hidden = false;
  document.body.dataset.state = "error";
}
