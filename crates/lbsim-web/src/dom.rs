//! Small helpers over web-sys: finding elements, creating them, and event
//! handlers that live as long as the page.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Document, Element, Event, EventTarget, HtmlElement, Window};

/// The page's window.
pub fn window() -> Window {
    web_sys::window().expect("a window")
}

/// The page's document.
pub fn document() -> Document {
    window().document().expect("a document")
}

/// The page's own address without query and fragment.
pub fn page_base() -> String {
    let l = window().location();
    format!("{}{}", l.origin().unwrap_or_default(), l.pathname().unwrap_or_default())
}

/// The element with `id`, as type `T`.
pub fn by_id<T: JsCast>(id: &str) -> Option<T> {
    document().get_element_by_id(id)?.dyn_into().ok()
}

/// A new element; `class` may be empty.
pub fn element(tag: &str, class: &str) -> Element {
    // Not `expect`: printing the JsValue error would bring wasm-bindgen's
    // debug printer into the bundle for a message nobody can act on.
    let Ok(e) = document().create_element(tag) else { panic!("create_element({tag}) failed") };
    if !class.is_empty() {
        e.set_class_name(class);
    }
    e
}

/// A new element holding `text` as text (never parsed as HTML).
pub fn text_element(tag: &str, class: &str, text: &str) -> Element {
    let e = element(tag, class);
    e.set_text_content(Some(text));
    e
}

/// Adds an option to `select`: its value and the words shown (as text).
pub fn add_option(select: &Element, value: &str, label: &str) -> Element {
    let option = text_element("option", "", label);
    let _ = option.set_attribute("value", value);
    let _ = select.append_child(&option);
    option
}

/// Sets the text of the element `id`, as text.
pub fn set_text(id: &str, text: &str) {
    if let Some(e) = document().get_element_by_id(id) {
        e.set_text_content(Some(text));
    }
}

/// Shows or hides the element `id`.
pub fn set_hidden(id: &str, hidden: bool) {
    if let Some(e) = by_id::<HtmlElement>(id) {
        e.set_hidden(hidden);
    }
}

/// Focuses the part of the page a link names; a folding panel opens and
/// its summary takes the focus: a `<details>` cannot hold it, and a
/// tabindex on one would take everything inside it out of the Tab order.
pub fn focus_part(part: &HtmlElement) {
    let summary = part.dyn_ref::<web_sys::HtmlDetailsElement>().and_then(|d| {
        d.set_open(true);
        d.query_selector(":scope > summary").ok().flatten()?.dyn_into::<HtmlElement>().ok()
    });
    let _ = summary.as_ref().unwrap_or(part).focus();
}

/// Calls `f` on every `event` on `target`, for the life of the page.
pub fn on(target: &EventTarget, event: &str, f: impl FnMut(Event) + 'static) {
    let closure = Closure::<dyn FnMut(Event)>::new(f);
    let _ = target.add_event_listener_with_callback(event, closure.as_ref().unchecked_ref());
    closure.forget();
}

/// Calls `f` on every `event` on the element `id`.
pub fn on_id(id: &str, event: &str, f: impl FnMut(Event) + 'static) {
    if let Some(e) = document().get_element_by_id(id) {
        on(&e, event, f);
    }
}

/// Runs `f` once after `ms`; returns the timer handle.
pub fn after(ms: i32, f: impl FnOnce() + 'static) -> i32 {
    let closure = Closure::once_into_js(f);
    window().set_timeout_with_callback_and_timeout_and_arguments_0(closure.unchecked_ref(), ms).unwrap_or(0)
}

/// Cancels a timer from [`after`].
pub fn cancel(handle: i32) {
    window().clear_timeout_with_handle(handle);
}

/// Milliseconds since navigation.
pub fn now_ms() -> f64 {
    window().performance().map_or(0.0, |p| p.now())
}

/// Sets `data-<name>` on `<body>`.
pub fn set_body_data(name: &str, value: &str) {
    if let Some(body) = document().body() {
        let _ = body.set_attribute(&format!("data-{name}"), value);
    }
}

/// Saves `href` (a data: or blob: URL) as a file called `name`.
pub fn download(href: &str, name: &str) {
    if let Ok(a) = document().create_element("a") {
        let _ = a.set_attribute("href", href);
        let _ = a.set_attribute("download", name);
        if let Some(a) = a.dyn_ref::<HtmlElement>() {
            a.click();
        }
    }
}

/// Saves text as a file, through a blob URL.
pub fn download_text(text: &str, mime: &str, name: &str) {
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    if let Ok(blob) = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options) {
        if let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) {
            download(&url, name);
            after(10_000, move || {
                let _ = web_sys::Url::revoke_object_url(&url);
            });
        }
    }
}

/// Copies text to the clipboard; the page also shows it, so a refused
/// clipboard leaves it selectable.
pub fn copy(text: &str) {
    let _ = window().navigator().clipboard().write_text(text);
}

/// The event's target element.
pub fn target<T: JsCast>(event: &Event) -> Option<T> {
    event.target()?.dyn_into().ok()
}

/// Shows a notice with a heading and lines, all as text.
pub fn show_notice(heading: &str, lines: &[String]) {
    let Some(notice) = by_id::<web_sys::HtmlElement>("notice") else { return };
    notice.set_text_content(None);
    let _ = notice.append_child(&text_element("strong", "", heading));
    let list = element("ul", "");
    for line in lines {
        let _ = list.append_child(&text_element("li", "", line));
    }
    let _ = notice.append_child(&list);
    let close = text_element("button", "close", "dismiss");
    let _ = close.set_attribute("type", "button");
    on(&close, "click", |_| set_hidden("notice", true));
    let _ = notice.append_child(&close);
    notice.set_hidden(false);
}

/// Adds a heading and lines to the notice on screen, or shows them as
/// [`show_notice`] does when there is none.
pub fn add_notice(heading: &str, lines: &[String]) {
    let Some(notice) = by_id::<web_sys::HtmlElement>("notice").filter(|n| !n.hidden()) else {
        return show_notice(heading, lines);
    };
    let close = notice.last_child();
    let _ = notice.insert_before(&text_element("strong", "", heading), close.as_ref());
    let list = element("ul", "");
    for line in lines {
        let _ = list.append_child(&text_element("li", "", line));
    }
    let _ = notice.insert_before(&list, close.as_ref());
}
