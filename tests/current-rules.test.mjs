// The rules production uses now in the built playground (dist/), in
// headless Chromium (docs/web.md#the-rules-production-uses-now): a link
// naming one runs it in the full simulator's worker, fetched then, and
// gives the numbers of the native core and of `lbsim run --url`; a page of
// the classic rules never fetches that module; the replay shows a current
// rule; and a current rule's line is broken as the core's registry says
// (docs/web.md#line-styles).
import { test } from "node:test";
import assert from "node:assert/strict";
import { useBrowser, open, ready, nativeReport, tableValues, expectedTable, assertDownloads, marks, screenshot } from "./support/harness.mjs";
import { replayReady } from "./support/replay-view.mjs";

const env = useBrowser();

// The full simulator's module (crates/lbsim-traffic).
const FULL = /lbsim-traffic_bg\.wasm/;

// Every dash pattern the page sets on a canvas (zeros: solid, as the
// canvas reads them), with the number of marks
// that canvas had told the test by then (crates/lbsim-web/src/plots/
// drawn.rs sets a line's dashes, draws it, clears them, then tells it):
// the pattern set at count k is mark k's.
function recordDashes() {
  window.lbsimDashes = [];
  const set = CanvasRenderingContext2D.prototype.setLineDash;
  CanvasRenderingContext2D.prototype.setLineDash = function (pattern) {
    const id = this.canvas.id;
    window.lbsimDashes.push({ id, mark: (window.lbsimMarks?.[id] ?? []).length, pattern: Array.from(pattern) });
    return set.call(this, pattern);
  };
}

/** The dash pattern each rule's line on canvas `id` was drawn with. */
async function dashesByRule(page, id) {
  const drawn = await marks(page, id);
  const calls = await page.evaluate((id) => window.lbsimDashes.filter((d) => d.id === id), id);
  // The last drawing's calls: those after the last time the count fell.
  const last = calls.slice(calls.findLastIndex((c, i) => i > 0 && c.mark < calls[i - 1].mark) + 1);
  return Object.fromEntries(drawn.map((m, k) => [m.name, last.findLast((c) => c.mark === k && c.pattern.some((v) => v > 0))?.pattern ?? []]));
}

const LINK = "#v=1&servers=8&slots=2&load=0.8&balancers=4&seed=11&algorithms=round-robin,power-of-two,least-request,jiq";
const SCENARIO = { servers: 8, slots: 2, load: 0.8, balancers: 4, seed: 11, algorithms: ["round-robin", "power-of-two", "least-request", "jiq"] };

test("a link naming jiq runs it in the full simulator and gives the numbers of the native core and of lbsim run --url", async () => {
  const { page, context, errors, requests } = await open(env.browser);
  await context.addInitScript(recordDashes);
  await page.goto(env.server.base + LINK);
  await ready(page);
  assert.ok(requests.some((r) => FULL.test(r)), "the full simulator's module was fetched");
  const checked = await page.$$eval("input[name=algorithms]:checked", (inputs) => inputs.map((i) => i.value));
  assert.deepEqual(checked, SCENARIO.algorithms, "the link's rules are checked, jiq among them");
  const native = nativeReport(SCENARIO);
  assert.deepEqual(native.scenario.algorithms, SCENARIO.algorithms);
  assert.deepEqual(await tableValues(page), expectedTable(native), "the table: the native core's numbers, jiq's row included");
  // The JSON download equals the native report and `lbsim run --url`'s,
  // the CSV `lbsim run --url --format csv`'s byte for byte.
  const csv = await assertDownloads(page, env.server.base + LINK, native);
  assert.match(csv, /^jiq,/m, "jiq has its CSV row");
  // Every plot of rules draws jiq's line too.
  for (const id of ["cdf", "loads"]) {
    assert.deepEqual((await marks(page, id)).map((m) => m.name).filter((n) => n === "jiq"), ["jiq"], `#${id} draws jiq`);
  }
  // A change re-runs both parts and merges them again.
  await page.locator("input[name=slow-share]").fill("0.2");
  await page.waitForFunction(() => document.body.dataset.drawn?.includes("slow-share=0.2") && document.body.dataset.state === "ready");
  assert.deepEqual(await tableValues(page), expectedTable(nativeReport({ ...SCENARIO, "slow-share": 0.2 })), "after a change");
  assert.deepEqual(errors, []);
  await context.close();
});

test("a page of the classic rules never fetches the full simulator", async () => {
  const { page, context, errors, requests } = await open(env.browser);
  await page.goto(env.server.base + "#v=1&seed=4");
  await ready(page);
  await page.waitForTimeout(300);
  assert.ok(!requests.some((r) => FULL.test(r)), `not fetched: ${requests.filter((r) => FULL.test(r))}`);
  // Ticking jiq runs it, then and not before.
  await page.check("input[name=algorithms][value=jiq]");
  await page.waitForFunction(() => document.querySelector('#results tr[data-algorithm="jiq"]') && document.body.dataset.state === "ready");
  assert.ok(requests.some((r) => FULL.test(r)), "fetched once a run names jiq");
  const rules = await page.$$eval("#results tbody tr", (trs) => trs.map((tr) => tr.dataset.algorithm));
  assert.deepEqual(await tableValues(page), expectedTable(nativeReport({ seed: 4, algorithms: rules })));
  assert.deepEqual(errors, []);
  await context.close();
});

test("the current rules' lines are broken, the classic ones solid, in light and dark and on a phone", async () => {
  for (const [name, options] of [
    ["desktop-light", { colorScheme: "light" }],
    ["desktop-dark", { colorScheme: "dark" }],
    ["phone-dark", { colorScheme: "dark", width: 390, height: 844, deviceScaleFactor: 3, hasTouch: true }],
    ["phone-light", { colorScheme: "light", width: 390, height: 844, deviceScaleFactor: 3, hasTouch: true }],
  ]) {
    const { page, context, errors } = await open(env.browser, options);
    await context.addInitScript(recordDashes);
    await page.goto(env.server.base + LINK);
    await ready(page);
    const scale = await page.evaluate(() => devicePixelRatio);
    // docs/web.md#line-styles: the first current rule long dashes (8 and
    // 4 CSS px), the classic rules unbroken.
    const want = { "round-robin": [], "power-of-two": [], "least-request": [], jiq: [8 * scale, 4 * scale] };
    for (const id of ["cdf", "queues"]) assert.deepEqual(await dashesByRule(page, id), want, `${name}: #${id}`);
    const keys = await page.$$eval("#cdf-legend li .key", (ks) => ks.map((k) => k.className));
    assert.deepEqual(keys, ["key", "key", "key", "key dashed"], `${name}: the legend's keys`);
    await screenshot(page, `current-rules-${name}.png`);
    assert.deepEqual(errors, []);
    await context.close();
  }
});

/** The dashes drawn in the swatch beside rule `rule`'s checkbox, in
 * device pixels, read from a screenshot of it: along its middle row, the
 * first run of pixels nearer its colour `rgb` than the background, then
 * the run of background after it (a solid swatch: no gap, no dashes). */
async function swatchDashes(page, rule, rgb) {
  const swatch = page.locator(`label.algorithm:has(input[value="${rule}"]) .swatch`);
  const png = (await swatch.screenshot()).toString("base64");
  return page.evaluate(async ({ png, rgb }) => {
    const bytes = Uint8Array.from(atob(png), (c) => c.charCodeAt(0));
    const image = await createImageBitmap(new Blob([bytes], { type: "image/png" }));
    const canvas = new OffscreenCanvas(image.width, image.height);
    const context = canvas.getContext("2d");
    context.drawImage(image, 0, 0);
    const row = context.getImageData(0, image.height >> 1, image.width, 1).data;
    let back = document.querySelector("[data-group=algorithms]");
    while (back && getComputedStyle(back).backgroundColor === "rgba(0, 0, 0, 0)") back = back.parentElement;
    const bg = (back ? getComputedStyle(back).backgroundColor : "rgb(255, 255, 255)").match(/\d+/g).map(Number);
    const far = (i, c) => Math.hypot(row[i] - c[0], row[i + 1] - c[1], row[i + 2] - c[2]);
    const runs = [];
    for (let x = 0; x < image.width; x++) {
      const ink = far(4 * x, rgb) < far(4 * x, bg);
      if (runs.length && runs.at(-1).ink === ink) runs.at(-1).n++;
      else runs.push({ ink, n: 1 });
    }
    const first = runs.findIndex((r) => r.ink);
    const gap = runs[first + 1];
    return gap && runs[first + 2] ? [runs[first].n, gap.n] : [];
  }, { png, rgb });
}

// One current rule of each style (jiq dashed, grpc-wrr dotted) beside a
// classic one.
const STYLES = "#v=1&servers=8&slots=2&load=0.8&balancers=4&seed=11&requests=5000&algorithms=round-robin,jiq,grpc-wrr";

test("each rule's swatch beside its checkbox is broken as the plot draws its line, in light and dark, at 360, 600 and 760 px and on a phone", async () => {
  for (const [name, options] of [
    ["760-light", { colorScheme: "light", width: 760, height: 900 }],
    ["760-dark", { colorScheme: "dark", width: 760, height: 900 }],
    ["600-dark", { colorScheme: "dark", width: 600, height: 900 }],
    ["360-light", { colorScheme: "light", width: 360, height: 800 }],
    ["phone-dark", { colorScheme: "dark", width: 390, height: 844, deviceScaleFactor: 3, hasTouch: true }],
    ["phone-light", { colorScheme: "light", width: 390, height: 844, deviceScaleFactor: 3, hasTouch: true }],
  ]) {
    const { page, context, errors } = await open(env.browser, options);
    await context.addInitScript(recordDashes);
    await page.goto(env.server.base + STYLES);
    await ready(page);
    const plot = await dashesByRule(page, "cdf");
    assert.deepEqual(Object.keys(plot), ["round-robin", "jiq", "grpc-wrr"], `${name}: the plot draws the three`);
    const colours = Object.fromEntries((await marks(page, "cdf")).map((m) => [m.name, m.colour.slice(0, 3)]));
    for (const [rule, pattern] of Object.entries(plot)) {
      const drawn = await swatchDashes(page, rule, colours[rule]);
      assert.equal(drawn.length, pattern.length, `${name}: ${rule}'s swatch is ${drawn.length ? "broken" : "solid"} (${drawn}), its line ${pattern.length ? "broken" : "solid"} (${pattern})`);
      // A dash or gap edge may fall inside a device pixel.
      pattern.forEach((v, i) => assert.ok(Math.abs(drawn[i] - v) <= 1, `${name}: ${rule}'s swatch has dashes ${drawn}, its line ${pattern}`));
    }
    assert.ok(plot.jiq.length === 2 && plot["grpc-wrr"].length === 2, `${name}: the current rules' lines are broken`);
    await page.locator("[data-group=algorithms]").scrollIntoViewIfNeeded();
    await screenshot(page, `rule-swatches-${name}.png`, { fullPage: false });
    assert.deepEqual(errors, []);
    await context.close();
  }
});

test("the replay replays a current rule", async () => {
  const { page, context, errors } = await open(env.browser, { deviceScaleFactor: 1 });
  await page.goto(env.server.base + LINK + "&view=replay&pair=jiq,round-robin");
  await ready(page);
  await replayReady(page);
  assert.equal(await page.$eval("#replay-rule-0", (s) => s.value), "jiq", "jiq is the replayed rule");
  assert.equal(await page.locator("#replay-panel .error, #replay-panel [role=alert]:not(:empty)").count(), 0);
  await screenshot(page, "current-rules-replay.png", { fullPage: false });
  assert.deepEqual(errors, []);
  await context.close();
});
