// Where readers meet the playground, in headless Chromium against dist/:
// the phone's first screen, the skip link and the links to the controls,
// the views and the terms, folded groups that look foldable, the lesson
// that steps aside once a preset is edited, and history (one entry per
// committed edit, Back restores the scenario before it).
import { test } from "node:test";
import assert from "node:assert/strict";
import { useBrowser, open, ready, nativeReport, tableValues, expectedTable, screenshot } from "./support/harness.mjs";

const PHONE = { width: 390, height: 844, deviceScaleFactor: 3 };
const DESKTOP = { width: 1280, height: 800, deviceScaleFactor: 1 };

const env = useBrowser();

/** Top and bottom of an element in page coordinates, and whether it shows. */
async function place(page, selector) {
  return page.$eval(selector, (e) => {
    const r = e.getBoundingClientRect();
    return { top: r.top + scrollY, bottom: r.bottom + scrollY, height: r.height, width: r.width, shown: e.checkVisibility({ visibilityProperty: true }) };
  });
}

/** Sets a slider as a keyboard step does: one input event, then change. */
async function slide(page, key, value) {
  await page.evaluate(([k, v]) => {
    const e = document.querySelector(`input[name="${k}"]`);
    e.value = v;
    e.dispatchEvent(new Event("input", { bubbles: true }));
    e.dispatchEvent(new Event("change", { bubbles: true }));
  }, [key, value]);
}

/** What the preset picker shows and the names its visible labels give it. */
async function picker(page) {
  return page.$eval("#preset", (s) => ({
    shows: s.selectedOptions[0].text,
    name: [...s.labels].filter((l) => l.checkVisibility()).map((l) => l.textContent).join(" "),
  }));
}

/** Waits for the page to draw a run newer than `run`. */
async function newRun(page, run) {
  await page.waitForFunction((r) => Number(document.body.dataset.runId) > r && document.body.dataset.state === "ready", Number(run));
}

test("on a phone the first screen says what this is, shows the lesson, the first plot, the preset picker and a way to the controls; the glossary comes last", async () => {
  for (const colorScheme of ["light", "dark"]) {
    const { page, context, errors } = await open(env.browser, { colorScheme, ...PHONE });
    await page.goto(env.server.base);
    await ready(page);
    const first = PHONE.height;
    const what = await place(page, "header.top h1 span");
    assert.ok(what.shown && what.bottom < first, "the page says what it is");
    assert.equal(await page.locator("header.top h1 span").innerText(), "which server gets your request?");
    const lesson = await place(page, "#lesson");
    const plot = await place(page, "#cdf");
    const picker = await place(page, "#preset");
    const controlsLink = await place(page, 'nav.jump a[href="#controls"]');
    console.log(`phone (${colorScheme}): picker ${picker.top}-${picker.bottom}, controls link ${controlsLink.top}, lesson ${lesson.top}, plot ${plot.top}-${plot.bottom}`);
    assert.ok(picker.shown && picker.bottom < first, `the preset picker is on the first screen (${picker.top})`);
    assert.ok(picker.height >= 24, "and big enough to hit");
    assert.ok(controlsLink.shown && controlsLink.bottom < first, `a link to the controls is on the first screen (${controlsLink.top})`);
    assert.ok(lesson.top < plot.top && plot.top < first, `the lesson (${lesson.top}) and the first plot (${plot.top}) come first`);
    // Order down the page: the story, the controls, then the glossary last.
    const controls = await place(page, "#controls");
    const glossary = await place(page, "#glossary");
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    console.log(`phone (${colorScheme}): controls at ${controls.top}, glossary at ${glossary.top}, page ${height} px`);
    assert.ok(controls.top > plot.top && glossary.top > controls.bottom, "the glossary comes after the controls");
    for (const view of ["#sweep-panel", "#remap-panel", "#results"]) {
      assert.ok((await place(page, view)).bottom <= glossary.top, `${view} comes before the glossary`);
    }
    await screenshot(page, `phone-first-screen-${colorScheme}.png`, { fullPage: false });
    // The link to the controls brings them into view and focus, and
    // leaves the link's scenario (the fragment) alone.
    const hash = new URL(page.url()).hash;
    await page.click('nav.jump a[href="#controls"]');
    assert.equal(await page.evaluate(() => document.activeElement.id), "controls");
    const shown = await page.$eval("#controls", (e) => e.getBoundingClientRect().top);
    assert.ok(shown >= 0 && shown < 100, `the controls are at the top of the screen (${shown})`);
    assert.equal(new URL(page.url()).hash, hash);
    await screenshot(page, `phone-controls-${colorScheme}.png`, { fullPage: false });
    assert.equal(await page.locator("#notice").isHidden(), true);
    assert.deepEqual(errors, []);
    await context.close();
  }
});

test("on a phone boxes, radios and the share link are at least 24 px; the terms link to the glossary, which loads when reached", async () => {
  const { page, context, errors, requests } = await open(env.browser, PHONE);
  await page.goto(env.server.base);
  await ready(page);
  assert.ok(!requests.some((u) => u.endsWith("/glossary.html")), "the first visit does not carry the glossary's terms");
  const small = await page.$$eval("input[type=checkbox], input[type=radio], #share-url, #preset", (es) =>
    es.filter((e) => e.checkVisibility()).map((e) => ({ e: e.id || e.value, r: e.getBoundingClientRect() }))
      .filter(({ r }) => r.width < 24 || r.height < 24).map(({ e, r }) => `${e} ${r.width}x${r.height}`));
  assert.deepEqual(small, []);
  // Where the terms are met: the links at the top, the table's caption, the controls.
  for (const link of ['nav.jump a[href="#glossary"]', "#results caption a", "#controls .note a"]) {
    assert.equal(await page.getAttribute(link, "href"), "#glossary", link);
  }
  await page.click("#results caption a");
  assert.equal(await page.evaluate(() => document.activeElement.id), "glossary");
  await page.waitForFunction(() => document.querySelectorAll("#glossary-terms dt").length > 20);
  assert.equal(await page.locator("#glossary-terms dt").first().innerText(), "p50, p99, p99.9");
  assert.ok((await page.locator("#glossary-rules dt").count()) > 10, "and the rules, from the core");
  assert.deepEqual(errors, []);
  await context.close();
});

test("a first visit does not fetch the glossary's terms, on a phone or a desktop", async () => {
  for (const size of [PHONE, DESKTOP, {}]) {
    const { page, context, requests } = await open(env.browser, size);
    await page.goto(env.server.base);
    await ready(page);
    await page.waitForTimeout(300);
    assert.ok(!requests.some((u) => u.endsWith("/glossary.html")), `glossary.html fetched at ${size.width ?? "the default"} px`);
    await context.close();
  }
});

test("a skip link is the first Tab stop and takes focus to the plots; the first plot control is two Tabs away", async () => {
  const { page, context, errors } = await open(env.browser, DESKTOP);
  await page.goto(env.server.base);
  await ready(page);
  await page.keyboard.press("Tab");
  const skip = await page.evaluate(() => {
    const a = document.activeElement;
    const r = a.getBoundingClientRect();
    return { text: a.textContent, cls: a.className, top: r.top, bottom: r.bottom };
  });
  assert.equal(skip.cls, "skip");
  assert.equal(skip.text, "Skip to the plots");
  assert.ok(skip.top >= 0 && skip.bottom <= DESKTOP.height, "the skip link shows when focused");
  await page.keyboard.press("Enter");
  assert.equal(await page.evaluate(() => document.activeElement.id), "plots");
  await page.keyboard.press("Tab");
  const control = await page.evaluate(() => ({ name: document.activeElement.name, inPlot: document.activeElement.closest("#cdf-tools") !== null }));
  assert.deepEqual(control, { name: "cdf-class", inPlot: true }, "two Tab presses (and Enter) reach the first plot control");
  assert.equal(new URL(page.url()).hash, "#v=1&preset=mixed", "the skip link leaves the scenario alone");
  // Without the skip link, counted for the record.
  await page.reload();
  await ready(page);
  let presses = 0;
  for (; presses < 200; presses++) {
    await page.keyboard.press("Tab");
    if (await page.evaluate(() => document.activeElement.closest("#cdf-tools") !== null)) break;
  }
  console.log(`desktop: Tab presses to the first plot control without the skip link: ${presses + 1}`);
  assert.deepEqual(errors, []);
  await context.close();
});

test("folded groups show a disclosure mark and a count; the sweep and the remapping are reachable from the top", async () => {
  for (const colorScheme of ["light", "dark"]) {
    const { page, context, errors } = await open(env.browser, { colorScheme, ...DESKTOP });
    await page.goto(env.server.base);
    await ready(page);
    const groups = await page.$$eval("#controls details", (ds) => ds.map((d) => ({
      mark: getComputedStyle(d.querySelector("summary"), "::before").content,
      count: d.querySelector("summary .count").textContent,
      controls: d.querySelectorAll(".control").length,
    })));
    assert.equal(groups.length, 3);
    for (const g of groups) {
      assert.equal(g.mark, '"▸"', "a closed group shows the closed mark");
      assert.equal(g.count, `${g.controls} settings`);
    }
    await page.click("#health-group summary");
    assert.equal(await page.$eval("#health-group summary", (s) => getComputedStyle(s, "::before").content), '"▾"');
    for (const id of ["sweep-panel", "remap-panel"]) {
      assert.equal(await page.$eval(`#${id} summary`, (s) => getComputedStyle(s, "::before").content), '"▸"', `${id} looks foldable`);
    }
    // The views from the links at the top of the page.
    const nav = await place(page, "nav.jump");
    assert.ok(nav.shown && nav.bottom < 150, `the links sit at the top (${nav.top})`);
    const hash = new URL(page.url()).hash;
    await page.click('nav.jump a[href="#remap-panel"]');
    assert.equal(await page.getAttribute("#remap-panel", "open"), "");
    await page.waitForFunction(() => document.querySelectorAll("#remap-table tbody tr").length === 5);
    assert.ok(await page.evaluate(() => document.activeElement.matches("#remap-panel > summary")), "the remap-panel's summary has the focus");
    await page.click('nav.jump a[href="#sweep-panel"]');
    assert.equal(await page.getAttribute("#sweep-panel", "open"), "");
    assert.ok(await page.evaluate(() => document.activeElement.matches("#sweep-panel > summary")), "the sweep-panel's summary has the focus");
    const top = await page.$eval("#sweep-panel", (e) => e.getBoundingClientRect().top);
    assert.ok(top >= 0 && top < DESKTOP.height / 2, `the sweep is in view (${top})`);
    assert.equal(new URL(page.url()).hash, hash, "in-page links leave the scenario alone");
    await screenshot(page, `desktop-sweep-from-the-top-${colorScheme}.png`, { fullPage: false });
    assert.equal(await page.locator("#notice").isHidden(), true);
    assert.deepEqual(errors, []);
    await context.close();
  }
});

test("an edited preset says so: the picker says edited, the lesson steps aside to one line, back to the preset and reset restore it", async () => {
  for (const [colorScheme, size, name] of [["light", DESKTOP, "desktop"], ["dark", DESKTOP, "desktop"], ["light", PHONE, "phone"], ["dark", PHONE, "phone"]]) {
    const { page, context, errors } = await open(env.browser, { colorScheme, ...size });
    await page.goto(env.server.base);
    await ready(page);
    const lesson = await page.locator("#lesson-text").innerText();
    assert.match(lesson, /One request in ten/);
    assert.deepEqual(await picker(page), { shows: "Mixed request costs", name: "preset" });
    assert.equal(await page.locator("#lesson-edited").isHidden(), true);
    let run = await page.getAttribute("body", "data-run-id");
    await page.locator("input[name=servers]").fill("64");
    await page.locator("input[name=servers]").press("Enter");
    await slide(page, "slow-share", "0.3");
    await slide(page, "zipf", "1.5");
    await newRun(page, run);
    await page.waitForFunction(() => location.hash === "#v=1&preset=mixed&servers=64&slow-share=0.3&zipf=1.5");
    assert.deepEqual(await picker(page), { shows: "Mixed request costs", name: "preset edited" }, "the picker says edited");
    assert.equal(await page.locator("#lesson-text").isHidden(), true, "the lesson's text steps aside");
    assert.equal(await page.locator("#lesson-title").innerText(), "Mixed request costs");
    assert.equal(await page.locator("#lesson-changed").innerText(),
      "You changed servers, slow share, Zipf s; the lesson was for the preset.");
    const line = await place(page, "#lesson-edited");
    // On a phone the text takes two lines over its 44 px button.
    assert.ok(line.shown && line.height <= (name === "phone" ? 96 : 40), `one line beside its button (${line.height} px)`);
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, `edited-${name}-${colorScheme}.png`, { fullPage: false });
    // Back to the preset: its scenario, its lesson, its numbers.
    run = await page.getAttribute("body", "data-run-id");
    await page.click("#back-to-preset");
    await newRun(page, run);
    await page.waitForFunction(() => location.hash === "#v=1&preset=mixed");
    assert.equal(await page.locator("#lesson-text").innerText(), lesson);
    assert.equal(await page.locator("#lesson-edited").isHidden(), true);
    assert.deepEqual(await picker(page), { shows: "Mixed request costs", name: "preset" });
    assert.equal(await page.inputValue("input[name=servers]"), "4");
    assert.deepEqual(await tableValues(page), expectedTable(nativeReport({})));
    assert.deepEqual(errors, []);
    await context.close();
  }
});

test("reset to defaults leaves any preset or edit for the defaults and their lesson; the picker shows whole titles", async () => {
  const { page, context, errors } = await open(env.browser, DESKTOP);
  await page.goto(env.server.base + "#v=1&preset=crash&seed=3");
  await ready(page);
  assert.deepEqual(await picker(page), { shows: "A crash that health checks must notice", name: "preset edited" });
  assert.equal(await page.locator("#lesson-changed").innerText(), "You changed seed; the lesson was for the preset.");
  // The title fits the picker: nothing cut.
  const fits = await page.$eval("#preset", (s) => {
    const probe = document.createElement("span");
    probe.style.font = getComputedStyle(s).font;
    probe.style.whiteSpace = "pre";
    probe.textContent = s.selectedOptions[0].text;
    document.body.append(probe);
    const need = probe.getBoundingClientRect().width;
    probe.remove();
    return { need, have: s.clientWidth };
  });
  assert.ok(fits.have >= fits.need + 16, `the picker is ${fits.have} px for ${fits.need} px of title`);
  const run = await page.getAttribute("body", "data-run-id");
  await page.click("#reset");
  await newRun(page, run);
  await page.waitForFunction(() => location.hash === "#v=1&preset=mixed");
  assert.deepEqual(await picker(page), { shows: "Mixed request costs", name: "preset" });
  assert.match(await page.locator("#lesson-text").innerText(), /One request in ten/);
  assert.deepEqual(await tableValues(page), expectedTable(nativeReport({})));
  assert.deepEqual(errors, []);
  await context.close();
});

test("groups a preset opened fold when another preset is chosen, and so does its remapping view", async () => {
  const { page, context, errors } = await open(env.browser, DESKTOP);
  await page.goto(env.server.base + "#v=1&preset=cache-locality");
  await ready(page);
  assert.equal(await page.getAttribute("#locality-group", "open"), "", "the preset's group opens");
  await page.selectOption("#preset", "mixed");
  await ready(page);
  assert.equal(await page.getAttribute("#locality-group", "open"), null, "and folds for the next preset");
  await page.selectOption("#preset", "scale-out");
  await ready(page);
  assert.equal(await page.getAttribute("#remap-panel", "open"), "");
  await page.selectOption("#preset", "degraded");
  await ready(page);
  assert.equal(await page.getAttribute("#remap-panel", "open"), null);
  assert.deepEqual(errors, []);
  await context.close();
});

test("no empty band under the lesson: the run's status takes no room between runs", async () => {
  for (const [path, size, name] of [["", DESKTOP, "desktop"], ["", PHONE, "phone"], ["?embed=1&controls=seed#v=1&preset=degraded", { width: 800, height: 900 }, "embed"]]) {
    const { page, context, errors } = await open(env.browser, size);
    await page.goto(env.server.base + path);
    await ready(page);
    const lesson = await place(page, "#lesson");
    // What shows next after the lesson.
    const next = await page.$eval("#lesson", (e) => {
      let n = e.nextElementSibling;
      while (n && !n.checkVisibility()) n = n.nextElementSibling;
      return { id: n.id || n.className, top: n.getBoundingClientRect().top + scrollY };
    });
    console.log(`${name}: lesson ends at ${lesson.bottom}, then ${next.id} at ${next.top}`);
    assert.ok(lesson.shown, `${name}: the lesson shows`);
    assert.ok(next.top - lesson.bottom <= 14, `${name}: ${next.top - lesson.bottom} px between the lesson and ${next.id}`);
    if (name === "embed") assert.ok((await place(page, "#status")).height <= 1, "the embed keeps no room for the status");
    assert.deepEqual(errors, []);
    await context.close();
  }
});

test("history: one entry per committed edit, a dragged slider one entry; Back and Forward restore the controls and the numbers", async () => {
  const { page, context, errors } = await open(env.browser, DESKTOP);
  await page.goto(env.server.base);
  await ready(page);
  const length = () => page.evaluate(() => history.length);
  const start = await length();
  // A typed value commits on Enter: one entry.
  let run = await page.getAttribute("body", "data-run-id");
  const seed = page.locator("input[name=seed]");
  await seed.fill("7");
  assert.equal(await length(), start, "typing alone adds no entry");
  await seed.press("Enter");
  await newRun(page, run);
  assert.equal(new URL(page.url()).hash, "#v=1&preset=mixed&seed=7");
  assert.equal(await length(), start + 1);
  const seven = await tableValues(page);
  assert.deepEqual(seven, expectedTable(nativeReport({ seed: 7 })));
  // A dragged slider: one entry, holding where it stopped.
  run = await page.getAttribute("body", "data-run-id");
  const slider = page.locator("input[name=slow-share]");
  await slider.scrollIntoViewIfNeeded();
  const box = await slider.boundingBox();
  const y = box.y + box.height / 2;
  await page.mouse.move(box.x + box.width * 0.1, y);
  await page.mouse.down();
  for (let i = 1; i <= 10; i++) {
    await page.mouse.move(box.x + box.width * (0.1 + i * 0.02), y);
    await page.waitForTimeout(30);
  }
  await page.mouse.up();
  await newRun(page, run);
  await ready(page);
  const dragged = await slider.inputValue();
  assert.ok(Number(dragged) > 0.2, `the slider moved (${dragged})`);
  assert.equal(await length(), start + 2, "the drag is one entry");
  assert.equal(new URL(page.url()).hash, `#v=1&preset=mixed&slow-share=${dragged}&seed=7`);
  // A menu: one entry.
  run = await page.getAttribute("body", "data-run-id");
  await page.selectOption("#preset", "degraded");
  await newRun(page, run);
  assert.equal(await length(), start + 3);
  assert.match(await page.locator("#lesson-title").innerText(), /degraded/i);
  // Back: the drag's scenario, its controls, its lesson and its numbers.
  run = await page.getAttribute("body", "data-run-id");
  await page.goBack();
  await newRun(page, run);
  assert.equal(new URL(page.url()).hash, `#v=1&preset=mixed&slow-share=${dragged}&seed=7`);
  assert.equal(await page.inputValue("#preset"), "mixed");
  assert.equal(await page.locator("#lesson-changed").innerText(), "You changed slow share, seed; the lesson was for the preset.");
  assert.equal(await slider.inputValue(), dragged);
  assert.deepEqual(await tableValues(page), expectedTable(nativeReport({ "slow-share": Number(dragged), seed: 7 })));
  // Back again: before the drag.
  run = await page.getAttribute("body", "data-run-id");
  await page.goBack();
  await newRun(page, run);
  assert.equal(await slider.inputValue(), "0.1");
  assert.equal(await page.inputValue("input[name=seed]"), "7");
  assert.deepEqual(await tableValues(page), seven);
  // Back to the page as it opened; Forward redoes the edit.
  run = await page.getAttribute("body", "data-run-id");
  await page.goBack();
  await newRun(page, run);
  assert.equal(await page.inputValue("input[name=seed]"), "16");
  assert.equal(await page.locator("#lesson-edited").isHidden(), true);
  assert.deepEqual(await tableValues(page), expectedTable(nativeReport({})));
  run = await page.getAttribute("body", "data-run-id");
  await page.goForward();
  await newRun(page, run);
  assert.equal(await page.inputValue("input[name=seed]"), "7");
  assert.deepEqual(await tableValues(page), seven);
  assert.equal(await page.locator("#notice").isHidden(), true);
  assert.deepEqual(errors, []);
  await context.close();
});

test("screenshots: the full page at 1280x800 and 390x844, light and dark", async () => {
  for (const colorScheme of ["light", "dark"]) {
    for (const [size, name] of [[DESKTOP, "desktop"], [PHONE, "phone"]]) {
      const { page, context } = await open(env.browser, { colorScheme, ...size });
      await page.goto(env.server.base);
      await ready(page);
      await page.mouse.move(0, 0);
      await screenshot(page, `navigation-${name}-${colorScheme}.png`, { fullPage: false });
      await context.close();
    }
  }
});

const TOUCH_PHONE = { ...PHONE, hasTouch: true };

test("on a touch phone every target is at least 44 x 44 px (WCAG 2.5.5), every panel open; links in running text are exempt", async () => {
  for (const colorScheme of ["light", "dark"]) {
    const { page, context, errors } = await open(env.browser, { colorScheme, ...TOUCH_PHONE });
    await page.goto(env.server.base + "#v=1&preset=crash&view=replay&t=27");
    await ready(page);
    assert.ok(await page.evaluate(() => matchMedia("(pointer: coarse)").matches), "a coarse pointer");
    // Every folded group and panel open, their modules' controls built,
    // and the embed code with its script shown.
    for (const summary of await page.$$("details:not([open]) > summary")) {
      if (await summary.isVisible()) await summary.click();
    }
    await page.waitForSelector("#remap-change");
    await page.waitForSelector("#config-for");
    await page.waitForFunction(() => document.getElementById("replay-view")?.dataset.state === "ready", null, { timeout: 60000 });
    await page.click("#copy-embed");
    await page.waitForSelector("#embed-script");
    const { small, count } = await page.evaluate(() => {
      // A link inside running text: its parent holds words of its own.
      const inText = (a) => a.tagName === "A" && [...a.parentElement.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
      const targets = [...document.querySelectorAll("a[href], button, select, input, textarea, summary, [tabindex='0']")]
        .filter((e) => e.checkVisibility() && !inText(e));
      const small = targets.map((e) => {
        // A box or a radio is hit through its label.
        const r = (/checkbox|radio/.test(e.type) ? e.closest("label") ?? e : e).getBoundingClientRect();
        return { e: `${e.tagName.toLowerCase()} ${e.id || e.name || e.getAttribute("aria-label") || e.textContent.trim().slice(0, 24)}`, w: r.width, h: r.height };
      }).filter((t) => t.w < 44 - 0.01 || t.h < 44 - 0.01).map((t) => `${t.e} ${t.w.toFixed(1)}x${t.h.toFixed(1)}`);
      return { small, count: targets.length };
    });
    console.log(`touch phone (${colorScheme}): ${count} targets, ${small.length} under 44 px`);
    assert.ok(count > 120, `the targets counted (${count})`);
    assert.deepEqual(small, [], "targets under 44 x 44 px");
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= PHONE.width, "no sideways scroll");
    await page.locator("#controls").scrollIntoViewIfNeeded();
    await screenshot(page, `touch-phone-controls-${colorScheme}.png`, { fullPage: false });
    assert.deepEqual(errors, []);
    await context.close();
  }
});

test("on a phone an edit at the controls shows the run's status there, and a way back to the results", async () => {
  const { page, context, errors } = await open(env.browser, TOUCH_PHONE);
  // Many servers and users alike, so that 1,000,000 requests ask first
  // (long-runs.test.mjs).
  await page.goto(env.server.base + "#v=1&servers=1024&users=1000000&zipf=0");
  await ready(page);
  /** Whether the element is whole on the screen now, and on top there. */
  const onScreen = (selector) => page.$eval(selector, (e) => {
    const r = e.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return e.checkVisibility({ visibilityProperty: true }) && r.top >= 0 && r.bottom <= innerHeight && r.height > 0 && e.contains(hit);
  });
  await page.click('nav.jump a[href="#controls"]');
  const seed = page.locator("input[name=seed]");
  await seed.scrollIntoViewIfNeeded();
  assert.equal(await onScreen("#cdf"), false, "the plots are off the screen");
  // A run long enough to ask first: the question is on the screen.
  const requests = page.locator("input[name=requests]");
  await requests.scrollIntoViewIfNeeded();
  await requests.fill("1000000");
  await requests.press("Enter");
  await page.waitForSelector("#confirm:not([hidden])");
  assert.ok(await onScreen("#confirm"), "the question about a long run is on the screen");
  await page.click("#confirm-keep");
  assert.equal(await page.locator("#status-text").innerText(), "Not run: the plots show the last result.");
  assert.ok(await onScreen("#status-text"), "and so is what came of it");
  // An ordinary edit: the bar with the preset and the run's status stays
  // on the screen, with the way back.
  await requests.fill("20000");
  await requests.press("Enter");
  await ready(page);
  let run = await page.getAttribute("body", "data-run-id");
  await seed.scrollIntoViewIfNeeded();
  await seed.fill("7");
  await seed.press("Enter");
  await page.waitForFunction((r) => document.body.dataset.runId !== r && document.body.dataset.state === "ready", run);
  for (const part of ["#status", "#preset", ".to-results"]) assert.ok(await onScreen(part), `${part} is on the screen`);
  assert.ok(await onScreen("#controls .control[data-key=seed]"), "the control edited is not covered");
  await screenshot(page, "phone-edit-at-the-controls.png", { fullPage: false });
  await page.click(".to-results");
  assert.equal(await page.evaluate(() => document.activeElement.id), "plots");
  await page.waitForFunction(() => { const r = document.getElementById("cdf").getBoundingClientRect(); return r.top >= 0 && r.top < innerHeight / 2; });
  assert.ok(await onScreen("#cdf-tools"), "back at the results");
  assert.deepEqual(errors, []);
  await context.close();
});
