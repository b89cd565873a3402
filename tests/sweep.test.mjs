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
  // The text drawn on the sweep's canvas.
  await page.addInitScript(() => {
    window.sweepText = [];
    const fill = CanvasRenderingContext2D.prototype.fillText;
    CanvasRenderingContext2D.prototype.fillText = function (text, ...rest) {
      if (this.canvas.id === "sweep") window.sweepText.push(String(text));
      return fill.call(this, text, ...rest);
    };
  });
  await page.goto(env.server.base + "#v=1&requests=3000&sweep=load=0.5..0.9:0.2");
  await ready(page);
  await page.waitForFunction(() => document.body.dataset.sweep === "ready", null, { timeout: 60000 });
  assert.equal(await page.getAttribute("#sweep-panel", "open"), "", "a link's sweep opens the panel");
  await assertPlotsDrawn(page, { sweep: await ruleIds(page) });
  // A line per rule through its figure at each swept value (p99 in ms).
  for (const m of await marks(page, "sweep")) assert.deepEqual(m.points.map((p) => p[0]), [0.5, 0.7, 0.9], `${m.name}: a point per value`);
  // The axis's title names the unit; its ticks are plain numbers in it.
  const texts = await page.evaluate(() => window.sweepText);
  assert.ok(texts.some((t) => /^(quick-request )?p99 \(ms\)$/.test(t)), texts.join(" | "));
  assert.ok(!texts.some((t) => /\d (s|ms)$/.test(t)), `a tick with a unit other than the title's: ${texts.join(" | ")}`);
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

test("a sweep naming current rules runs them in the full simulator, and its figures are lbsim sweep's for the same link", async () => {
  const { page, context, errors, requests } = await open(env.browser);
  // Unequal servers and weights learned at once, so gRPC's WRR and JIQ
  // part from every classic rule at each value (a current rule run as a
  // classic one would show).
  const link = "#v=1&requests=5000&speeds=1,1,2,4&blackout=0&weight-period=100&balancers=2&algorithms=round-robin,least-request,jiq,grpc-wrr";
  const param = "load=0.5..0.9:0.2";
  await page.goto(`${env.server.base}${link}&sweep=${param}`);
  await ready(page);
  await page.waitForFunction(() => document.body.dataset.sweep === "ready", null, { timeout: 60000 });
  assert.ok(requests.some((r) => /lbsim-traffic_bg\.wasm/.test(r)), "the full simulator's module was fetched");
  const cli = JSON.parse(execFileSync(process.env.LBSIM_CLI, ["sweep", "--url", env.server.base + link, "--param", param, "--format", "json"]).toString());
  // The plot: a line per rule through the CLI's figure (bimodal work:
  // quick requests' p99) at each value, a value above the plot's top
  // drawn at it and named in the legend's note.
  const figure = (rule) => cli.rows.filter((r) => r.algorithm === rule).map((r) => [r.value, r.quick_p99_ms]);
  const drawn = await marks(page, "sweep");
  assert.deepEqual(drawn.map((m) => m.name), ["round-robin", "least-request", "jiq", "grpc-wrr"], "a line per rule, the current ones too");
  const notes = await page.locator("#sweep-legend li").allInnerTexts();
  for (const m of drawn) {
    const top = m.y[1];
    assert.deepEqual(m.points, figure(m.name).map(([x, y]) => [x, Math.min(y, top)]), `${m.name}: the plot's points are lbsim sweep's`);
    const over = figure(m.name).some(([, y]) => y > top);
    assert.equal(notes.some((t) => t.startsWith(`\u2192 off scale: ${m.name} max`)), over, `${m.name}: a note when off the top (${notes})`);
  }
  for (const rule of ["jiq", "grpc-wrr"]) {
    for (const other of ["round-robin", "least-request"]) assert.notDeepEqual(figure(rule), figure(other), `${rule} parts from ${other}`);
  }
  // The CSV download: the CLI's, byte for byte.
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("#sweep-csv")]);
  const csv = await readFile(await download.path(), "utf8");
  const cliCsv = execFileSync(process.env.LBSIM_CLI, ["sweep", "--url", env.server.base + link, "--param", param, "--format", "csv"]).toString();
  assert.equal(csv, cliCsv, "the page's sweep is lbsim sweep's, byte for byte");
  assert.deepEqual(errors, []);
  await context.close();
});
