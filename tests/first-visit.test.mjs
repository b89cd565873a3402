// The first visit's weight (docs/performance.md#the-figures), in headless
// Chromium against dist/: the bytes a reader's first visit transfers,
// gzipped at level 9 as the harness's server sends them, from navigation
// to ready (every plot drawn), counted as `cargo xtask bench page` counts
// them: up to the request for `offline.js`, which the page imports once
// ready (what comes from it on is the service worker's, not the visit's).
import { test } from "node:test";
import assert from "node:assert/strict";
import { useBrowser, open, ready } from "./support/harness.mjs";

const env = useBrowser();

/** The budget of a first visit, in KiB (1,024 bytes), gzipped. */
const BUDGET_KIB = 250;

test("a first visit transfers at most 250 KiB gzipped, navigation to ready", async () => {
  const { page, context, errors } = await open(env.browser);
  env.server.log.length = 0;
  await page.goto(env.server.base);
  await ready(page);
  const split = env.server.log.findIndex((e) => e.path.startsWith("offline.js"));
  const visit = env.server.log.slice(0, split < 0 ? env.server.log.length : split);
  await context.close();
  const total = visit.reduce((s, e) => s + e.bytes, 0);
  const files = [...visit].sort((a, b) => b.bytes - a.bytes).map((e) => `${(e.bytes / 1024).toFixed(1)} KiB ${e.path}`);
  console.log(`first visit: ${(total / 1024).toFixed(2)} KiB gzipped in ${visit.length} files (${files.join(", ")})`);
  assert.deepEqual(errors, [], "the page runs without errors");
  // The first plot needs the page's module, its glue and the styles: a
  // count of fewer bytes than those would be a server that counted nothing.
  for (const kind of [/_bg\.wasm$/, /^lbsim-page-.*\.js$/, /\.css$/, /^index\.html$|^$/]) {
    assert.ok(visit.some((e) => kind.test(e.path) && e.bytes > 0), `the visit's count holds ${kind}`);
  }
  assert.ok(
    total <= BUDGET_KIB * 1024,
    `the first visit is ${(total / 1024).toFixed(2)} KiB gzipped, over its ${BUDGET_KIB} KiB budget by ${((total - BUDGET_KIB * 1024) / 1024).toFixed(2)} KiB: move what the first plot does not need into a module fetched on first use (crates/lbsim-web/src/lazy.rs)`,
  );
});
