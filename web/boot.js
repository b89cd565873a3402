// Starts the page (README, "The playground"): compiles the one wasm module
// once, hands it to the first worker (web/worker.js) and starts the page.
// Trunk writes the hashed file names into the script tag (Trunk.toml).
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
  bindings.start_page();
} catch (e) {
  // The page's own code could not start: say so where the notices go.
  const notice = document.getElementById("notice");
  notice.textContent = `The playground could not start: ${e}. Reload the page to try again.`;
  notice.hidden = false;
  document.body.dataset.state = "error";
}
