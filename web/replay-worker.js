// The replay's worker: its module (crates/lbsim-replay) runs a replay's
// window off the page's thread and posts its bytes (a FromReplayWorker,
// crates/lbsim-protocol). The replay view (the same module's) starts it
// with the modules' version (`?v=`, web/finish.mjs) and posts
// [id, scenario link, "rule,rule", window].
const version = new URL(self.location.href).search;
const at = (file) => new URL(file + version, self.location.href).href;
const replay = import(at("lbsim-replay.js")).then(async (bindings) => {
  await bindings.default({ module_or_path: at("lbsim-replay_bg.wasm") });
  return bindings;
});
self.onmessage = async ({ data: [id, link, pair, window] }) => {
  try {
    const bindings = await replay;
    const bytes = bindings.replay_window(id, link, pair, window);
    self.postMessage(bytes, [bytes.buffer]);
  } catch (e) {
    self.postMessage(String(e));
  }
};
