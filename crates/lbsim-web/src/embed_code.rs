//! The embed code a blog post copies (docs/embedding.md#sizing-the-frame):
//! an iframe as tall as the embed's content at the width of the post the
//! author picks, so that it fits on hosts that strip scripts, and the
//! resize script beside it for hosts that allow one. The height is
//! measured, not worked out: the embed opens in a hidden frame of that
//! width and is read once all it shows is drawn, since a lesson's lines,
//! legends beside or under their plots and the columns of small multiples
//! all follow the width. Part of the panels module: a first visit carries
//! none of it.

use std::cell::RefCell;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Document, Element, HtmlElement, HtmlIFrameElement, HtmlSelectElement, HtmlTextAreaElement};

use crate::controls::thousands;
use crate::dom::{after, by_id, document, element, now_ms, set_text, text_element, window};

/// The post width when the page has no choice on screen: a blog's usual
/// column (the choice beside the button offers 360 to 960 px).
const DEFAULT_WIDTH: u32 = 680;
/// How often the hidden frame is read while the embed draws.
const POLL_MS: i32 = 100;
/// Reads of the same height, one poll apart, that make it final.
const STEADY_READS: u32 = 3;
/// The longest wait for the embed (a sweep it shows runs first).
const TIMEOUT_MS: f64 = 60_000.0;
/// The hidden frame's height: more than any embed's content, so that no
/// scrollbar takes width from the layout being measured.
const FRAME_HEIGHT_PX: u32 = 12_000;
/// What an embed has still to draw: a sweep, the replay's run, a panel
/// whose module is being fetched. Its own run is its body's `data-state`.
const STILL_DRAWING: &str =
    "[data-sweep=running], [data-state=running], [data-plot]:not([hidden]) :is(#remap-root, #replay):empty";

thread_local! {
    /// Heights measured so far: embed address, post width, height.
    static MEASURED: RefCell<Vec<(String, u32, u32)>> = const { RefCell::new(Vec::new()) };
    /// The hidden frame measuring now; a new request replaces it.
    static MEASURING: RefCell<Option<HtmlIFrameElement>> = const { RefCell::new(None) };
}

/// Writes the embed code for the embed address `src` at the post width
/// chosen beside the button, and copies it, measuring first when that
/// address and width were not measured yet.
pub fn embed_code(src: &str) {
    let width = by_id::<HtmlSelectElement>("embed-width")
        .and_then(|s| s.value().parse().ok())
        .unwrap_or(DEFAULT_WIDTH);
    let known = MEASURED.with(|m| m.borrow().iter().find(|(s, w, _)| s == src && *w == width).map(|m| m.2));
    if let Some(height) = known {
        return show(src, width, Some(height));
    }
    set_text("share-status", &format!("Measuring the embed at {width} px..."));
    let frame = hidden_frame(src, width);
    if let Some(old) = MEASURING.with(|m| m.borrow_mut().replace(frame.clone())) {
        old.remove();
    }
    let deadline = now_ms() + TIMEOUT_MS;
    let src = src.to_string();
    after(POLL_MS, move || poll(frame, src, width, deadline, (0, 0)));
}

/// A frame `width` px wide loading `src`, out of sight and out of reach
/// (no pointer, no focus, not read aloud) but laid out and drawn.
fn hidden_frame(src: &str, width: u32) -> HtmlIFrameElement {
    let frame: HtmlIFrameElement = element("iframe", "").unchecked_into();
    for (k, v) in
        [("aria-hidden", "true"), ("tabindex", "-1"), ("inert", ""), ("title", "measuring the embed")]
    {
        let _ = frame.set_attribute(k, v);
    }
    // Set through the style object: the page's Content-Security-Policy
    // refuses style attributes.
    let style = frame.style();
    let width = format!("{width}px");
    let height = format!("{FRAME_HEIGHT_PX}px");
    for (k, v) in [
        ("position", "fixed"),
        ("left", "0"),
        ("top", "0"),
        ("width", width.as_str()),
        ("height", height.as_str()),
        ("border", "0"),
        ("opacity", "0"),
        ("pointer-events", "none"),
        ("z-index", "-1"),
    ] {
        let _ = style.set_property(k, v);
    }
    frame.set_src(src);
    if let Some(body) = document().body() {
        let _ = body.append_child(&frame);
    }
    frame
}

/// The embed's content height once it has drawn all it shows, `None`
/// while it draws.
fn content_height(doc: &Document) -> Option<u32> {
    let body = doc.body()?;
    // A run asking to be confirmed waits for its reader: what shows is final.
    let state = body.get_attribute("data-state")?;
    if !matches!(state.as_str(), "ready" | "error" | "waiting") {
        return None;
    }
    if doc.query_selector(STILL_DRAWING).ok().flatten().is_some() {
        return None;
    }
    Some(body.get_bounding_client_rect().height().ceil() as u32)
}

/// Reads the hidden frame until its content's height holds for
/// [`STEADY_READS`] reads (`last`: the height read and how often), then
/// writes the code; a frame replaced by a newer request stops.
fn poll(frame: HtmlIFrameElement, src: String, width: u32, deadline: f64, last: (u32, u32)) {
    if !MEASURING.with(|m| m.borrow().as_ref() == Some(&frame)) {
        return;
    }
    let height = frame.content_document().as_ref().and_then(content_height);
    let seen = match height {
        Some(h) if h == last.0 => (h, last.1 + 1),
        Some(h) => (h, 1),
        None => (0, 0),
    };
    let timed_out = now_ms() > deadline;
    if seen.1 < STEADY_READS && !timed_out {
        after(POLL_MS, move || poll(frame, src, width, deadline, seen));
        return;
    }
    frame.remove();
    MEASURING.with(|m| m.borrow_mut().take());
    let height = height.filter(|_| !timed_out);
    if let Some(h) = height {
        MEASURED.with(|m| m.borrow_mut().push((src.clone(), width, h)));
    }
    show(&src, width, height);
}

/// The snippet: a frame as tall as the content measured (or a generous
/// guess when it could not be), never wider than the post it was
/// measured for, so that a wider column cannot leave an empty band under
/// it; in a narrower one it scrolls.
fn snippet(src: &str, width: u32, height: u32) -> String {
    format!(
        "<iframe src=\"{}\" title=\"lbsim: load-balancing playground\" loading=\"lazy\" width=\"100%\" \
         height=\"{height}\" style=\"border:0;max-width:{width}px\"></iframe>",
        attribute(src)
    )
}

/// `text` inside a double-quoted attribute.
fn attribute(text: &str) -> String {
    text.replace('&', "&amp;").replace('"', "&quot;").replace('<', "&lt;")
}

/// The resize script for hosts that allow scripts: each frame of the
/// page at `origin` takes the height its embed reports (what
/// web/embed-demo.js does), so it fits at any width.
fn resize_script(origin: &str) -> String {
    let origin = origin.replace('\\', "\\\\").replace('"', "\\\"").replace('<', "\\x3c");
    format!(
        "<script>addEventListener(\"message\",function(e){{var d=e.data;if(e.origin!==\"{origin}\"||!d||\
         d.type!==\"lbsim:resize\")return;document.querySelectorAll(\"iframe\").forEach(function(f){{\
         if(f.contentWindow===e.source)f.style.height=Math.ceil(d.height)+\"px\"}})}})</script>"
    )
}

/// A read-only text box under the embed code (made once), holding `text`.
fn text_box(id: &str, label: &str, text: &str) {
    let Some(code) = by_id::<HtmlTextAreaElement>("embed-code") else { return };
    let box_ = by_id::<HtmlTextAreaElement>(id).unwrap_or_else(|| {
        let t: HtmlTextAreaElement = element("textarea", "").unchecked_into();
        t.set_id(id);
        t.set_read_only(true);
        t.set_rows(3);
        let _ = t.set_attribute("aria-label", label);
        let _ = t.set_attribute("class", "full-only");
        let _ = code.after_with_node_1(&t);
        t
    });
    box_.set_value(text);
}

/// Shows the code (and the resize script beside it) and copies the code;
/// `height` is `None` when the embed could not be measured.
fn show(src: &str, width: u32, height: Option<u32>) {
    // Without a measure, the frame is as tall as the tallest default
    // embed at 360 px, and scrolls where it is too short.
    let code = snippet(src, width, height.unwrap_or(2200));
    let Some(area) = by_id::<HtmlTextAreaElement>("embed-code") else { return };
    area.set_value(&code);
    area.set_hidden(false);
    let origin = web_sys::Url::new(src).map(|u| u.origin()).unwrap_or_default();
    text_box("embed-script", "resize script", &resize_script(&origin));
    let said = match height {
        Some(h) => format!(
            "The frame is {} px tall, the embed's height at {width} px wide; in a narrower \
             column it scrolls. A host that allows scripts can add the second box too: the frame \
             then takes its content's height at any width.",
            thousands(u64::from(h))
        ),
        None => "The embed did not finish drawing, so the frame's height is a guess; a host that \
                 allows scripts can add the second box, which fits the frame to its content."
            .to_string(),
    };
    let note = by_id::<Element>("embed-note").unwrap_or_else(|| {
        let p: HtmlElement = text_element("p", "note full-only", "").unchecked_into();
        p.set_id("embed-note");
        // A line of its own in the toolbar.
        let _ = p.style().set_property("flex-basis", "100%");
        let _ = p.style().set_property("margin", "0");
        let _ = area.before_with_node_1(&p);
        p.into()
    });
    note.set_text_content(Some(&said));
    let copied = Closure::once(|_: JsValue| set_text("share-status", "Embed code copied."));
    let refused = Closure::once(|_: JsValue| {
        set_text("share-status", "The clipboard said no: the code is below, selected.");
        if let Some(area) = by_id::<HtmlElement>("embed-code") {
            let _ = area.focus();
            if let Some(area) = area.dyn_ref::<HtmlTextAreaElement>() {
                area.select();
            }
        }
    });
    let _ = window().navigator().clipboard().write_text(&code).then2(&copied, &refused);
    // One of the two runs, once.
    copied.forget();
    refused.forget();
}
