// What the built playground (dist/) does with input it cannot run, in
// headless Chromium: a bad link, control value or event is named as text
// beside it, a half-typed value never runs, and the last valid result
// stays on screen saying what it belongs to.
import { test } from "node:test";
import assert from "node:assert/strict";
import { useBrowser, open, ready, nativeReport, tableValues, expectedTable } from "./support/harness.mjs";

const env = useBrowser();

test("a bad link names each bad key and value, as text, and uses the rest", async () => {
  const { page, context, errors } = await open(env.browser);
  await page.goto(env.server.base + "#v=1&servers=0&colour=blue&seed=9&names=<img src=x>");
  await ready(page);
  const notice = page.locator("#notice");
  assert.equal(await notice.isVisible(), true);
  const text = await notice.innerText();
  assert.match(text, /servers: '0'/);
  assert.match(text, /colour/);
  assert.match(text, /<img src=x>/, "the bad value is shown as text");
  assert.equal(await page.locator("#notice img").count(), 0, "never inserted as HTML");
  assert.equal(await page.inputValue("input[name=seed]"), "9");
  assert.equal(await page.inputValue("input[name=servers]"), "4");
  assert.deepEqual(errors, []);
  await context.close();
});

test("a bad value in a control says why next to it and keeps the last result", async () => {
  const { page, context } = await open(env.browser);
  await page.goto(env.server.base);
  await ready(page);
  const before = await tableValues(page);
  await page.locator("input[name=servers]").fill("0");
  await page.waitForFunction(() => document.querySelector("#c-servers-error").textContent.length > 0);
  assert.match(await page.locator("#c-servers-error").innerText(), /1 to 1024/);
  assert.deepEqual(await tableValues(page), before);
  await context.close();
});

test("a half-typed value never runs; an invalid one is marked and the results say what they belong to", async () => {
  const { page, context, errors } = await open(env.browser);
  await page.goto(env.server.base);
  await ready(page);
  const before = await tableValues(page);
  const run = await page.getAttribute("body", "data-run-id");
  const servers = page.locator("input[name=servers]");
  // Typed key by key, as a reader does: "1", "12", "120", ... "1200" is out of range.
  await servers.fill("");
  await servers.pressSequentially("1200", { delay: 20 });
  await page.waitForTimeout(100);
  assert.equal(await page.getAttribute("body", "data-run-id"), run, "nothing ran while typing");
  assert.equal(await servers.getAttribute("aria-invalid"), "true");
  const described = (await servers.getAttribute("aria-describedby")).split(" ");
  assert.ok(described.includes("c-servers-error"), "the error text describes the field");
  assert.match(await page.locator("#c-servers-error").innerText(), /1 to 1024/);
  assert.match(await page.locator("#stale").innerText(), /last valid scenario \(servers: 4\)/);
  await servers.press("Enter");
  await page.waitForTimeout(100);
  assert.equal(await page.getAttribute("body", "data-run-id"), run, "an invalid value never runs");
  assert.deepEqual(await tableValues(page), before);
  // Fixed and committed, it runs, and the marks go.
  await servers.fill("6");
  await servers.press("Enter");
  await page.waitForFunction((r) => document.body.dataset.runId !== r && document.body.dataset.state === "ready", run);
  assert.equal(await servers.getAttribute("aria-invalid"), null);
  assert.equal(await page.locator("#stale").isHidden(), true);
  assert.deepEqual(await tableValues(page), expectedTable(nativeReport({ servers: 6 })));
  // Controls the scenario does not use are disabled, not just faded.
  await page.selectOption("select[name=work]", "constant");
  await ready(page);
  assert.equal(await page.locator("input[name=slow-share]").isDisabled(), true);
  assert.equal(await page.locator("input[name=sigma]").isDisabled(), true);
  assert.equal(await page.locator("input[name=mean-ms]").isDisabled(), false);
  assert.deepEqual(errors, []);
  await context.close();
});

test("a bad event names events, is marked aria-invalid and keeps the last result", async () => {
  const { page, context, errors } = await open(env.browser);
  await page.goto(env.server.base + "#v=1&events=20s:s3:fail");
  await ready(page);
  const before = await tableValues(page);
  const run = await page.getAttribute("body", "data-run-id");
  const text = page.locator("input[name=events]");
  await text.fill("20s:s9:fail");
  await text.press("Enter");
  await page.waitForFunction(() => document.querySelector("#c-events-error").textContent.length > 0);
  assert.match(await page.locator("#c-events-error").innerText(), /^events: .*s9/);
  assert.equal(await text.getAttribute("aria-invalid"), "true");
  assert.match(await page.locator("#stale").innerText(), /events: 20s:s3:fail/);
  await page.waitForTimeout(200);
  assert.equal(await page.getAttribute("body", "data-run-id"), run, "a bad event never runs");
  assert.deepEqual(await tableValues(page), before);
  assert.match(new URL(page.url()).hash, /events=20s:s3:fail$/);
  assert.deepEqual(errors, []);
  await context.close();
});
