// The replay view (crates/lbsim-web/src/replay/, in the lbsim-replay module), in
// headless Chromium against dist/: for each fleet preset and mixed, a
// replay link plays and pauses, and the counters beside each rule equal
// what the attempt log says at the paused moment, counted here from
// `lbsim replay --format csv` (the CLI, run apart: every attempt's times to
// the bit); a run replayed whole ends on `lbsim run`'s report; the view's
// keys ride in the page's links and reopen the same moment; keyboard,
// reduced motion, the embed; screenshots.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { useBrowser, open, ready, OUTPUT } from "./support/harness.mjs";

const env = useBrowser();
const CLI = process.env.LBSIM_CLI ?? "target/release/lbsim";

/** The attempt log of `lbsim replay` for the page's link, pair and window. */
function attemptLog(link, pair, window) {
  assert.ok(existsSync(CLI), `the CLI (${CLI}) is built`);
  const csv = execFileSync(CLI, ["replay", "--url", link, "--pair", pair, "--window", String(window), "--format", "csv"], {
    maxBuffer: 1 << 28,
    stdio: ["ignore", "pipe", "ignore"],
  }).toString();
  const [head, ...lines] = csv.trim().split("\n");
  const keys = head.split(",");
  return lines.map((l) => Object.fromEntries(l.split(",").map((v, i) => [keys[i], v])));
}

/** What the log says at `t` for one rule, counted from its attempts: a
 * request is answered when its last attempt ends, with that attempt's
 * outcome; p99 is the nearest rank (ceil(0.99 n)) of answer less arrival. */
function countersFromLog(log, rule, t, servers) {
  const mine = log.filter((a) => a.algorithm === rule);
  const requests = new Map();
  for (const a of mine) {
    const r = requests.get(a.request) ?? { arrival: Number(a.arrival_ms), done: -Infinity, lastSent: -Infinity, ok: true };
    if (Number(a.sent_ms) >= r.lastSent) {
      r.lastSent = Number(a.sent_ms);
      r.ok = a.outcome === "ok";
    }
    r.done = Math.max(r.done, Number(a.done_ms));
    requests.set(a.request, r);
  }
  const latencies = [];
  let arrived = 0;
  let finished = 0;
  let errors = 0;
  for (const r of requests.values()) {
    if (r.arrival <= t) arrived++;
    if (r.done <= t) {
      finished++;
      if (!r.ok) errors++;
      latencies.push(r.done - r.arrival);
    }
  }
  latencies.sort((a, b) => a - b);
  const p99 = latencies.length ? latencies[Math.min(latencies.length, Math.max(1, Math.ceil(0.99 * latencies.length))) - 1] : null;
  const inFlight = servers.map(() => 0);
  const queued = servers.map(() => 0);
  let retries = 0;
  for (const a of mine) {
    if (Number(a.sent_ms) > t) continue;
    if (a.retry === "true") retries++;
    if (Number(a.done_ms) > t) {
      const s = servers.indexOf(a.server);
      inFlight[s]++;
      if (Number(a.start_ms) > t) queued[s]++;
    }
  }
  return { requests: requests.size, arrived, finished, errors, retries, p99, inFlight: inFlight.join(","), queued: queued.join(",") };
}

/** The counters the page shows beside rule `i`, exactly (data attributes). */
async function shown(page, i) {
  return page.$eval(`#replay-counters-${i}`, (e) => ({
    arrived: Number(e.dataset.arrived),
    finished: Number(e.dataset.finished),
    errors: Number(e.dataset.errors),
    retries: Number(e.dataset.retries),
    p99: e.dataset.p99Ms === "" ? null : Number(e.dataset.p99Ms),
    inFlight: e.dataset.inFlight,
    queued: e.dataset.queued,
  }));
}

async function replayReady(page) {
  await page.waitForFunction(() => document.getElementById("replay-view")?.dataset.state === "ready", null, { timeout: 60000 });
}

/** The page's pair, window and playhead. */
async function where(page) {
  return page.evaluate(() => ({
    pair: [0, 1].map((i) => document.getElementById(`replay-rule-${i}`).value),
    window: Number(document.getElementById("replay-window").value),
    t: Number(document.getElementById("replay-view").dataset.tMs),
    playing: document.getElementById("replay-view").dataset.playing === "1",
  }));
}

/** The server names of the scenario, as the log names them (s1, s2, ...). */
function names(n) {
  return Array.from({ length: n }, (_, i) => `s${i + 1}`);
}

async function assertCountersMatchLog(page, link, what) {
  const { pair, window, t } = await where(page);
  const log = attemptLog(link, pair.join(","), window);
  const servers = (await shown(page, 0)).inFlight.split(",").length;
  for (const [i, rule] of pair.entries()) {
    const want = countersFromLog(log, rule, t, names(servers));
    assert.equal(want.requests, window, `${what} ${rule}: every request of the window has an attempt in the log`);
    const { requests, ...expected } = want;
    assert.deepEqual(await shown(page, i), expected, `${what} ${rule} at ${t} ms`);
  }
  return t;
}

for (const preset of ["mixed", "black-hole", "crash", "slow-node", "cold-start"]) {
  test(`${preset}: the replay plays, pauses, and its counters are the attempt log's at that moment`, async () => {
    const { page, context } = await open(env.browser, { deviceScaleFactor: 1 });
    const errors = [];
    page.on("pageerror", (e) => errors.push(e.message));
    const link = `${env.server.base}#v=1&preset=${preset}`;
    await page.goto(`${link}&view=replay`);
    await ready(page);
    await replayReady(page);
    assert.equal(await page.$eval("#replay-panel", (p) => p.open), true, "view=replay opens the panel");
    const start = await where(page);
    assert.equal(start.playing, false, "it starts paused");
    assert.equal(start.t, 0);
    // Space plays (the view has the focus), space pauses.
    await page.focus("#replay-view");
    await page.keyboard.press(" ");
    await page.waitForFunction(() => Number(document.getElementById("replay-view").dataset.tMs) > 400);
    await page.keyboard.press(" ");
    const paused = await where(page);
    assert.equal(paused.playing, false);
    assert.ok(paused.t >= 400 && Number.isInteger(paused.t), `paused on a whole ms: ${paused.t}`);
    await assertCountersMatchLog(page, link, `${preset} paused`);
    // A moment well inside the window (past the events), through the
    // scrubber, as a reader drags it.
    const end = Number(await page.getAttribute("#replay-scrub", "max"));
    await page.$eval("#replay-scrub", (s, v) => {
      s.value = String(v);
      s.dispatchEvent(new Event("input", { bubbles: true }));
      s.dispatchEvent(new Event("change", { bubbles: true }));
    }, Math.round(end * 0.6));
    await assertCountersMatchLog(page, link, `${preset} scrubbed`);
    // A step lands on the next moment something happens, and says so.
    await page.focus("#replay-view");
    const before = (await where(page)).t;
    await page.keyboard.press("ArrowRight");
    const after = (await where(page)).t;
    assert.ok(after > before, `a step moves on: ${before} -> ${after}`);
    assert.match(await page.textContent("#replay-status"), /^Paused at \d+\.\d{3} s of \d+\.\d{3} s\. /);
    await assertCountersMatchLog(page, link, `${preset} stepped`);
    assert.deepEqual(errors, []);
    await context.close();
  });
}

test("a run replayed whole ends on lbsim run's report", async () => {
  for (const preset of ["mixed", "black-hole", "crash"]) {
    const { page, context } = await open(env.browser, { deviceScaleFactor: 1 });
    // Past the crash at 20 s, so its errors are in the run.
    const link = `${env.server.base}#v=1&preset=${preset}&requests=8000`;
    await page.goto(`${link}&view=replay&window=8000&t=100000`);
    await ready(page);
    await replayReady(page);
    const report = JSON.parse(execFileSync(CLI, ["run", "--url", link, "--format", "json"], { maxBuffer: 1 << 28 }).toString());
    const { pair } = await where(page);
    for (const [i, rule] of pair.entries()) {
      const result = report.results.find((r) => r.algorithm === rule);
      const c = await shown(page, i);
      assert.equal(c.finished, 8000, `${preset} ${rule}: every request answered`);
      assert.equal(c.errors, result.errors ?? 0, `${preset} ${rule}: errors`);
      assert.equal(c.retries, result.retries ?? 0, `${preset} ${rule}: retries`);
      assert.equal(c.p99, result.latency_ms.all.p99, `${preset} ${rule}: p99`);
      assert.equal(c.inFlight.split(",").every((n) => n === "0"), true);
    }
    await context.close();
  }
});

test("the replay's keys ride in the page's links and reopen the same moment", async () => {
  const { page, context } = await open(env.browser, { deviceScaleFactor: 1 });
  await page.goto(`${env.server.base}#v=1&preset=crash&view=replay`);
  await ready(page);
  await replayReady(page);
  await page.selectOption("#replay-rule-1", "power-of-two");
  await replayReady(page);
  await page.selectOption("#replay-speed", "2");
  await page.focus("#replay-view");
  await page.keyboard.press(" ");
  await page.waitForFunction(() => Number(document.getElementById("replay-view").dataset.tMs) > 500);
  await page.keyboard.press(" ");
  const paused = await where(page);
  const counters = [await shown(page, 0), await shown(page, 1)];
  await page.waitForFunction((t) => document.getElementById("share-url").value.includes(`&t=${t / 1000}`), paused.t);
  const share = await page.inputValue("#share-url");
  assert.match(share, /&view=replay&pair=round-robin,power-of-two&t=[\d.]+&speed=2&window=\d+/);
  // The address bar follows (debounced), and the CLI's command says the same.
  await page.waitForFunction((s) => location.hash === "#" + s.split("#")[1], share);
  assert.match(await page.textContent("#replay-cli"), /^lbsim replay --url '.*' --pair round-robin,power-of-two --window \d+ --at [\d.]+$/);
  // The share link, opened afresh, is the same moment.
  const again = await context.newPage();
  await again.goto(share);
  await ready(again);
  await replayReady(again);
  const reopened = await where(again);
  assert.deepEqual(reopened, { ...paused, playing: false });
  assert.deepEqual([await shown(again, 0), await shown(again, 1)], counters, "the same counters at the same moment");
  assert.equal(await again.$eval("#replay-speed", (s) => s.value), "2");
  await context.close();
});

test("the balancer's health verdicts: crash's checks take s4 out 4 to 6 s after it crashes, as lbsim replay says", async () => {
  const { page, context } = await open(env.browser, { deviceScaleFactor: 1 });
  for (const [t, out] of [[23, "0,0,0,0"], [27, "0,0,0,1"], [45, "0,0,0,0"]]) {
    const link = `${env.server.base}#v=1&preset=crash`;
    await page.goto(`${link}&view=replay&t=${t}`);
    await page.reload();
    await ready(page);
    await replayReady(page);
    const { pair, window } = await where(page);
    const table = execFileSync(CLI, ["replay", "--url", link, "--pair", pair.join(","), "--window", String(window), "--at", String(t)]).toString();
    for (const [i, rule] of pair.entries()) {
      assert.equal(await page.getAttribute(`#replay-counters-${i}`, "data-out"), out, `${rule} at ${t} s`);
      const row = table.split("\n").find((l) => l.startsWith(rule + " "));
      assert.equal(/s4 0 out\b/.test(row), out.endsWith("1"), `lbsim replay at ${t} s: ${row}`);
    }
  }
  await context.close();
});

test("a scenario of one rule is replayed beside round robin; a bad view key is named", async () => {
  const { page, context } = await open(env.browser, { deviceScaleFactor: 1 });
  await page.goto(`${env.server.base}#v=1&algorithms=maglev&view=replay&speed=50`);
  await ready(page);
  await replayReady(page);
  assert.deepEqual((await where(page)).pair, ["maglev", "round-robin"]);
  assert.match(await page.locator("#notice").innerText(), /speed: '50' is not allowed/, "at the top, with the link's other notices");
  await context.close();
});

test("with reduced motion the replay starts paused and steps", async () => {
  const { page, context } = await open(env.browser, { deviceScaleFactor: 1 });
  await page.emulateMedia({ reducedMotion: "reduce" });
  await page.goto(`${env.server.base}#v=1&preset=black-hole&view=replay&t=12`);
  await ready(page);
  await replayReady(page);
  const start = await where(page);
  assert.deepEqual([start.t, start.playing], [12000, false]);
  await page.click("#replay-step");
  assert.ok((await where(page)).t > 12000);
  await page.click("#replay-back");
  await page.click("#replay-back");
  assert.ok((await where(page)).t < 12000);
  assert.match(await page.textContent("#replay-status"), /black|round-robin|least-connections|Paused at/);
  await context.close();
});

test("a first visit fetches nothing of the replay; an embed of the moment shows it compact", async () => {
  const fetched = (name) => env.server.log.filter((e) => e.path.split("?")[0].endsWith(name)).length;
  const { page, context } = await open(env.browser, { deviceScaleFactor: 1, width: 600, height: 900 });
  env.server.log.length = 0;
  await page.goto(`${env.server.base}#v=1&preset=crash`);
  await ready(page);
  const replayFiles = ["replay-worker.js", "replay.css", "lbsim-replay.js", "lbsim-replay_bg.wasm"];
  assert.equal(replayFiles.map(fetched).reduce((a, b) => a + b) + fetched("lbsim-panels_bg.wasm"), 0);
  await page.goto(`${env.server.base}?embed=1&plots=replay#v=1&preset=crash&view=replay&t=21`);
  await ready(page);
  await replayReady(page);
  for (const file of replayFiles) assert.ok(fetched(file) >= 1, `${file} fetched`);
  assert.equal(fetched("lbsim-panels_bg.wasm"), 0, "the replay does not need the Config and remapping panels' module");
  const shownParts = await page.$$eval("[data-plot]", (ps) => ps.filter((p) => !p.hidden).map((p) => p.dataset.plot));
  assert.deepEqual(shownParts, ["replay"]);
  const height = await page.evaluate(() => document.body.getBoundingClientRect().height);
  assert.ok(height < 1400, `the embed is ${height} px tall`);
  mkdirSync(OUTPUT, { recursive: true });
  await page.screenshot({ path: join(OUTPUT, "embed-replay-600-light.png"), fullPage: true });
  await context.close();
});

test("the replay reads in light and dark, on desktop and phone (screenshots)", async () => {
  for (const [width, height, name] of [[1280, 900, "desktop"], [390, 844, "phone"]]) {
    for (const scheme of ["light", "dark"]) {
      const { page, context } = await open(env.browser, { colorScheme: scheme, width, height, deviceScaleFactor: 2 });
      await page.goto(`${env.server.base}#v=1&preset=crash&view=replay&t=21.5`);
      await ready(page);
      await replayReady(page);
      const panel = page.locator("#replay-panel");
      await panel.scrollIntoViewIfNeeded();
      if (name === "phone") {
        // The two rules stacked.
        const [a, b] = await page.$$eval(".replay-side", (s) => s.map((e) => e.getBoundingClientRect().top));
        assert.ok(b > a + 100, `stacked: ${a}, ${b}`);
      }
      const canvas = await page.$eval("#replay-canvas-0", (c) => ({ w: c.width, cw: c.clientWidth }));
      assert.equal(canvas.w, canvas.cw * 2, "drawn at the device pixel ratio");
      mkdirSync(OUTPUT, { recursive: true });
      await panel.screenshot({ path: join(OUTPUT, `replay-${name}-${scheme}.png`) });
      await context.close();
    }
  }
  // A short sequence while it plays through the crash.
  const { page, context } = await open(env.browser, { width: 1280, height: 900, deviceScaleFactor: 1 });
  await page.goto(`${env.server.base}#v=1&preset=crash&view=replay&t=19.6`);
  await ready(page);
  await replayReady(page);
  const panel = page.locator("#replay-panel");
  await panel.scrollIntoViewIfNeeded();
  await page.focus("#replay-view");
  await page.keyboard.press(" ");
  for (let i = 1; i <= 3; i++) {
    await page.waitForTimeout(500);
    await panel.screenshot({ path: join(OUTPUT, `replay-playing-${i}.png`) });
  }
  await context.close();
});
