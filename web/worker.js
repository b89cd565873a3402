// A simulator worker. The page posts `{glue, module}` first: the URL of
// the wasm-bindgen glue and the page's compiled wasm module (web/boot.js),
// so the module is downloaded and compiled once for the page and every
// worker. Then the simulator starts (`start_worker`), posts "Ready" and
// takes runs; a failure to start surfaces as the worker's error event.
self.addEventListener("message", async function boot(event) {
  self.removeEventListener("message", boot);
  try {
    const { glue, module } = event.data;
    const bindings = await import(glue);
    await bindings.default({ module_or_path: module });
    bindings.start_worker();
  } catch (e) {
    setTimeout(() => {
      throw e;
    });
  }
});
