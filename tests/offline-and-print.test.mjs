// What a reader meets around the page, in headless Chromium against
// dist/ (docs/embedding.md#link-previews, #offline, #printing): the link
// preview a crawler reads from index.html without running it, the tab's
// title once the page runs, the printed page, and a revisit offline
// through the service worker (web/sw.js), which a first visit registers
// only after its first plot and which never fetches a module the reader
// has not used.
import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { useBrowser, open, ready, serve, assertPlotsDrawn, expectedMarks, screenshot, DIST } from "./support/harness.mjs";
import { publicUrl, withPreviewImage } from "../web/previews.mjs";

const env = useBrowser();

/** The `<meta>` tags of an HTML text, as { property or name: content }. */
function metaTags(html) {
  const out = {};
  for (const [tag] of html.matchAll(/<meta\b[^>]*>/g)) {
    const value = (name) => new RegExp(`\\b${name}=(?:"([^"]*)"|([^\\s>"]+))`).exec(tag)?.slice(1).find((v) => v !== undefined);
    const key = value("property") ?? value("name");
    if (key) out[key] = value("content")?.replace(/&quot;/g, '"').replace(/&lt;/g, "<").replace(/&amp;/g, "&");
  }
  return out;
}

const TITLE = "lbsim: which server gets your request?";

test("link previews: the playground's title and description without a script; the image tags only with the public URL", async () => {
  const html = readFileSync(join(DIST, "index.html"), "utf8");
  const tags = metaTags(html);
  assert.match(html, new RegExp(`<title>${TITLE.replace("?", "\\?")}</title>`), "index.html's own title names the playground");
  // X reads these too, beside its card.
  assert.equal(tags["og:title"], TITLE);
  assert.equal(tags["og:description"], tags.description, "og:description is the page's description");
  assert.equal(tags["og:type"], "website");
  // Built without LBSIM_PUBLIC_URL: no image tag, whose address would be relative.
  assert.equal(tags["twitter:card"], "summary", "no image, a small card");
  for (const key of ["og:image", "twitter:image", "og:url"]) assert.equal(tags[key], undefined, `${key} without a public URL`);

  // With it: the README's screenshot, by its absolute address, as a large card.
  const png = readFileSync(join(DIST, "screenshot.png"));
  assert.deepEqual(png, readFileSync("web/screenshot.png"), "dist/ carries the README's screenshot");
  const site = publicUrl("https://example.org/lbsim");
  assert.equal(site.url, "https://example.org/lbsim/", "the public URL is read as a directory");
  const withImage = metaTags(withPreviewImage(html, site.url, png));
  assert.equal(withImage["og:image"], "https://example.org/lbsim/screenshot.png");
  assert.equal(withImage["twitter:image"], "https://example.org/lbsim/screenshot.png");
  assert.equal(withImage["og:url"], "https://example.org/lbsim/");
  assert.equal(withImage["twitter:card"], "summary_large_image");
  assert.deepEqual([withImage["og:image:width"], withImage["og:image:height"]], ["1280", "900"], "the screenshot's size");
  assert.equal(withImage["og:title"], TITLE, "the rest stays");
  // A quote in the address stays inside its attribute.
  assert.equal(metaTags(withPreviewImage(html, publicUrl('https://a"b.example/').url, png))["og:url"], 'https://a"b.example/');
  for (const bad of ["example.org/lbsim/", "ftp://example.org/", "/lbsim/"]) assert.match(publicUrl(bad).error ?? "", /public URL/, bad);

  // The image is served beside the page; a first visit does not fetch it.
  const { page, context } = await open(env.browser);
  env.server.log.length = 0;
  await page.goto(env.server.base);
  await ready(page);
  assert.ok(!env.server.log.some((e) => e.path.startsWith("screenshot.png")), "a first visit does not fetch the preview's image");
  const served = await page.evaluate(async () => (await fetch("screenshot.png")).status);
  assert.equal(served, 200);
  await context.close();
});

test("the tab's title names the preset once the page runs, and says when it is edited", async () => {
  const { page, context } = await open(env.browser);
  await page.goto(env.server.base + "#v=1&preset=crash");
  await ready(page);
  assert.equal(await page.title(), "lbsim: crash — A crash that health checks must notice");
  await page.fill("input[name=seed]", "9");
  await page.press("input[name=seed]", "Enter");
  await page.waitForFunction(() => document.title.includes("edited"));
  assert.equal(await page.title(), "lbsim: crash, edited — A crash that health checks must notice");
  await page.goto(env.server.base + "#v=1&servers=5");
  await page.reload();
  await ready(page);
  assert.equal(await page.title(), "lbsim: custom scenario");
  await context.close();
});

test("printed: the lesson, the plots and the table on white, no controls", async () => {
  // Dark on screen, so that the plots' redraw for paper shows.
  const { page, context } = await open(env.browser, { colorScheme: "dark", width: 1100, height: 900 });
  await page.goto(env.server.base + "#v=1&preset=crash");
  await ready(page);
  const corner = () =>
    page.evaluate(() => {
      const c = document.getElementById("cdf");
      const [r, g, b] = c.getContext("2d").getImageData(2, 2, 1, 1).data;
      return (r + g + b) / 3;
    });
  assert.ok((await corner()) < 80, "on screen, dark, the latency plot is dark");
  await page.emulateMedia({ media: "print" });
  await page.waitForFunction(() => matchMedia("print").matches);
  const seen = (selectors) => page.evaluate((ss) => ss.map((s) => [s, [...document.querySelectorAll(s)].some((e) => e.checkVisibility())]), selectors);
  const controls = ["#controls", "#status", ".toolbar", ".plot-tools", "nav.jump", "button:not(.sort)", "select", "details:not([open])"];
  for (const [s, shown] of await seen(controls)) assert.equal(shown, false, `${s} is not printed`);
  const results = ["#lesson", "#cdf", "#loads", "#queues", "#errors", "#requests", "#results"];
  for (const [s, shown] of await seen(results)) assert.equal(shown, true, `${s} is printed`);
  // Every row of the table, every canvas whole (its drawn shape, not squeezed).
  const rows = await page.$$eval("#results tbody tr", (trs) => trs.filter((tr) => tr.checkVisibility()).length);
  assert.ok(rows >= 3, `${rows} rows printed`);
  for (const { id, ratio, drawn } of await page.$$eval("canvas", (cs) =>
    cs.filter((c) => c.checkVisibility()).map((c) => ({ id: c.id, ratio: c.clientWidth / c.clientHeight, drawn: c.width / c.height })),
  )) {
    assert.ok(Math.abs(ratio - drawn) < 0.02 * drawn, `#${id} printed at its drawn proportions (${ratio.toFixed(3)} against ${drawn.toFixed(3)})`);
  }
  await page.waitForFunction(() => {
    const [r, g, b] = document.getElementById("cdf").getContext("2d").getImageData(2, 2, 1, 1).data;
    return (r + g + b) / 3 > 200;
  }, null, { timeout: 5000 });
  const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  assert.equal(background, "rgb(255, 255, 255)", "paper is white");
  await screenshot(page, "print-crash-dark.png");
  await page.pdf({ path: join(process.env.LBSIM_OUTPUT ?? "test-output", "print-crash.pdf") });
  // Back on screen, the plots are the reader's theme again.
  await page.emulateMedia({ media: "screen" });
  await page.waitForFunction(() => {
    const [r, g, b] = document.getElementById("cdf").getContext("2d").getImageData(2, 2, 1, 1).data;
    return (r + g + b) / 3 < 80;
  });
  await context.close();
});

/** The addresses the service worker's cache holds (none unless it has
 * exactly one cache, and controls the page). */
const cached = (page) =>
  page.evaluate(async () => {
    const names = await caches.keys();
    if (names.length !== 1 || !navigator.serviceWorker.controller) return [];
    return (await (await caches.open(names[0])).keys()).map((r) => r.url);
  });

/** Waits until `holds(urls)` for the cache's addresses (page.waitForFunction
 * does not wait for a promise). */
async function untilCached(page, holds, what) {
  for (const start = Date.now(); Date.now() - start < 20000; await page.waitForTimeout(100)) {
    if (holds(await cached(page))) return;
  }
  assert.fail(`the service worker's cache never held ${what}: ${(await cached(page)).join(", ")}`);
}

test("offline: a revisit runs from the service worker's cache; used panels work, an unused one says it needs the network", async () => {
  // Its own server, whose log is every byte the browser got, of its own
  // copy of dist/, which the test deploys again.
  const root = mkdtempSync(join(tmpdir(), "lbsim-deploy-"));
  cpSync(DIST, root, { recursive: true });
  const server = await serve(root);
  const { page, context, errors } = await open(env.browser, { serviceWorkers: "allow" });
  const lazy = () => server.log.filter((e) => /^(lbsim-panels|lbsim-replay|replay-worker|replay\.css)/.test(e.path)).map((e) => e.path);
  try {
    await page.goto(server.base);
    await ready(page);
    const firstPlot = await page.evaluate(() => performance.timeOrigin + Number(document.body.dataset.firstPlotMs));
    // The worker takes the page's files as its own once it controls the page.
    const page0 = await page.evaluate(() => ({
      wasm: new URL(document.querySelector("script[data-lbsim-wasm]").dataset.lbsimWasm, document.baseURI).href,
      glue: new URL(document.querySelector("script[data-lbsim-js]").dataset.lbsimJs, document.baseURI).href,
    }));
    const firstFiles = [server.base + "index.html", server.base + "boot.js", page0.wasm, page0.glue];
    await untilCached(
      page,
      (urls) => firstFiles.every((u) => urls.includes(u)) && urls.some((u) => u.includes("worker.js?glue=")) && urls.some((u) => /style-.*\.css$/.test(u)),
      "the first visit's files",
    );
    // The registration's script and the worker's, each once, after the first plot.
    for (const file of ["offline.js", "sw.js"]) {
      const sent = server.log.filter((e) => e.path.startsWith(file));
      assert.equal(sent.length, 1, `${file} is fetched once`);
      assert.ok(sent[0].at > firstPlot, `${file} fetched after the first plot (${(sent[0].at - firstPlot).toFixed(0)} ms after it)`);
    }
    // Settled: nothing of the modules fetched on first use came.
    await page.waitForTimeout(500);
    assert.deepEqual(lazy(), [], "a first visit fetches no module it did not use, with the service worker too");

    // The Config panel used: its module is kept as it is fetched.
    await page.locator("#config-panel summary").click();
    await page.waitForFunction(() => document.getElementById("config-text")?.textContent.length > 0);
    await untilCached(page, (urls) => urls.some((u) => u.includes("lbsim-panels.js")) && urls.some((u) => u.includes("lbsim-panels_bg.wasm")), "the used module");
    assert.deepEqual(lazy().map((p) => p.split("?")[0]).sort(), ["lbsim-panels.js", "lbsim-panels_bg.wasm"]);
    const kept = await cached(page);
    assert.ok(!kept.some((u) => u.includes("lbsim-replay")), "the replay, not used, is not kept");

    // Offline: nothing reaches the server from here on.
    await context.setOffline(true);
    const served = server.log.length;
    await page.reload();
    await ready(page);
    await assertPlotsDrawn(page, await expectedMarks(page, ["cdf", "loads"]), { label: "offline: " });
    assert.ok((await page.$$eval("#results tbody tr", (trs) => trs.length)) >= 3, "the table has its rows");
    // The used panel works; the unused one says so where it is.
    await page.locator("#config-panel summary").click();
    await page.waitForFunction(() => document.getElementById("config-text")?.textContent.length > 0);
    await page.locator("#replay-panel summary").click();
    const note = page.locator("#replay", { hasText: "This needs the network: its module could not be fetched." });
    await note.waitFor({ timeout: 10000 });
    assert.ok(await note.isVisible());
    assert.equal(await page.locator("#notice").isVisible(), false, "the rest of the page is not a failure");
    await screenshot(page, "offline-replay-needs-network.png", { fullPage: false });
    // But the browser's own check for a newer worker script, which
    // Playwright's offline emulation does not cover (offline for real it
    // fails, and the registration with it, quietly).
    const reached = server.log.slice(served).map((e) => e.path).filter((p) => !p.startsWith("sw.js"));
    assert.deepEqual(reached, [], "nothing reached the server while offline");

    assert.deepEqual(
      errors.filter((e) => !/Failed to fetch|ERR_FAILED|ERR_INTERNET_DISCONNECTED|dynamically imported module/.test(e)),
      [],
      "no console error but the failed fetch",
    );

    // Online again: the panel asks again when it next opens, and the note goes.
    await context.setOffline(false);
    await page.locator("#replay-panel summary").click();
    await page.locator("#replay-panel summary").click();
    await page.waitForFunction(() => document.getElementById("replay-view") !== null, null, { timeout: 20000 });
    assert.equal(await note.count(), 0, "the note goes once the module came");
    assert.ok(await page.locator("#replay-view").isVisible());

    // A new deploy (web/finish.mjs's version changes with the files): online,
    // the reload shows the new page at once, not the kept one, and the new
    // worker drops the old cache.
    const html = readFileSync(join(root, "index.html"), "utf8");
    const deployed = html.replace(/data-lbsim-offline="\?v=[0-9a-f]+"/, 'data-lbsim-offline="?v=0123456789abcdef"').replace("<body ", "<body data-deploy=2 ");
    assert.notEqual(deployed, html);
    writeFileSync(join(root, "index.html"), deployed);
    await page.reload();
    await ready(page);
    assert.equal(await page.getAttribute("body", "data-deploy"), "2", "the new page, not the kept one");
    for (const start = Date.now(); Date.now() - start < 20000; await page.waitForTimeout(100)) {
      if ((await page.evaluate(() => caches.keys())).join() === "lbsim-0123456789abcdef") break;
    }
    assert.deepEqual(await page.evaluate(() => caches.keys()), ["lbsim-0123456789abcdef"], "the new worker's cache alone");
  } finally {
    await context.close();
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
});
