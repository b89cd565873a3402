// Accessibility and small screens, in headless Chromium against dist/:
// axe-core over the full page, the embed and the phone view in light and
// dark, and the phone layout's promises (the story first, nothing
// clipped, touch targets large enough).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { useBrowser, open, ready, screenshot, assertPlotsDrawn, expectedMarks } from "./support/harness.mjs";

const AXE = await readFile(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const PHONE = { width: 390, height: 844, deviceScaleFactor: 3 };

const env = useBrowser();

/** axe-core's violations on the page as it is now, as readable lines. */
async function violations(page) {
  // Evaluated through the debugging protocol, so the page's
  // Content-Security-Policy (no inline scripts) does not block it.
  await page.evaluate(AXE);
  const found = await page.evaluate(async () => {
    const result = await window.axe.run(document, { resultTypes: ["violations"] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      nodes: v.nodes.slice(0, 5).map((n) => `${n.target.join(" ")}: ${n.failureSummary.replace(/\s+/g, " ")}`),
    }));
  });
  return found.map((v) => `${v.impact} ${v.id}\n    ${v.nodes.join("\n    ")}`);
}

const VIEWS = [
  { name: "full page", path: "", size: {} },
  { name: "embed", path: "?embed=1&controls=slow-share,zipf,seed", size: { width: 800, height: 900 } },
  { name: "phone", path: "", size: PHONE },
  { name: "fleet, Health open", path: "#v=1&events=20s:s3:fail,40s:s3:recover", size: {}, health: true },
  // A link that sets a cache opens the Cache and connections group.
  { name: "caches at layer 4", path: "#v=1&cache-keys=300&layer=4", size: {} },
  // The replay open (its own module), paused after the crash.
  { name: "replay", path: "#v=1&preset=crash&view=replay&t=27", size: {}, replay: true },
  { name: "replay on a phone", path: "#v=1&preset=crash&view=replay&t=27", size: PHONE, replay: true },
];

for (const view of VIEWS) {
  for (const colorScheme of ["light", "dark"]) {
    test(`axe-core finds no violations: ${view.name}, ${colorScheme}`, async () => {
      const { page, context, errors } = await open(env.browser, { colorScheme, ...view.size });
      await page.goto(env.server.base + view.path);
      await ready(page);
      if (view.replay) {
        await page.waitForFunction(() => document.getElementById("replay-view")?.dataset.state === "ready", null, { timeout: 60000 });
      }
      if (view.health) {
        await page.locator("#health-group summary").click();
        assert.equal(await page.locator("#event-rows .event-row").count(), 2);
      }
      assert.deepEqual(await violations(page), []);
      assert.deepEqual(errors, []);
      await context.close();
    });
  }
}

/** Whether a canvas's left and right edge columns in its top band (where
 * the title is) are background only: text running off the canvas would
 * colour them. */
async function titleInside(page, id) {
  return page.evaluate((id) => {
    const c = document.getElementById(id);
    const ctx = c.getContext("2d");
    const band = Math.min(c.height, Math.round(34 * devicePixelRatio));
    const bg = ctx.getImageData(c.width >> 1, 1, 1, 1).data;
    for (const x of [0, 1, c.width - 2, c.width - 1]) {
      const col = ctx.getImageData(x, 0, 1, band).data;
      for (let i = 0; i < col.length; i += 4) {
        if (Math.abs(col[i] - bg[0]) + Math.abs(col[i + 1] - bg[1]) + Math.abs(col[i + 2] - bg[2]) > 60) return false;
      }
    }
    return true;
  }, id);
}

test("on a phone the lesson and the first plot come first, nothing is clipped, targets are large enough", async () => {
  for (const colorScheme of ["light", "dark"]) {
    const { page, context, errors } = await open(env.browser, { colorScheme, ...PHONE });
    await page.goto(env.server.base);
    await ready(page);
    const layout = await page.evaluate(() => {
      const top = (sel) => document.querySelector(sel).getBoundingClientRect().top + scrollY;
      return {
        lesson: top("#lesson"),
        plot: top("#cdf"),
        controls: top("#controls"),
        width: document.documentElement.scrollWidth,
      };
    });
    assert.ok(layout.plot < PHONE.height, `the first plot starts at ${layout.plot} px, below the first screen`);
    assert.ok(layout.lesson < layout.plot, "the lesson comes before the plot");
    assert.ok(layout.width <= PHONE.width, `the page is ${layout.width} px wide: it scrolls sideways`);
    for (const id of ["cdf", "loads", "queues"]) {
      assert.ok(await titleInside(page, id), `#${id}: text runs off the canvas`);
    }
    // Inside, and with their data drawn (a blank canvas has nothing off it).
    await assertPlotsDrawn(page, await expectedMarks(page, ["cdf", "loads", "queues"]), { label: `phone, ${colorScheme}: ` });
    // The table scrolls on its own, keeping the algorithm column in place.
    const sticky = await page.$eval("#results tbody th", (th) => getComputedStyle(th).position);
    assert.equal(sticky, "sticky");
    const small = await page.evaluate(() =>
      [...document.querySelectorAll("button, select, input, summary")]
        .filter((e) => e.checkVisibility())
        .map((e) => {
          const r = (e.closest("label") ?? e).getBoundingClientRect();
          return { e: e.id || e.name || e.textContent.trim().slice(0, 20), w: r.width, h: r.height };
        })
        .filter((r) => r.w < 24 || r.h < 24));
    assert.deepEqual(small, [], "touch targets at least 24 x 24 px");
    await screenshot(page, `phone-${colorScheme}.png`, { fullPage: false });
    assert.deepEqual(errors, []);
    await context.close();
  }
});

test("on a phone the fleet's plots keep their text inside and the events editor's targets are large enough", async () => {
  for (const colorScheme of ["light", "dark"]) {
    const { page, context, errors } = await open(env.browser, { colorScheme, ...PHONE });
    await page.goto(env.server.base + "#v=1&events=20s:s3:fail,40s:s3:recover");
    await ready(page);
    for (const id of ["queues", "errors", "requests"]) {
      assert.ok(await titleInside(page, id), `#${id}: text runs off the canvas`);
    }
    await assertPlotsDrawn(page, await expectedMarks(page, ["queues", "errors", "requests"]), { label: `phone, ${colorScheme}: ` });
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= PHONE.width, "no sideways scroll");
    const small = await page.$$eval("#event-rows input, #event-rows select, #event-rows button, #add-event", (es) =>
      es.map((e) => ({ e: e.getAttribute("aria-label") ?? e.id, r: e.getBoundingClientRect() }))
        .filter(({ r }) => r.width < 24 || r.height < 24).map(({ e }) => e));
    assert.deepEqual(small, [], "touch targets at least 24 x 24 px");
    await screenshot(page, `phone-fleet-${colorScheme}.png`, { fullPage: false });
    assert.deepEqual(errors, []);
    await context.close();
  }
});

/** What has the focus: an id, or the panel a summary folds. */
const focused = (page) => page.evaluate(() => {
  const a = document.activeElement;
  if (a.tagName === "SUMMARY") return `${a.parentElement.id} summary`;
  return a.id || a.tagName.toLowerCase();
});

/** Presses Tab until `want` has the focus; fails if the focus comes back
 * to the page's start (the skip link, or the body) first. */
async function tabTo(page, want) {
  for (let presses = 1; presses <= 300; presses++) {
    await page.keyboard.press("Tab");
    const now = await focused(page);
    if (now === want) return presses;
    assert.ok(now !== "body" && !(presses > 1 && (await page.evaluate(() => document.activeElement.className)) === "skip"),
      `Tab went around the page without reaching ${want}`);
  }
  assert.fail(`300 presses of Tab without reaching ${want}`);
}

/** Opens the panel whose summary has the focus with Enter, then Tab
 * reaches its first control (`first`, built by its module on first use). */
async function openAndEnter(page, panel, first) {
  await page.keyboard.press("Enter");
  assert.equal(await page.getAttribute(`#${panel}`, "open"), "", `Enter opens ${panel}`);
  await page.waitForSelector(`#${first}`);
  await page.keyboard.press("Tab");
  assert.equal(await focused(page), first, `the first control of ${panel}`);
}

test("Tab reaches every panel, each panel's first control and the replay's Play, Step and scrubber, on the page and in the embeds that show them", async () => {
  const replayReady = (page) => page.waitForFunction(() => document.getElementById("replay-view")?.dataset.state === "ready", null, { timeout: 60000 });
  // The full page, the replay open (a link's view=replay), the others folded.
  const { page, context, errors } = await open(env.browser, { width: 1280, height: 800, deviceScaleFactor: 1 });
  await page.goto(env.server.base + "#v=1&preset=crash&view=replay&t=27");
  await ready(page);
  await replayReady(page);
  await page.evaluate(() => document.activeElement?.blur());
  const presses = {};
  for (const want of ["replay-panel summary", "replay-play", "replay-step", "replay-scrub", "sweep-panel summary"]) {
    presses[want] = await tabTo(page, want);
  }
  await openAndEnter(page, "sweep-panel", "sweep-param");
  presses["remap-panel summary"] = await tabTo(page, "remap-panel summary");
  await openAndEnter(page, "remap-panel", "remap-change");
  presses["config-panel summary"] = await tabTo(page, "config-panel summary");
  await openAndEnter(page, "config-panel", "config-for");
  console.log("Tab presses, each from the one before:", JSON.stringify(presses));
  assert.deepEqual(errors, []);
  await context.close();
  // Each panel an embed can show, alone.
  for (const [path, stops] of [
    ["?embed=1&plots=replay#v=1&preset=crash", ["replay-panel summary", "replay-play", "replay-step", "replay-scrub", "open-full"]],
    ["?embed=1&plots=sweep#v=1&requests=3000&sweep=load=0.5..0.9:0.2", ["sweep-panel summary", "sweep-param", "sweep-run", "open-full"]],
    ["?embed=1&plots=remap,table#v=1&servers=6", ["remap-panel summary", "remap-change", "open-full"]],
    ["?embed=1&controls=slow-share,seed#v=1&preset=crash", ["c-slow-share", "c-seed", "open-full"]],
  ]) {
    const { page, context, errors } = await open(env.browser, { width: 700, height: 900, deviceScaleFactor: 1 });
    await page.goto(env.server.base + path);
    await ready(page);
    if (path.includes("replay")) await replayReady(page);
    if (path.includes("remap")) await page.waitForSelector("#remap-change");
    for (const want of stops) await tabTo(page, want);
    assert.deepEqual(errors, [], path);
    await context.close();
  }
});
