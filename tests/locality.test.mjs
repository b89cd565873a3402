// Caches and layer 4 connections on the page (docs/model.md#caches-and-connections), in
// headless Chromium against dist/: the controls, the hit rate column and
// plot, and the presets of the lesson, each held against the native core
// and `lbsim run --url`.
import { test } from "node:test";
import { join } from "node:path";
import assert from "node:assert/strict";
import { useBrowser, open, ready, nativeReport, cliReport, tableValues, shownColumns, expectedTable, screenshot, assertPlotsDrawn, expectedMarks, assertDownloads, assertPresetMatchesCli, OUTPUT } from "./support/harness.mjs";

const PHONE = { width: 390, height: 844, deviceScaleFactor: 3 };
const PRESETS = ["cache-locality", "remap-storm", "http2-pinning"];

const env = useBrowser();

/** The shown column keys of the results table. */

test("the cache and connection controls round-trip through the link; the ones a scenario does not use are disabled", async () => {
  const link = "#v=1&cache-keys=300&hit-cost=0.3&layer=4&conn-life-ms=5000";
  const { page, context, errors } = await open(env.browser);
  await page.goto(env.server.base + link);
  await ready(page);
  assert.equal(await page.getAttribute("#locality-group", "open"), "", "a link that sets them opens the group");
  const values = await page.evaluate(() =>
    Object.fromEntries(["cache-keys", "hit-cost", "layer", "conn-life-ms"].map((k) => [k, document.querySelector(`[name="${k}"]`).value])));
  assert.deepEqual(values, { "cache-keys": "300", "hit-cost": "0.3", layer: "4", "conn-life-ms": "5000" });
  for (const key of ["cache-keys", "hit-cost", "layer", "conn-life-ms"]) {
    const id = await page.locator(`[name="${key}"]`).getAttribute("id");
    assert.equal(await page.locator(`label[for="${id}"]`).count(), 1, `label for ${key}`);
  }
  const layers = await page.$$eval("select[name=layer] option", (os) => os.map((o) => o.value));
  assert.deepEqual(layers, ["7", "4"]);
  await page.waitForTimeout(400);
  assert.equal(new URL(page.url()).hash, link, "the link round-trips");
  assert.equal(await page.locator("input[name=conn-life-ms]").isDisabled(), false);
  assert.equal(await page.locator("input[name=hit-cost]").isDisabled(), false);
  assert.deepEqual(await tableValues(page), expectedTable(nativeReport({ "cache-keys": 300, "hit-cost": 0.3, layer: 4, "conn-life-ms": 5000 })));
  const cli = cliReport(env.server.base + link);
  if (cli) assert.deepEqual(await tableValues(page), expectedTable(cli), "and lbsim run --url");
  // Back to layer 7: the lifetime no longer applies; no caches: nor the hit cost.
  await page.selectOption("select[name=layer]", "7");
  await page.waitForFunction(() => !location.hash.includes("layer="));
  await ready(page);
  assert.equal(await page.locator("input[name=conn-life-ms]").isDisabled(), true, "conn-life-ms is a layer 4 setting");
  const keys = page.locator("input[name=cache-keys]");
  await keys.fill("0");
  await keys.press("Enter");
  await page.waitForFunction(() => !location.hash.includes("cache-keys="));
  await ready(page);
  assert.equal(await page.locator("input[name=hit-cost]").isDisabled(), true, "the hit cost needs caches");
  assert.ok(!(await shownColumns(page)).includes("hit-rate"), "no hit rate column without caches");
  // Retries are a layer 7 feature: disabled at layer 4 even with events.
  await page.goto(env.server.base + "#v=1&events=20s:s3:fail&layer=4");
  await ready(page);
  assert.equal(await page.locator("input[name=retries]").isDisabled(), true, "no retries at layer 4");
  assert.deepEqual(errors, []);
  await context.close();
});

test("a cache-keys=300 link shows the hit rate column and plot with the numbers of lbsim run --url; without caches both go", async () => {
  const link = "#v=1&cache-keys=300";
  const { page, context, errors } = await open(env.browser);
  await page.goto(env.server.base + link);
  await ready(page);
  assert.ok((await shownColumns(page)).includes("hit-rate"), "the hit rate column shows");
  const native = nativeReport({ "cache-keys": 300 });
  const table = await tableValues(page);
  assert.deepEqual(table, expectedTable(native));
  for (const r of native.results) {
    assert.ok(r.hit_rate > 0 && r.hit_rate < 1, `${r.algorithm}: a hit rate (${r.hit_rate})`);
    assert.equal(table[r.algorithm]["hit-rate"], r.hit_rate);
  }
  const shown = await page.$eval("#results tbody tr[data-algorithm=consistent-hash] td[data-key=hit-rate]", (td) => td.textContent);
  assert.match(shown, /^\d+\.\d%$/, "shown as a percentage");
  const csvText = await assertDownloads(page, env.server.base + link, native);
  assert.match(csvText.split("\n")[0], /,hit_rate$/);
  // Sorting by hit rate orders the rows by it.
  await page.click("#results th[data-key=hit-rate] button");
  const sorted = await page.$$eval("#results tbody td[data-key=hit-rate]", (tds) => tds.map((td) => Number(td.dataset.value)));
  assert.deepEqual(sorted, [...sorted].sort((a, b) => a - b));
  await assertPlotsDrawn(page, await expectedMarks(page, ["hits"]));
  await page.goto(env.server.base + "#v=1&seed=3");
  await ready(page);
  assert.equal(await page.locator("canvas#hits").isVisible(), false, "no hit rate plot without caches");
  assert.ok(!(await shownColumns(page)).includes("hit-rate"), "nor its column");
  assert.deepEqual(errors, []);
  await context.close();
});

/** A fresh load of `link`. Not a fragment change and a reload: Chromium
 * can reload the entry before the fragment change reached it (seen when the
 * page's own debounced address update ran just before), so the reload
 * brought back the previous preset. */
async function loadLink(page, link) {
  await page.goto("about:blank");
  await page.goto(link);
}

test("the locality presets load from a link, show their lesson and give the numbers of lbsim url --preset and lbsim run --url", async () => {
  const { page, context, errors } = await open(env.browser);
  await page.goto(env.server.base);
  await ready(page);
  const offered = await page.$$eval("select[name=preset] option", (os) => os.map((o) => o.value));
  for (const id of PRESETS) {
    assert.ok(offered.includes(id), `the preset menu offers ${id}`);
    await loadLink(page, env.server.base + `#v=1&preset=${id}`);
    await ready(page);
    assert.equal(await page.inputValue("select[name=preset]"), id);
    assert.equal(await page.locator("#lesson").isVisible(), true, `${id}: the lesson shows`);
    assert.ok((await page.locator("#lesson-text").innerText()).length > 40, `${id}: the lesson has its text`);
    await assertPresetMatchesCli(page, env.server.base, id);
  }
  // The storm's join is marked on the hit rate plot, which shows with its caches.
  await loadLink(page, env.server.base + "#v=1&preset=remap-storm");
  await ready(page);
  assert.equal(await page.locator("canvas#hits").isVisible(), true);
  assert.deepEqual(errors, []);
  await context.close();
});

test("the remapping storm's hit rate plot draws in light and dark, on desktop and phone (screenshots)", async () => {
  for (const size of [{ name: "desktop" }, { name: "phone", ...PHONE }]) {
    for (const colorScheme of ["light", "dark"]) {
      const { page, context, errors } = await open(env.browser, { colorScheme, ...size });
      await page.goto(env.server.base + "#v=1&preset=remap-storm");
      await ready(page);
      await assertPlotsDrawn(page, await expectedMarks(page, ["hits", "requests"]), { label: `${size.name}, ${colorScheme}: ` });
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth), "no sideways scroll");
      await screenshot(page, `remap-storm-${size.name}-${colorScheme}.png`);
      const figure = join(OUTPUT, `remap-storm-hits-${size.name}-${colorScheme}.png`);
      await page.locator("figure[data-plot=hits]").screenshot({ path: figure });
      assert.deepEqual(errors, []);
      await context.close();
    }
  }
});
