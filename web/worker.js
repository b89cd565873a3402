// A simulator worker: the page posts {glue, module} (web/boot.js), the
// worker instantiates the page's compiled module and starts the simulator.
// `?glue=` lets it load the glue while the module still compiles.
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
    // Surfaces as the worker's error event, which the page handles.
    setTimeout(() => {
      throw e;
    });
  }
});
