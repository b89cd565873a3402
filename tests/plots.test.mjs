// The plots of the built playground (dist/) in headless Chromium: the
// default page draws every plot's data (each rule's line or bars in its
// colour) at the device pixel ratio with a table row per rule, fetches
// nothing from another host and logs no error; the latency plot's views
// (all, quick and slow requests, the tail view); and for every preset,
// every view of the latency plot read back against the report's
// percentiles.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { useBrowser, open, ready, screenshot, ruleIds, marks, readShare, assertPlotsDrawn, assertCdfMatchesReport } from "./support/harness.mjs";

const env = useBrowser();

test("the default page draws every plot and one row per algorithm, without console errors", async () => {
  for (const colorScheme of ["light", "dark"]) {
    const { page, context, errors, requests } = await open(env.browser, { colorScheme });
    await page.goto(env.server.base);
    await ready(page);
    await page.click("#remap-panel summary");
    // The table is filled at once, a row per hashing scheme.
    await page.waitForFunction(() => document.querySelectorAll("#remap-table tbody tr").length > 0);
    const rows = await page.$$eval("#results tbody tr", (trs) => trs.map((tr) => tr.dataset.algorithm));
    assert.deepEqual(rows, await ruleIds(page), "a row per rule the page offers, in its order");
    const rules = await ruleIds(page);
    const schemes = await page.$$eval("#remap-table tbody tr", (trs) => trs.map((tr) => `${tr.dataset.scheme} moved`));
    await page.waitForFunction(() => (window.lbsimMarks.remap ?? []).length > 0);
    await assertPlotsDrawn(page, { cdf: rules, loads: rules, queues: rules, remap: schemes }, { label: `${colorScheme}: ` });
    assert.equal(await page.locator("#notice").isHidden(), true);
    await screenshot(page, `playground-${colorScheme}.png`);
    const foreign = requests.filter((u) => !u.startsWith(env.server.base) && !u.startsWith("data:") && !u.startsWith("blob:"));
    assert.deepEqual(foreign, [], "no request to another host");
    assert.deepEqual(errors, []);
    await context.close();
  }
});

test("the latency plot switches between all, quick and slow requests and the tail view", async () => {
  const { page, context, errors } = await open(env.browser);
  await page.goto(env.server.base);
  await ready(page);
  const pixels = () => page.evaluate(() => {
    const c = document.querySelector("#cdf");
    const data = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
    let h = 0;
    for (let i = 0; i < data.length; i += 97) h = (h * 31 + data[i]) >>> 0;
    return h;
  });
  // The mixed preset's lesson is about the quick-request p99: the plot
  // opens on quick requests in the tail view, where it shows.
  assert.equal(await page.isChecked("input[name=cdf-class][value=quick]"), true);
  assert.equal(await page.isChecked("#cdf-tail"), true);
  const seen = new Set([await pixels()]);
  await page.uncheck("#cdf-tail");
  seen.add(await pixels());
  await page.check("input[name=cdf-class][value=all]");
  seen.add(await pixels());
  await page.check("input[name=cdf-class][value=slow]");
  seen.add(await pixels());
  await page.check("#cdf-tail");
  seen.add(await pixels());
  assert.equal(seen.size, 5, "each view draws something different");
  await screenshot(page, "latency-tail-slow.png");
  assert.deepEqual(errors, []);
  await context.close();
});

/** The report the page ran, as its "Results JSON" button downloads it. */
async function downloadedReport(page) {
  const [json] = await Promise.all([page.waitForEvent("download"), page.click("#download-json")]);
  return JSON.parse(await readFile(await json.path(), "utf8"));
}

/** Sets the latency plot's view and waits for its redraw. */
async function cdfView(page, cls, tail) {
  await page.check(`input[name=cdf-class][value=${cls}]`);
  if (tail) await page.check("#cdf-tail");
  else await page.uncheck("#cdf-tail");
  await page.waitForFunction((tail) => {
    const m = window.lbsimMarks.cdf ?? [];
    return m.length > 0 && m[0].data[14] === (tail ? 1 : 0);
  }, tail);
}

test("every preset's latency plot, all, quick and slow requests, CDF and tail, reads the report's percentiles", async () => {
  const { page, context, errors } = await open(env.browser);
  await page.goto(env.server.base);
  await ready(page);
  const presets = await page.$$eval("select[name=preset] option", (os) => os.map((o) => o.value).filter((v) => v));
  assert.ok(presets.length >= 10, `the presets: ${presets}`);
  for (const id of presets) {
    await page.goto(`${env.server.base}#v=1&preset=${id}`);
    await page.reload();
    await ready(page, 120000);
    const report = await downloadedReport(page);
    const rules = report.results.map((r) => r.algorithm);
    const classes = report.results.some((r) => r.latency_ms.quick) ? ["all", "quick", "slow"] : ["all"];
    for (const cls of classes) {
      for (const tail of [false, true]) {
        await cdfView(page, cls, tail);
        const label = `${id}, ${cls}${tail ? ", tail" : ""}: `;
        assertCdfMatchesReport(await marks(page, "cdf"), report, cls, label);
        // The control preset's rules place every request alike: their
        // lines lie on each other, the last drawn on top.
        const exempt = id === "control" ? rules.slice(0, -1) : [];
        await assertPlotsDrawn(page, { cdf: rules }, { exempt, label });
      }
    }
  }
  assert.deepEqual(errors, []);
  await context.close();
});

test("the crash preset's CDF steps at least connections' p50, never a straight line across the log axis", async () => {
  const { page, context, errors } = await open(env.browser);
  await page.goto(`${env.server.base}#v=1&preset=crash`);
  await ready(page);
  const report = await downloadedReport(page);
  await cdfView(page, "all", false);
  const lc = (await marks(page, "cdf")).find((m) => m.name === "least-connections");
  const p50 = report.results.find((r) => r.algorithm === "least-connections").latency_ms.all.p50;
  // The errors finish near 1 ms; nothing else until about the p50.
  assert.ok(readShare(lc, p50 / 2) < 0.5, `least connections reads ${readShare(lc, p50 / 2)} at half its p50 (${p50} ms)`);
  await screenshot(page, "crash-cdf.png");
  assert.deepEqual(errors, []);
  await context.close();
});
