// The "Your traffic" panel's worker: its module (crates/lbsim-traffic)
// reads an access log and runs every rule on its requests, off the page's
// thread. The panel (the same module's) starts it with the modules'
// version (`?v=`, web/finish.mjs) and posts
//   { read: File, link, fields, reading }  read this file, then run
//   { again: true, link, fields, reading } the held file: read it again if
//                                          `reading` (the fields a reading
//                                          takes) changed, then run
// (`fields`: [key, value] pairs set over the page's scenario `link`)
// and hears { type: "progress" | "summary" | "running" | "report" | "error" }.
// The file is read as a stream (gzip through the browser's own
// DecompressionStream when its first bytes say so) and held only in this
// worker's memory: nothing is stored, and nothing of it is fetched or sent.
const version = new URL(self.location.href).search;
const at = (file) => new URL(file + version, self.location.href).href;
const traffic = import(at("lbsim-traffic.js")).then(async (bindings) => {
  await bindings.default({ module_or_path: at("lbsim-traffic_bg.wasm") });
  return bindings;
});
// How often the page hears of the reading's progress.
const PROGRESS_MS = 100;
// The file, what it was read with, and the log it gave.
let held = null;

async function isGzip(file) {
  const head = new Uint8Array(await file.slice(0, 2).arrayBuffer());
  return head.length === 2 && head[0] === 0x1f && head[1] === 0x8b;
}

async function read(bindings, file, link, fields) {
  const reader = new bindings.LogRead(link, fields);
  // Bytes of the file read, for the progress bar (counted before gzip).
  let read = 0;
  let stream = file.stream().pipeThrough(new TransformStream({
    transform(chunk, controller) {
      read += chunk.length;
      controller.enqueue(chunk);
    },
  }));
  if (await isGzip(file)) stream = stream.pipeThrough(new DecompressionStream("gzip"));
  const chunks = stream.getReader();
  let last = 0;
  const tell = () => {
    const p = reader.progress();
    self.postMessage({ type: "progress", ...p, read, size: file.size });
  };
  for (;;) {
    const { done, value } = await chunks.read();
    if (done) break;
    reader.push(value);
    const now = performance.now();
    if (now - last > PROGRESS_MS) {
      last = now;
      tell();
    }
  }
  read = file.size;
  tell();
  return reader.finish();
}

function run(bindings, log, link, fields) {
  const bytes = log.run(link, fields, (done, total) => self.postMessage({ type: "running", done, total }));
  self.postMessage({ type: "report", bytes, link: log.link(link, fields) }, [bytes.buffer]);
}

self.onmessage = async ({ data }) => {
  try {
    const bindings = await traffic;
    const file = data.read ?? held?.file;
    if (!file) return;
    if (data.read || held.reading !== data.reading) {
      if (held) held.log.free();
      held = null;
      const log = await read(bindings, file, data.link, data.fields);
      held = { file, reading: data.reading, log };
      self.postMessage({ type: "summary", summary: log.summary() });
    }
    run(bindings, held.log, data.link, data.fields);
  } catch (e) {
    self.postMessage({ type: "error", message: String(e?.message ?? e) });
  }
};
