// Starts the page. Trunk writes the hashed file names into the script tag
// (Trunk.toml, pattern_script); an external module keeps the
// Content-Security-Policy free of inline scripts.
//
// The first simulator worker starts here, before the page's own wasm has
// loaded, so both load at once; the page takes it over (with whatever it
// said in the meantime) from `window.lbsimFirstWorker`.
const tag = document.querySelector("script[data-lbsim-js]");
try {
  const worker = new Worker("./lbsim-worker_loader.js", { type: "module" });
  const early = { worker, events: [], taken: false };
  const keep = (event) => {
    if (!early.taken) early.events.push(event);
  };
  worker.addEventListener("message", keep);
  worker.addEventListener("error", keep);
  window.lbsimFirstWorker = early;
} catch {
  // The page starts its own worker, and says so if it cannot.
}
const { default: init } = await import(tag.dataset.lbsimJs);
await init({ module_or_path: tag.dataset.lbsimWasm });
