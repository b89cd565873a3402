// The plots of the built playground (dist/) in headless Chromium: the
// default page draws every plot at the device pixel ratio with a table row
// per rule, fetches nothing from another host and logs no error, and the
// latency plot's views (all, quick and slow requests, the tail view).
import { test } from "node:test";
import assert from "node:assert/strict";
import { useBrowser, open, ready, screenshot, drawnShares, ruleIds } from "./support/harness.mjs";

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
    for (const c of await drawnShares(page)) {
      assert.ok(c.share > 0.01, `canvas #${c.id} looks empty (${c.share})`);
      assert.ok(c.crisp, `canvas #${c.id} is not drawn at the device pixel ratio`);
    }
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
