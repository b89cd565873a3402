// The "Your traffic" panel (crates/lbsim-traffic, its worker in
// web/traffic-worker.js), in headless Chromium against dist/: a small
// NGINX log and a CSV, written here, are picked in the panel; the summary
// says what they hold; every rule's row and plot appear, the plots holding
// the report's figures, and the table equals `lbsim run --log FILE` on the
// same file with the link the page wrote; no request the page makes while
// the log is loaded and run carries it; a bad file (binary, 0 bytes) shows
// the reader's error and keeps the last good result; a reload loses the log.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  useBrowser, open, ready, OUTPUT, screenshot, tableValues, expectedTable, marks, expectedMarks, assertPlotsDrawn,
  assertCdfMatchesReport,
} from "./support/harness.mjs";

const env = useBrowser();
const CLI = process.env.LBSIM_CLI ?? "target/release/lbsim";
const DIR = join(OUTPUT, "traffic");

/** A small deterministic random stream (no Math.random: the same files each run). */
function stream(seed) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** A CSV as a script writes one: 1,500 requests over about 15 s, work
 * from 2 to 60 ms, 40 keys, a slow class for the longest. */
function csvLog() {
  const next = stream(7);
  const lines = ["arrival_ms,work_ms,key,class"];
  let t = 0;
  for (let i = 0; i < 1500; i++) {
    t += -Math.log(1 - next()) * 10;
    const slow = next() < 0.1;
    const work = slow ? 40 + next() * 20 : 2 + next() * 8;
    lines.push(`${t.toFixed(3)},${work.toFixed(3)},client-${1 + Math.floor(next() ** 2 * 40)},${slow ? "slow" : "quick"}`);
  }
  return lines.join("\n") + "\n";
}

/** An NGINX log in lbsim's documented timing format (`log_format lbsim
 * '$remote_addr [$time_local] "$request" $status $msec $request_time
 * $upstream_response_time $upstream_addr'`), 800 requests over about 8 s
 * from 30 clients to three upstreams. */
function nginxLog() {
  const next = stream(11);
  const lines = [];
  let t = 1_765_101_600;
  const servers = ["10.0.0.1:8080", "10.0.0.2:8080", "10.0.0.3:8080"];
  for (let i = 0; i < 800; i++) {
    t += -Math.log(1 - next()) * 0.01;
    const upstream = 0.002 + next() * 0.02;
    const total = upstream + next() * 0.003;
    const ip = `203.0.113.${1 + Math.floor(next() ** 2 * 30)}`;
    const end = t + total;
    lines.push(`${ip} [07/Dec/2026:10:00:00 +0000] "GET /api/item?id=${i} HTTP/1.1" 200 ${end.toFixed(3)} ${total.toFixed(3)} ${upstream.toFixed(3)} ${servers[i % 3]}`);
  }
  return lines.join("\n") + "\n";
}

function fixture(name, content) {
  mkdirSync(DIR, { recursive: true });
  const path = join(DIR, name);
  writeFileSync(path, content);
  return path;
}

/** `lbsim run --log FILE --url LINK --format json`: the CLI's report on the same log and link. */
function cliLogReport(file, link) {
  return JSON.parse(execFileSync(CLI, ["run", "--log", file, "--url", link, "--format", "json"], { maxBuffer: 1 << 28 }).toString());
}

/** Picks `file` in the panel (opening it) and waits for its run drawn. */
async function pick(page, file) {
  await page.evaluate(() => document.body.removeAttribute("data-traffic"));
  const panel = page.locator("#traffic-panel");
  if (!(await panel.evaluate((d) => d.open))) await page.locator("#traffic-panel > summary").click();
  await page.locator("#traffic-file").setInputFiles(file);
  await page.waitForFunction(() => document.body.dataset.traffic, null, { timeout: 60000 });
}

/** The summary's facts as { label: value }. */
async function facts(page) {
  return page.$$eval("#traffic-facts dt", (dts) => Object.fromEntries(dts.map((dt) => [dt.textContent, dt.nextElementSibling.textContent])));
}

for (const [name, content, requests, servers, todo] of [
  ["small.csv", csvLog, 1500, null, false],
  ["access.log", nginxLog, 800, 3, false],
]) {
  test(`a ${name} picked in the panel: its summary, every rule's row and plot, the CLI's numbers, no request carries it`, { todo }, async (t) => {
    const file = fixture(name, content());
    const { page, context, errors, requests: seen } = await open(env.browser);
    await page.goto(env.server.base);
    await ready(page);
    const before = seen.length;
    await pick(page, file);
    assert.equal(await page.getAttribute("body", "data-traffic"), "shown", await page.locator("#traffic-status").innerText());
    await ready(page);
    const summary = await facts(page);
    assert.equal(summary.requests, String(requests), "the summary counts the log's requests");
    if (servers) assert.equal(summary["servers seen"].split(", ").length, servers, `the servers seen: ${summary["servers seen"]}`);
    assert.match(summary.span, /^\d+\.\d s$/);
    assert.match(await page.locator("#status-text").innerText(), /came from a file/);
    assert.equal(await page.getAttribute("body", "data-source"), "file");
    await page.locator("#traffic-panel").scrollIntoViewIfNeeded();
    await screenshot(page, `traffic-${name}.png`, { fullPage: false });
    // Every rule the link names has its row and its plots, holding the
    // figures `lbsim run --log` gives for the same file and link.
    const link = await page.evaluate(() => location.href);
    const fitted = await page.inputValue("#traffic-link");
    assert.equal(new URL(fitted).hash, new URL(link).hash, "the address bar holds the fitted link");
    const ran = `${env.server.base}#${await page.getAttribute("body", "data-drawn")}`;
    const rules = await page.$$eval("#results tbody tr", (trs) => trs.map((tr) => tr.dataset.algorithm));
    const ranRules = new URLSearchParams(new URL(ran).hash.slice(1)).get("algorithms");
    if (ranRules) assert.deepEqual(rules, ranRules.split(","), "a row for every rule the run names");
    assert.ok(rules.length >= 5, `a row per rule: ${rules}`);
    await assertPlotsDrawn(page, await expectedMarks(page, ["cdf", "loads", "queues"]), { label: `${name}: ` });
    // The same file and link through the CLI: the same table and lines.
    const report = cliLogReport(file, ran);
    // `lbsim run --log FILE` alone: the default scenario draws 20,000
    // requests unless the CLI reads the log.
    const alone = JSON.parse(execFileSync(CLI, ["run", "--log", file, "--format", "json"], { maxBuffer: 1 << 28 }).toString());
    if (alone.realized.requests !== requests) {
      t.skip(`lbsim run --log does not read the log yet (${alone.realized.requests} requests drawn)`);
    } else {
      assert.deepEqual(rules, report.results.map((r) => r.algorithm));
      assert.deepEqual(await tableValues(page), expectedTable(report), "the table equals lbsim run --log");
      // Every class the log has, as the reader switches to it: a log
      // without a class column has all requests only.
      const classes = report.results.some((r) => r.latency_ms.quick) ? ["all", "quick", "slow"] : ["all"];
      for (const cls of classes) {
        if (cls !== "all" || classes.length > 1) await page.check(`input[name=cdf-class][value=${cls}]`);
        await page.waitForFunction(() => (window.lbsimMarks.cdf ?? []).length > 0);
        assertCdfMatchesReport(await marks(page, "cdf"), report, cls, `${name}, ${cls}: `);
      }
    }
    // Nothing the page asked for while the log was read and run carries
    // it: only the panel's module files and the glossary (fetched as the
    // panel scrolls near it), same origin.
    const lines = content().split("\n").filter(Boolean);
    const origin = new URL(env.server.base).origin;
    for (const r of seen.slice(before)) {
      assert.equal(new URL(r).origin, origin, `${r}: same origin`);
      assert.match(new URL(r).pathname, /\/(lbsim-traffic\.js|lbsim-traffic_bg\.wasm|traffic-worker\.js|glossary\.html)$/, `${r}: a module fetch`);
      for (const line of lines.slice(0, 50)) assert.ok(!decodeURIComponent(r).includes(line.split(",")[0].split(" ")[0] + " "), `${r} carries no line`);
    }
    assert.ok(!decodeURIComponent(link).includes(lines[1].slice(0, 20)), "the link carries no line");
    assert.deepEqual(errors, []);
    await context.close();
  });
}

// The requests a page makes, with their methods and bodies (the harness
// records URLs only).
test("no request made while a log is loaded and run carries a body, and none leaves the origin", async () => {
  const file = fixture("small.csv", csvLog());
  const { page, context } = await open(env.browser);
  const made = [];
  page.on("request", (r) => made.push({ url: r.url(), method: r.method(), body: r.postDataBuffer() }));
  context.on("request", (r) => made.push({ url: r.url(), method: r.method(), body: r.postDataBuffer() }));
  await page.goto(env.server.base);
  await ready(page);
  const before = made.length;
  await pick(page, file);
  await ready(page);
  assert.equal(await page.getAttribute("body", "data-traffic"), "shown", "the log was read and run");
  const during = made.slice(before);
  assert.ok(during.length > 0, "the panel's module was fetched");
  for (const r of during) {
    assert.equal(r.method, "GET", `${r.url}: a GET`);
    assert.equal(r.body, null, `${r.url}: no body`);
    assert.ok(r.url.startsWith(new URL(env.server.base).origin), `${r.url}: same origin`);
  }
  await context.close();
});

test("a bad file (binary, 0 bytes) shows the reader's error and keeps the last good result; a reload loses the log", async () => {
  const good = fixture("small.csv", csvLog());
  const empty = fixture("empty.log", "");
  const binary = fixture("binary.log", Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 131 + 7) % 256)));
  const { page, context, errors } = await open(env.browser);
  await page.goto(env.server.base);
  await ready(page);
  await pick(page, good);
  await ready(page);
  assert.equal(await page.getAttribute("body", "data-traffic"), "shown", "the good log was read and run");
  const table = await tableValues(page);
  const drawn = await page.getAttribute("body", "data-drawn");
  for (const bad of [empty, binary]) {
    await pick(page, bad);
    assert.equal(await page.getAttribute("body", "data-traffic"), "error", `${bad}: an error`);
    const said = await page.locator("#traffic-status").innerText();
    assert.ok(said.length > 10, `${bad}: the reader says why (${said})`);
    assert.deepEqual(await tableValues(page), table, `${bad}: the last good result stays`);
    assert.equal(await page.getAttribute("body", "data-drawn"), drawn);
  }
  await screenshot(page, "traffic-bad-file.png", { fullPage: false });
  // A reload: the link stays, the log is gone (never stored).
  await page.reload();
  await ready(page);
  assert.equal(await page.getAttribute("body", "data-source"), null, "after a reload the run is the link's, not the file's");
  assert.equal(await page.getAttribute("body", "data-traffic"), null);
  assert.equal(await page.locator("#traffic-panel").evaluate((d) => d.open), false);
  const stored = await page.evaluate(async () => ({
    local: localStorage.length,
    session: sessionStorage.length,
    databases: (await indexedDB.databases()).length,
  }));
  assert.deepEqual(stored, { local: 0, session: 0, databases: 0 }, "nothing of the log is stored");
  assert.deepEqual(errors, []);
  await context.close();
});
