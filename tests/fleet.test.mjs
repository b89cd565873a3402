// The fleet over time on the built playground (dist/) in headless
// Chromium: the fleet's presets, the errors and retries columns and the
// fleet's plots for a link with events, and the events editor, each held
// against the native core and `lbsim run --url`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { useBrowser, open, ready, nativeReport, tableValues, shownColumns, expectedTable, assertPlotsDrawn, expectedMarks, assertDownloads, assertPresetMatchesCli } from "./support/harness.mjs";

const env = useBrowser();

test("the fleet's presets from the picker give the numbers of lbsim url --preset and lbsim run --url", async () => {
  const { page, context, errors } = await open(env.browser);
  await page.goto(env.server.base);
  await ready(page);
  for (const id of ["black-hole", "crash", "slow-node", "cold-start"]) {
    await page.selectOption("select[name=preset]", id);
    await page.waitForFunction((h) => location.hash === h, `#v=1&preset=${id}`);
    await ready(page);
    // The lesson names the fix to try.
    assert.match(await page.locator("#lesson").innerText(), /count-5xx|retries|slow-start-ms|routes around/);
    await assertPresetMatchesCli(page, env.server.base, id);
  }
  assert.deepEqual(errors, []);
  await context.close();
});

test("a fleet link shows the errors column and the fleet's plots, with the numbers of lbsim run --url", async () => {
  const link = "#v=1&events=20s:s3:fail";
  const { page, context, errors } = await open(env.browser);
  await page.goto(env.server.base + link);
  await ready(page);
  const heads = await shownColumns(page);
  assert.ok(heads.includes("errors") && heads.includes("error-share"), `errors columns shown: ${heads}`);
  assert.ok(!heads.includes("retries"), "no retries column without retries");
  const native = nativeReport({ events: "20s:s3:fail" });
  assert.deepEqual(await tableValues(page), expectedTable(native));
  await assertDownloads(page, env.server.base + link, native);
  await assertPlotsDrawn(page, await expectedMarks(page, ["errors", "requests", "queues"]));
  // Retries add their column; a scenario without events hides the fleet's plots again.
  // (A 500 is retried only when it counts as failed, as NGINX's http_500.)
  await page.locator("#health-group summary").click();
  // count-5xx is a yes/no choice (true or false in the link).
  await page.selectOption("select[name=count-5xx]", "true");
  await page.waitForFunction(() => location.hash.includes("count-5xx=true"));
  await page.locator("input[name=retries]").fill("1");
  await page.locator("input[name=retries]").press("Enter");
  await page.waitForFunction(() => location.hash.includes("retries=1"));
  await ready(page);
  await page.waitForFunction(() => !document.querySelector('#results thead th[data-key=retries]').hidden);
  assert.deepEqual(await tableValues(page), expectedTable(nativeReport({ events: "20s:s3:fail", "count-5xx": true, retries: 1 })));
  await page.goto(env.server.base + "#v=1&seed=3");
  await ready(page);
  assert.equal(await page.locator("canvas#errors").isVisible(), false);
  assert.equal(await page.locator("input[name=retries]").isDisabled(), true, "health settings apply only with events");
  assert.equal(await page.locator('#results thead th[data-key=errors]').isHidden(), true);
  assert.deepEqual(errors, []);
  await context.close();
});

test("the events editor adds and removes rows, and the link's events= follows", async () => {
  const { page, context, errors } = await open(env.browser);
  await page.goto(env.server.base + "#v=1&events=20s:s3:fail");
  await ready(page);
  assert.equal(await page.locator("#event-rows .event-row").count(), 1);
  assert.equal(await page.locator("input[name=retries]").isDisabled(), false);
  // Keyboard only: focus "add event" and press Enter.
  await page.locator("#add-event").focus();
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => location.hash.includes("events=20s:s3:fail,30s:s1:slow=0.5"));
  await ready(page);
  assert.equal(await page.locator("#event-rows .event-row").count(), 2);
  // Edit the new row: s2, crash at 25 s (typed as a bare number of seconds).
  const row = page.locator("#event-rows .event-row").nth(1);
  await row.locator(".ev-server").selectOption("s2");
  await page.waitForFunction(() => location.hash.includes("30s:s2:slow=0.5"));
  await row.locator(".ev-kind").selectOption("crash");
  await page.waitForFunction(() => location.hash.includes("30s:s2:crash"));
  const time = page.locator("#event-rows .event-row").nth(1).locator(".ev-time");
  await time.fill("25");
  await time.press("Enter");
  await page.waitForFunction(() => location.hash.endsWith("events=20s:s3:fail,25s:s2:crash"));
  await ready(page);
  assert.deepEqual(await tableValues(page), expectedTable(nativeReport({ events: "20s:s3:fail,25s:s2:crash" })));
  // Remove the first row with the keyboard.
  await page.locator("#event-rows .ev-remove").first().focus();
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => location.hash.endsWith("events=25s:s2:crash"));
  assert.equal(await page.locator("#event-rows .event-row").count(), 1);
  // Fewer servers drop the events of the servers gone, with a notice.
  await page.locator("input[name=servers]").fill("2");
  await page.locator("input[name=servers]").press("Enter");
  await page.waitForFunction(() => location.hash.includes("servers=2"));
  await ready(page);
  assert.equal(await page.locator("#event-rows .event-row").count(), 1, "s2 stays");
  await page.locator("input[name=servers]").fill("1");
  await page.locator("input[name=servers]").press("Enter");
  await page.waitForFunction(() => !location.hash.includes("events="));
  assert.match(await page.locator("#notice").innerText(), /1 event\(s\) named a server no longer in the pool/);
  assert.equal(await page.locator("#event-rows .event-row").count(), 0);
  assert.deepEqual(errors, []);
  await context.close();
});
