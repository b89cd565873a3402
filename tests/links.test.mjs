// Share links of the built playground (dist/) in headless Chromium: a link
// restores every control and gives the numbers of the native core and of
// `lbsim run --url` (downloads included), the replay view's keys ride
// along untouched, and Copy link and Copy embed code write them out.
import { test } from "node:test";
import assert from "node:assert/strict";
import { useBrowser, open, ready, nativeReport, tableValues, expectedTable, assertDownloads, ruleIds, copyEmbedCode, screenshot } from "./support/harness.mjs";

const env = useBrowser();

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
  assert.equal(csvText.trim().split("\n").length, (await ruleIds(page)).length + 1, "a header and one row per rule");
  assert.deepEqual(errors, []);
  await context.close();
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

test("copy link and copy embed code give the share URL and an iframe snippet", async () => {
  const { page, context } = await open(env.browser);
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await page.goto(env.server.base + "#v=1&zipf=1.5");
  await ready(page);
  await page.click("#copy-link");
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), env.server.base + "#v=1&zipf=1.5");
  const code = await copyEmbedCode(page);
  await page.waitForFunction(() => document.getElementById("share-status").textContent === "Embed code copied.");
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), code, "the code is on the clipboard");
  // No controls by default; the lesson's plot (no preset: the latency plot) and the table (docs/embedding.md#what-an-embed-shows-keys-and-defaults).
  assert.match(code, /^<iframe src="[^"]+\?embed=1&amp;plots=cdf,table#v=1&amp;zipf=1.5"/);
  for (const part of ['title="', 'loading="lazy"', 'width="100%"', 'style="border:0;max-width:680px"']) assert.ok(code.includes(part), part);
  await context.close();
});

// A link is input from anyone: whatever it holds, the notice stays a few
// short lines at the top (the core cuts values and counts what it leaves
// out, docs/embedding.md#share-links), so the page keeps its width and
// about its height.
test("a hostile link (a 200 KB names= value, 10,000 unknown keys) keeps the page's width and height", async () => {
  const long = "s".repeat(200_000);
  const unknown = Array.from({ length: 10_000 }, (_, i) => `k${i}=1`).join("&");
  for (const width of [390, 1400]) {
    const { page, context, errors } = await open(env.browser, { width, height: 844, deviceScaleFactor: 1 });
    const size = async (hash) => {
      await page.goto(env.server.base + hash);
      await ready(page);
      await page.waitForFunction(() => !document.getElementById("notice").hidden);
      return page.evaluate(() => ({
        width: document.documentElement.scrollWidth,
        height: document.documentElement.scrollHeight,
        notice: document.getElementById("notice").getBoundingClientRect().height,
        text: document.getElementById("notice").innerText,
      }));
    };
    // The same page with a one-line notice is the measure.
    const plain = await size("#v=1&colour=blue");
    for (const [what, hash] of [["names", `#v=1&names=${long}`], ["unknown keys", `#v=1&${unknown}`]]) {
      const hostile = await size(hash);
      assert.ok(hostile.width <= width, `${what} at ${width} px: the document is ${hostile.width} px wide`);
      assert.ok(hostile.notice <= 360, `${what} at ${width} px: the notice is ${hostile.notice} px tall`);
      assert.ok(hostile.height <= plain.height + 300, `${what} at ${width} px: ${hostile.height} px tall, ${plain.height} px with one line`);
      assert.ok(hostile.text.length < 1_000, `${what}: ${hostile.text.length} characters said`);
    }
    const names = await size(`#v=1&names=${long}`);
    assert.match(names.text, /names: 'sss+…' \(and 199,920 more characters\) is not allowed/);
    const keys = await size(`#v=1&${unknown}`);
    assert.match(keys.text, /unknown key 'k0' ignored\n(.*\n){3}unknown key 'k4' ignored\nand 9,995 more unknown keys ignored/);
    assert.deepEqual(errors, []);
    await context.close();
  }
});

// What the notice says is what runs: the controls show the applied value
// and the table is the native core's for it.
test("each notice agrees with the scenario applied: a key given twice, an unknown version, a bad value", async () => {
  const cases = [
    { hash: "#v=1&servers=3&seed=9&servers=7", said: /servers: '3' is not allowed; allowed: the key once \(the link gives it more than once; none of its values applies\)/, applied: { seed: 9 } },
    { hash: "#v=2&servers=6", said: /v: '2' is not allowed; allowed: 1; the link's other keys were read as version 1's/, applied: { servers: 6 } },
    { hash: "#v=1&servers=0&seed=9", said: /servers: '0' is not allowed; allowed: 1 to 1024/, applied: { seed: 9 } },
  ];
  for (const { hash, said, applied } of cases) {
    const { page, context, errors } = await open(env.browser);
    await page.goto(env.server.base + hash);
    await ready(page);
    assert.match(await page.locator("#notice").innerText(), said, hash);
    const native = nativeReport(applied);
    const shown = await page.evaluate(() => ({ servers: document.querySelector("[name=servers]").value, seed: document.querySelector("[name=seed]").value }));
    assert.deepEqual(shown, { servers: String(native.scenario.servers), seed: String(native.scenario.seed) }, `${hash}: the controls`);
    assert.deepEqual(await tableValues(page), expectedTable(native), `${hash}: the table`);
    assert.deepEqual(errors, []);
    await context.close();
  }
});

test("bad replay keys are said at the top with the other notices and dropped from the address bar", async () => {
  const { page, context, errors } = await open(env.browser);
  await page.goto(env.server.base + "#v=1&seed=3&view=replay&t=1e300&pair=nope,nope&window=0&colour=blue");
  await ready(page);
  // The replay's module reads its keys once it has loaded; the keys it
  // writes back leave the bad ones out.
  await page.waitForFunction(() => location.hash.startsWith("#v=1&seed=3&view=replay&") && !/t=1e300|nope|window=0\b/.test(location.hash));
  const notice = page.locator("#notice");
  const text = await notice.innerText();
  for (const said of [/t: '1e300' is not allowed/, /pair: 'nope,nope' is not allowed/, /window: '0' is not allowed/, /unknown key 'colour' ignored/]) {
    assert.match(text, said);
  }
  const top = await notice.evaluate((n) => n.getBoundingClientRect().top + window.scrollY);
  assert.ok(top < 300, `the notice is at the top (${top} px down)`);
  assert.equal(await page.locator("#replay-panel").evaluate((d) => d.open), true, "the view still opens");
  assert.deepEqual(errors, []);
  await context.close();
});

// `theme=` is a view key: it rides in the fragment, overrides the
// reader's scheme from the first paint, and a pasted link changes it.
test("theme= in the fragment overrides the system scheme, stays in the link and follows a pasted link", async () => {
  const { page, context, errors } = await open(env.browser, { colorScheme: "light" });
  await page.goto(env.server.base + "#v=1&seed=3&theme=dark");
  await ready(page);
  assert.equal(await page.locator("#notice").isHidden(), true, "theme is no unknown key");
  const look = () => page.evaluate(() => {
    const canvas = document.getElementById("cdf");
    const [r, g, b] = canvas.getContext("2d").getImageData(2, 2, 1, 1).data;
    return { theme: document.documentElement.dataset.theme ?? null, background: getComputedStyle(document.body).backgroundColor, plot: r + g + b };
  });
  const dark = await look();
  assert.equal(dark.theme, "dark");
  assert.ok(dark.plot < 200, `the plot is drawn dark (${dark.plot})`);
  await page.locator("input[name=slow-share]").fill("0.2");
  await page.waitForFunction(() => location.hash.includes("slow-share=0.2"));
  assert.equal(new URL(page.url()).hash, "#v=1&slow-share=0.2&seed=3&theme=dark", "kept after an edit");
  await page.evaluate(() => { location.hash = "#v=1&slow-share=0.2&seed=3&theme=light"; });
  await page.waitForFunction(() => document.documentElement.dataset.theme === "light");
  await page.waitForFunction(() => {
    const [r, g, b] = document.getElementById("cdf").getContext("2d").getImageData(2, 2, 1, 1).data;
    return r + g + b > 600;
  });
  const light = await look();
  assert.notEqual(light.background, dark.background);
  assert.deepEqual(errors, []);
  await context.close();
});

test("screenshots: the notices of a hostile link at 390 and 760 px, light and dark", async () => {
  const hash = `#v=1&servers=3&servers=7&v=2&names=${"s".repeat(200_000)}&t=1e300&` + Array.from({ length: 10_000 }, (_, i) => `k${i}=1`).join("&");
  for (const colorScheme of ["light", "dark"]) {
    for (const width of [390, 760]) {
      const { page, context } = await open(env.browser, { colorScheme, width, height: 844 });
      await page.goto(env.server.base + hash);
      await ready(page);
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= width);
      await screenshot(page, `notice-hostile-${width}-${colorScheme}.png`, { fullPage: false });
      await context.close();
    }
  }
});
