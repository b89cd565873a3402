// Embeds as a blog post shows them (docs/embedding.md#embedding-a-scenario): a host page
// on another origin iframes the built site and sizes the frame by the
// `lbsim:resize` messages, as web/embed-demo.js does. One behaviour per
// test: the heights, the lesson's plot (the core's preset table, the same
// as `lbsim url --embed`), legends outside the canvas, the theme key,
// unknown names said, the sweep and remapping panels, the glossary as a
// link, the demo post (web/embed-demo.html) and its frames' resize
// messages. Screenshots at 360, 600 and 1280 px, light and dark, go to
// test-output/embed-*.png.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { useBrowser, open, ready, screenshot, assertPlotsDrawn, expectedMarks, nativeReport, ruleIds, copyEmbedCode, OUTPUT } from "./support/harness.mjs";

const env = useBrowser();

// Every preset, as the page's picker lists them (from the core's table).
let presets;
async function presetIds() {
  if (!presets) {
    const { page, context } = await open(env.browser);
    await page.goto(env.server.base);
    await ready(page);
    presets = await page.$$eval("#preset option", (os) => os.map((o) => o.value).filter((v) => v));
    await context.close();
    assert.ok(presets.length >= 13, `presets: ${presets}`);
  }
  return presets;
}

// The host page: another origin (localhost, where the site is served from
// 127.0.0.1), one iframe `width` px wide, sized by the frame's messages.
let host;
before(async () => {
  host = createServer((req, res) => {
    const url = new URL(req.url, "http://x");
    if (url.pathname === "/snippet") {
      // A post that holds the copied embed code alone, no script, in a
      // column `column` px wide.
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(`<!doctype html><html lang="en"><meta charset="utf-8"><title>A post</title>
<body style="margin:0;background:#fff"><article style="width:${Number(url.searchParams.get("column"))}px;margin:0 auto"><p>A blog post.</p>
${url.searchParams.get("code")}
<p>The end.</p></article></body></html>`);
      return;
    }
    const src = url.searchParams.get("src") ?? "";
    const width = Number(url.searchParams.get("width") ?? 600);
    const attr = src.replace(/&/g, "&amp;").replace(/"/g, "&quot;");
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(`<!doctype html><html lang="en"><meta charset="utf-8"><title>A post</title>
<body style="margin:0;background:#fff"><p>A blog post.</p>
<iframe src="${attr}" title="lbsim" style="border:0;display:block;width:${width}px;height:150px"></iframe>
<p>The end.</p>
<script>
addEventListener("message", (e) => {
  const d = e.data;
  if (!d || d.type !== "lbsim:resize" || typeof d.height !== "number") return;
  document.querySelector("iframe").style.height = Math.ceil(d.height) + "px";
});
</script></body></html>`);
  });
  await new Promise((ok) => host.listen(0, "127.0.0.1", ok));
});
after(() => new Promise((ok) => host.close(ok)));

const hostUrl = (path, width) =>
  `http://localhost:${host.address().port}/post?width=${width}&src=${encodeURIComponent(env.server.base + path)}`;

/** Opens `path` in the host page's frame, `width` px wide; waits for the
 * run to be drawn and the frame's height to settle. */
async function embedded(path, width, { colorScheme = "light", deviceScaleFactor = 2, window = 900 } = {}) {
  const opened = await open(env.browser, { width: width + 40, height: window, colorScheme, deviceScaleFactor });
  const { page } = opened;
  await page.goto(hostUrl(path, width));
  const frame = page.frameLocator("iframe");
  await frame.locator("body[data-state=ready]").waitFor({ timeout: 30000 });
  const height = await settled(page);
  return { ...opened, frame, height };
}

/** The frame's height once it stops changing (the tests hold it to the content's). */
async function settled(page) {
  let last = -1;
  for (let i = 0; i < 60; i++) {
    await page.waitForTimeout(150);
    const h = await page.evaluate(() => parseFloat(document.querySelector("iframe").style.height));
    if (h === last) return h;
    last = h;
  }
  throw new Error(`the frame's height never settled (last ${last})`);
}

/** What shows inside the frame: the ids of the visible plots, in order. */
const visiblePlots = (frame) =>
  frame.locator("[data-plot]").evaluateAll((els) => els.filter((e) => e.checkVisibility()).map((e) => e.dataset.plot));

const box = (locator) => locator.boundingBox();

test("an embed is as tall as its content: every preset's default within 1,600 px at 600 and 2,200 px at 360", async () => {
  const heights = {};
  for (const id of await presetIds()) {
    for (const [width, most] of [[600, 1600], [360, 2200]]) {
      const { context, frame, errors, height } = await embedded(`?embed=1#v=1&preset=${id}`, width);
      // The frame holds all of its content, and no more.
      const inner = await frame.locator("body").evaluate((b) => ({
        body: Math.ceil(b.getBoundingClientRect().height),
        scroll: document.documentElement.scrollHeight,
      }));
      assert.ok(Math.abs(inner.body - height) <= 1, `${id} at ${width}: the frame is ${height}, its content ${inner.body}`);
      assert.ok(inner.scroll <= height + 1, `${id} at ${width}: the frame scrolls (${inner.scroll} in ${height})`);
      assert.ok(height <= most, `${id} at ${width} px: ${height} px tall, more than ${most}`);
      heights[`${id} ${width}`] = height;
      assert.deepEqual(errors, []);
      await context.close();
    }
  }
  console.log("default embed heights (px):", JSON.stringify(heights));
});

/** Opens a post holding `code` alone in a column `column` px wide; once the
 * embed has drawn all it shows, what its frame shows: the frame's height,
 * the content's, the table rows cut off, and whatever is cut off without
 * a scrollbar (the document or any box that hides its overflow). */
async function inPost(code, column) {
  const opened = await open(env.browser, { width: column + 40, height: 2600, deviceScaleFactor: 1 });
  const { page } = opened;
  await page.goto(`http://localhost:${host.address().port}/snippet?column=${column}&code=${encodeURIComponent(code)}`);
  const frame = page.frameLocator("iframe");
  await frame.locator("body[data-state=ready]").waitFor({ timeout: 30000 });
  // The panels drawn by modules of their own (remapping) and a sweep.
  await frame.locator("body").evaluate(() => new Promise((done) => {
    const drawing = () => document.querySelector("[data-sweep=running], [data-plot]:not([hidden]) :is(#remap-root, #replay):empty");
    const wait = () => (drawing() ? setTimeout(wait, 100) : setTimeout(done, 500));
    wait();
  }));
  const seen = await frame.locator("body").evaluate(() => {
    const html = document.documentElement;
    // The frame's page scrolls unless its root or body hides what overflows.
    const hides = (e, axis) => /hidden|clip/.test(getComputedStyle(e)[axis]);
    const cut = [];
    if (html.scrollHeight > html.clientHeight + 1 && (hides(html, "overflowY") || hides(document.body, "overflowY"))) cut.push("the page, down");
    if (html.scrollWidth > html.clientWidth + 1) cut.push(`the page, sideways (${html.scrollWidth} in ${html.clientWidth})`);
    for (const e of document.body.querySelectorAll("*")) {
      if (!e.checkVisibility() || e.tagName === "CANVAS" || getComputedStyle(e).clipPath !== "none") continue;
      const style = getComputedStyle(e);
      for (const [axis, over] of [["overflowX", e.scrollWidth > e.clientWidth + 1], ["overflowY", e.scrollHeight > e.clientHeight + 1]]) {
        if (over && /hidden|clip/.test(style[axis])) cut.push(`${e.tagName.toLowerCase()}#${e.id}.${e.className} (${axis})`);
      }
    }
    const rows = [...document.querySelectorAll("#results tbody tr, #remap-table tbody tr")].filter((r) => r.checkVisibility());
    return {
      frame: innerHeight,
      width: innerWidth,
      content: Math.ceil(document.body.getBoundingClientRect().height),
      rows: rows.length,
      rowsCut: rows.filter((r) => r.getBoundingClientRect().bottom > innerHeight + 0.5).map((r) => r.dataset.algorithm ?? r.cells[0].textContent),
      cut,
    };
  });
  return { ...opened, seen };
}

test("the copied embed code alone, no script, fits its content at the post width chosen, for every preset; at other widths nothing is cut off without a scrollbar", async () => {
  const { page, context, errors } = await open(env.browser, { width: 1280, height: 900, deviceScaleFactor: 1 });
  const heights = {};
  // A sweep set up in the page rides in the embed code: its height is
  // measured once the sweep has drawn.
  const cases = (await presetIds()).map((id) => `#v=1&preset=${id}`).concat(["#v=1&requests=3000&sweep=load=0.5..0.9:0.2"]);
  for (const link of cases) {
    await page.goto(env.server.base + link);
    await ready(page);
    for (const width of [360, 600, 760]) {
      const code = await copyEmbedCode(page, width);
      const height = Number(/ height="(\d+)"/.exec(code)[1]);
      assert.match(code, new RegExp(` width="100%" height="${height}" style="border:0;max-width:${width}px"></iframe>$`));
      assert.doesNotMatch(code, /<script/i, "the code is the frame alone");
      const post = await inPost(code, width);
      const { seen } = post;
      assert.equal(seen.width, width, `${link}: the frame is the post's width`);
      assert.equal(seen.frame, height);
      assert.ok(seen.rows > 0, `${link}: a table shows`);
      assert.deepEqual(seen.rowsCut, [], `${link} at ${width} px: rows below the frame's ${height} px (content ${seen.content})`);
      assert.ok(seen.content <= height && height - seen.content <= 40,
        `${link} at ${width} px: a ${height} px frame for ${seen.content} px of content`);
      assert.deepEqual(seen.cut, [], `${link} at ${width} px: cut off`);
      assert.deepEqual(post.errors, []);
      await post.context.close();
      heights[`${link.slice(5)} ${width}`] = height;
    }
    // The code for one width in a narrower or wider column: the frame
    // scrolls where its content is taller, and is never wider than the
    // width it was measured at.
    const code = await copyEmbedCode(page, 600);
    for (const column of [360, 760]) {
      const { seen, context: post } = await inPost(code, column);
      assert.equal(seen.width, Math.min(column, 600));
      assert.deepEqual(seen.cut, [], `${link}, measured at 600 px, in a ${column} px column: cut off`);
      await post.close();
    }
  }
  console.log("embed code heights (px):", JSON.stringify(heights));
  assert.deepEqual(errors, []);
  await context.close();
});

test("plots=cdf at 600 px is at most 1,000 px; plots=cdf,table at 360 px well under the old 4,390", async () => {
  const cases = [["?embed=1&plots=cdf#v=1&preset=crash", 600, 1000], ["?embed=1&plots=cdf#v=1", 600, 1000],
    ["?embed=1&plots=cdf,table#v=1&preset=crash", 360, 2200]];
  for (const [path, width, most] of cases) {
    const { context, frame, height, errors } = await embedded(path, width);
    assert.ok(height <= most, `${path} at ${width}: ${height} px`);
    const plots = await visiblePlots(frame);
    assert.deepEqual(plots, path.includes("table") ? ["cdf", "table"] : ["cdf"]);
    console.log(`${path} at ${width} px: ${height} px`);
    assert.deepEqual(errors, []);
    await context.close();
  }
});

test("the frame follows its content both ways: a dismissed notice shrinks it, a longer lesson grows it", async () => {
  const { page, context, frame, height } = await embedded("?embed=1&plots=cdf&controls=preset,bogus#v=1&preset=mixed", 600);
  assert.match(await frame.locator("#notice").innerText(), /unknown control "bogus"/);
  const notice = (await box(frame.locator("#notice"))).height;
  await frame.locator("#notice button.close").click();
  const shrunk = await settled(page);
  assert.ok(shrunk <= height - notice + 2 && shrunk < height, `dismissing the notice: ${height} -> ${shrunk}`);
  await frame.locator("select[name=preset]").selectOption("cache-locality");
  await frame.locator("body[data-state=ready]").waitFor();
  const grown = await settled(page);
  assert.ok(grown > shrunk + 40, `the cache-locality lesson is longer: ${shrunk} -> ${grown}`);
  const inner = await frame.locator("body").evaluate((b) => Math.ceil(b.getBoundingClientRect().height));
  assert.ok(Math.abs(inner - grown) <= 1);
  await context.close();
});

test("an embed shows the lesson, its controls, the lesson's plot and the table, then one line of links, in that order", async () => {
  const { context, frame } = await embedded("?embed=1&controls=slow-share,seed#v=1&preset=crash", 600);
  const shown = await frame.locator("#controls .control").evaluateAll((els) => els.filter((e) => e.checkVisibility()).map((e) => e.dataset.key));
  assert.deepEqual(shown.sort(), ["seed", "slow-share"]);
  assert.deepEqual(await visiblePlots(frame), ["errors", "table"]);
  const tops = [];
  for (const selector of ["#lesson", "#controls", "[data-plot=errors]", "[data-plot=table]", "#embed-links"]) {
    tops.push((await box(frame.locator(selector))).y);
  }
  assert.deepEqual([...tops].sort((a, b) => a - b), tops, `top to bottom: ${tops}`);
  // Nothing else: no glossary, no toolbar, no footer, no page heading on screen.
  for (const hidden of ["#glossary", ".toolbar", "footer", "#download-csv", "#sweep-panel", "#remap-panel"]) {
    assert.equal(await frame.locator(hidden).first().isVisible(), false, hidden);
  }
  const links = frame.locator("#embed-links");
  const line = await box(links);
  // One row of 44 px touch targets at this width.
  assert.ok(line.height < 60, `the links are one line (${line.height} px)`);
  assert.deepEqual(await links.locator("a").allInnerTexts(), ["Open in the full playground", "What the terms mean"]);
  const bodyBottom = await frame.locator("body").evaluate((b) => b.getBoundingClientRect().bottom);
  assert.ok(bodyBottom - (line.y + line.height) < 16, "the links are the last line");
  await context.close();
});

test("with no controls= an embed shows no control and no empty form", async () => {
  const { context, frame } = await embedded("?embed=1#v=1&preset=degraded", 600);
  assert.equal(await frame.locator("#controls").isVisible(), false);
  assert.deepEqual((await visiblePlots(frame)).sort(), ["loads", "table"]);
  assert.equal(await frame.locator("#notice").isVisible(), false);
  await context.close();
});

test("each preset's embed opens on the plot its lesson names in the core's table, as `lbsim url --embed` writes it", async () => {
  const cli = process.env.LBSIM_CLI;
  for (const id of await presetIds()) {
    const { page, context, errors } = await open(env.browser, { width: 700, height: 900 });
    await page.goto(env.server.base + `?embed=1#v=1&preset=${id}`);
    await ready(page);
    const shown = await page.$$eval("[data-plot]", (els) => els.filter((e) => e.checkVisibility()).map((e) => e.dataset.plot));
    // `lbsim url` takes the presets `lbsim run` does: scale-out is `lbsim remap`'s.
    if (cli && id !== "scale-out") {
      const link = execFileSync(cli, ["url", "--embed", "--preset", id, "--base", env.server.base]).toString().trim();
      const listed = new URL(link).searchParams.get("plots").split(",");
      assert.deepEqual(shown, listed, `${id}: the page shows what lbsim url --embed names, in order (${link})`);
      // And that link opens on the same plots.
      await page.goto(link);
      await ready(page);
      const again = await page.$$eval("[data-plot]", (els) => els.filter((e) => e.checkVisibility()).map((e) => e.dataset.plot));
      assert.deepEqual(again, listed);
    }
    if (id === "scale-out") {
      assert.deepEqual(shown, ["remap"], "scale-out opens on its remapping panel");
      await page.waitForFunction(() => document.querySelectorAll("#remap-table tbody tr").length === 5);
      await page.waitForFunction(() => (window.lbsimMarks.remap ?? []).length > 0);
    }
    // Every plot the embed shows draws its data (the list is the page's
    // and, above, lbsim url's).
    // In herding the four hashing rules' tails run within a few pixels of
    // one another at an embed's width, muted, so each blends with the
    // others and the grid: their colours are checked for presence only
    // (plots.test.mjs reads their lines against the report).
    const exempt = id === "herding" ? ["user-hash", "consistent-hash", "maglev", "rendezvous"] : [];
    await assertPlotsDrawn(page, await expectedMarks(page, shown), { exempt, label: `${id}: ` });
    assert.deepEqual(errors, []);
    await context.close();
  }
});

test("the full page's embed code is what `lbsim url --embed` prints", async () => {
  const { page, context } = await open(env.browser);
  await page.goto(env.server.base + "#v=1&preset=crash&seed=7");
  await ready(page);
  const code = await copyEmbedCode(page);
  const src = /src="([^"]+)"/.exec(code)[1].replace(/&amp;/g, "&");
  assert.equal(src, `${env.server.base}?embed=1&plots=errors,table#v=1&preset=crash&seed=7`);
  const cli = process.env.LBSIM_CLI;
  if (cli) {
    const printed = execFileSync(cli, ["url", "--embed", "--preset", "crash", "--seed", "7", "--base", env.server.base]).toString().trim();
    assert.equal(src, printed);
  }
  await page.goto(env.server.base + "?theme=dark#v=1&zipf=1.5");
  await ready(page);
  assert.match(await copyEmbedCode(page), /\?embed=1&amp;plots=cdf,table&amp;theme=dark#v=1&amp;zipf=1.5"/);
  await context.close();
});

test("legends are lists outside the canvas: under it at 360 px (canvas at least 240 px tall), beside it at 1280", async () => {
  const algorithms = nativeReport({ requests: 1 }).scenario.algorithms;
  const { context, frame } = await embedded("?embed=1&plots=cdf,table#v=1&preset=mixed", 360);
  const canvas = await box(frame.locator("#cdf"));
  const legend = await box(frame.locator("#cdf-legend"));
  assert.ok(canvas.height >= 240, `the latency canvas is ${canvas.height} px tall`);
  assert.ok(legend.y >= canvas.y + canvas.height - 1, "the legend is under the canvas");
  // An arrow marks a rule whose line runs off the plot; a note under the
  // rules gives its largest latency.
  const items = await frame.locator("#cdf-legend li").allInnerTexts();
  const names = items.slice(0, algorithms.length).map((t) => t.replace(/ \u2192$/, ""));
  assert.deepEqual(names, algorithms, "one item per rule, by name, in the table's order");
  for (const off of items.filter((t) => t.endsWith("\u2192"))) {
    const rule = off.replace(/ \u2192$/, "");
    assert.ok(items.some((t) => t.startsWith(`\u2192 off scale: ${rule} max `)), `a note for ${rule}: ${items}`);
  }
  // Each item's key is its rule's colour, the table's swatch's.
  const keys = await frame.locator("#cdf-legend li .key").evaluateAll((els) => els.map((e) => getComputedStyle(e).borderTopColor));
  const swatches = await frame.locator("#results tbody th .swatch").evaluateAll((els) => els.map((e) => getComputedStyle(e).backgroundColor));
  assert.deepEqual(keys.slice(0, swatches.length), swatches);
  const crisp = await frame.locator("#cdf").evaluate((c) => c.width === Math.round(c.clientWidth * devicePixelRatio) && c.height === Math.round(c.clientHeight * devicePixelRatio));
  assert.ok(crisp, "drawn at the device pixel ratio");
  await context.close();

  const full = await open(env.browser, { width: 1280, height: 800 });
  await full.page.goto(env.server.base);
  await ready(full.page);
  for (const id of ["cdf", "queues", "loads"]) {
    const c = await box(full.page.locator(`#${id}`));
    assert.ok(c.width > 1.3 * c.height, `#${id} is wider than tall (${c.width} x ${c.height})`);
  }
  for (const id of ["cdf", "queues"]) {
    const c = await box(full.page.locator(`#${id}`));
    const l = await box(full.page.locator(`#${id}-legend`));
    assert.ok(l.x >= c.x + c.width - 1 && l.y < c.y + c.height, `#${id}'s legend is beside it`);
  }
  // The tail view's legend names the lesson's rules' lines as full, the rest faint.
  const muted = await full.page.$$eval("#cdf-legend li.muted", (els) => els.map((e) => e.innerText));
  assert.ok(muted.length > 0 && !muted.includes("least-connections"), `muted: ${muted}`);
  await full.context.close();
});

test("Save PNG writes the chart with its legend under it", async () => {
  const { page, context } = await open(env.browser, { width: 1280, height: 800, deviceScaleFactor: 1 });
  await page.goto(env.server.base + "#v=1&preset=theory");
  await ready(page);
  assert.deepEqual(await page.$$eval("#cdf-legend li", (els) => els.map((e) => e.innerText)), ["random", "M/M/c (Erlang C)"]);
  assert.equal(await page.locator("#cdf-legend li .key.dashed").count(), 1, "the formula's line is dashed");
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("button[data-png=cdf]")]);
  const png = await readFile(await download.path());
  const [w, h] = [png.readUInt32BE(16), png.readUInt32BE(20)];
  const canvas = await page.locator("#cdf").evaluate((c) => [c.width, c.height]);
  assert.equal(w, canvas[0]);
  assert.ok(h > canvas[1] + 20, `the PNG (${w} x ${h}) has room under the chart (${canvas[1]}) for its legend`);
  await context.close();
});

test("theme=light|dark|auto: the page and its plots take the chosen theme, whatever the reader prefers", async () => {
  const cases = [["dark", "light", true], ["light", "dark", false], ["auto", "dark", true], ["auto", "light", false]];
  for (const [theme, colorScheme, dark] of cases) {
    for (const path of [`?embed=1&theme=${theme}#v=1&preset=mixed`, `?theme=${theme}#v=1`]) {
      const { page, context, errors } = await open(env.browser, { colorScheme, width: 800, height: 900 });
      await page.goto(env.server.base + path);
      await ready(page);
      const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      assert.equal(bg, dark ? "rgb(17, 19, 23)" : "rgb(246, 246, 248)", `${path} with ${colorScheme} preferred`);
      const pixel = await page.locator("#cdf").evaluate((c) => [...c.getContext("2d").getImageData(2, 2, 1, 1).data].slice(0, 3));
      assert.deepEqual(pixel, dark ? [0x18, 0x1a, 0x1f] : [0xff, 0xff, 0xff], `${path}: the plot's background`);
      assert.equal(await page.locator("#notice").isVisible(), false);
      assert.deepEqual(errors, []);
      await context.close();
    }
  }
  const { page, context } = await open(env.browser);
  await page.goto(env.server.base + "?embed=1&theme=sepia#v=1");
  await ready(page);
  assert.match(await page.locator("#notice").innerText(), /theme: unknown theme "sepia" ignored/);
  await context.close();
});

test("unknown controls= and plots= names are both said; the known ones apply", async () => {
  const { page, context, errors } = await open(env.browser, { width: 800, height: 900 });
  await page.goto(env.server.base + "?embed=1&controls=slow-share,bogus&plots=cdf,nope#v=1&bogus-key=1");
  await ready(page);
  const notice = await page.locator("#notice").innerText();
  assert.match(notice, /unknown key 'bogus-key' ignored/, "the link's own problems stay");
  assert.match(notice, /plots: unknown plot "nope" ignored; known: cdf, table/);
  assert.match(notice, /controls: unknown control "bogus" ignored/);
  const shown = await page.$$eval("#controls .control", (els) => els.filter((e) => e.checkVisibility()).map((e) => e.dataset.key));
  assert.deepEqual(shown, ["slow-share"]);
  assert.deepEqual(await page.$$eval("[data-plot]", (els) => els.filter((e) => e.checkVisibility()).map((e) => e.dataset.plot)), ["cdf"]);
  assert.deepEqual(errors, []);
  await context.close();
});

test("plots=sweep and plots=remap show in an embed, open and drawn", async () => {
  const { page, context, errors } = await open(env.browser, { width: 600, height: 900 });
  await page.goto(env.server.base + "?embed=1&plots=sweep#v=1&requests=3000&sweep=load=0.5..0.9:0.2");
  await ready(page);
  await page.waitForFunction(() => document.body.dataset.sweep === "ready", null, { timeout: 60000 });
  assert.equal(await page.getAttribute("#sweep-panel", "open"), "");
  await assertPlotsDrawn(page, { sweep: await ruleIds(page) }, { label: "plots=sweep: " });
  assert.ok(await page.locator("#sweep-legend li").count() >= (await ruleIds(page)).length, "a legend row per rule");
  await page.goto(env.server.base + "?embed=1&plots=remap,table#v=1&servers=6");
  await ready(page);
  // The table is filled at once, a row per hashing scheme.
  await page.waitForFunction(() => document.querySelectorAll("#remap-table tbody tr").length > 0);
  assert.deepEqual(await page.$$eval("[data-plot]", (els) => els.filter((e) => e.checkVisibility()).map((e) => e.dataset.plot)), ["remap", "table"], "in the order listed");
  assert.deepEqual(errors, []);
  await context.close();
});

test("the glossary is a link from an embed to the full playground's terms", async () => {
  const { context, frame, page } = await embedded("?embed=1#v=1&preset=mixed", 600);
  assert.equal(await frame.locator("#glossary").isVisible(), false);
  const link = frame.locator("#embed-links a", { hasText: "What the terms mean" });
  assert.equal(await link.getAttribute("target"), "_blank");
  const [tab] = await Promise.all([context.waitForEvent("page"), link.click()]);
  await tab.waitForLoadState();
  await ready(tab);
  assert.ok(tab.url().startsWith(env.server.base) && !tab.url().includes("embed"), tab.url());
  assert.equal(await tab.locator("#glossary").isVisible(), true);
  assert.equal(await tab.locator("#notice").isVisible(), false, "#glossary is not read as a scenario");
  const g = await box(tab.locator("#glossary"));
  const viewport = tab.viewportSize();
  assert.ok(g.y < viewport.height && g.y + g.height > 0, `the glossary is in view (${g.y})`);
  // The table's own link to the terms goes there too.
  assert.equal(await frame.locator("#results caption a").getAttribute("target"), "_blank");
  await page.close();
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
  const src = await page.locator("iframe").first().getAttribute("src");
  const named = new URLSearchParams(src.slice(src.indexOf("#") + 1)).get("algorithms").split(",");
  const rows = await frame.locator("#results tbody tr").evaluateAll((trs) => trs.map((tr) => tr.dataset.algorithm));
  assert.deepEqual(rows.sort(), named.sort(), "a row per rule its link names");
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

test("screenshots: embeds at 360 and 600 px and the full page at 1280x800, light and dark", async () => {
  for (const colorScheme of ["light", "dark"]) {
    for (const [name, path, width] of [["crash-360", "?embed=1#v=1&preset=crash", 360], ["crash-600", "?embed=1#v=1&preset=crash", 600],
      ["mixed-cdf-360", "?embed=1&plots=cdf,table#v=1&preset=mixed", 360], ["theory-600", "?embed=1&controls=load,seed#v=1&preset=theory", 600],
      ["scale-out-360", "?embed=1#v=1&preset=scale-out", 360], ["http2-pinning-360", "?embed=1#v=1&preset=http2-pinning", 360]]) {
      // A window taller than the post, so that the whole frame is painted.
      const { page, context } = await embedded(path, width, { colorScheme, window: 2400 });
      await page.locator("iframe").screenshot({ path: join(OUTPUT, `embed-${name}-${colorScheme}.png`) });
      await context.close();
    }
    const { page, context } = await open(env.browser, { colorScheme, width: 1280, height: 800, deviceScaleFactor: 1 });
    await page.goto(env.server.base + "#v=1&preset=mixed");
    await ready(page);
    await screenshot(page, `embed-full-1280-${colorScheme}.png`, { fullPage: false });
    await page.locator("[data-plot=queues]").scrollIntoViewIfNeeded();
    await screenshot(page, `embed-full-1280-queues-${colorScheme}.png`, { fullPage: false });
    await context.close();
  }
  // A light post with a dark embed (theme=dark), and the other way round.
  for (const [theme, colorScheme] of [["light", "dark"], ["dark", "light"]]) {
    const { page, context } = await embedded(`?embed=1&theme=${theme}#v=1&preset=degraded`, 600, { colorScheme, window: 2400 });
    await page.setViewportSize({ width: 640, height: 900 });
    await screenshot(page, `embed-theme-${theme}-in-${colorScheme}.png`, { fullPage: false });
    await context.close();
  }
});

test("screenshots: the copied embed code alone in a post at 360, 600 and 760 px, light and dark", async () => {
  const { page, context } = await open(env.browser, { width: 1280, height: 900, deviceScaleFactor: 1 });
  await page.goto(env.server.base + "#v=1&preset=crash");
  await ready(page);
  for (const width of [360, 600, 760]) {
    const code = await copyEmbedCode(page, width);
    for (const colorScheme of ["light", "dark"]) {
      const post = await open(env.browser, { width: width + 40, height: 2600, colorScheme, deviceScaleFactor: 1 });
      await post.page.goto(`http://localhost:${host.address().port}/snippet?column=${width}&code=${encodeURIComponent(code)}`);
      await post.page.frameLocator("iframe").locator("body[data-state=ready]").waitFor({ timeout: 30000 });
      await post.page.waitForTimeout(500);
      await screenshot(post.page, `embed-code-crash-${width}-${colorScheme}.png`);
      await post.context.close();
    }
  }
  await context.close();
});
