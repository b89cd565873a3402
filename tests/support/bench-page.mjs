// The page's performance budget (docs/performance.md#the-figures),
// measured in headless Chromium against the built dist/: input change to
// redrawn plots for the default scenario (median of 20, after 5 to warm
// up), a 1M run, navigation to the first plot and to ready (median of 5
// fresh loads, phone viewport, full CPU and 4x throttled), and the bytes a
// first visit transfers, gzipped, from navigation to ready (what the
// service worker fetches after that, its script and any file it keeps that
// the HTTP cache did not have, is printed apart); and the replay view playing a
// 20,000-attempt window: frame times and input to the next frame.
// Run by `cargo xtask bench page` (or `node tests/support/bench-page.mjs`
// after `cargo xtask build`).
import { execSync } from "node:child_process";
import { serve, launch, open, ready, ruleIds } from "./harness.mjs";

// Resident memory of every Chromium process (page, workers, browser), in MB.
const chromiumRss = () => {
  try {
    const kb = execSync("ps -C chromium -o rss=", { encoding: "utf8" }).split("\n").map(Number).filter((x) => x > 0);
    return kb.reduce((a, b) => a + b, 0) / 1024;
  } catch {
    return null;
  }
};

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// Navigation to the first plot and to the ready state (`data-first-plot-ms`,
// `data-ready-ms`, on the page's own clock from navigation start) as a
// reader arriving from a link meets it: a phone's viewport (390x844), a
// fresh context each time, median of 5; `rate` is Chromium's CPU
// throttling (DevTools' Emulation.setCPUThrottlingRate), which slows the
// page's own thread: its scripts, the module's instantiation, building the
// page, drawing, and the delivery of messages to and from the workers.
// Dedicated workers are targets of their own and run at full speed.
const MARKS = ["start", "built", "worker-ready", "first-plot", "ready"];
async function toFirstPlot(browser, base, hash, rate) {
  const loads = [];
  for (let i = 0; i < 5; i++) {
    const { page, context } = await open(browser, { deviceScaleFactor: 3, width: 390, height: 844 });
    const cdp = await context.newCDPSession(page);
    await cdp.send("Emulation.setCPUThrottlingRate", { rate });
    await page.goto(base + hash);
    await ready(page, 180000);
    const marks = await page.evaluate((names) => names.map((n) => Number(document.body.getAttribute(`data-${n}-ms`))), MARKS);
    loads.push(Object.fromEntries(MARKS.map((n, j) => [n, marks[j]])));
    await context.close();
  }
  return loads;
}

const percentile = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];

// The replay view playing `hash` (a 20,000-attempt window) for `seconds`:
// the interval between frames while it plays (the view logs each frame it
// draws in `window.lbsimReplayFrames`, [start, end, playing] on the page's
// clock), each frame's own drawing time, and input to frame: from a key's
// event to the next frame the browser renders after the
// view's handler has drawn (a requestAnimationFrame callback queued by a
// listener that runs after the view's), for Space to play and to pause;
// `rate` throttles the page's thread as for the first plot.
async function replayFrames(browser, base, hash, seconds, { scale, width, height, rate }) {
  const { page, context } = await open(browser, { deviceScaleFactor: scale, width, height });
  const cdp = await context.newCDPSession(page);
  await cdp.send("Emulation.setCPUThrottlingRate", { rate });
  await page.goto(base + hash);
  await ready(page, 120000);
  await page.waitForFunction(() => document.getElementById("replay-view")?.dataset.state === "ready", null, { timeout: 120000 });
  await page.locator("#replay-panel").scrollIntoViewIfNeeded();
  await page.evaluate(() => {
    window.lbsimReplayFrames = [];
    window.inputToFrame = [];
    window.addEventListener("keydown", (e) => {
      const at = e.timeStamp;
      requestAnimationFrame(() => window.inputToFrame.push(performance.now() - at));
    });
  });
  const inputs = [];
  const intervals = [];
  const draws = [];
  for (let round = 0; round < 3; round++) {
    await page.evaluate(() => { window.lbsimReplayFrames.length = 0; });
    await page.focus("#replay-view");
    await page.keyboard.press(" ");
    await page.waitForTimeout(seconds * 1000);
    await page.keyboard.press(" ");
    await page.waitForTimeout(200);
    const frames = await page.evaluate(() => window.lbsimReplayFrames.filter((f) => f[2]));
    for (let i = 1; i < frames.length; i++) intervals.push(frames[i][0] - frames[i - 1][0]);
    draws.push(...frames.map((f) => f[1] - f[0]));
  }
  inputs.push(...(await page.evaluate(() => window.inputToFrame)));
  const attempts = await page.evaluate(() => document.getElementById("replay-view").dataset.attempts);
  await context.close();
  return { intervals, draws, inputs, attempts };
}

const server = await serve();
const browser = await launch();
try {
  const firsts = [];
  const starts = [];
  const workerReady = [];
  let bytes = null;
  let afterPlot = null;
  for (let i = 0; i < 5; i++) {
    // The first of these visits as a reader's: with the service worker,
    // which registers after the first plot; its bytes are counted apart.
    const { page, context } = await open(browser, { deviceScaleFactor: 1, serviceWorkers: i === 0 ? "allow" : "block" });
    server.log.length = 0;
    await page.goto(server.base);
    await ready(page);
    firsts.push(Number(await page.getAttribute("body", "data-first-plot-ms")));
    starts.push(Number(await page.getAttribute("body", "data-start-ms")));
    workerReady.push(Number(await page.getAttribute("body", "data-worker-ready-ms")));
    if (i === 0) {
      // Up to web/offline.js, which the page imports once ready: what
      // comes from it on (its import, the service worker's script, what
      // the worker keeps that the HTTP cache did not have) is counted
      // apart, once the worker controls the page and has kept its files.
      await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 20000 });
      await page.waitForTimeout(1000);
      const split = server.log.findIndex((e) => e.path.startsWith("offline.js"));
      const end = split < 0 ? server.log.length : split;
      bytes = server.log.slice(0, end).map((e) => ({ ...e }));
      afterPlot = server.log.slice(end).map((e) => ({ ...e }));
    }
    await context.close();
  }
  const { page, context } = await open(browser, { deviceScaleFactor: 1 });
  await page.goto(server.base);
  await ready(page);
  const changes = [];
  const receives = [];
  const draws = [];
  // Five changes warm up (V8 optimizes the workers' code as it runs), then 20 count.
  const WARMUP = 5;
  for (let i = 1; i <= WARMUP + 20; i++) {
    const run = Number(await page.getAttribute("body", "data-run-id"));
    await page.evaluate((seed) => {
      const input = document.querySelector("input[name=seed]");
      input.value = String(seed);
      input.dispatchEvent(new Event("change", { bubbles: true }));
    }, 16 + i);
    await page.waitForFunction((r) => Number(document.body.dataset.runId) > r && document.body.dataset.state === "ready", run);
    if (i > WARMUP) {
      changes.push(Number(await page.getAttribute("body", "data-latency-ms")));
      receives.push(Number(await page.getAttribute("body", "data-receive-ms")));
      draws.push(Number(await page.getAttribute("body", "data-draw-ms")));
    }
  }
  const rss20k = chromiumRss();
  const rules = (await ruleIds(page)).length;
  // A million requests of all the rules (the page's cap), median of 5,
  // each with a new seed; progress is sampled every animation frame.
  const million = [];
  const progressShown = [];
  for (let i = 1; i <= 5; i++) {
    const run = Number(await page.getAttribute("body", "data-run-id"));
    await page.evaluate(({ seed, first }) => {
      window.progressSeen = new Set();
      const poll = () => {
        const p = Number(document.querySelector("#progress").value);
        if (document.body.dataset.state === "running" && p > 0 && p < 1) window.progressSeen.add(p.toFixed(2));
        if (document.body.dataset.state !== "ready" || window.progressSeen.size === 0) requestAnimationFrame(poll);
      };
      requestAnimationFrame(poll);
      const set = (k, v) => {
        const input = document.querySelector(`input[name=${k}]`);
        input.value = v;
        input.dispatchEvent(new Event("change", { bubbles: true }));
      };
      if (first) set("requests", "1000000");
      set("seed", String(seed));
    }, { seed: 100 + i, first: i === 1 });
    await page.waitForFunction((r) => Number(document.body.dataset.runId) > r && document.body.dataset.state === "ready", run, { timeout: 120000 });
    million.push(Number(await page.getAttribute("body", "data-latency-ms")));
    progressShown.push(await page.evaluate(() => window.progressSeen.size));
  }
  const rss1M = chromiumRss();
  await context.close();
  const arrivals = [];
  for (const [what, hash, target] of [["the default link", "", [300, 1000]], ["a 1M-request link", "#v=1&requests=1000000", [1200, null]]]) {
    for (const [rate, goal] of [[1, target[0]], [4, target[1]]]) {
      arrivals.push({ what, rate, goal, times: await toFirstPlot(browser, server.base, hash, rate) });
    }
  }
  const replays = [];
  const desktop = { scale: 2, width: 1280, height: 900, rate: 1 };
  const phone = { scale: 3, width: 390, height: 844, rate: 4 };
  for (const [speed, where] of [[1, desktop], [10, desktop], [10, phone]]) {
    const hash = `#v=1&preset=mixed&view=replay&pair=round-robin,least-connections&window=20000&speed=${speed}`;
    replays.push({ speed, where, ...(await replayFrames(browser, server.base, hash, 4, where)) });
  }
  const total = bytes.reduce((s, e) => s + e.bytes, 0);
  console.log(`page (default scenario, ${rules} algorithms, 20,000 requests, headless Chromium)`);
  console.log(`  input change to redrawn plots: median ${median(changes).toFixed(1)} ms of ${changes.length} after ${WARMUP} to warm up (min ${Math.min(...changes).toFixed(1)}, max ${Math.max(...changes).toFixed(1)}); budget 50 ms`);
  console.log(`    of which: reading the report ${median(receives).toFixed(1)} ms, drawing plots and table ${median(draws).toFixed(1)} ms (medians)`);
  console.log(`  1,000,000 requests, ${rules} algorithms: median ${median(million).toFixed(0)} ms of ${million.length} (min ${Math.min(...million).toFixed(0)}, max ${Math.max(...million).toFixed(0)}); target 1000 ms`);
  console.log(`    progress values shown during each run: ${progressShown.join(", ")}; Chromium's resident memory (all processes) ${rss20k?.toFixed(0)} MB after the 20,000-request runs, ${rss1M?.toFixed(0)} MB after the 1M ones`);
  console.log(`  first plot after navigation, desktop viewport, full CPU: median ${median(firsts).toFixed(0)} ms of ${firsts.length} (for comparison; the targets are the phone's below)`);
  console.log(`    of which: page's wasm running at ${median(starts).toFixed(0)} ms, first worker ready at ${median(workerReady).toFixed(0)} ms (medians)`);
  for (const a of arrivals) {
    const goal = a.goal === null ? "no target" : `target ${a.goal} ms`;
    // The targets are navigation to ready (docs/performance.md#the-figures): every plot
    // drawn. The first plot, which comes a task before, is beside it.
    const readies = a.times.map((t) => t.ready);
    console.log(`  navigation to ready (every plot drawn), ${a.what}, phone viewport, CPU ${a.rate}x: median ${median(readies).toFixed(0)} ms of ${readies.length} (${readies.map((t) => t.toFixed(0)).join(", ")}); ${goal}`);
    const at = (n) => median(a.times.map((t) => t[n])).toFixed(0);
    console.log(`    medians: page's wasm running ${at("start")} ms, page built ${at("built")}, first worker's ready seen ${at("worker-ready")}, first plot (the latency distribution) ${at("first-plot")}, ready ${at("ready")}`);
  }
  for (const r of replays) {
    console.log(`  replay playing, mixed, window of 20,000 requests (${r.attempts} attempts a rule, two rules), ${r.speed}x, ${r.where.width}x${r.where.height} at pixel ratio ${r.where.scale}, CPU ${r.where.rate}x: frame interval median ${median(r.intervals).toFixed(1)} ms, p95 ${percentile(r.intervals, 0.95).toFixed(1)} ms of ${r.intervals.length} (targets 17 and 33); drawing a frame median ${median(r.draws).toFixed(1)} ms, p95 ${percentile(r.draws, 0.95).toFixed(1)}; input to frame (Space) median ${median(r.inputs).toFixed(1)} ms, max ${Math.max(...r.inputs).toFixed(1)} of ${r.inputs.length} (target 50)`);
  }
  console.log(`  bytes transferred, gzipped:    ${(total / 1024).toFixed(2)} KiB in ${bytes.length} files (navigation to ready, every plot drawn); budget 250 KiB`);
  for (const e of bytes.sort((a, b) => b.bytes - a.bytes)) console.log(`    ${(e.bytes / 1024).toFixed(1).padStart(7)} KiB  ${e.path}`);
  const later = afterPlot.reduce((s, e) => s + e.bytes, 0);
  console.log(`  after the first plot, the service worker (registered at ready): ${(later / 1024).toFixed(2)} KiB in ${afterPlot.length} files from the server (${afterPlot.map((e) => e.path.split("?")[0]).join(", ")}); not in the budget`);
} finally {
  await browser.close();
  await server.close();
}
