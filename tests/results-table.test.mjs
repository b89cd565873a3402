// The results table of the built playground (dist/) in headless Chromium:
// sorting by a column, and hiding rules runs and shows only the rest.
import { test } from "node:test";
import assert from "node:assert/strict";
import { useBrowser, open, ready, ruleIds } from "./support/harness.mjs";

const env = useBrowser();

test("the table sorts by a column", async () => {
  const { page, context } = await open(env.browser);
  await page.goto(env.server.base);
  await ready(page);
  await page.click("#results th[data-key=p99] button");
  const p99 = await page.$$eval("#results tbody td[data-key=p99]", (tds) => tds.map((td) => Number(td.dataset.value)));
  assert.deepEqual(p99, [...p99].sort((a, b) => a - b));
  assert.equal(await page.getAttribute("#results th[data-key=p99]", "aria-sort"), "ascending");
  await page.click("#results th[data-key=p99] button");
  assert.equal(await page.getAttribute("#results th[data-key=p99]", "aria-sort"), "descending");
  await context.close();
});

test("hiding algorithms runs and shows only the rest", async () => {
  const { page, context } = await open(env.browser);
  await page.goto(env.server.base);
  await ready(page);
  const hidden = ["random", "user-hash", "maglev"];
  const rest = (await ruleIds(page)).filter((a) => !hidden.includes(a));
  const run = Number(await page.getAttribute("body", "data-run-id"));
  for (const a of hidden) await page.uncheck(`input[name=algorithms][value=${a}]`);
  await page.waitForFunction(([r, n]) => Number(document.body.dataset.runId) > r && document.body.dataset.state === "ready" &&
    document.querySelectorAll("#results tbody tr").length === n, [run, rest.length]);
  await page.waitForFunction(() => location.hash.includes("algorithms="));
  const shown = await page.$$eval("#results tbody tr th", (ths) => ths.map((th) => th.innerText.trim()));
  assert.deepEqual(shown, rest, "the rows left are the rest, by name");
  await context.close();
});
