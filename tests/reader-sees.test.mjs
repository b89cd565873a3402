// What a reader sees, not what the page keeps for itself: the table's
// text (not its data-value attributes) against the CLI's numbers, the
// pixels inside each plot against a frame with no data in it, the Erlang C
// curve and the storm's join marker as pixels, the rows left after hiding
// rules by name.
import { test } from "node:test";
import assert from "node:assert/strict";
import { useBrowser, open, ready, nativeReport, cliReport } from "./support/harness.mjs";

const env = useBrowser();

// Every rule, in canonical order, from the core's one registry.
const ALGORITHMS = nativeReport({ requests: 1 }).scenario.algorithms;

/** `v` with `digits` decimals as Rust's `format!("{v:.N}")` writes it:
 * rounded from the float's exact binary value, an exact tie to the even
 * digit (JavaScript's toFixed takes the larger one). Written out here so
 * the test does not borrow the page's rounding. */
function fixed(v, digits) {
  assert.ok(Number.isFinite(v) && v >= 0, `a shown number is finite and not negative (${v})`);
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, v);
  const bits = view.getBigUint64(0);
  const exponent = Number((bits >> 52n) & 0x7ffn);
  let mantissa = bits & ((1n << 52n) - 1n);
  if (exponent !== 0) mantissa |= 1n << 52n;
  const power = (exponent === 0 ? 1 : exponent) - 1075; // v = mantissa x 2^power
  // v = numerator / 10^scale exactly.
  let numerator;
  let scale;
  if (power >= 0) {
    numerator = mantissa << BigInt(power);
    scale = 0;
  } else {
    numerator = mantissa * 5n ** BigInt(-power);
    scale = -power;
  }
  let units; // v x 10^digits, rounded
  if (scale <= digits) {
    units = numerator * 10n ** BigInt(digits - scale);
  } else {
    const unit = 10n ** BigInt(scale - digits);
    units = numerator / unit;
    const twice = 2n * (numerator % unit);
    if (twice > unit || (twice === unit && units % 2n === 1n)) units += 1n;
  }
  const text = units.toString().padStart(digits + 1, "0");
  return digits === 0 ? text : `${text.slice(0, -digits)}.${text.slice(-digits)}`;
}

// The table's rules as the README's reader reads them: milliseconds to one
// decimal under 100 and whole from 100, shares as percentages to one
// decimal, imbalance to two, counts whole.
const ms = (v) => fixed(v, v >= 100 ? 0 : 1);
const percent = (v) => `${fixed(v * 100, 1)}%`;
const ratio = (v) => fixed(v, 2);
const count = (v) => fixed(v, 0);

// Each column's value in the CLI's JSON and how it is written.
const COLUMNS = {
  "quick-p99": [(r) => r.latency_ms.quick?.p99, ms],
  p50: [(r) => r.latency_ms.all.p50, ms],
  p99: [(r) => r.latency_ms.all.p99, ms],
  p999: [(r) => r.latency_ms.all.p999, ms],
  max: [(r) => r.latency_ms.all.max, ms],
  mean: [(r) => r.latency_ms.all.mean, ms],
  "wait-p99": [(r) => r.wait_ms.p99, ms],
  "peak-queue": [(r) => r.peak_queue, count],
  "busiest-share": [(r) => r.busiest_share, percent],
  imbalance: [(r) => r.imbalance, ratio],
  errors: [(r) => r.errors, count],
  "error-share": [(r) => r.error_share, percent],
  retries: [(r) => r.retries, count],
  "hit-rate": [(r) => r.hit_rate, percent],
};

/** The columns a report shows: quick requests' p99 only with quick
 * requests (bimodal work), the fleet's only with errors or retries, the
 * hit rate only with caches. */
function columnsOf(report) {
  const some = (f) => report.results.some(f);
  return Object.keys(COLUMNS).filter((key) =>
    (key !== "quick-p99" || some((r) => r.latency_ms.quick)) &&
    (key !== "errors" && key !== "error-share" || some((r) => r.errors > 0)) &&
    (key !== "retries" || some((r) => r.retries > 0)) &&
    (key !== "hit-rate" || some((r) => r.hit_rate !== undefined && r.hit_rate !== null)));
}

/** The table as its reader sees it: headings and cells' visible text, row
 * by row, the rule's name from the row's heading. */
async function seenTable(page) {
  return page.evaluate(() => {
    const heads = [...document.querySelectorAll("#results thead th[data-key]")].filter((th) => th.checkVisibility()).map((th) => th.dataset.key);
    const rows = [...document.querySelectorAll("#results tbody tr")].filter((tr) => tr.checkVisibility()).map((tr) => [
      tr.querySelector("th").innerText.trim(),
      [...tr.querySelectorAll("td")].filter((td) => td.checkVisibility()).map((td) => td.innerText.trim()),
    ]);
    return { heads, rows };
  });
}

function expectedSeen(report) {
  const heads = columnsOf(report);
  const rows = report.results.map((r) => [r.algorithm, heads.map((key) => {
    const [value, write] = COLUMNS[key];
    const v = value(r);
    return v === undefined || v === null ? "-" : write(v);
  })]);
  return { heads, rows };
}

async function load(page, hash) {
  await page.goto(env.server.base + hash);
  await ready(page);
}

test("the table's visible text is lbsim run --url's numbers, rounded by the table's rule", { skip: !process.env.LBSIM_CLI && "needs LBSIM_CLI" }, async () => {
  const { page, context, errors } = await open(env.browser);
  // The default page, a fleet with errors and retries, caches, constant
  // work (no quick requests: no quick p99 column).
  for (const hash of ["#v=1", "#v=1&events=20s:s3:fail&count-5xx=1&retries=1", "#v=1&cache-keys=300", "#v=1&work=constant"]) {
    await load(page, hash);
    const cli = cliReport(env.server.base + hash);
    const seen = await seenTable(page);
    const expected = expectedSeen(cli);
    assert.ok(expected.rows.length > 0);
    assert.deepEqual(seen, expected, `${hash}: the table shows the CLI's numbers`);
  }
  // The rounding rule itself: a tie goes to the even digit, as Rust writes it.
  assert.deepEqual([fixed(0.25, 1), fixed(0.35, 1), fixed(12.25, 1), fixed(100.5, 0), fixed(101.5, 0), fixed(0.125, 2)],
    ["0.2", "0.3", "12.2", "100", "102", "0.12"]);
  assert.deepEqual(errors, []);
  await context.close();
});

/** Share of a canvas's pixels in a colour (a rule's, a server's, a
 * scheme's): the channels at least 40 apart. Titles, ticks, axes and grid
 * are grey in both themes, so a frame with no data has none. */
async function dataShare(page, id) {
  return page.evaluate((id) => {
    const c = document.getElementById(id);
    if (!c || !c.checkVisibility() || !c.width || !c.height) return { visible: false, share: 0 };
    const data = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
    let coloured = 0;
    for (let i = 0; i < data.length; i += 4) {
      const hi = Math.max(data[i], data[i + 1], data[i + 2]);
      const lo = Math.min(data[i], data[i + 1], data[i + 2]);
      if (hi - lo >= 40) coloured++;
    }
    return { visible: true, share: coloured / (data.length / 4) };
  }, id);
}

// Each a drawn line or bar over at least this share of its canvas; a
// frame with a title, axes and ticks and no data has 0.
const DRAWN = 0.002;

test("every expected plot is drawn with its data, by id; the page's own empty frame fails the same check", async () => {
  for (const colorScheme of ["light", "dark"]) {
    const { page, context, errors } = await open(env.browser, { colorScheme });
    const cases = [
      ["#v=1", ["cdf", "loads", "queues", "remap"]],
      ["#v=1&events=20s:s3:fail", ["cdf", "loads", "queues", "errors", "requests"]],
      ["#v=1&cache-keys=300", ["cdf", "hits", "loads", "queues"]],
    ];
    for (const [hash, ids] of cases) {
      await load(page, hash);
      if (ids.includes("remap")) {
        await page.click("#remap-panel summary");
        await page.waitForFunction(() => document.querySelectorAll("#remap-table tbody tr").length === 5);
      }
      for (const id of ids) {
        const { visible, share } = await dataShare(page, id);
        assert.ok(visible, `${colorScheme} ${hash}: #${id} shows`);
        assert.ok(share > DRAWN, `${colorScheme} ${hash}: #${id} has its data drawn (${share})`);
      }
    }
    // The latency plot of a class with no requests (bimodal work with no
    // slow share has no slow ones) is the page's frame with nothing in
    // it, its title and a note: it fails.
    await load(page, "#v=1&work=bimodal&slow-share=0");
    await page.check("input[name=cdf-class][value=slow]");
    await page.waitForFunction(() => document.body.dataset.state === "ready");
    await page.waitForTimeout(200);
    const blank = await dataShare(page, "cdf");
    assert.ok(blank.visible, "the empty latency frame shows");
    assert.ok(!(blank.share > DRAWN), `${colorScheme}: a frame with no data fails the check (${blank.share})`);
    assert.deepEqual(errors, []);
    await context.close();
  }
});

/** The canvas's pixels of the theme's text colour (within 8 per channel:
 * the centre of a line 2 px wide or more), and its ink (grey, at least 80
 * from the background: axes are 1 px lines between device pixels, drawn
 * as two half-tone columns), as { width, height, at(x, y), ink(x, y) }. */
async function foreground(page, id) {
  const { width, height, mask } = await page.evaluate((id) => {
    const c = document.getElementById(id);
    const dark = matchMedia("(prefers-color-scheme: dark)").matches;
    const fg = dark ? [0xe4, 0xe4, 0xe7] : [0x1f, 0x1f, 0x24];
    const bg = dark ? [0x18, 0x1a, 0x1f] : [0xff, 0xff, 0xff];
    const data = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
    const mask = [];
    for (let i = 0; i < data.length; i += 4) {
      const [r, g, b] = [data[i], data[i + 1], data[i + 2]];
      const text = Math.abs(r - fg[0]) <= 8 && Math.abs(g - fg[1]) <= 8 && Math.abs(b - fg[2]) <= 8;
      const grey = Math.max(r, g, b) - Math.min(r, g, b) <= 8 && Math.abs(r - bg[0]) >= 80;
      mask.push((text ? 1 : 0) | (grey ? 2 : 0));
    }
    return { width: c.width, height: c.height, mask };
  }, id);
  return { width, height, at: (x, y) => (mask[y * width + x] & 1) === 1, ink: (x, y) => (mask[y * width + x] & 2) === 2 };
}

/** The plot area, from its axes: the x axis is the longest run of ink
 * along a row, the y axis runs up from its left end. */
function plotArea(fg) {
  let best = { length: 0 };
  for (let y = 0; y < fg.height; y++) {
    let start = -1;
    for (let x = 0; x <= fg.width; x++) {
      const on = x < fg.width && fg.ink(x, y);
      if (on && start < 0) start = x;
      if (!on && start >= 0) {
        if (x - start > best.length) best = { length: x - start, y, x0: start, x1: x - 1 };
        start = -1;
      }
    }
  }
  let top = best.y;
  const axis = (y) => [-2, -1, 0, 1, 2].some((d) => fg.ink(best.x0 + d, y));
  // Lines drawn from the axis may cover it for a few pixels.
  for (let y = top - 1; y >= 0 && y > top - 24; y--) if (axis(y)) top = y;
  return { left: best.x0, right: best.x1, bottom: best.y, top };
}

/** Pixels of the text colour strictly inside the plot area (axes, ticks,
 * labels and title left out). */
function inside(fg) {
  const a = plotArea(fg);
  let n = 0;
  for (let y = a.top + 4; y < a.bottom - 4; y++) for (let x = a.left + 4; x < a.right - 4; x++) n += fg.at(x, y) ? 1 : 0;
  return { area: a, n };
}

test("theory draws the Erlang C curve: its dashed line's colour is inside the latency plot, and not when no formula applies", async () => {
  const { page, context, errors } = await open(env.browser);
  await load(page, "#v=1&preset=theory");
  await page.check("input[name=cdf-class][value=all]");
  await page.waitForTimeout(200);
  const theory = inside(await foreground(page, "cdf"));
  const { left, right, top, bottom } = theory.area;
  assert.ok(right - left > 400 && bottom - top > 300, `the plot area is found from its axes (${JSON.stringify(theory.area)})`);
  // 160 segments over the plot's width, dashed: well over a thousand pixels at 2x.
  assert.ok(theory.n > 1000, `the theory line's colour inside the plot (${theory.n} px)`);
  // Two servers: no formula, the same frame, the same rule.
  await load(page, "#v=1&preset=theory&servers=2");
  await page.check("input[name=cdf-class][value=all]");
  await page.waitForTimeout(200);
  const none = inside(await foreground(page, "cdf"));
  assert.ok(none.n < 50, `no theory line without a formula (${none.n} px)`);
  assert.deepEqual(errors, []);
  await context.close();
});

test("the storm's join is marked on the hit rate plot: a dashed line at 20 s, none without the event", { skip: !process.env.LBSIM_CLI && "needs LBSIM_CLI" }, async () => {
  const { page, context, errors } = await open(env.browser);
  const hash = "#v=1&preset=remap-storm";
  const cli = cliReport(env.server.base + hash);
  assert.equal(cli.scenario.events, "20s:s5:join");
  // The plot's time axis runs to the longest rule's last bucket.
  const span = Math.max(...cli.results.map((r) => r.queue_series.length * r.queue_bucket_ms / 1000));
  const markerColumns = async (hash) => {
    await load(page, hash);
    const fg = await foreground(page, "hits");
    const a = plotArea(fg);
    const columns = [];
    for (let x = a.left + 4; x < a.right - 4; x++) {
      let n = 0;
      for (let y = a.top + 4; y < a.bottom - 4; y++) n += fg.at(x, y) ? 1 : 0;
      // Dashes of 4 on 3 off: over half the column.
      if (n > 0.4 * (a.bottom - a.top - 8)) columns.push(x);
    }
    // The label ("s5 join") in the text colour at the top, right of 20 s.
    const at = Math.round(a.left + (20 / span) * (a.right - a.left));
    let label = 0;
    for (let y = a.top; y < a.top + 40; y++) for (let x = at + 4; x < at + 120; x++) label += fg.at(x, y) ? 1 : 0;
    return { a, columns, label };
  };
  const { a, columns, label } = await markerColumns(hash);
  assert.ok(columns.length > 0 && columns.length <= 4, `one marker line (${columns})`);
  const x = a.left + (20 / span) * (a.right - a.left);
  for (const c of columns) assert.ok(Math.abs(c - x) <= 3, `the marker is at 20 s of ${span.toFixed(1)} s: x ${c}, expected ${x.toFixed(1)}`);
  assert.ok(label > 100, `the marker's label is drawn beside it at the top (${label} px, area ${JSON.stringify(a)}, columns ${columns})`);
  const without = await markerColumns(hash + "&events=");
  assert.deepEqual(without.columns, [], "no marker without the event");
  assert.ok(without.label < 20, `no label without the event (${without.label} px)`);
  assert.deepEqual(errors, []);
  await context.close();
});

test("hiding rules leaves exactly the others, by name, in the table and the latency legend", async () => {
  const { page, context, errors } = await open(env.browser);
  await load(page, "#v=1");
  const hidden = ["random", "user-hash", "maglev"];
  const run = Number(await page.getAttribute("body", "data-run-id"));
  for (const a of hidden) await page.uncheck(`input[name=algorithms][value=${a}]`);
  await page.waitForFunction((r) => Number(document.body.dataset.runId) > r && document.body.dataset.state === "ready" &&
    new URLSearchParams(location.hash.slice(1)).has("algorithms"), run);
  await page.waitForFunction((n) => document.querySelectorAll("#results tbody tr").length === n, ALGORITHMS.length - hidden.length);
  const rest = ALGORITHMS.filter((a) => !hidden.includes(a));
  const rows = await page.$$eval("#results tbody tr th", (ths) => ths.map((th) => th.innerText.trim()));
  assert.deepEqual(rows, rest, "the rows are the rules left, by the name shown");
  const legend = await page.$$eval("#cdf-legend li", (lis) => lis.map((li) => li.innerText.trim()));
  for (const a of hidden) assert.ok(!legend.some((l) => l.split(/\s/)[0] === a), `${a} is not in the legend (${legend})`);
  for (const a of rest) assert.ok(legend.some((l) => l.split(/\s/)[0] === a), `${a} is in the legend (${legend})`);
  assert.deepEqual(errors, []);
  await context.close();
});
