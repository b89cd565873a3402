// The "Your traffic" panel's budget (docs/performance.md#the-figures),
// measured in headless Chromium against the built dist/: a 1,000,000-line
// NGINX log in lbsim's timing format (about 150 MB, written here) picked in
// the panel, from the pick to every plot drawn (the page's ready state
// with the log's run on screen); input to frame while it is read (a key
// typed every 50 ms in the page, from the event to the next frame the
// browser renders after it); Chromium's memory with the log read and run.
// Run by `cargo xtask bench page` after the page's own figures (or
// `node tests/support/bench-traffic.mjs` after `cargo xtask build`).
import { execSync } from "node:child_process";
import { createWriteStream, mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { serve, launch, open, ready, OUTPUT } from "./harness.mjs";

const LINES = 1_000_000;
const file = join(OUTPUT, "traffic", "bench-1m.log");

/** The log: arrivals about 2,000 a second over 500 s, work about 52 ms
 * on average, 150 servers (offered load about 0.7), 5,000 clients. */
async function write() {
  mkdirSync(join(OUTPUT, "traffic"), { recursive: true });
  const out = createWriteStream(file);
  let s = 12345;
  const next = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
  let t = 1_765_101_600;
  let chunk = [];
  for (let i = 0; i < LINES; i++) {
    t += -Math.log(1 - next()) / 2000;
    const upstream = 0.002 + next() * next() * 0.2;
    const total = upstream + next() * 0.002;
    const client = 1 + Math.floor(next() ** 3 * 5000);
    const ip = `198.51.${client >> 8}.${client & 255}`;
    chunk.push(`${ip} [07/Dec/2026:10:00:00 +0000] "GET /api/v1/catalogue/items/${i}?session=${(client * 2654435761 >>> 0).toString(16)}&view=full HTTP/1.1" 200 ${(t + total).toFixed(3)} ${total.toFixed(3)} ${upstream.toFixed(3)} 10.0.${(i % 150) >> 6}.${i % 150}:8080\n`);
    if (chunk.length === 10000) {
      if (!out.write(chunk.join(""))) await new Promise((ok) => out.once("drain", ok));
      chunk = [];
    }
  }
  out.end(chunk.join(""));
  await new Promise((ok) => out.on("finish", ok));
}

const chromiumRss = () => {
  try {
    const kb = execSync("ps -C chromium -o rss=", { encoding: "utf8" }).split("\n").map(Number).filter((x) => x > 0);
    return kb.reduce((a, b) => a + b, 0) / 1024;
  } catch {
    return null;
  }
};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

await write();
const mb = statSync(file).size / 1e6;
const server = await serve();
const browser = await launch();
const { page, context, errors } = await open(browser, { deviceScaleFactor: 1, width: 1400, height: 1000 });
await page.goto(server.base);
await ready(page);
await page.locator("#traffic-panel > summary").click();
await page.waitForSelector("#traffic-file");
// Input to frame: each keydown's time to the frame after it.
await page.evaluate(() => {
  window.lbsimInputToFrame = [];
  addEventListener("keydown", (e) => {
    const at = e.timeStamp;
    requestAnimationFrame(() => setTimeout(() => window.lbsimInputToFrame.push(performance.now() - at), 0));
  });
});
const before = chromiumRss();
await page.focus("#traffic-time-scale");
const start = Date.now();
await page.locator("#traffic-file").setInputFiles(file);
let typing = true;
const typed = (async () => {
  while (typing) {
    await page.keyboard.press("Shift");
    await new Promise((ok) => setTimeout(ok, 50));
  }
})();
await page.waitForFunction(() => document.body.dataset.traffic, null, { timeout: 120000, polling: 20 });
await ready(page, 120000);
const wall = (Date.now() - start) / 1000;
typing = false;
await typed;
const after = chromiumRss();
const frames = await page.evaluate(() => window.lbsimInputToFrame);
const status = await page.locator("#traffic-status").innerText();
console.log(`traffic: a ${LINES.toLocaleString("en")}-line NGINX log (${mb.toFixed(1)} MB) from the pick to every plot drawn: ${wall.toFixed(2)} s (${await page.getAttribute("body", "data-traffic")}: ${status})`);
console.log(`traffic: input to frame while it is read and run: median ${median(frames).toFixed(1)} ms, max ${Math.max(...frames).toFixed(1)} ms of ${frames.length}`);
if (before !== null && after !== null) console.log(`traffic: Chromium's memory (all processes) ${before.toFixed(0)} MB before, ${after.toFixed(0)} MB with the log read and run (+${(after - before).toFixed(0)} MB)`);
if (errors.length > 0) console.log(`traffic: page errors: ${errors.join("; ")}`);
await context.close();
await browser.close();
await server.close();
