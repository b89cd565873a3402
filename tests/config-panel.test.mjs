// The second module (crates/lbsim-panels), in headless Chromium against
// dist/: a first visit does not fetch it; opening the Config panel does,
// once, and the panel writes exactly what `lbsim config` writes for the
// command it shows (the CLI is the arbiter here; the configs themselves
// are held to the real NGINX and HAProxy by `cargo xtask conformance`).
// The remapping panel, drawn by the same module, is tested where it was
// (embed.test.mjs, no-silent-no-ops.test.mjs).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { useBrowser, open, ready, OUTPUT } from "./support/harness.mjs";

const env = useBrowser();

const fetched = (name) => env.server.log.filter((e) => e.path.split("?")[0].endsWith(name)).length;

/** The command the panel shows, split as a shell would (one quoted URL). */
function argv(command) {
  const [head, url] = command.split(" --url ");
  return [...head.split(" ").slice(1), "--url", url.replace(/^'|'$/g, "")];
}

test("a first visit does not fetch the second module; the Config panel does, once, and writes what lbsim config writes", async () => {
  const { page, context } = await open(env.browser);
  env.server.log.length = 0;
  await page.goto(env.server.base + "#v=1&preset=mixed&servers=5&weights=3,1,1,2,1");
  await ready(page);
  assert.equal(fetched("lbsim-panels.js") + fetched("lbsim-panels_bg.wasm"), 0, "a first visit carries only the first module");
  await page.locator("#config-panel summary").click();
  await page.waitForFunction(() => document.getElementById("config-text")?.textContent.length > 0);
  assert.equal(fetched("lbsim-panels.js"), 1);
  assert.equal(fetched("lbsim-panels_bg.wasm"), 1);
  const cli = process.env.LBSIM_CLI;
  for (const balancer of ["nginx", "haproxy", "envoy", "grpc"]) {
    for (const full of [false, true]) {
      await page.selectOption("#config-for", balancer);
      await page.setChecked("#config-full", full);
      await page.waitForFunction(([b, f]) => {
        const c = document.getElementById("config-cli").textContent;
        return c.includes(`--for ${b} `) && c.includes(" --full") === f;
      }, [balancer, full]);
      const text = await page.textContent("#config-text");
      const command = await page.textContent("#config-cli");
      assert.match(text, { nginx: /upstream lbsim \{/, haproxy: /backend lbsim/, envoy: /lb_policy: /, grpc: /"loadBalancingConfig": \[/ }[balancer]);
      // The first server's weight, 3, as each balancer writes a weight
      // (gRPC's service config names no server, and says so).
      const weight = { nginx: /server 127\.0\.0\.1:8081 weight=3;/, haproxy: /127\.0\.0\.1:8081 .*weight 3\b/, envoy: /load_balancing_weight: 3 /, grpc: /^# servers \(servers, names, weights\): gRPC's name resolver/m }[balancer];
      assert.match(text, weight);
      if (cli) {
        const printed = execFileSync(cli, argv(command)).toString();
        assert.equal(text, printed, `the panel and ${command}`);
      }
    }
  }
  // The rule list follows the scenario's rules; the second module stays loaded.
  const rules = await page.$$eval("#config-rule option", (os) => os.map((o) => o.value));
  assert.ok(rules.includes("round-robin") && rules.includes("consistent-hash"), rules.join(","));
  await page.selectOption("#config-rule", "consistent-hash");
  await page.selectOption("#config-for", "nginx");
  await page.waitForFunction(() => document.getElementById("config-text").textContent.includes("hash $arg_user consistent"));
  assert.equal(fetched("lbsim-panels_bg.wasm"), 1, "fetched once");
  await context.close();
});

test("the Config panel reads in light and dark, on desktop and phone (screenshots)", async () => {
  for (const [name, size] of [["desktop", { width: 1280, height: 900, deviceScaleFactor: 1 }], ["phone", { width: 390, height: 844, deviceScaleFactor: 3 }]]) {
    for (const colorScheme of ["light", "dark"]) {
      const { page, context } = await open(env.browser, { ...size, colorScheme });
      await page.goto(env.server.base + "#v=1&preset=mixed");
      await ready(page);
      await page.evaluate(() => { document.getElementById("config-panel").open = true; });
      await page.waitForFunction(() => document.getElementById("config-text")?.textContent.length > 0);
      const box = await page.$eval("#config-text", (e) => {
        const r = e.getBoundingClientRect();
        const s = getComputedStyle(e);
        return { width: r.width, scroll: e.scrollWidth, color: s.color, background: s.backgroundColor };
      });
      assert.ok(box.width > 200, `the config has room on ${name}`);
      assert.notEqual(box.color, box.background, "text and background differ");
      mkdirSync(OUTPUT, { recursive: true });
      await page.locator("#config-panel").screenshot({ path: join(OUTPUT, `config-panel-${name}-${colorScheme}.png`) });
      await context.close();
    }
  }
});
