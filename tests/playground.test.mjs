// End-to-end tests of the built playground (dist/) in headless Chromium,
// one behaviour per test. `cargo xtask test` builds dist/ and runs these.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { execFileSync } from "node:child_process";
import { useBrowser, open, ready, nativeReport, cliReport, tableValues, shownColumns, expectedTable, screenshot, drawnShares, assertDownloads, assertPresetMatchesCli } from "./support/harness.mjs";

// Every rule, in canonical order, from the core's one registry (the
// native core's default report lists them all).
const ALGORITHMS = nativeReport({ requests: 1 }).scenario.algorithms;

const env = useBrowser();

test("the default page draws every plot and one row per algorithm, without console errors", async () => {
  for (const colorScheme of ["light", "dark"]) {
    const { page, context, errors, requests } = await open(env.browser, { colorScheme });
    await page.goto(env.server.base);
    await ready(page);
    await page.click("#remap-panel summary");
    await page.waitForFunction(() => document.querySelectorAll("#remap-table tbody tr").length === 5);
    const rows = await page.$$eval("#results tbody tr", (trs) => trs.map((tr) => tr.dataset.algorithm));
    assert.deepEqual(rows, ALGORITHMS);
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

test("every control is a labelled input named after its URL key, showing its range", async () => {
  const { page, context } = await open(env.browser);
  await page.goto(env.server.base);
  await ready(page);
  for (const key of ["servers", "slots", "load", "rate", "requests", "slow-share", "fast-ms", "slow-ms", "work",
    "mean-ms", "users", "zipf", "seed", "speeds", "weights", "balancers"]) {
    const input = page.locator(`[name="${key}"]`);
    assert.equal(await input.count(), 1, key);
    const id = await input.getAttribute("id");
    assert.equal(await page.locator(`label[for="${id}"]`).count(), 1, `label for ${key}`);
    if (key !== "work") assert.match(await page.locator(`#${id}-range`).innerText(), /\d/, `range of ${key}`);
  }
  assert.equal(await page.locator("input[name=algorithms]").count(), 11);
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
  assert.equal(csvText.trim().split("\n").length, ALGORITHMS.length + 1, "a header and one row per rule");
  assert.deepEqual(errors, []);
  await context.close();
});

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
  const drawn = Object.fromEntries((await drawnShares(page)).map((c) => [c.id, c.share]));
  for (const id of ["errors", "requests", "queues"]) assert.ok(drawn[id] > 0.01, `#${id} drawn (${drawn[id]})`);
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
  await page.click("#copy-embed");
  assert.match(await page.inputValue("#embed-code"), /#v=1&amp;preset=degraded&amp;seed=7/);
  // "custom" drops the preset from the link and keeps the numbers.
  await page.selectOption("select[name=preset]", "");
  await page.waitForFunction(() => !location.hash.includes("preset="));
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

test("rapid changes never leave stale numbers on screen", async () => {
  const { page, context, errors } = await open(env.browser);
  await page.goto(env.server.base);
  await ready(page);
  await page.evaluate(() => {
    const seed = document.querySelector("input[name=seed]");
    for (let i = 1; i <= 12; i++) {
      seed.value = String(100 + i);
      seed.dispatchEvent(new Event("change", { bubbles: true }));
    }
  });
  // Changes spread over time as well, so some land while a run is going.
  for (let i = 0; i < 6; i++) {
    await page.locator("input[name=seed]").fill(String(200 + i));
    await page.locator("input[name=seed]").press("Enter");
    await page.waitForTimeout(7 * i);
  }
  await ready(page);
  await page.waitForTimeout(300);
  await ready(page);
  assert.deepEqual(await tableValues(page), expectedTable(nativeReport({ seed: 205 })));
  assert.deepEqual(errors, []);
  await context.close();
});

test("dragging a slider through long runs: every ready state shows the slider's value", async () => {
  const { page, context, errors } = await open(env.browser);
  await page.goto(env.server.base + "#v=1&requests=200000");
  await ready(page, 60000);
  // Every time the page says ready, what it drew and where the slider is.
  await page.evaluate(() => {
    window.readyStates = [];
    const slider = document.querySelector("input[name=slow-share]");
    new MutationObserver(() => {
      if (document.body.dataset.state === "ready") {
        window.readyStates.push({ drawn: document.body.dataset.drawn, slider: slider.value });
      }
    }).observe(document.body, { attributes: true, attributeFilter: ["data-state"] });
  });
  await page.locator("input[name=slow-share]").scrollIntoViewIfNeeded();
  const box = await page.locator("input[name=slow-share]").boundingBox();
  const y = box.y + box.height / 2;
  await page.mouse.move(box.x + box.width * 0.05, y);
  await page.mouse.down();
  for (let i = 1; i <= 40; i++) {
    await page.mouse.move(box.x + box.width * (0.05 + i * 0.01), y);
    await page.waitForTimeout(20 + (i % 7) * 15);
  }
  await page.mouse.up();
  await ready(page, 60000);
  const states = await page.evaluate(() => window.readyStates);
  assert.ok(states.length >= 1, "the last value was drawn");
  assert.ok(Number(await page.inputValue("input[name=slow-share]")) > 0.3, "the slider moved");
  for (const { drawn, slider } of states) {
    const shown = new URLSearchParams(drawn).get("slow-share") ?? "0.1";
    assert.equal(Number(shown), Number(slider), `ready with results for slow share ${shown}, slider at ${slider}`);
  }
  assert.deepEqual(errors, []);
  await context.close();
});

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
  // A pasted link at the page's limits: 1,000,000 requests from a million
  // users alike (Zipf 0) over 1,024 servers; rendezvous scores every
  // server for each of some 630,000 distinct users.
  await page.evaluate(() => { location.hash = "#v=1&servers=1024&requests=1000000&users=1000000&zipf=0"; });
  await page.locator("#confirm").waitFor({ state: "visible" });
  assert.match(await page.locator("#confirm-text").innerText(), /expected to take about \d+ s here \(1,000,000 requests, 1024 servers, 1,000,000 users, 11 rules\)/);
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

test("requests above the interactive cap are refused with a note", async () => {
  const { page, context } = await open(env.browser);
  await page.goto(env.server.base + "#v=1&requests=5000000");
  await ready(page, 60000);
  assert.match(await page.locator("#notice").innerText(), /capped at 1,000,000/);
  assert.equal(await page.inputValue("input[name=requests]"), "1000000");
  await context.close();
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
  const run = Number(await page.getAttribute("body", "data-run-id"));
  for (const a of ["random", "user-hash", "maglev"]) await page.uncheck(`input[name=algorithms][value=${a}]`);
  await page.waitForFunction((r) => Number(document.body.dataset.runId) > r && document.body.dataset.state === "ready" &&
    document.querySelectorAll("#results tbody tr").length === 8, run);
  await page.waitForFunction(() => location.hash.includes("algorithms="));
  const shown = await page.$$eval("#results tbody tr th", (ths) => ths.map((th) => th.innerText.trim()));
  assert.deepEqual(shown, ALGORITHMS.filter((a) => !["random", "user-hash", "maglev"].includes(a)), "the rows left are the rest, by name");
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
  await page.waitForFunction(() => document.querySelectorAll("#remap-table tbody tr").length === 5);
  const moved = await page.$$eval("#remap-table tbody tr", (trs) => Object.fromEntries(trs.map((tr) => [tr.dataset.scheme, parseFloat(tr.cells[2].textContent)])));
  assert.ok(moved.modulo > 70, `modulo moves most keys (${moved.modulo}%)`);
  assert.ok(moved["consistent-hash"] < 35, `a ring moves about 1/N (${moved["consistent-hash"]}%)`);
  await page.locator("#remap-panel").scrollIntoViewIfNeeded();
  await screenshot(page, "preset-scale-out.png");
  assert.deepEqual(errors, []);
  await context.close();
});

test("embed mode: compact view, chosen controls, full-playground link, resize messages", async () => {
  const { page, context, errors } = await open(env.browser);
  await page.goto(env.server.base + "embed-demo.html");
  const frame = page.frameLocator("iframe").first();
  await frame.locator("body[data-state=ready]").waitFor({ timeout: 30000 });
  const shown = await frame.locator("#controls .control:visible").evaluateAll((els) => els.map((e) => e.dataset.key));
  assert.deepEqual(shown.sort(), ["seed", "slow-share", "zipf"]);
  const header = await frame.locator("header.top").boundingBox();
  assert.ok(header.width <= 1 && header.height <= 1, "the heading is for screen readers only");
  const href = await frame.locator("#open-full").getAttribute("href");
  assert.ok(href.includes("#v=1&slow-share=0.2") && !href.includes("embed"), href);
  await page.waitForFunction(() => document.querySelector("iframe").style.height !== "");
  assert.equal(await frame.locator("#results tbody tr").count(), 4);
  // The frame follows its content both ways: the page reports its own
  // height, not the document's (which never gets smaller than the frame).
  const height = () => page.evaluate(() => parseFloat(document.querySelector("iframe").style.height));
  const tall = await height();
  await frame.locator("body").evaluate(() => { document.querySelector(".table-wrap").hidden = true; });
  await page.waitForFunction((h) => parseFloat(document.querySelector("iframe").style.height) < h - 50, tall);
  await frame.locator("body").evaluate(() => { document.querySelector(".table-wrap").hidden = false; });
  await page.waitForFunction((h) => parseFloat(document.querySelector("iframe").style.height) >= h - 1, tall);
  await page.waitForTimeout(300);
  await screenshot(page, "embed-demo.png");
  assert.deepEqual(errors, []);
  await context.close();
});

test("an embed shows just the plots its author names (&plots=); an unknown name is said", async () => {
  const { page, context, errors } = await open(env.browser, { width: 800, height: 900 });
  await page.goto(env.server.base + "?embed=1&plots=cdf,table#v=1&slow-share=0.2");
  await ready(page);
  const visible = await page.$$eval("[data-plot]", (els) => els.filter((e) => e.checkVisibility()).map((e) => e.dataset.plot));
  assert.deepEqual(visible, ["cdf", "table"]);
  assert.equal(await page.locator("#notice").isHidden(), true);
  await page.goto(env.server.base + "?embed=1&plots=cdf,bogus#v=1");
  await ready(page);
  assert.match(await page.locator("#notice").innerText(), /unknown plot "bogus" ignored/);
  assert.deepEqual(errors, []);
  await context.close();
});

test("the sweep view draws every rule across a range, from the link, and equals lbsim sweep", async () => {
  const { page, context, errors } = await open(env.browser);
  await page.goto(env.server.base + "#v=1&requests=3000&sweep=load=0.5..0.9:0.2");
  await ready(page);
  await page.waitForFunction(() => document.body.dataset.sweep === "ready", null, { timeout: 60000 });
  assert.equal(await page.getAttribute("#sweep-panel", "open"), "", "a link's sweep opens the panel");
  const drawn = (await drawnShares(page)).find((c) => c.id === "sweep");
  assert.ok(drawn.share > 0.01 && drawn.crisp, `the sweep plot looks empty (${drawn.share})`);
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("#sweep-csv")]);
  const csv = await readFile(await download.path(), "utf8");
  assert.equal(csv.trim().split("\n").length, 1 + 3 * ALGORITHMS.length, "a header, then a row per value and rule");
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

test("copy link and copy embed code give the share URL and an iframe snippet", async () => {
  const { page, context } = await open(env.browser);
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await page.goto(env.server.base + "#v=1&zipf=1.5");
  await ready(page);
  await page.click("#copy-link");
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), env.server.base + "#v=1&zipf=1.5");
  await page.click("#copy-embed");
  const code = await page.inputValue("#embed-code");
  // No controls by default; the lesson's plot (no preset: the latency plot) and the table (docs/embedding.md#what-an-embed-shows-keys-and-defaults).
  assert.match(code, /^<iframe src="[^"]+\?embed=1&amp;plots=cdf,table#v=1&amp;zipf=1.5"/);
  for (const part of ['title="', 'loading="lazy"', 'width="100%"']) assert.ok(code.includes(part), part);
  await context.close();
});
