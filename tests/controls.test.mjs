// The scenario form of the built playground (dist/) in headless Chromium:
// a labelled control per field of the core's table, named after its link
// key and showing its range, a checkbox per rule of the core's registry,
// and a change that reaches the link and the numbers.
import { test } from "node:test";
import assert from "node:assert/strict";
import { useBrowser, open, ready, nativeReport, tableValues, expectedTable, ruleIds } from "./support/harness.mjs";

// Every rule, in canonical order, from the core's one registry (the
// native core's default report lists them all).
const ALGORITHMS = nativeReport({ requests: 1 }).scenario.algorithms;

const env = useBrowser();

test("every control is a labelled input named after its URL key, showing its range", async () => {
  const { page, context } = await open(env.browser);
  await page.goto(env.server.base);
  await ready(page);
  // The controls the page built from the core's table of fields.
  const keys = await page.$$eval("#controls .control[data-key]:not(.algorithms)", (els) => els.map((e) => e.dataset.key));
  assert.ok(keys.length > 0, "the page built its controls");
  for (const key of keys) {
    const input = page.locator(`[name="${key}"]`);
    assert.equal(await input.count(), 1, key);
    const id = await input.getAttribute("id");
    assert.equal(await page.locator(`label[for="${id}"]`).count(), 1, `label for ${key}`);
    // A choice shows its choices; every other control its range, in
    // numbers where it takes a number.
    const { tag, type } = await input.evaluate((e) => ({ tag: e.tagName, type: e.type }));
    const range = await page.locator(`#${id}-range`).textContent();
    if (tag !== "SELECT") assert.ok(range.length > 0, `range of ${key}`);
    if (type === "number" || type === "range") assert.match(range, /\d/, `range of ${key}`);
  }
  // A checkbox per rule: the core's registry, in its order, the classic
  // rules (a scenario's default) checked, then the current ones, which the
  // native core runs by name.
  assert.deepEqual(await ruleIds(page), ALGORITHMS);
  const all = await page.$$eval("input[name=algorithms]", (inputs) => inputs.map((input) => input.value));
  assert.deepEqual(all.slice(0, ALGORITHMS.length), ALGORITHMS);
  for (const rule of all.slice(ALGORITHMS.length)) {
    assert.deepEqual(nativeReport({ requests: 1, algorithms: [rule] }).scenario.algorithms, [rule], rule);
  }
  assert.equal(await page.locator("#c-slow-share-range").innerText(), "0 to 1");
  await context.close();
});

test("a control change updates the URL and the numbers", async () => {
  const { page, context, errors } = await open(env.browser);
  await page.goto(env.server.base);
  await ready(page);
  const before = await tableValues(page);
  const run = Number(await page.getAttribute("body", "data-run-id"));
  await page.locator("input[name=slow-share]").fill("0.2");
  await page.waitForFunction((r) => Number(document.body.dataset.runId) > r && document.body.dataset.state === "ready", run);
  await page.waitForFunction(() => location.hash.includes("slow-share=0.2"));
  const afterValues = await tableValues(page);
  assert.notEqual(afterValues["round-robin"]["quick-p99"], before["round-robin"]["quick-p99"]);
  assert.equal(await page.locator("#c-slow-share-value").innerText(), "0.2");
  assert.deepEqual(afterValues, expectedTable(nativeReport({ "slow-share": 0.2 })));
  assert.deepEqual(errors, []);
  await context.close();
});
