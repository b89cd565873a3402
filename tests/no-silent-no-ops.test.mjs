// No silent no-ops (the "Where readers meet it" issue, item 6), in headless
// Chromium against dist/: an event after the run's end (every rule's last
// answer; the hashing rules are left out here, whose hot servers answer
// long after the last arrival) is marked
// and explained (the run's numbers do not move), the page's request cap
// reads the same in the hint and the message, and text that is no number
// says so.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
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
  assert.equal(await page.locator("#sweep-figure option[value=largest-share]").textContent(), "largest share");
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
    const axis = texts.map((t) => /^time \(s\), buckets of ((\d+(\.\d+)?) (\u00b5s|ms|s))$/.exec(t)).find(Boolean);
    assert.ok(axis, `${id}: ${texts.join(" | ")}`);
    // A round width (1, 2, 2.5 or 5 x 10^k), in the unit a reader uses.
    const mantissa = Number(axis[2]) / 10 ** Math.floor(Math.log10(Number(axis[2])));
    assert.ok([1, 2, 2.5, 5].includes(mantissa) && Number(axis[2]) < 1000, `${id}: a round bucket width (${axis[1]})`);
    widths.push(axis[1]);
  }
  assert.equal(widths[0], widths[1], "one bucket width");
  assert.ok((await drawn(page, "errors")).includes(`errors per ${widths[0]} bucket`));
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

/** The sweep's CSV as rows of { value, algorithm, figure }. */
function sweepRows(csv, column) {
  const [header, ...lines] = csv.trim().split("\n").map((l) => l.split(","));
  const at = header.indexOf(column);
  return lines.map((l) => ({ value: l[0], algorithm: l[1], figure: Number(l[at]) }));
}

test("the sweep shows nothing until it has run, keeps its figure in the link, clamps a rule off the scale and offers a log axis", { skip: !process.env.LBSIM_CLI && "needs LBSIM_CLI" }, async () => {
  const { page, context, errors } = await open(env.browser);
  await recordCanvasText(page);
  await page.goto(env.server.base + "#v=1&preset=mixed&requests=3000");
  await ready(page);
  await page.click("#sweep-panel summary");
  // Before a run: the form, and no empty frame, command or downloads.
  for (const hidden of ["#sweep", "#sweep-cli", "#sweep-csv", "#sweep-figure", "[data-png=sweep]"]) {
    assert.equal(await page.locator(hidden).isVisible(), false, `${hidden} before the first sweep`);
  }
  await page.click("#sweep-run");
  await page.waitForFunction(() => document.body.dataset.sweep === "ready", null, { timeout: 60000 });
  assert.equal(await page.locator("#sweep").isVisible(), true);
  // Mixed work: quick requests' p99 by default. One rule more than three
  // times the next (the clamp the other plots use) runs off the top and
  // is named in the legend with its largest value.
  assert.equal(await page.inputValue("#sweep-figure"), "quick-p99");
  const csv = execFileSync(process.env.LBSIM_CLI,
    ["sweep", "--url", env.server.base + "#v=1&preset=mixed&requests=3000", "--param", "load=0.3..0.95:0.05", "--format", "csv"]).toString();
  const peaks = new Map();
  for (const r of sweepRows(csv, "quick_p99_ms")) peaks.set(r.algorithm, Math.max(peaks.get(r.algorithm) ?? 0, r.figure));
  const sorted = [...peaks.entries()].sort((a, b) => b[1] - a[1]);
  const off = sorted[0][1] > 3 * sorted[1][1] ? [sorted[0][0]] : [];
  const notes = await page.locator("#sweep-legend li.note").allInnerTexts();
  assert.deepEqual(notes.map((n) => n.match(/off scale: (\S+)/)[1]), off, notes.join(" | "));
  // The figure goes in the link, and the link brings it back.
  await page.selectOption("#sweep-figure", "p99");
  await page.waitForFunction(() => location.hash.includes("sweep-figure=p99"));
  const link = await page.evaluate(() => location.href);
  // A log axis for latencies, labelled by decades.
  await page.check("#sweep-log");
  await page.waitForFunction(() => (window.__drawn.sweep ?? []).some((t) => /against load, log scale$/.test(t)));
  const page2 = await context.newPage();
  await page2.goto(link);
  await ready(page2);
  assert.equal(await page2.inputValue("#sweep-figure"), "p99");
  assert.deepEqual(errors, []);
  await context.close();
});

test("a plot over time says so when it has nothing to show, and names an event after the run's end at its edge", async () => {
  const { page, context, errors } = await open(env.browser);
  await recordCanvasText(page);
  // A slow server answers, slowly: no errors. The recovery at 60 s comes
  // after the run's last answer.
  await page.goto(env.server.base + "#v=1&requests=20000&algorithms=round-robin,least-connections&events=5s:s3:slow=0.25,60s:s3:recover");
  await ready(page);
  const errorsText = await drawn(page, "errors");
  assert.ok(errorsText.includes("no errors in this run"), errorsText.join(" | "));
  const queues = await drawn(page, "queues");
  assert.ok(queues.includes("s3 slow=0.25"), queues.join(" | "));
  assert.ok(queues.includes("s3 recover at 60 s \u2192"), queues.join(" | "));
  // With errors, no such words.
  await page.evaluate(() => { window.__drawn = {}; });
  await page.goto(env.server.base + "#v=1&requests=20000&algorithms=round-robin,least-connections&events=5s:s3:fail");
  await ready(page);
  assert.ok(!(await drawn(page, "errors")).includes("no errors in this run"));
  assert.deepEqual(errors, []);
  await context.close();
});
