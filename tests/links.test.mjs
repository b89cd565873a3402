// Share links of the built playground (dist/) in headless Chromium: a link
// restores every control and gives the numbers of the native core and of
// `lbsim run --url` (downloads included), the replay view's keys ride
// along untouched, and Copy link and Copy embed code write them out.
import { test } from "node:test";
import assert from "node:assert/strict";
import { useBrowser, open, ready, nativeReport, tableValues, expectedTable, assertDownloads, ruleIds, copyEmbedCode } from "./support/harness.mjs";

const env = useBrowser();

test("a link restores every control and gives the numbers of the native core and of lbsim run --url", async () => {
  const link = "#v=1&servers=5&slots=4&load=0.7&slow-share=0.2&zipf=1.2&seed=7&speeds=1,1,1,1,0.5&weights=2,1,1,1,1&balancers=2";
  const scenario = { servers: 5, slots: 4, load: 0.7, "slow-share": 0.2, zipf: 1.2, seed: 7, speeds: [1, 1, 1, 1, 0.5], weights: [2, 1, 1, 1, 1], balancers: 2 };
  const { page, context, errors } = await open(env.browser);
  await page.goto(env.server.base + link);
  await ready(page);
  const values = await page.evaluate(() =>
    Object.fromEntries(["servers", "slots", "load", "slow-share", "zipf", "seed", "speeds", "weights", "balancers"]
      .map((k) => [k, document.querySelector(`[name="${k}"]`).value])));
  assert.deepEqual(values, { servers: "5", slots: "4", load: "0.7", "slow-share": "0.2", zipf: "1.2", seed: "7", speeds: "1,1,1,1,0.5", weights: "2,1,1,1,1", balancers: "2" });
  await page.waitForTimeout(400);
  assert.equal(new URL(page.url()).hash, link, "the link round-trips");
  const native = nativeReport(scenario);
  assert.deepEqual(await tableValues(page), expectedTable(native));
  const csvText = await assertDownloads(page, env.server.base + link, native);
  assert.equal(csvText.trim().split("\n").length, (await ruleIds(page)).length + 1, "a header and one row per rule");
  assert.deepEqual(errors, []);
  await context.close();
});

test("a link's replay keys stay in the page's links without a notice and change no number", async () => {
  const { page, context, errors } = await open(env.browser);
  const views = "&view=replay&pair=round-robin,least-connections&t=12.5&speed=2&window=2000";
  await page.goto(env.server.base + `#v=1&seed=3${views}`);
  await ready(page);
  assert.equal(await page.locator("#notice").isHidden(), true, "view keys are no unknown keys");
  assert.deepEqual(await tableValues(page), expectedTable(nativeReport({ seed: 3 })));
  await page.locator("input[name=slow-share]").fill("0.2");
  await page.waitForFunction(() => location.hash.includes("slow-share=0.2"));
  assert.equal(new URL(page.url()).hash, `#v=1&slow-share=0.2&seed=3${views}`, "kept, as given, after the fields");
  assert.ok((await page.locator("#share-url").inputValue()).endsWith(`&seed=3${views}`));
  assert.deepEqual(errors, []);
  await context.close();
});

test("copy link and copy embed code give the share URL and an iframe snippet", async () => {
  const { page, context } = await open(env.browser);
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await page.goto(env.server.base + "#v=1&zipf=1.5");
  await ready(page);
  await page.click("#copy-link");
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), env.server.base + "#v=1&zipf=1.5");
  const code = await copyEmbedCode(page);
  await page.waitForFunction(() => document.getElementById("share-status").textContent === "Embed code copied.");
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), code, "the code is on the clipboard");
  // No controls by default; the lesson's plot (no preset: the latency plot) and the table (docs/embedding.md#what-an-embed-shows-keys-and-defaults).
  assert.match(code, /^<iframe src="[^"]+\?embed=1&amp;plots=cdf,table#v=1&amp;zipf=1.5"/);
  for (const part of ['title="', 'loading="lazy"', 'width="100%"', 'style="border:0;max-width:680px"']) assert.ok(code.includes(part), part);
  await context.close();
});
