// Shared by the browser tests and the page benchmark: a static server for
// the built dist/ (counting bytes, gzipped as a static host would send
// them), headless Chromium through playwright-core, and the native core.
import { createServer } from "node:http";
import { readFile, mkdir } from "node:fs/promises";
import { execFileSync } from "node:child_process";
import { extname, join, normalize, resolve } from "node:path";
import { gzipSync } from "node:zlib";
import { before, after } from "node:test";
import assert from "node:assert/strict";
import { chromium } from "playwright-core";

export const DIST = resolve(process.env.LBSIM_DIST ?? "dist");
export const NATIVE = process.env.LBSIM_NATIVE ?? "target/release/lbsim-native-harness";
export const OUTPUT = resolve(process.env.LBSIM_OUTPUT ?? "test-output");
const CHROMIUM = process.env.LBSIM_CHROMIUM ?? "/usr/bin/chromium";
// The browser tests hold the page to the CLI (`lbsim run --url`): without
// it they would pass comparing nothing, so a test file refuses to start.
// `cargo xtask browser` sets it; the page benchmark and scripts need none.
if (!process.env.LBSIM_CLI && (process.env.NODE_TEST_CONTEXT || process.argv[1]?.endsWith(".test.mjs"))) {
  throw new Error("LBSIM_CLI is not set: run the browser tests with `cargo xtask browser`, or set LBSIM_CLI to a built lbsim (cargo build -p lbsim-cli; LBSIM_CLI=target/debug/lbsim npm test)");
}

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".wasm": "application/wasm",
  ".png": "image/png",
  ".json": "application/json",
};

/** Serves `root` (DIST unless given) under `/lbsim/` (a sub-path, as on a static host) on a free port. */
export async function serve(root = DIST) {
  const log = [];
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, "http://x");
    if (!url.pathname.startsWith("/lbsim/")) {
      res.writeHead(404).end();
      return;
    }
    let path = decodeURIComponent(url.pathname.slice("/lbsim/".length)) || "index.html";
    path = normalize(path).replace(/^(\.\.[/\\])+/, "");
    try {
      const body = await readFile(join(root, path));
      const gzip = /\bgzip\b/.test(req.headers["accept-encoding"] ?? "");
      const sent = gzip ? gzipSync(body, { level: 9 }) : body;
      log.push({ path, bytes: sent.length, at: Date.now() });
      res.writeHead(200, {
        "content-type": TYPES[extname(path)] ?? "application/octet-stream",
        // As a static host would: the second worker finds the files cached.
        "cache-control": "max-age=600",
        ...(gzip ? { "content-encoding": "gzip" } : {}),
      });
      res.end(sent);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  const base = `http://127.0.0.1:${server.address().port}/lbsim/`;
  return { base, log, close: () => new Promise((ok) => server.close(ok)) };
}

export async function launch() {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync",
    ],
  });
}

/** A new page that records console errors, page errors and every request
 * (`hasTouch`: a touch screen, its pointer coarse). Service workers are
 * blocked unless a test is about them (`serviceWorkers: "allow"`): each
 * test's visit is a first one. */
export async function open(browser, { colorScheme = "light", deviceScaleFactor = 2, width = 1400, height = 1000, hasTouch = false, serviceWorkers = "block" } = {}) {
  const context = await browser.newContext({ viewport: { width, height }, deviceScaleFactor, colorScheme, acceptDownloads: true, hasTouch, isMobile: hasTouch, serviceWorkers });
  const page = await context.newPage();
  const errors = [];
  const requests = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("request", (r) => requests.push(r.url()));
  return { page, context, errors, requests };
}

/** Waits until the page has drawn the result of its latest run. */
export async function ready(page, timeout = 30000) {
  await page.waitForFunction(() => document.body.dataset.state === "ready" || document.body.dataset.state === "error", null, { timeout });
  const state = await page.getAttribute("body", "data-state");
  if (state !== "ready") throw new Error(`page state is ${state}: ${await page.locator("#notice").innerText().catch(() => "")}`);
}

/** The core's report for a scenario (JSON object with kebab-case keys), natively. */
export function nativeReport(scenario) {
  const out = execFileSync(NATIVE, [], { input: JSON.stringify(scenario), maxBuffer: 1 << 28 });
  return JSON.parse(out.toString());
}

/** What `lbsim run --url LINK --format FORMAT` prints, when the CLI is at hand (LBSIM_CLI). */
export function cliText(link, format) {
  const cli = process.env.LBSIM_CLI;
  if (!cli) return null;
  return execFileSync(cli, ["run", "--url", link, "--format", format], { maxBuffer: 1 << 28 }).toString();
}

/** `lbsim run --url LINK --format json`, when the CLI is at hand (LBSIM_CLI). */
export function cliReport(link) {
  const text = cliText(link, "json");
  return text === null ? null : JSON.parse(text);
}

/** The rules the page offers, in its order: its rule checkboxes, which it
 * builds from the core's registry (so a new rule changes no test). */
export async function ruleIds(page) {
  return page.$$eval("input[name=algorithms]", (inputs) => inputs.map((input) => input.value));
}

/** The keys of the results table's columns that show. */
export async function shownColumns(page) {
  return page.$$eval("#results thead th[data-key]:not([hidden])", (ths) => ths.map((th) => th.dataset.key));
}

/** The results table as { algorithm: { key: exact value } }. */
export async function tableValues(page) {
  return page.evaluate(() => {
    const out = {};
    for (const row of document.querySelectorAll("#results tbody tr")) {
      const cells = {};
      for (const td of row.querySelectorAll("td[data-key]")) {
        cells[td.dataset.key] = td.dataset.value === undefined ? null : Number(td.dataset.value);
      }
      out[row.dataset.algorithm] = cells;
    }
    return out;
  });
}

/** What the table shows, computed from a report the way the page computes it. */
export function expectedTable(report) {
  const out = {};
  // The fleet's columns show only when some rule has errors (retries).
  const errors = report.results.some((r) => r.errors > 0);
  const retries = report.results.some((r) => r.retries > 0);
  // The hit rate column shows only when the servers kept caches, quick
  // requests' p99 only where there are quick requests (bimodal work).
  const caches = report.results.some((r) => r.hit_rate !== undefined);
  const quick = report.results.some((r) => r.latency_ms.quick);
  for (const r of report.results) {
    const l = r.latency_ms;
    out[r.algorithm] = {
      ...(quick ? { "quick-p99": l.quick ? l.quick.p99 : null } : {}),
      p50: l.all.p50,
      p99: l.all.p99,
      p999: l.all.p999,
      max: l.all.max,
      mean: l.all.mean,
      "wait-p99": r.wait_ms.p99,
      "peak-queue": r.peak_queue,
      "busiest-share": r.busiest_share,
      imbalance: r.imbalance,
    };
    if (errors) Object.assign(out[r.algorithm], { errors: r.errors, "error-share": r.error_share });
    if (retries) out[r.algorithm].retries = r.retries;
    if (caches) out[r.algorithm]["hit-rate"] = r.hit_rate;
  }
  return out;
}

/** Downloads the results as JSON and CSV and holds them against the
 * native report and, when the CLI is at hand, `lbsim run --url URL` (the
 * JSON equal, the CSV byte for byte). Returns the CSV text. */
export async function assertDownloads(page, url, native) {
  const [json] = await Promise.all([page.waitForEvent("download"), page.click("#download-json")]);
  const report = JSON.parse(await readFile(await json.path(), "utf8"));
  assert.deepEqual(report, native, "the JSON download is the native report");
  const cli = cliReport(url);
  if (cli) assert.deepEqual(report, cli, "and what `lbsim run --url` prints for the same link");
  const [csv] = await Promise.all([page.waitForEvent("download"), page.click("#download-csv")]);
  const text = await readFile(await csv.path(), "utf8");
  const cliCsv = cliText(url, "csv");
  if (cliCsv !== null) assert.equal(text, cliCsv, "the CSV download is `lbsim run --url --format csv`, byte for byte");
  return text;
}

/** When the CLI is at hand: `lbsim url --preset ID` gives the page's link
 * for the preset, and the page's table the numbers of `lbsim run --url`. */
export async function assertPresetMatchesCli(page, base, id) {
  const cli = process.env.LBSIM_CLI;
  if (!cli) return;
  const link = execFileSync(cli, ["url", "--preset", id, "--base", base]).toString().trim();
  assert.equal(link, `${base}#v=1&preset=${id}`, "lbsim url --preset gives the page's link");
  assert.deepEqual(await tableValues(page), expectedTable(cliReport(link)), `${id}: and lbsim run --url`);
}

/** Share of each visible canvas's pixels that differ from its corner (the
 * background), and whether it is drawn at the device pixel ratio. */
export async function drawnShares(page) {
  return page.evaluate(() =>
    [...document.querySelectorAll("canvas")].filter((c) => c.checkVisibility()).map((c) => {
      const ctx = c.getContext("2d");
      if (!c.width || !c.height) return { id: c.id, share: 0, crisp: false };
      const data = ctx.getImageData(0, 0, c.width, c.height).data;
      let differ = 0;
      for (let i = 0; i < data.length; i += 4) {
        if (data[i] !== data[0] || data[i + 1] !== data[1] || data[i + 2] !== data[2]) differ++;
      }
      const crisp = c.width === Math.round(c.clientWidth * devicePixelRatio);
      return { id: c.id, share: differ / (data.length / 4), crisp };
    }),
  );
}

export async function screenshot(page, name, { fullPage = true } = {}) {
  await mkdir(OUTPUT, { recursive: true });
  const path = join(OUTPUT, name);
  await page.screenshot({ path, fullPage });
  return path;
}

/** A served dist/ and one headless Chromium for the calling test file,
 * started before its tests and closed after them: `env.server`,
 * `env.browser`. */
export function useBrowser() {
  const env = {};
  before(async () => {
    env.server = await serve();
    env.browser = await launch();
  });
  after(async () => {
    await env.browser?.close();
    await env.server?.close();
  });
  return env;
}

/** Clicks "Copy embed code" (for a post `width` px wide, when given) and
 * returns the code once the page has measured the embed and written it. */
export async function copyEmbedCode(page, width) {
  if (width) await page.selectOption("#embed-width", String(width));
  await page.$eval("#embed-code", (t) => { t.value = ""; });
  await page.click("#copy-embed");
  await page.waitForFunction(() => document.getElementById("embed-code").value !== "", null, { timeout: 70000 });
  return page.inputValue("#embed-code");
}
