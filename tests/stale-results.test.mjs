// Stale results are never shown on the built playground (dist/) in
// headless Chromium: rapid changes and a slider dragged through long runs
// end on the numbers of the last value.
import { test } from "node:test";
import assert from "node:assert/strict";
import { useBrowser, open, ready, nativeReport, tableValues, expectedTable } from "./support/harness.mjs";

const env = useBrowser();

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
