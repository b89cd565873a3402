// The last step of `cargo xtask build`, after `trunk build --release
// --minify true`: what Trunk cannot do for the deployable dist/.
//
// - Minifies the JavaScript with terser. Trunk's own minifier gives up on
//   wasm-bindgen's glue (`export { .. as default }`: "Failed to minify JS:
//   RequiredTokenNotFound(Identifier)") and ships it as written: 8.0 KB
//   gzipped against 6.2 minified.
// - Runs Binaryen's size optimizer over the module (`wasm-opt -Os`, npm
//   `binaryen`; Debian's binaryen is too old for rustc's output): about
//   3.5 KiB less gzipped after Rust's opt-level "z" and LTO, at the same
//   speed (`cargo xtask bench page`). It changes no number: no fast-math.
//   The pipeline runs three times (`-Os -Os -Os`): the later passes find
//   what the first one's inlining opened up, 0.9 KiB less gzipped.
// - Drops the module's "name" custom section (wasm-bindgen's names for its
//   own adapter functions, 5.6 KB; `strip = true` already removed Rust's).
// - Writes the subresource integrity hashes of index.html again for the
//   files it changed, since the browser refuses a file whose hash differs,
//   and the version of the modules fetched on first use (`data-lbsim-lazy`, web/boot.js).
// - Writes the service worker's version (`data-lbsim-offline`, web/boot.js
//   and web/sw.js): a hash of every file but index.html, so that a new
//   build installs a new worker and drops the old cache.
// - Given the public URL (`--public-url https://example.org/lbsim/`), writes
//   the link previews' image tags (web/previews.mjs). Without it the
//   preview has its title and description only.
//
//   node web/finish.mjs DIST [--public-url URL]
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";
import { minify } from "terser";
import { publicUrl, withPreviewImage } from "./previews.mjs";

const wasmOpt = createRequire(import.meta.url).resolve("binaryen/bin/wasm-opt");
// What rustc emits for wasm32-unknown-unknown (with +simd128, .cargo/config.toml).
const FEATURES = ["simd", "bulk-memory", "nontrapping-float-to-int", "sign-ext", "mutable-globals", "reference-types", "multivalue"];

const [dist, ...options] = process.argv.slice(2);
const usage = "usage: node web/finish.mjs DIST [--public-url URL]";
if (!dist || (options.length !== 0 && (options.length !== 2 || options[0] !== "--public-url"))) {
  console.error(usage);
  process.exit(2);
}

const site = options.length === 2 ? publicUrl(options[1]) : null;
if (site?.error) {
  console.error(site.error);
  process.exit(2);
}

/** The module without custom sections named `name`. */
function withoutNames(bytes) {
  const out = [bytes.subarray(0, 8)];
  let at = 8;
  const leb = () => {
    let value = 0;
    let shift = 0;
    for (;;) {
      const b = bytes[at++];
      value += (b & 0x7f) * 2 ** shift;
      shift += 7;
      if (b < 0x80) return value;
    }
  };
  while (at < bytes.length) {
    const start = at;
    const id = bytes[at++];
    const size = leb();
    const body = at;
    at = body + size;
    if (id === 0) {
      const save = at;
      at = body;
      const nameLength = leb();
      const name = new TextDecoder().decode(bytes.subarray(at, at + nameLength));
      at = save;
      if (name === "name") continue;
    }
    out.push(bytes.subarray(start, at));
  }
  return Buffer.concat(out);
}

for (const file of readdirSync(dist)) {
  const path = join(dist, file);
  if (file.endsWith(".js")) {
    const source = readFileSync(path, "utf8");
    const result = await minify(source, { module: true, compress: true, mangle: true });
    writeFileSync(path, result.code);
  } else if (file.endsWith(".wasm")) {
    execFileSync(process.execPath, [wasmOpt, "-Os", "-Os", "-Os", ...FEATURES.map((f) => `--enable-${f}`), path, "-o", path], { stdio: "inherit" });
    writeFileSync(path, withoutNames(readFileSync(path)));
  }
}

// Every `integrity=` in index.html, for the file its tag names.
const indexPath = join(dist, "index.html");
const html = readFileSync(indexPath, "utf8");
let rewritten = 0;
const updated = html.replace(/<(link|script)\b[^>]*>/g, (tag) => {
  const integrity = /integrity=("?)(sha384-[A-Za-z0-9+/=]+)\1/.exec(tag);
  const href = /(?:href|src)=("?)\.?\/?([^"\s>]+)\1/.exec(tag);
  if (!integrity || !href) return tag;
  const hash = "sha384-" + createHash("sha384").update(readFileSync(join(dist, href[2]))).digest("base64");
  rewritten++;
  return tag.replace(integrity[2], hash);
});
// The version of the modules fetched on first use (their files keep their names, web/boot.js):
// a hash of their files, so a new build is fetched afresh, not from a cache.
const lazyFiles = ["lbsim-panels.js", "lbsim-panels_bg.wasm", "lbsim-replay.js", "lbsim-replay_bg.wasm", "replay-worker.js", "replay.css", "lbsim-traffic.js", "lbsim-traffic_bg.wasm", "traffic-worker.js"].map((f) => join(dist, f));
const missing = lazyFiles.filter((f) => !existsSync(f));
if (missing.length > 0) {
  console.error(`the modules fetched on first use are missing from ${dist}: ${missing.join(", ")} (index.html's lbsim-panels and lbsim-replay links, its copy-file links)`);
  process.exit(1);
}
const version = createHash("sha256");
for (const f of lazyFiles) version.update(readFileSync(f));
// The service worker's version: every file the page may fetch (index.html
// itself changes whenever one of its hashed names does, and is fetched
// from the network first).
const build = createHash("sha256");
for (const f of readdirSync(dist).filter((f) => f !== "index.html").sort()) build.update(f).update(readFileSync(join(dist, f)));
const versioned = updated.replace(
  /<script\b(?=[^>]*data-lbsim-js)/,
  `<script data-lbsim-lazy="?v=${version.digest("hex").slice(0, 16)}" data-lbsim-offline="?v=${build.digest("hex").slice(0, 16)}"`,
);
let previewed = versioned;
if (site) {
  try {
    previewed = withPreviewImage(versioned, site.url, readFileSync(join(dist, "screenshot.png")));
  } catch (e) {
    console.error(`${indexPath}: ${e.message}`);
    process.exit(1);
  }
}
writeFileSync(indexPath, previewed);
const preview = site ? `link previews with their image at ${site.url}` : "link previews without an image (no public URL given)";
console.log(`finished ${dist}: JavaScript minified, wasm optimized for size and its names dropped, ${rewritten} integrity hashes written, ${preview}`);
