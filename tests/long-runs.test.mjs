// Runs that take a while or go wrong, on the built playground (dist/) in
// headless Chromium: progress and Cancel (also before the worker is ready),
// the question the core's estimate asks before a long run, the request cap,
// and a worker that fails and restarts.
import { test } from "node:test";
import assert from "node:assert/strict";
import { useBrowser, open, ready, nativeReport, tableValues, expectedTable, ruleIds } from "./support/harness.mjs";

const env = useBrowser();

test("a long run shows progress and can be cancelled", async () => {
  const { page, context, errors } = await open(env.browser);
  await page.goto(env.server.base);
  await ready(page);
  const before = await tableValues(page);
  await page.evaluate(() => {
    const set = (k, v) => {
      const e = document.querySelector(`[name="${k}"]`);
      e.value = v;
      e.dispatchEvent(new Event("change", { bubbles: true }));
    };
    set("servers", "1024");
    set("requests", "200000");
  });
  // Progress flows, then Cancel is pressed from inside the page, at once.
  const seen = await page.evaluate(() => new Promise((resolve) => {
    const poll = () => {
      const progress = Number(document.querySelector("#progress").value);
      if (document.body.dataset.state === "running" && progress > 0) {
        const text = document.querySelector("#status-text").textContent;
        document.querySelector("#cancel").click();
        resolve({ progress, text });
      } else {
        requestAnimationFrame(poll);
      }
    };
    poll();
  }));
  assert.ok(seen.progress > 0 && seen.progress < 1, `progress ${seen.progress}`);
  assert.match(seen.text, /Simulating: \d+%/);
  await ready(page);
  assert.match(await page.locator("#status-text").textContent(), /Cancelled/);
  assert.deepEqual(await tableValues(page), before, "the previous result stays");
  assert.deepEqual(errors, []);
  await context.close();
});

test("Cancel before the worker is ready stops the queued run and the page is ready again", async () => {
  const { page, context, errors } = await open(env.browser);
  // Hold the worker's script back, so the first run waits in the page's queue.
  let release;
  const held = new Promise((ok) => { release = ok; });
  await context.route((url) => url.pathname.endsWith("/worker.js"), async (route) => { await held; await route.continue(); });
  await page.goto(env.server.base);
  await page.waitForFunction(() => document.body.dataset.state === "running");
  await page.click("#cancel");
  assert.equal(await page.getAttribute("body", "data-state"), "ready");
  assert.match(await page.locator("#status-text").textContent(), /Cancelled/);
  release();
  // The worker starts; the cancelled run is never drawn, and a new input runs.
  await page.waitForFunction(() => document.body.dataset.workerReadyMs !== undefined);
  await page.waitForTimeout(300);
  assert.equal(await page.getAttribute("body", "data-run-id"), null, "the cancelled run was never drawn");
  await page.locator("input[name=seed]").fill("5");
  await page.locator("input[name=seed]").press("Enter");
  await page.waitForFunction(() => document.body.dataset.runId !== undefined && document.body.dataset.state === "ready");
  assert.deepEqual(await tableValues(page), expectedTable(nativeReport({ seed: 5 })));
  assert.deepEqual(errors, []);
  await context.close();
});

test("a run the core expects to take long waits for the reader: the estimate, Keep, Run it", async () => {
  const { page, context, errors } = await open(env.browser);
  await page.goto(env.server.base);
  await ready(page);
  const before = await tableValues(page);
  const run = await page.getAttribute("body", "data-run-id");
  const rules = (await ruleIds(page)).length;
  // A pasted link at the page's limits: 1,000,000 requests from a million
  // users alike (Zipf 0) over 1,024 servers; rendezvous scores every
  // server for each of some 630,000 distinct users.
  await page.evaluate(() => { location.hash = "#v=1&servers=1024&requests=1000000&users=1000000&zipf=0"; });
  await page.locator("#confirm").waitFor({ state: "visible" });
  assert.match(await page.locator("#confirm-text").innerText(),
    new RegExp(`expected to take about \\d+ s here \\(1,000,000 requests, 1024 servers, 1,000,000 users, ${rules} rules\\)`));
  assert.equal(await page.getAttribute("body", "data-state"), "waiting");
  assert.equal(await page.getAttribute("body", "data-run-id"), run, "nothing ran");
  await page.click("#confirm-keep");
  assert.equal(await page.getAttribute("body", "data-state"), "ready");
  assert.deepEqual(await tableValues(page), before, "the last result stays");
  // Asked again, and this time run: it starts (and is cancelled here).
  await page.locator("input[name=seed]").fill("17");
  await page.locator("input[name=seed]").press("Enter");
  await page.locator("#confirm").waitFor({ state: "visible" });
  await page.click("#confirm-run");
  await page.waitForFunction(() => document.body.dataset.state === "running" && Number(document.querySelector("#progress").value) > 0);
  assert.equal(await page.locator("#confirm").isHidden(), true);
  await page.click("#cancel");
  await ready(page);
  assert.deepEqual(errors, []);
  await context.close();
});

test("requests above the interactive cap are refused with a note", async () => {
  const { page, context } = await open(env.browser);
  await page.goto(env.server.base + "#v=1&requests=5000000");
  await ready(page, 60000);
  assert.match(await page.locator("#notice").innerText(), /capped at 1,000,000/);
  assert.equal(await page.inputValue("input[name=requests]"), "1000000");
  await context.close();
});

test("a worker failure shows a message, the worker restarts and the page stays usable", async () => {
  const { page, context } = await open(env.browser);
  await page.goto(env.server.base);
  await ready(page);
  const workers = page.workers();
  assert.ok(workers.length >= 1, "the simulation runs in a worker");
  await workers[0].evaluate(() => setTimeout(() => { throw new Error("simulated crash"); }, 0));
  await page.locator("#notice").waitFor({ state: "visible" });
  assert.match(await page.locator("#notice").innerText(), /restarted/);
  const run = Number(await page.getAttribute("body", "data-run-id"));
  await page.locator("input[name=seed]").fill("99");
  await page.locator("input[name=seed]").press("Enter");
  await page.waitForFunction((r) => Number(document.body.dataset.runId) > r && document.body.dataset.state === "ready", run);
  assert.deepEqual(await tableValues(page), expectedTable(nativeReport({ seed: 99 })));
  await context.close();
});
