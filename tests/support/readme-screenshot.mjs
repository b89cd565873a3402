// The README's figure: the default page at 1280x900, light, the pointer
// out of the way, written to web/screenshot.png. A command, not a test (it
// asserts nothing but that the page reached its ready state):
//
//   cargo xtask build && node tests/support/readme-screenshot.mjs
//
// LBSIM_DIST, LBSIM_CHROMIUM and LBSIM_SCREENSHOT (the output path) as in
// the harness.
import { resolve } from "node:path";
import { serve, launch, open, ready } from "./harness.mjs";

const path = resolve(process.env.LBSIM_SCREENSHOT ?? "web/screenshot.png");
const server = await serve();
const browser = await launch();
try {
  const { page } = await open(browser, { deviceScaleFactor: 1, width: 1280, height: 900 });
  await page.goto(server.base);
  await ready(page);
  await page.mouse.move(0, 0);
  await page.screenshot({ path, fullPage: false });
  console.log(`wrote ${path}`);
} finally {
  await browser.close();
  await server.close();
}
