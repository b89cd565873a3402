// The results table of the built playground (dist/) in headless Chromium:
// sorting by a column, and hiding rules runs and shows only the rest.
import { test } from "node:test";
import assert from "node:assert/strict";
import { useBrowser, open, ready, ruleIds, shownColumns, tableValues, expectedTable, cliReport, nativeReport } from "./support/harness.mjs";

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

test("aperture's connections column holds the core's count, and shows only when a rule keeps copies to a part of the servers", async () => {
  const { page, context, errors } = await open(env.browser);
  // Copies whose slices differ in size, so the count is not copies x
  // slice (docs/model.md#finagles-aperture).
  const link = "#v=1&servers=10&balancers=4&aperture-size=3&requests=5000&algorithms=round-robin,power-of-two,aperture";
  await page.goto(env.server.base + link);
  await ready(page);
  const report = cliReport(env.server.base + link);
  const held = report.results.find((r) => r.algorithm === "aperture").connections;
  assert.ok(held.fewest < held.most && held.total < held.full_mesh, `the copies hold ${JSON.stringify(held)}`);
  assert.ok((await shownColumns(page)).includes("connections"), "the column shows");
  const cells = await page.$$eval("#results tbody td[data-key=connections]", (tds) => tds.map((td) => [td.parentElement.dataset.algorithm, td.dataset.value ?? null, td.textContent]));
  assert.deepEqual(cells, [["round-robin", null, "-"], ["power-of-two", null, "-"], ["aperture", String(held.total), String(held.total)]], "aperture's count; a full mesh's rules none");
  assert.deepEqual(await tableValues(page), expectedTable(report), "every figure is lbsim run's");
  // Without aperture the column goes.
  await page.uncheck("input[name=algorithms][value=aperture]");
  await page.waitForFunction(() => !document.querySelector('#results tr[data-algorithm="aperture"]') && document.body.dataset.state === "ready");
  assert.ok(!(await shownColumns(page)).includes("connections"), "no column without aperture");
  assert.deepEqual(await tableValues(page), expectedTable(nativeReport({ servers: 10, balancers: 4, "aperture-size": 3, requests: 5000, algorithms: ["round-robin", "power-of-two"] })));
  assert.deepEqual(errors, []);
  await context.close();
});
