// A simulator worker: the page posts {glue, module} (web/boot.js), the
// worker instantiates the page's compiled module and starts the simulator.
// `?glue=` lets it load the glue while the module still compiles.
const early = new URL(self.location.href).searchParams.get("glue");
const preloaded = early ? import(early) : null;
// What the page posts while the module instantiates (its first run, posted
// at once so that it overlaps the page building its controls), held and
// handed to the simulator, in order, once it listens.
const held = [];
const hold = (event) => held.push(event);
self.addEventListener("message", async function boot(event) {
  self.removeEventListener("message", boot);
  self.addEventListener("message", hold);
  try {
    const { glue, module } = event.data;
    const bindings = await (preloaded ?? import(glue));
    await bindings.default({ module_or_path: module });
    bindings.start_worker();
    self.removeEventListener("message", hold);
    for (const e of held.splice(0)) self.onmessage(e);
  } catch (e) {
    // Surfaces as the worker's error event, which the page handles.
    setTimeout(() => {
      throw e;
    });
  }
});
