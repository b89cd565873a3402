// A simulator worker. The page posts `{glue, module}` first: the URL of
// the wasm-bindgen glue and the page's compiled wasm module (web/boot.js),
// so the module is downloaded and compiled once for the page and every
// worker. Then the simulator starts (`start_worker`), posts "Ready" and
// takes runs; a failure to start surfaces as the worker's error event.
// The first worker also gets the glue's URL in its own address
// (`?glue=`), so it loads the glue while the module is still compiling.
const early = new URL(self.location.href).searchParams.get("glue");
const preloaded = early ? import(early) : null;
self.addEventListener("message", async function boot(event) {
  self.removeEventListener("message", boot);
  try {
    const { glue, module } = event.data;
    const bindings = await (preloaded ?? import(glue));
    await bindings.default({ module_or_path: module });
    bindings.start_worker();
  } catch (e) {
    setTimeout(() => {
      throw e;
    });
  }
});
