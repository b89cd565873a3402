// The link previews' image tags (og:image, twitter:image), which need an
// absolute address: web/finish.mjs writes them when the build is given
// the public URL (docs/embedding.md#link-previews). The image is the
// README's screenshot (web/screenshot.png), shown as a large card; the
// title and description are index.html's own, written for any address.

/** The public URL as an absolute http(s) address of a directory
 * (`{ url }`), or why not (`{ error }`). */
export function publicUrl(given) {
  let url;
  try {
    url = new URL(given);
  } catch {
    return { error: `public URL "${given}" is not an absolute address (e.g. https://example.org/lbsim/)` };
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    return { error: `public URL "${given}" must start with https:// or http:// (e.g. https://example.org/lbsim/)` };
  }
  url.search = "";
  url.hash = "";
  if (!url.pathname.endsWith("/")) url.pathname += "/";
  return { url: url.href };
}

/** `html` with the preview's image tags for the page at `url` (from
 * publicUrl) in place of its small card; `png` is the image's bytes (its
 * size is read from the header: width and height, big-endian, at bytes
 * 16 and 20). Throws if `html` has no card to replace. */
export function withPreviewImage(html, url, png) {
  // Quoted attribute values: a host may hold `"` and a path `&`.
  const attr = (text) => text.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
  const page = attr(url);
  const image = `${page}screenshot.png`;
  const alt = "The playground: a preset's lesson, the latency distribution of every rule, the results table";
  const tags = [
    `<meta property="og:url" content="${page}">`,
    `<meta property="og:image" content="${image}">`,
    `<meta property="og:image:width" content="${png.readUInt32BE(16)}">`,
    `<meta property="og:image:height" content="${png.readUInt32BE(20)}">`,
    `<meta property="og:image:alt" content="${alt}">`,
    `<meta name="twitter:card" content="summary_large_image">`,
    `<meta name="twitter:image" content="${image}">`,
    `<meta name="twitter:image:alt" content="${alt}">`,
  ];
  const card = /<meta\b[^>]*\btwitter:card\b[^>]*>/;
  if (!card.test(html)) throw new Error("index.html has no twitter:card tag to put the preview's image in place of");
  return html.replace(card, tags.join(""));
}
