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
  await context.addInitScript(recordMarks);
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

/** The rules the page's scenario runs, in its order: its checked rule
 * checkboxes, which it builds from the core's registry (so a new rule
 * changes no test; a scenario naming none runs the classic ones). */
export async function ruleIds(page) {
  return page.$$eval("input[name=algorithms]:checked", (inputs) => inputs.map((input) => input.value));
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
  // The connections column only where a rule keeps each copy to a part
  // of the servers (aperture): all its copies' connections together.
  const connections = report.results.some((r) => r.connections);
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
    if (connections) out[r.algorithm].connections = r.connections ? r.connections.total : null;
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

// What the plots draw (docs/testing.md#what-the-plots-draw): the page
// tells `window.lbsimDrawn`, when a page defines it, each mark that
// carries data (crates/lbsim-web/src/plots/drawn.rs): a canvas's id alone
// when a drawing of it begins, then per mark its name and numbers: colour
// (r, g, b, opacity), stroke in pixels (0: filled rectangles by opposite
// corners), the plot area in canvas pixels (left, right, top, bottom),
// its extent in data units (x from, to, y from, to), which axes are log,
// then the points in data units.
function recordMarks() {
  window.lbsimMarks = {};
  window.lbsimDrawn = (id, name, data) => {
    if (name === undefined) window.lbsimMarks[id] = [];
    else (window.lbsimMarks[id] ??= []).push({ name, data: Array.from(data) });
  };
}

/** The marks the plot on canvas `id` drew last, read as objects. */
export async function marks(page, id) {
  const raw = await page.evaluate((id) => window.lbsimMarks[id] ?? null, id);
  if (raw === null) return null;
  return raw.map(({ name, data: d }) => {
    const points = [];
    for (let i = 15; i + 1 < d.length; i += 2) points.push([d[i], d[i + 1]]);
    return {
      name, colour: d.slice(0, 4), stroke: d[4],
      area: { left: d[5], right: d[6], top: d[7], bottom: d[8] },
      x: [d[9], d[10]], y: [d[11], d[12]], log: [d[13] === 1, d[14] === 1], points,
    };
  });
}

/** A mark's point in canvas pixels. */
function toPixel(m, [x, y]) {
  const axis = (v, [from, to], log) => (log ? (Math.log10(v) - Math.log10(from)) / (Math.log10(to) - Math.log10(from)) : (v - from) / (to - from));
  return [m.area.left + axis(x, m.x, m.log[0]) * (m.area.right - m.area.left), m.area.bottom - axis(y, m.y, m.log[1]) * (m.area.bottom - m.area.top)];
}

/** Holds each plot in `expected` ({ canvas id: [mark names] }) against
 * what it drew: the canvas is visible and drawn at the device pixel
 * ratio, it drew a mark of every expected name, and each name's colour
 * (blended on the background as drawn) covers pixels inside its plot area
 * in rough proportion to what its marks leave visible: the pixels of its
 * lines (their length times their stroke) or bars, redrawn by the test
 * off screen, less those the marks drawn after it cover and those along
 * the plot area's edges, where the axes run (at least `least` of them, at
 * most 4 times as many). A blank canvas, axes without lines, or a plot
 * missing from the page fails. `exempt` names marks checked for presence
 * only. Returns { id: { name: [seen, visible] } }. */
export async function assertPlotsDrawn(page, expected, { exempt = [], least = 0.1, label = "" } = {}) {
  const out = {};
  for (const [id, names] of Object.entries(expected)) {
    const visible = await page.evaluate((id) => document.getElementById(id)?.checkVisibility() ?? false, id);
    assert.ok(visible, `${label}#${id} is on the page and visible`);
    const crisp = await page.evaluate((id) => { const c = document.getElementById(id); return c.width === Math.round(c.clientWidth * devicePixelRatio); }, id);
    assert.ok(crisp, `${label}#${id} is drawn at the device pixel ratio`);
    const all = await marks(page, id);
    assert.ok(all && all.length > 0, `${label}#${id} drew marks`);
    for (const name of names) {
      assert.ok(all.some((m) => m.name === name), `${label}#${id} drew ${name} (it drew ${[...new Set(all.map((m) => m.name))].join(", ")})`);
    }
    const drawnMarks = all.map((m) => ({ name: m.name, colour: m.colour, stroke: m.stroke, area: m.area, px: m.points.map((p) => toPixel(m, p)) }));
    const counts = await page.evaluate(({ id, drawnMarks }) => {
      const c = document.getElementById(id);
      const ctx = c.getContext("2d");
      const bg = ctx.getImageData(0, 0, 1, 1).data;
      const { width, height } = c;
      const shown = ctx.getImageData(0, 0, width, height).data;
      // Each mark's own pixels, redrawn alone.
      const raster = (m) => {
        const off = new OffscreenCanvas(width, height);
        const o = off.getContext("2d");
        o.beginPath();
        o.rect(m.area.left + 2, m.area.top + 2, m.area.right - m.area.left - 4, m.area.bottom - m.area.top - 4);
        o.clip();
        o.fillStyle = o.strokeStyle = "#000";
        if (m.stroke === 0) {
          for (let i = 0; i + 1 < m.px.length; i += 2) {
            const [a, b] = [m.px[i], m.px[i + 1]];
            o.fillRect(Math.min(a[0], b[0]), Math.min(a[1], b[1]), Math.abs(b[0] - a[0]), Math.abs(b[1] - a[1]));
          }
        } else {
          o.lineWidth = m.stroke;
          o.beginPath();
          m.px.forEach(([x, y], i) => (i ? o.lineTo(x, y) : o.moveTo(x, y)));
          o.stroke();
        }
        const data = o.getImageData(0, 0, width, height).data;
        const on = new Uint8Array(width * height);
        for (let i = 0; i < on.length; i++) on[i] = data[i * 4 + 3] > 128 ? 1 : 0;
        return on;
      };
      const out = {};
      // From the last mark drawn back: what a later mark draws over is
      // not an earlier one's to show, and a translucent mark over another
      // shows neither's colour. A pixel beside another mark is blended
      // with it (antialiasing).
      const own = drawnMarks.map(raster);
      const under = new Uint8Array(width * height);
      for (const o of own) for (let i = 0; i < o.length; i++) under[i] += o[i];
      const near = (mask, i) => mask[i] || mask[i - 1] || mask[i + 1] || mask[i - width] || mask[i + width];
      const far = (mask, i) => near(mask, i) || mask[i - 2] || mask[i + 2] || mask[i - 2 * width] || mask[i + 2 * width];
      const covered = new Uint8Array(width * height);
      for (let k = drawnMarks.length - 1; k >= 0; k--) {
        const m = drawnMarks[k];
        const [r, g, b, a] = m.colour;
        const colour = [r * a + bg[0] * (1 - a), g * a + bg[1] * (1 - a), b * a + bg[2] * (1 - a)];
        const alone = new Uint8Array(width * height);
        for (let i = 0; i < alone.length; i++) alone[i] = under[i] > own[k][i] ? 1 : 0;
        let free = 0;
        let seen = 0;
        for (let i = 0; i < own[k].length; i++) {
          if (!own[k][i] || near(covered, i) || (a < 1 && far(alone, i))) continue;
          free++;
          const j = i * 4;
          if (Math.abs(shown[j] - colour[0]) <= 12 && Math.abs(shown[j + 1] - colour[1]) <= 12 && Math.abs(shown[j + 2] - colour[2]) <= 12) seen++;
        }
        for (let i = 0; i < own[k].length; i++) covered[i] |= own[k][i];
        const [s, f] = out[m.name] ?? [0, 0];
        out[m.name] = [s + seen, f + free, a < 1];
      }
      return out;
    }, { id, drawnMarks });
    out[id] = counts;
    for (const name of names) {
      const [seen, free, faint] = counts[name];
      // A few pixels peeking out between other lines are all edges; a
      // faint line (a muted rule) blends with the grid under it too.
      if (exempt.includes(name) || free < 200) continue;
      assert.ok(seen >= (faint ? least / 2 : least) * free, `${label}#${id}: ${name}'s colour covers ${seen} of the ${free} pixels its marks leave visible (at least ${least} of them)`);
    }
  }
  return out;
}

/** What `assertPlotsDrawn` expects of the plots `plots` (the page's
 * `data-plot` names) on the page as it is: a line or bars per rule (the
 * table's rows) on each plot of rules, every server's line per rule on
 * the requests plot, each scheme's bar on the remapping plot. The table
 * and the replay (checked by its own tests) expect nothing here. */
export async function expectedMarks(page, plots) {
  const rules = await page.$$eval("#results tbody tr", (trs) => trs.map((tr) => tr.dataset.algorithm));
  const out = {};
  for (const plot of plots) {
    if (["cdf", "loads", "queues", "errors", "hits", "sweep"].includes(plot)) out[plot] = rules;
    if (plot === "remap") out.remap = await page.$$eval("#remap-table tbody tr", (trs) => trs.map((tr) => `${tr.dataset.scheme} moved`));
    if (plot === "requests") {
      const names = [...new Set(((await marks(page, "requests")) ?? []).map((m) => m.name))];
      for (const rule of rules) assert.ok(names.some((n) => n.startsWith(`${rule} `)), `#requests drew ${rule}'s servers`);
      out.requests = names;
    }
  }
  return out;
}

/** The share a drawn latency distribution reads at latency `ms`, as a
 * reader reads the line: where the line crosses `ms` (the highest
 * crossing, at a vertical), interpolated on the plot's axes. */
export function readShare(m, ms) {
  const axis = (v, log) => (log ? Math.log10(v) : v);
  const tail = m.log[1];
  let best = -Infinity;
  for (let i = 0; i + 1 < m.points.length; i++) {
    const [a, b] = [m.points[i], m.points[i + 1]];
    if (ms < Math.min(a[0], b[0]) || ms > Math.max(a[0], b[0])) continue;
    const ys = a[0] === b[0] ? [a[1], b[1]] : [(() => {
      const t = (axis(ms, true) - axis(a[0], true)) / (axis(b[0], true) - axis(a[0], true));
      const y = axis(a[1], tail) + t * (axis(b[1], tail) - axis(a[1], tail));
      return tail ? 10 ** y : y;
    })()];
    for (const y of ys) best = Math.max(best, tail ? 1 - y : y);
  }
  // Past the line's end (the slowest request) every request is done.
  const last = m.points[m.points.length - 1];
  if (best === -Infinity && ms >= last[0]) best = tail ? 1 - last[1] : last[1];
  return best;
}

/** Holds the drawn latency distributions (the marks of #cdf) against the
 * report's percentiles of `cls` (all, quick or slow): each rule's line
 * reaches each percentile p at its latency (within 1%, the width of the
 * core's bins) and not before (1% earlier it reads less than p). */
export function assertCdfMatchesReport(all, report, cls, label = "") {
  for (const r of report.results) {
    const figures = r.latency_ms[cls];
    const line = all.filter((m) => m.name === r.algorithm);
    assert.ok(line.length === 1, `${label}${r.algorithm}: one line drawn (${line.length})`);
    if (!figures) continue;
    const m = line[0];
    for (const [p, key] of [[0.5, "p50"], [0.9, "p90"], [0.99, "p99"], [0.999, "p999"]]) {
      const v = figures[key];
      if (v * 1.01 <= m.x[1]) {
        const after = readShare(m, v * 1.01);
        assert.ok(after >= p - 1e-9, `${label}${r.algorithm}: the line reads ${(after * 100).toFixed(2)}% at 1.01 x ${key} (${v} ms), below ${p * 100}%`);
      }
      if (v / 1.01 >= m.x[0] && v / 1.01 <= m.x[1]) {
        const before = readShare(m, v / 1.01);
        assert.ok(before < p, `${label}${r.algorithm}: the line reads ${(before * 100).toFixed(2)}% at ${key} / 1.01 (${v} ms), where the report has fewer than ${p * 100}% done`);
      }
    }
  }
}

export async function screenshot(page, name, { fullPage = true } = {}) {
  await mkdir(OUTPUT, { recursive: true });
  const path = join(OUTPUT, name);
  // A full-page capture leaves a fixed element where the window's foot
  // was, over the middle of the page (the preset bar across the results
  // table at 760 px): for the capture, each goes to the page's foot, where
  // a reader scrolled to the end sees it.
  const moved = fullPage ? await page.evaluate(() => {
    const fixed = [...document.querySelectorAll("body *")].filter((e) => getComputedStyle(e).position === "fixed" && e.checkVisibility());
    const height = document.documentElement.scrollHeight;
    const before = fixed.map((e) => [e, e.style.cssText, e.getBoundingClientRect()]);
    for (const [e, , box] of before) e.style.cssText += `;position:absolute;inset:auto;left:${box.left + scrollX}px;width:${box.width}px;top:${height - (innerHeight - box.top)}px`;
    window.lbsimUnfixed = before.map(([e, css]) => [e, css]);
    return fixed.length;
  }) : 0;
  await page.screenshot({ path, fullPage });
  if (moved) await page.evaluate(() => { for (const [e, css] of window.lbsimUnfixed) e.style.cssText = css; });
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
