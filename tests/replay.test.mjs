// The replay view (crates/lbsim-web/src/replay/, in the lbsim-replay module), in
// headless Chromium against dist/, read as a reader reads it: the clock, the
// Play button and the counters from their visible text, the canvases from
// what each frame drew (tests/support/replay-view.mjs) held against their
// pixels. For each fleet preset and mixed, a replay link plays and pauses,
// and the counters beside each rule, and each server's slots, queue and
// counts as drawn, equal what the attempt log says at the paused moment,
// counted here from `lbsim replay --format csv` (the CLI, run apart: every
// attempt's times to the bit); a run replayed whole ends on `lbsim run`'s
// report; the view's keys ride in the page's links to the ms and reopen the
// same moment; while it plays the dots move and no mark covers a label;
// a step moves the clock visibly; keyboard, touch wording, reduced motion,
// the embed; screenshots at 360, 600, 760 px and on a phone.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { useBrowser, open, ready, OUTPUT } from "./support/harness.mjs";
import {
  recordDrawing, replayReady, where, clockMs, shownCounters, drawn, lastDrawn, forgetDrawn, drawnCounts, unreadable, pixels, near,
} from "./support/replay-view.mjs";

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
 * outcome; p99 is the nearest rank (ceil(0.99 n)) of answer less arrival,
 * as the page writes it (to 0.1 ms); per server, the attempts in flight,
 * waiting and in service (holding a slot). */
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
  const served = servers.map(() => 0);
  let retries = 0;
  for (const a of mine) {
    if (Number(a.sent_ms) > t) continue;
    if (a.retry === "true") retries++;
    if (Number(a.done_ms) > t) {
      const s = servers.indexOf(a.server);
      inFlight[s]++;
      if (Number(a.start_ms) > t) queued[s]++;
      else served[s]++;
    }
  }
  return {
    requests: requests.size,
    counters: { arrived, finished, errors, retries, p99: p99 === null ? null : p99.toFixed(1) },
    perServer: servers.map((_, s) => ({ inFlight: inFlight[s], waiting: queued[s] })),
    served,
  };
}

/** The server names of the scenario, as the log names them (s1, s2, ...). */
function names(n) {
  return Array.from({ length: n }, (_, i) => `s${i + 1}`);
}

/** The rule's colour as the view draws its dots (its title's border). */
async function ruleColour(page, i) {
  const css = await page.$eval(`#replay-title-${i}`, (e) => getComputedStyle(e).borderLeftColor);
  return css.match(/\d+/g).slice(0, 3).map(Number);
}

/** At the paused moment the clock shows, for each rule: the counters'
 * text, each server's counts as drawn, and its slots as drawn (one dot a
 * request in service, in the rule's colour on the canvas; an empty slot
 * without it) are what the attempt log says; the frame is readable. */
async function assertViewMatchesLog(page, link, what) {
  const { pair, window, t, playing } = await where(page);
  assert.equal(playing, false, `${what}: paused`);
  const records = await lastDrawn(page);
  const log = attemptLog(link, pair.join(","), window);
  for (const [i, rule] of pair.entries()) {
    const record = records[i];
    assert.equal(record.t, t, `${what} ${rule}: the frame drawn is the clock's moment`);
    const want = countersFromLog(log, rule, t, names(record.rows.length));
    assert.equal(want.requests, window, `${what} ${rule}: every request of the window has an attempt in the log`);
    assert.deepEqual(await shownCounters(page, i), want.counters, `${what} ${rule} at ${t} ms: the counters' text`);
    assert.deepEqual(drawnCounts(record), want.perServer, `${what} ${rule} at ${t} ms: in flight and waiting as drawn`);
    const served = record.rows.map((_, s) => record.marks.filter(([, , place, server]) => place === "s" && server === s));
    assert.deepEqual(served.map((m) => m.length), want.served, `${what} ${rule} at ${t} ms: the slots filled`);
    assert.deepEqual(unreadable(record), [], `${what} ${rule} at ${t} ms`);
    // On the canvas: a solid dot where each is, nothing of the rule's
    // colour in an empty slot.
    const colour = await ruleColour(page, i);
    const solid = served.flat().filter(([, , , , hollow]) => !hollow);
    const at = await pixels(page, i, solid.map(([x, y]) => [x, y]));
    assert.ok(at.every((p) => near(p, colour)), `${what} ${rule}: each dot in a slot is drawn in its colour ${colour}: ${JSON.stringify(at.slice(0, 5))}`);
    const empty = [];
    for (const [s] of record.rows.entries()) {
      const y = record.top + record.row * s + record.row / 2;
      for (let k = 0; k * record.pitch + record.slotsX < record.queueX - 6; k++) {
        const x = record.slotsX + k * record.pitch + record.pitch / 2 - 1;
        if (!served[s].some(([mx]) => Math.abs(mx - x) < 0.5)) empty.push([x, y]);
      }
    }
    const blank = await pixels(page, i, empty);
    assert.ok(blank.every((p) => !near(p, colour, 12)), `${what} ${rule}: no dot drawn in an empty slot`);
  }
  return t;
}

for (const preset of ["mixed", "black-hole", "crash", "slow-node", "cold-start"]) {
  test(`${preset}: the replay plays, pauses, and what it shows is the attempt log's at that moment`, async () => {
    const { page, context } = await open(env.browser, { deviceScaleFactor: 1 });
    await recordDrawing(context);
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
    await page.waitForFunction(() => /^[1-9]|^0\.[4-9]/.test(document.getElementById("replay-clock").textContent));
    await page.keyboard.press(" ");
    const paused = await where(page);
    assert.equal(paused.playing, false);
    assert.ok(paused.t >= 400, `paused on the clock's ms: ${paused.t}`);
    await assertViewMatchesLog(page, link, `${preset} paused`);
    // A moment well inside the window (past the events), through the
    // scrubber, as a reader drags it.
    const end = Number(await page.getAttribute("#replay-scrub", "max"));
    await page.$eval("#replay-scrub", (s, v) => {
      s.value = String(v);
      s.dispatchEvent(new Event("input", { bubbles: true }));
      s.dispatchEvent(new Event("change", { bubbles: true }));
    }, Math.round(end * 0.6));
    await assertViewMatchesLog(page, link, `${preset} scrubbed`);
    // A step moves a hundredth of the replay (the clock visibly moves),
    // Shift and a step to the next ms something happens; each says so.
    await page.focus("#replay-view");
    const before = (await where(page)).t;
    const { end: endMs } = clockMs(await page.textContent("#replay-clock"));
    await page.keyboard.press("ArrowRight");
    const after = (await where(page)).t;
    assert.ok(Math.abs(after - before - endMs / 100) <= 1, `a step moves a hundredth of ${endMs} ms: ${before} -> ${after}`);
    assert.match(await page.textContent("#replay-status"), /^Paused at \d+\.\d{3} s of \d+\.\d{3} s\. /);
    await assertViewMatchesLog(page, link, `${preset} stepped`);
    await page.keyboard.press("Shift+ArrowRight");
    const fine = (await where(page)).t;
    assert.ok(fine > after && fine - after < endMs / 100, `a fine step: ${after} -> ${fine}`);
    await assertViewMatchesLog(page, link, `${preset} stepped to the next thing`);
    assert.deepEqual(errors, []);
    await context.close();
  });
}

test("a run replayed whole ends on lbsim run's report", async () => {
  for (const preset of ["mixed", "black-hole", "crash"]) {
    const { page, context } = await open(env.browser, { deviceScaleFactor: 1 });
    await recordDrawing(context);
    // Past the crash at 20 s, so its errors are in the run.
    const link = `${env.server.base}#v=1&preset=${preset}&requests=8000`;
    await page.goto(`${link}&view=replay&window=8000&t=100000`);
    await ready(page);
    await replayReady(page);
    const report = JSON.parse(execFileSync(CLI, ["run", "--url", link, "--format", "json"], { maxBuffer: 1 << 28 }).toString());
    const { pair } = await where(page);
    const records = await lastDrawn(page);
    for (const [i, rule] of pair.entries()) {
      const result = report.results.find((r) => r.algorithm === rule);
      const c = await shownCounters(page, i);
      assert.equal(c.finished, 8000, `${preset} ${rule}: every request answered`);
      assert.equal(c.errors, result.errors ?? 0, `${preset} ${rule}: errors`);
      assert.equal(c.retries, result.retries ?? 0, `${preset} ${rule}: retries`);
      assert.equal(c.p99, result.latency_ms.all.p99.toFixed(1), `${preset} ${rule}: p99`);
      assert.ok(drawnCounts(records[i]).every((n) => n.inFlight === 0 && n.waiting === 0), `${preset} ${rule}: nothing in flight`);
    }
    await context.close();
  }
});

test("the replay's keys ride in the page's links to the clock's ms and reopen the same moment", async () => {
  const { page, context } = await open(env.browser, { deviceScaleFactor: 1 });
  await recordDrawing(context);
  await page.goto(`${env.server.base}#v=1&preset=crash&view=replay`);
  await ready(page);
  await replayReady(page);
  await page.selectOption("#replay-rule-1", "power-of-two");
  await replayReady(page);
  await page.selectOption("#replay-speed", "2");
  await page.focus("#replay-view");
  await page.keyboard.press(" ");
  await page.waitForFunction(() => /^[1-9]|^0\.[5-9]/.test(document.getElementById("replay-clock").textContent));
  await page.keyboard.press(" ");
  const paused = await where(page);
  const counters = [await shownCounters(page, 0), await shownCounters(page, 1)];
  const seconds = (await page.textContent("#replay-clock")).split(" ")[0].replace(/\.?0+$/, "");
  await page.waitForFunction((t) => document.getElementById("share-url").value.includes(`&t=${t}&`), seconds);
  const share = await page.inputValue("#share-url");
  assert.match(share, /&view=replay&pair=round-robin,power-of-two&t=\d+(\.\d{1,3})?&speed=2&window=\d+$/, "t= has the clock's digits");
  // The address bar follows (debounced), and the CLI's command says the same.
  await page.waitForFunction((s) => location.hash === "#" + s.split("#")[1], share);
  assert.match(await page.textContent("#replay-cli"), new RegExp(`^lbsim replay --url '.*' --pair round-robin,power-of-two --window \\d+ --at ${seconds.replace(".", "\\.")}$`));
  // The share link, opened afresh, is the same moment.
  const again = await context.newPage();
  await again.goto(share);
  await ready(again);
  await replayReady(again);
  const reopened = await where(again);
  assert.deepEqual(reopened, { ...paused, playing: false });
  assert.deepEqual([await shownCounters(again, 0), await shownCounters(again, 1)], counters, "the same counters at the same moment");
  assert.equal(await again.$eval("#replay-speed", (s) => s.value), "2");
  // A link's t= names a whole ms: 1.001 s is 1001 ms, on the clock too.
  await again.goto(`${env.server.base}#v=1&preset=crash&view=replay&t=1.001`);
  await again.reload();
  await ready(again);
  await replayReady(again);
  assert.match(await again.textContent("#replay-clock"), /^1\.001 s of /);
  assert.equal((await lastDrawn(again))[0].t, 1001, "the frame is drawn at 1001 ms");
  await context.close();
});

test("the balancer's health verdicts: crash's checks take s4 out 4 to 6 s after it crashes, as lbsim replay says, and the row says so", async () => {
  const { page, context } = await open(env.browser, { deviceScaleFactor: 1 });
  await recordDrawing(context);
  for (const [t, out] of [[23, false], [27, true], [45, false]]) {
    const link = `${env.server.base}#v=1&preset=crash`;
    await page.goto(`${link}&view=replay&t=${t}`);
    await page.reload();
    await ready(page);
    await replayReady(page);
    const { pair, window } = await where(page);
    const table = execFileSync(CLI, ["replay", "--url", link, "--pair", pair.join(","), "--window", String(window), "--at", String(t)]).toString();
    const records = await lastDrawn(page);
    for (const [i, rule] of pair.entries()) {
      const s4 = records[i].rows[3];
      assert.equal(s4.out, out, `${rule} at ${t} s: s4 out`);
      assert.equal(s4.state, t < 40 ? "crashed" : "up");
      assert.equal(s4.said, [t < 40 ? "crashed" : "", out ? "out: health checks" : ""].filter(Boolean).join(" · "), `${rule} at ${t} s: s4's row says`);
      assert.ok(records[i].labels.some(([text]) => text === s4.said) || s4.said === "", `the label is drawn`);
      const row = table.split("\n").find((l) => l.startsWith(rule + " "));
      assert.equal(/s4 0 out\b/.test(row), out, `lbsim replay at ${t} s: ${row}`);
      // The crashed row is tinted where nothing else is drawn; an up row is not.
      const free = (s) => [records[i].countsX - 3, records[i].top + records[i].row * s + records[i].row / 2];
      const [up, s4px] = await pixels(page, i, [free(0), free(3)]);
      assert.equal(near(up, s4px, 10), t >= 40, `${rule} at ${t} s: s4's row tinted while crashed (${s4px} beside ${up})`);
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

test("while it plays the clock moves, dots glide in and go back answered, and no mark covers a label", async () => {
  const { page, context } = await open(env.browser, { width: 1280, height: 900, deviceScaleFactor: 1 });
  await recordDrawing(context);
  await page.goto(`${env.server.base}#v=1&preset=crash&view=replay&t=19.6`);
  await ready(page);
  await replayReady(page);
  const panel = page.locator("#replay-panel");
  await panel.scrollIntoViewIfNeeded();
  await page.focus("#replay-view");
  await forgetDrawn(page);
  await page.keyboard.press(" ");
  mkdirSync(OUTPUT, { recursive: true });
  // Three frames half a second apart, through the crash at 20 s.
  const frames = [];
  for (let i = 1; i <= 3; i++) {
    await page.waitForTimeout(500);
    const image = await panel.screenshot({ path: join(OUTPUT, `replay-playing-${i}.png`) });
    frames.push({ image, clock: clockMs(await page.textContent("#replay-clock")).t, records: await lastDrawn(page) });
  }
  assert.equal((await where(page)).playing, true, "still playing");
  // The canvases moved too: their pixels differ from a second ago.
  const hash = () => page.evaluate(() => [0, 1].map((i) => {
    const c = document.getElementById(`replay-canvas-${i}`);
    const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
    let h = 0;
    for (let k = 0; k < d.length; k += 4) h = (h * 31 + d[k] + d[k + 1] * 3 + d[k + 2] * 7) | 0;
    return h;
  }));
  const first = await hash();
  await page.waitForTimeout(300);
  const second = await hash();
  assert.ok(first[0] !== second[0] && first[1] !== second[1], "each canvas is redrawn as it plays");
  await page.keyboard.press(" ");
  for (const [k, f] of frames.entries()) {
    if (k > 0) {
      assert.ok(f.clock > frames[k - 1].clock + 200, `the clock moves: ${frames[k - 1].clock} -> ${f.clock}`);
      assert.ok(!f.image.equals(frames[k - 1].image), "the frames differ");
    }
    for (const r of f.records) {
      assert.ok(r.glide > 0, "dots glide while playing");
      const places = new Set(r.marks.map(([, , place]) => place));
      // Arrivals glide in, or (least connections while s4 refuses at once,
      // from 20 s) are turned back at once as crosses.
      assert.ok((places.has("a") || places.has("x")) && (places.has("l") || places.has("x")), `frame ${k + 1} ${r.rule}: dots glide in and go back: ${[...places]}`);
      assert.deepEqual(unreadable(r), [], `frame ${k + 1} ${r.rule}`);
    }
    const [a, b] = [frames[k].records[0], frames[Math.max(0, k - 1)].records[0]];
    if (k > 0) assert.notDeepEqual(a.marks, b.marks, "the dots moved between frames");
  }
  // Every frame drawn while it played: the playhead moved on each side,
  // and no frame had an answered request in a queue or a mark on a label.
  const all = await drawn(page);
  assert.ok(all.length > 20, `${all.length} frames`);
  for (const side of [0, 1]) {
    const ts = all.filter((r) => r.side === side).map((r) => r.t);
    assert.ok(ts.at(-1) > ts[0] + 1000, `side ${side}: ${ts[0]} -> ${ts.at(-1)}`);
  }
  const bad = all.map((r) => unreadable(r)).find((p) => p.length);
  assert.equal(bad, undefined, JSON.stringify(bad));
  await context.close();
});

test("a full-page view=replay link scrolls to the replay", async () => {
  const { page, context } = await open(env.browser, { width: 1280, height: 900, deviceScaleFactor: 1 });
  await page.goto(`${env.server.base}#v=1&preset=crash&view=replay&t=21.5`);
  await ready(page);
  await replayReady(page);
  const top = await page.$eval("#replay-panel", (p) => p.getBoundingClientRect().top);
  const scrolled = await page.evaluate(() => window.scrollY);
  assert.ok(top >= 0 && top < 100 && scrolled > 500, `the replay at ${top} px from the top, the page scrolled ${scrolled} px`);
  await context.close();
});

test("on a phone the replay says tap, not space", async () => {
  const context = await env.browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true, serviceWorkers: "block" });
  const page = await context.newPage();
  await page.goto(`${env.server.base}#v=1&preset=crash&view=replay&t=19.6`);
  await ready(page);
  await replayReady(page);
  await page.tap("#replay-play");
  await page.waitForFunction(() => /^Playing/.test(document.getElementById("replay-status").textContent));
  const said = await page.textContent("#replay-status");
  assert.match(said, /tap/, said);
  assert.doesNotMatch(said, /space/i, said);
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
  assert.equal(await page.evaluate(() => window.scrollY), 0, "an embed of the replay is not scrolled");
  mkdirSync(OUTPUT, { recursive: true });
  await page.screenshot({ path: join(OUTPUT, "embed-replay-600-light.png"), fullPage: true });
  await context.close();
});

/** Whether any two of the view's visible boxes (its controls, its clock,
 * its titles, canvases, counters and lines of text) overlap, or one
 * passes the window's right edge. */
async function overlapsInView(page) {
  return page.evaluate(() => {
    const view = document.getElementById("replay-view");
    const parts = [...view.querySelectorAll("label, button, input, output, select, figcaption, canvas, .replay-counters, .replay-status, .note")]
      .filter((e) => e.checkVisibility())
      .filter((e) => !e.closest("label") || e.tagName === "LABEL");
    const boxes = parts.map((e) => ({ e, r: e.getBoundingClientRect() }));
    const problems = [];
    for (const { e, r } of boxes) {
      if (r.right > innerWidth + 0.5) problems.push(`${e.id || e.tagName} ends at ${r.right} of ${innerWidth}`);
    }
    for (const [k, a] of boxes.entries()) {
      for (const b of boxes.slice(k + 1)) {
        if (a.e.contains(b.e) || b.e.contains(a.e)) continue;
        const o = a.r.left < b.r.right - 0.5 && b.r.left < a.r.right - 0.5 && a.r.top < b.r.bottom - 0.5 && b.r.top < a.r.bottom - 0.5;
        if (o) problems.push(`${a.e.id || a.e.tagName} over ${b.e.id || b.e.tagName}`);
      }
    }
    return problems;
  });
}

test("the replay reads at 360, 600 and 760 px and on a phone, light and dark, paused and playing (screenshots)", async () => {
  const sizes = [
    { name: "360", width: 360, height: 780, deviceScaleFactor: 2 },
    { name: "600", width: 600, height: 900, deviceScaleFactor: 2 },
    { name: "760", width: 760, height: 900, deviceScaleFactor: 2 },
    { name: "phone", width: 390, height: 844, deviceScaleFactor: 3, isMobile: true, hasTouch: true },
    { name: "desktop", width: 1280, height: 900, deviceScaleFactor: 2 },
  ];
  mkdirSync(OUTPUT, { recursive: true });
  for (const size of sizes) {
    for (const scheme of ["light", "dark"]) {
      const { name, width, height, ...device } = size;
      const context = await env.browser.newContext({ viewport: { width, height }, colorScheme: scheme, serviceWorkers: "block", ...device });
      await recordDrawing(context);
      const page = await context.newPage();
      // Past the checks' verdict: s4 "crashed · out: health checks".
      await page.goto(`${env.server.base}#v=1&preset=crash&view=replay&t=27`);
      await ready(page);
      await replayReady(page);
      const panel = page.locator("#replay-panel");
      await panel.scrollIntoViewIfNeeded();
      if (width < 700) {
        // The two rules stacked.
        const [a, b] = await page.$$eval(".replay-side", (s) => s.map((e) => e.getBoundingClientRect().top));
        assert.ok(b > a + 100, `stacked: ${a}, ${b}`);
      }
      const canvas = await page.$eval("#replay-canvas-0", (c) => ({ w: c.width, cw: c.clientWidth }));
      assert.equal(canvas.w, canvas.cw * device.deviceScaleFactor, "drawn at the device pixel ratio");
      assert.deepEqual(await overlapsInView(page), [], `${name} ${scheme}: the view's parts apart`);
      for (const r of await lastDrawn(page)) {
        assert.deepEqual(unreadable(r), [], `${name} ${scheme} paused, ${r.rule}`);
        assert.ok(r.labels.some(([text]) => /^crashed/.test(text)), `${name} ${scheme}: s4's state said: ${r.rows[3].said}`);
      }
      await panel.screenshot({ path: join(OUTPUT, `replay-${name}-${scheme}.png`) });
      await page.focus("#replay-view");
      await forgetDrawn(page);
      await page.click("#replay-play");
      await page.waitForTimeout(700);
      for (const r of await lastDrawn(page)) assert.deepEqual(unreadable(r), [], `${name} ${scheme} playing, ${r.rule}`);
      await panel.screenshot({ path: join(OUTPUT, `replay-${name}-${scheme}-playing.png`) });
      await context.close();
    }
  }
});
