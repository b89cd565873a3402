// No silent no-ops (the "Where readers meet it" issue, item 6), in headless
// Chromium against dist/: an event after the run's end (every rule's last
// answer; the hashing rules are left out here, whose hot servers answer
// long after the last arrival) is marked
// and explained (the run's numbers do not move), the page's request cap
// reads the same in the hint and the message, and text that is no number
// says so.
import { test } from "node:test";
import assert from "node:assert/strict";
import { useBrowser, open, ready, nativeReport, tableValues, expectedTable } from "./support/harness.mjs";

const env = useBrowser();

test("an event after the run's end is struck through and explained under the rows; the numbers stay those without it", async () => {
  const { page, context, errors } = await open(env.browser);
  await page.goto(env.server.base + "#v=1&servers=64&algorithms=round-robin,least-connections,power-of-two&events=1s:s1:slow=0.5");
  await ready(page);
  assert.equal(await page.locator("#events-past").isHidden(), true, "an event inside the run is not marked");
  assert.equal(await page.locator("#event-rows .event-row.past-end").count(), 0);
  // "add event" puts the next one 10 s after the last: after this run's end.
  const run = await page.getAttribute("body", "data-run-id");
  await page.locator("#add-event").click();
  await page.waitForFunction(() => location.hash.includes("events=1s:s1:slow=0.5,11s:s1:slow=0.5"));
  await page.waitForFunction((r) => document.body.dataset.runId !== r, run);
  await ready(page);
  const report = nativeReport({ servers: 64, algorithms: ["round-robin", "least-connections", "power-of-two"], events: "1s:s1:slow=0.5,11s:s1:slow=0.5" });
  const end = Math.max(...report.results.map((r) => r.makespan_ms)) / 1000;
  assert.ok(end < 11, `the run ends before 11 s (${end})`);
  const note = page.locator("#events-past");
  assert.equal(await note.isVisible(), true);
  assert.equal(
    await note.innerText(),
    `After the run's last answer (${end.toFixed(1)} s), so changing nothing in it: 11s:s1:slow=0.5.`);
  const rows = page.locator("#event-rows .event-row");
  assert.deepEqual(await rows.evaluateAll((rs) => rs.map((r) => r.classList.contains("past-end"))), [false, true]);
  assert.equal(await rows.nth(1).locator(".ev-time").evaluate((e) => getComputedStyle(e).textDecorationLine), "line-through");
  // The note sits under the rows, inside the events control.
  const last = await rows.nth(1).boundingBox();
  const box = await note.boundingBox();
  assert.ok(box.y >= last.y + last.height - 1, `note at ${box.y}, last row ends at ${last.y + last.height}`);
  // The numbers are those of the run without the late event.
  assert.deepEqual(await tableValues(page), expectedTable(nativeReport({ servers: 64, algorithms: ["round-robin", "least-connections", "power-of-two"], events: "1s:s1:slow=0.5" })));
  // Removing it clears the mark and the note.
  await rows.nth(1).locator(".ev-remove").click();
  await page.waitForFunction(() => !location.hash.includes("11s"));
  await ready(page);
  await page.waitForFunction(() => document.querySelector("#events-past").hidden);
  assert.deepEqual(errors, []);
  await context.close();
});

test("requests over the page's cap: the message names the same range as the hint, for 2000000 and 1e9 alike", async () => {
  const { page, context, errors } = await open(env.browser);
  await page.goto(env.server.base);
  await ready(page);
  const hint = await page.locator("#c-requests-range").innerText();
  assert.equal(hint, "1 to 1,000,000 here; the CLI takes up to 10,000,000");
  const input = page.locator("input[name=requests]");
  for (const typed of ["2000000", "1e9", "0"]) {
    await input.fill(typed);
    await input.press("Enter");
    await page.waitForFunction(() => document.querySelector("#c-requests-error").textContent.length > 0);
    assert.equal(await page.locator("#c-requests-error").innerText(), `requests: '${typed}' is not allowed; allowed: ${hint}`);
  }
  await input.fill("20000");
  await input.press("Enter");
  await page.waitForFunction(() => document.querySelector("#c-requests-error").textContent === "");
  // A link over the cap says the same range.
  await page.goto(env.server.base + "#v=1&requests=5000000");
  await ready(page);
  assert.match(await page.locator("#notice").innerText(),
    /requests: 5,000,000 is more than this page runs, capped at 1,000,000; allowed: 1 to 1,000,000 here; the CLI takes up to 10,000,000/);
  assert.deepEqual(errors, []);
  await context.close();
});

test("text that is no number in a number box says 'not a number', not an empty value", async () => {
  const { page, context } = await open(env.browser);
  await page.goto(env.server.base);
  await ready(page);
  const servers = page.locator("input[name=servers]");
  await servers.fill("");
  // Chromium keeps "1e" in a number box and reads it as no value (badInput).
  await servers.pressSequentially("1e");
  await servers.press("Enter");
  await page.waitForFunction(() => document.querySelector("#c-servers-error").textContent.length > 0);
  assert.equal(await servers.evaluate((e) => e.validity.badInput), true);
  assert.equal(await page.locator("#c-servers-error").innerText(), "servers: not a number; allowed: 1 to 1024 (number of servers)");
  await context.close();
});

/** Records the text drawn on each canvas (by its id), before the page starts. */
async function recordCanvasText(page) {
  await page.addInitScript(() => {
    window.__drawn = {};
    const fill = CanvasRenderingContext2D.prototype.fillText;
    CanvasRenderingContext2D.prototype.fillText = function (text, ...rest) {
      const id = this.canvas.id || "?";
      (window.__drawn[id] ??= []).push(String(text));
      return fill.call(this, text, ...rest);
    };
  });
}

const drawn = (page, id) => page.evaluate((id) => window.__drawn[id] ?? [], id);

test("one word per meaning: 'highest load' in the loads plot, 'largest share' in the table, the sweep and the glossary", async () => {
  const { page, context, errors } = await open(env.browser);
  await recordCanvasText(page);
  await page.goto(env.server.base + "#v=1&preset=degraded");
  await ready(page);
  const texts = await drawn(page, "loads");
  assert.ok(texts.some((t) => /^highest load \S+ \d\.\d\d$/.test(t)), texts.join(" | "));
  assert.ok(!texts.some((t) => /busiest/.test(t)), "no 'busiest' on the plot");
  const headings = await page.$$eval("#results thead th", (ths) => ths.map((t) => t.textContent));
  assert.ok(headings.some((h) => h.startsWith("largest share")), headings.join(" | "));
  assert.ok(!headings.some((h) => /busiest/.test(h)));
  assert.equal(await page.locator("#sweep-figure option[value=busiest-share], select option[value=busiest-share]").first().textContent(), "largest share");
  const glossary = await (await fetch(env.server.base + "glossary.html")).text();
  assert.match(glossary, /<dt>largest share<\/dt>/);
  assert.match(glossary, /<dt>highest load<\/dt>/);
  assert.ok(!/busiest/.test(glossary), "the glossary uses the two terms only");
  assert.deepEqual(errors, []);
  await context.close();
});

test("servers in the requests plot wear no rule's colour; the time axes say how wide a bucket is", async () => {
  const { page, context, errors } = await open(env.browser);
  await recordCanvasText(page);
  const link = "#v=1&preset=slow-node";
  await page.goto(env.server.base + link);
  await ready(page);
  const keyColours = (id) => page.$$eval(`#${id}-legend .key`, (ks) => ks.map((k) => getComputedStyle(k).color));
  const rules = await keyColours("cdf");
  const servers = await keyColours("requests");
  assert.ok(servers.length >= 2, "one key per server");
  assert.equal(new Set(servers).size, servers.length, "servers apart from each other");
  for (const s of servers) assert.ok(!rules.includes(s), `server colour ${s} is a rule's`);
  const widths = [];
  for (const id of ["queues", "errors"]) {
    const texts = await drawn(page, id);
    const axis = texts.map((t) => /^time \(s\), buckets of (\d+(\.\d+)?) ms$/.exec(t)).find(Boolean);
    assert.ok(axis, `${id}: ${texts.join(" | ")}`);
    widths.push(axis[1]);
  }
  assert.equal(widths[0], widths[1], "one bucket width");
  assert.ok((await drawn(page, "errors")).includes(`errors per ${widths[0]} ms bucket`));
  assert.deepEqual(errors, []);
  await context.close();
});

test("the remap panel's bars have a before/after legend and its keys are explained, under the canvas", async () => {
  const { page, context, errors } = await open(env.browser);
  await page.goto(env.server.base);
  await ready(page);
  await page.locator("#remap-panel summary").click();
  await page.waitForFunction(() => document.querySelectorAll("#remap-legend li").length > 0);
  const items = await page.$$eval("#remap-legend li", (ls) => ls.map((l) => l.textContent));
  assert.deepEqual(items, [
    "before (light)",
    "after (dark)",
    "keys: session:0 to session:999",
  ]);
  const canvas = await page.locator("#remap").boundingBox();
  const legend = await page.locator("#remap-legend").boundingBox();
  assert.ok(legend.y >= canvas.y + canvas.height - 1 || legend.x >= canvas.x + canvas.width - 1, "beside or under the canvas");
  assert.deepEqual(errors, []);
  await context.close();
});
