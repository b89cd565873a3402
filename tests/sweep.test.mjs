// The sweep view of the built playground (dist/) in headless Chromium:
// every rule across a range of one parameter, from the link and from the
// form, equal byte for byte to `lbsim sweep`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { execFileSync } from "node:child_process";
import { useBrowser, open, ready, screenshot, assertPlotsDrawn, marks, ruleIds } from "./support/harness.mjs";

const env = useBrowser();

test("the sweep view draws every rule across a range, from the link, and equals lbsim sweep", async () => {
  const { page, context, errors } = await open(env.browser);
  await page.goto(env.server.base + "#v=1&requests=3000&sweep=load=0.5..0.9:0.2");
  await ready(page);
  await page.waitForFunction(() => document.body.dataset.sweep === "ready", null, { timeout: 60000 });
  assert.equal(await page.getAttribute("#sweep-panel", "open"), "", "a link's sweep opens the panel");
  await assertPlotsDrawn(page, { sweep: await ruleIds(page) });
  // A line per rule through its figure at each swept value (p99 in ms).
  for (const m of await marks(page, "sweep")) assert.deepEqual(m.points.map((p) => p[0]), [0.5, 0.7, 0.9], `${m.name}: a point per value`);
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("#sweep-csv")]);
  const csv = await readFile(await download.path(), "utf8");
  assert.equal(csv.trim().split("\n").length, 1 + 3 * (await ruleIds(page)).length, "a header, then a row per value and rule");
  const command = await page.locator("#sweep-cli").innerText();
  assert.match(command, /--param load=0\.5\.\.0\.9:0\.2/);
  if (process.env.LBSIM_CLI) {
    const cli = execFileSync(process.env.LBSIM_CLI,
      ["sweep", "--url", env.server.base + "#v=1&requests=3000", "--param", "load=0.5..0.9:0.2", "--format", "csv"]).toString();
    assert.equal(csv, cli, "the page's sweep is lbsim sweep's, byte for byte");
  }
  // Another range from the form runs and goes in the link.
  await page.selectOption("#sweep-param", "zipf");
  await page.fill("#sweep-to", "0.4");
  await page.click("#sweep-run");
  await page.waitForFunction(() => document.body.dataset.sweep === "ready" && location.hash.includes("sweep=zipf=0..0.4:0.2"), null, { timeout: 60000 });
  await page.locator("#sweep-panel").scrollIntoViewIfNeeded();
  await screenshot(page, "sweep.png", { fullPage: false });
  assert.deepEqual(errors, []);
  await context.close();
});
