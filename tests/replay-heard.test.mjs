// The replay view shows what a rule heard and learned
// (crates/lbsim-web/src/replay/draw.rs; docs/web.md#what-the-replay-shows-of-what-a-rule-hears): a
// probing rule's probes, a diamond beside the balancer's bar for each server
// probed in the last 300 ms, and a column with what each server's last reply
// carried; a learning rule's weights, a bar at each row's foot and a column,
// changing at each update. Held against `lbsim replay --format messages` and
// `lbsim replay --at` (the CLI, run apart, the core's times to the bit); the
// status line says the same in text; screenshots light, dark and phone.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { useBrowser, open, ready, OUTPUT } from "./support/harness.mjs";
import { recordDrawing, replayReady, where, lastDrawn } from "./support/replay-view.mjs";

const env = useBrowser();
const CLI = process.env.LBSIM_CLI ?? "target/release/lbsim";
const SHOTS = join(OUTPUT, "replay-heard");
/** Simulated ms a probe's mark stays (draw.rs's PROBE_SHOWN_MS). */
const PROBE_SHOWN_MS = 300;

/** `lbsim replay --format messages` for the link, pair and window, as rows. */
function messages(link, pair, window) {
  assert.ok(existsSync(CLI), `the CLI (${CLI}) is built`);
  const csv = execFileSync(CLI, ["replay", "--url", link, "--pair", pair.join(","), "--window", String(window), "--format", "messages"], {
    maxBuffer: 1 << 28,
    stdio: ["ignore", "pipe", "ignore"],
  }).toString();
  const [head, ...lines] = csv.trim().split("\n");
  const keys = head.split(",");
  return lines.map((l) => Object.fromEntries(l.split(",").map((v, i) => [keys[i], v])));
}

async function openAt(page, link, t) {
  await page.goto(`${link}&view=replay&t=${t}`);
  await page.reload();
  await ready(page);
  await replayReady(page);
}

async function shoot(page, name) {
  mkdirSync(SHOTS, { recursive: true });
  await page.locator("#replay-panel").screenshot({ path: join(SHOTS, `${name}.png`) });
}

test("learned weights: each side's weights at the playhead are its first copy's last update, as lbsim replay says, and its bars stand in their ratio", async () => {
  const link = `${env.server.base}#v=1&preset=learned-weights`;
  for (const [scheme, options] of [["light", {}], ["dark", { colorScheme: "dark" }], ["phone", { width: 390, height: 844, deviceScaleFactor: 3, hasTouch: true }]]) {
    const { page, context } = await open(env.browser, { deviceScaleFactor: 1, ...options });
    await recordDrawing(context);
    for (const t of [12, 20]) {
      await page.goto(`${link}&view=replay&pair=grpc-wrr,envoy-cswrr&t=${t}`);
      await page.reload();
      await ready(page);
      await replayReady(page);
      const { pair, window } = await where(page);
      assert.deepEqual(pair, ["grpc-wrr", "envoy-cswrr"]);
      const log = messages(link, pair, window);
      const records = await lastDrawn(page);
      const status = await page.locator("#replay-status").innerText();
      for (const [i, rule] of pair.entries()) {
        const updates = log.filter((m) => m.algorithm === rule && m.kind === "weights" && m.copy === "0" && Number(m.at_ms) <= t * 1000);
        assert.ok(updates.length > 0, `${rule}: an update by ${t} s`);
        const expected = updates.at(-1).weights.split(";").map(Number);
        const drawn = records[i].weights;
        assert.deepEqual(drawn.values, expected, `${rule} at ${t} s: the weights drawn are the last update's`);
        const heaviest = Math.max(...expected);
        for (const [s, w] of expected.entries()) {
          const ratio = heaviest > 0 ? w / heaviest : 0;
          assert.ok(Math.abs(drawn.bars[s] - ratio * Math.max(...drawn.bars)) < 0.01, `${rule} s${s + 1}: bar ${drawn.bars[s]} for ${w} of ${heaviest}`);
        }
        assert.match(status, new RegExp(`${rule}: .*Weights in force: s1 `), `the status line says ${rule}'s weights`);
      }
      if (t === 20) {
        await shoot(page, `weights-${scheme}`);
      }
    }
    await context.close();
  }
});

test("probes: each server Prequal probed in the last 300 ms is marked, at the core's times, and its last reply's RIF is in its row", async () => {
  const link = `${env.server.base}#v=1&preset=antagonists&window=400`;
  for (const [scheme, options] of [["light", {}], ["dark", { colorScheme: "dark" }], ["phone", { width: 390, height: 844, deviceScaleFactor: 3, hasTouch: true }]]) {
    const { page, context } = await open(env.browser, { deviceScaleFactor: 1, ...options });
    await recordDrawing(context);
    const t = 0.2;
    await openAt(page, `${link}&pair=prequal,least-connections`, t);
    const { pair, window } = await where(page);
    assert.deepEqual(pair, ["prequal", "least-connections"]);
    const tMs = t * 1000;
    const probes = messages(link, pair, window).filter((m) => m.algorithm === "prequal" && m.kind === "probe");
    const recent = probes.filter((p) => Number(p.sent_ms) > tMs - PROBE_SHOWN_MS && Number(p.sent_ms) <= tMs);
    const newest = new Map();
    for (const p of recent) {
      const s = Number(p.server.slice(1)) - 1;
      newest.set(s, Math.max(newest.get(s) ?? -Infinity, Number(p.sent_ms)));
    }
    assert.ok(newest.size > 0, "probes in the last 300 ms");
    const [prequal, other] = await lastDrawn(page);
    assert.deepEqual(new Map(prequal.probes.map(([s, sent]) => [s, sent])), newest, "one mark per server probed, at its newest probe's sending");
    assert.deepEqual(other.probes, [], "least connections probes nothing");
    // The last reply by then, per server, as lbsim replay's counters say.
    const table = execFileSync(CLI, ["replay", "--url", link, "--pair", pair.join(","), "--window", String(window), "--at", String(t)]).toString();
    const line = table.split("\n").find((l) => l.includes("last replies:"));
    assert.ok(line, table);
    const status = await page.locator("#replay-status").innerText();
    for (const [, name, rif] of line.matchAll(/(s\d+) (\d+) in flight/g)) {
      const s = Number(name.slice(1)) - 1;
      const y = prequal.top + prequal.row * s + prequal.row / 2;
      assert.ok(prequal.labels.some(([text, , y0, , y1]) => text === rif && y0 < y && y < y1), `${name}'s row shows its last reply's RIF ${rif}`);
      assert.match(status, new RegExp(`${name} ${rif} in flight`), `the status line says ${name}'s last reply`);
    }
    await shoot(page, `probes-${scheme}`);
    await context.close();
  }
});
