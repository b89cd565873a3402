// Starts the page's wasm. Trunk writes the hashed file names into the
// script tag (Trunk.toml, pattern_script); an external module keeps the
// Content-Security-Policy free of inline scripts.
const tag = document.querySelector("script[data-lbsim-js]");
const { default: init } = await import(tag.dataset.lbsimJs);
await init({ module_or_path: tag.dataset.lbsimWasm });
