// Presets on the built playground (dist/) in headless Chromium: `preset=`
// is a link key with edits as keys over it (the CLI reads it too), and a
// preset opens its lesson and the view it is read in.
import { test } from "node:test";
import assert from "node:assert/strict";
import { useBrowser, open, ready, cliReport, tableValues, expectedTable, screenshot, copyEmbedCode } from "./support/harness.mjs";

const env = useBrowser();

test("preset= is a link key: the lesson opens, edits are keys over it, the CLI gives the same numbers", async () => {
  const { page, context, errors } = await open(env.browser);
  await page.goto(env.server.base + "#v=1&preset=degraded&bogus=1");
  await ready(page);
  assert.equal(await page.inputValue("select[name=preset]"), "degraded");
  assert.match(await page.locator("#lesson-title").innerText(), /degraded/i);
  assert.match(await page.locator("#notice").innerText(), /unknown key 'bogus' ignored/);
  const run = await page.getAttribute("body", "data-run-id");
  await page.locator("input[name=seed]").fill("7");
  await page.locator("input[name=seed]").press("Enter");
  await page.waitForFunction((r) => document.body.dataset.runId !== r && document.body.dataset.state === "ready", run);
  await page.waitForFunction(() => location.hash === "#v=1&preset=degraded&seed=7");
  // The lesson's box stays while the reader edits, its text stepped aside
  // to one line: the lesson was for the preset (the picker says edited).
  assert.equal(await page.locator("#lesson").isVisible(), true, "the lesson's box stays while the reader edits");
  assert.equal(await page.locator("#lesson-changed").innerText(), "You changed seed; the lesson was for the preset.");
  await page.click("#copy-link");
  const link = await page.inputValue("#share-url");
  assert.ok(link.endsWith("#v=1&preset=degraded&seed=7"), link);
  const cli = cliReport(link);
  if (cli) assert.deepEqual(await tableValues(page), expectedTable(cli), "lbsim run --url reads the preset too");
  assert.match(await copyEmbedCode(page), /#v=1&amp;preset=degraded&amp;seed=7/);
  // "custom" drops the preset from the link and keeps the numbers.
  await page.selectOption("select[name=preset]", "");
  await page.waitForFunction(() => !location.hash.includes("preset="));
  assert.deepEqual(errors, []);
  await context.close();
});

test("presets show their lesson; theory draws Erlang C, scale-out the remapping", async () => {
  const { page, context, errors } = await open(env.browser);
  await page.goto(env.server.base);
  await ready(page);
  await page.selectOption("select[name=preset]", "theory");
  await page.waitForFunction(() => document.querySelectorAll("#results tbody tr").length === 1 && document.body.dataset.state === "ready");
  assert.match(await page.locator("#lesson-text").innerText(), /Erlang C/);
  await page.waitForFunction(() => new URLSearchParams(location.hash.slice(1)).get("preset") === "theory");
  await screenshot(page, "preset-theory.png");
  await page.selectOption("select[name=preset]", "scale-out");
  await ready(page);
  await page.waitForFunction(() => document.querySelectorAll("#remap-table tbody tr").length > 0);
  const moved = await page.$$eval("#remap-table tbody tr", (trs) => Object.fromEntries(trs.map((tr) => [tr.dataset.scheme, parseFloat(tr.cells[2].textContent)])));
  assert.ok(moved.modulo > 70, `modulo moves most keys (${moved.modulo}%)`);
  assert.ok(moved["consistent-hash"] < 35, `a ring moves about 1/N (${moved["consistent-hash"]}%)`);
  await page.locator("#remap-panel").scrollIntoViewIfNeeded();
  await screenshot(page, "preset-scale-out.png");
  assert.deepEqual(errors, []);
  await context.close();
});
