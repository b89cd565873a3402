// The replay view read as a reader reads it: the clock, the Play
// button's label and the counters from their visible text, and the
// canvases from what each frame drew (the view's record, which a test
// asks for by setting `window.lbsimReplayDrawn` to an array before the
// page loads: per side and frame the layout, each row's state and what
// its label says, every mark with its place and every label with its
// box, in CSS px) held against the canvas's own pixels.
import assert from "node:assert/strict";

/** Asks the view to record what it draws, from the page's first frame on. */
export async function recordDrawing(context) {
  await context.addInitScript(() => {
    window.lbsimReplayDrawn = [];
  });
}

export async function replayReady(page) {
  await page.waitForFunction(() => document.getElementById("replay-view")?.dataset.state === "ready", null, { timeout: 60000 });
}

/** The clock's text ("23.017 s of 56.475 s") as ms: the playhead and the end. */
export function clockMs(text) {
  const m = /^(\d+\.\d{3}) s of (\d+\.\d{3}) s$/.exec(text.trim());
  assert.ok(m, `the clock reads "${text}"`);
  return { t: Math.round(Number(m[1]) * 1000), end: Math.round(Number(m[2]) * 1000) };
}

/** The page's pair and window (its controls), the playhead (its clock) and
 * whether it plays (its button says Pause). */
export async function where(page) {
  const seen = await page.evaluate(() => ({
    pair: [0, 1].map((i) => document.getElementById(`replay-rule-${i}`).value),
    window: Number(document.getElementById("replay-window").value),
    clock: document.getElementById("replay-clock").textContent,
    button: document.getElementById("replay-play").textContent,
  }));
  return { pair: seen.pair, window: seen.window, t: clockMs(seen.clock).t, playing: seen.button === "Pause" };
}

/** A count as the page writes it (thousands with commas). */
const count = (text) => Number(text.replaceAll(",", ""));

/** The counters under rule `i`'s canvas, from their visible text:
 * "arrived 1,234 · answered 1,200 · errors 3 · retries 0 · p99 so far 20.0 ms". */
export async function shownCounters(page, i) {
  const text = await page.locator(`#replay-counters-${i}`).innerText();
  const m = /^arrived ([\d,]+) · answered ([\d,]+) · errors ([\d,]+) · retries ([\d,]+) · p99 so far (none yet|[\d.]+ ms)$/.exec(text.trim());
  assert.ok(m, `the counters read "${text}"`);
  return {
    arrived: count(m[1]),
    finished: count(m[2]),
    errors: count(m[3]),
    retries: count(m[4]),
    p99: m[5] === "none yet" ? null : m[5].replace(" ms", ""),
  };
}

/** The records of what each side drew, oldest first. */
export async function drawn(page) {
  return page.evaluate(() => window.lbsimReplayDrawn.map((r) => JSON.parse(r)));
}

/** The latest record of each side. */
export async function lastDrawn(page) {
  return page.evaluate(() => {
    const records = window.lbsimReplayDrawn;
    const last = (i) => records.findLast((r) => r.startsWith(`{"side":${i},`));
    return [0, 1].map((i) => JSON.parse(last(i)));
  });
}

/** Forgets the records so far. */
export async function forgetDrawn(page) {
  await page.evaluate(() => {
    window.lbsimReplayDrawn.length = 0;
  });
}

/** Per server, the numbers a record drew in its two count columns
 * ("in flight", then "waiting"), read from its labels at each row's height. */
export function drawnCounts(record) {
  const { rows, top, row } = record;
  return rows.map((_, s) => {
    const y = top + row * s + row / 2;
    const [inFlight, waiting] = record.labels
      .filter(([, x0, y0, , y1]) => y0 < y && y < y1 && x0 > record.countsX - 1)
      .sort((a, b) => a[3] - b[3])
      .map(([text]) => Number(text));
    return { inFlight, waiting };
  });
}

/** The marks of a record, each with its reach (its radius, a ring's
 * around a retry included). */
function markBoxes(record) {
  const reach = record.radius + 3;
  return record.marks.map(([x, y, place, server]) => ({ x0: x - reach, y0: y - reach, x1: x + reach, y1: y + reach, place, server }));
}

const overlap = (a, b) => a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;

/** What a reader could not read in a record: a mark over a label, two
 * labels over each other, a label past the canvas's edges, a request
 * going back answered where queued requests wait. Empty when all reads. */
export function unreadable(record) {
  const problems = [];
  const labels = record.labels.map(([text, x0, y0, x1, y1]) => ({ text, x0, y0, x1, y1 }));
  const marks = markBoxes(record);
  for (const l of labels) {
    if (l.x0 < 0 || l.x1 > record.width + 0.5) problems.push(`"${l.text}" past the edge (${l.x0.toFixed(1)}..${l.x1.toFixed(1)} of ${record.width})`);
    const under = marks.find((m) => overlap(m, l));
    if (under) problems.push(`a mark (${under.place}, s${under.server + 1}) over "${l.text}"`);
  }
  for (const [k, a] of labels.entries()) {
    for (const b of labels.slice(k + 1)) {
      if (overlap(a, b)) problems.push(`"${a.text}" over "${b.text}"`);
    }
  }
  for (const [x, , place, server] of record.marks) {
    if ((place === "l" || place === "x") && x + record.radius > record.queueX) {
      problems.push(`an answered request (${place}) in s${server + 1}'s queue at x ${x.toFixed(1)} (the queue from ${record.queueX.toFixed(1)})`);
    }
  }
  return problems;
}

/** The canvas pixel (r, g, b) under each CSS point of side `i`. */
export async function pixels(page, i, points) {
  return page.evaluate(
    ([i, points]) => {
      const c = document.getElementById(`replay-canvas-${i}`);
      const ctx = c.getContext("2d");
      const scale = c.width / c.clientWidth;
      return points.map(([x, y]) => [...ctx.getImageData(Math.round(x * scale), Math.round(y * scale), 1, 1).data.slice(0, 3)]);
    },
    [i, points],
  );
}

/** Whether two colours are within `tolerance` on each channel. */
export function near(a, b, tolerance = 40) {
  return a.every((v, k) => Math.abs(v - b[k]) <= tolerance);
}
