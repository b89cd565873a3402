// Sizes each lbsim iframe to the height it reports.
window.addEventListener("message", (event) => {
  const data = event.data;
  if (!data || data.type !== "lbsim:resize" || typeof data.height !== "number") return;
  for (const frame of document.querySelectorAll("iframe")) {
    if (frame.contentWindow === event.source) frame.style.height = `${Math.ceil(data.height)}px`;
  }
});
