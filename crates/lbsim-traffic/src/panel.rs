//! The panel in the page: a file picker and a drop target, the reading's
//! progress, the summary of what the log holds (with its arrivals per
//! second as a small plot), the fields the log's run uses, and the link
//! of a scenario fitted to it. The reading and the run are the traffic
//! worker's (`web/traffic-worker.js`, [`crate::read`]); the report it
//! sends is drawn by the page itself, through the function the page gave
//! ([`traffic`]'s `shown`), as any run of the page is.

use std::cell::RefCell;

use js_sys::{Array, Function, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{
    CanvasRenderingContext2d, Document, Element, Event, File, HtmlCanvasElement, HtmlElement,
    HtmlInputElement, HtmlProgressElement, HtmlSelectElement, MessageEvent, Worker, WorkerOptions,
    WorkerType,
};

use crate::read::{too_large, MAX_LOG_BYTES};

/// A field's choices as (value, label); none for a number typed in.
type Choices = &'static [(&'static str, &'static str)];

/// The fields a log's run uses, edited in the panel: (key, label, choices).
const FIELDS: &[(&str, &str, Choices)] = &[
    (
        "log-kind",
        "log kind",
        &[
            ("", "detect"),
            ("nginx", "NGINX"),
            ("haproxy", "HAProxy httplog"),
            ("haproxy-tcp", "HAProxy tcplog"),
            ("alb", "AWS ALB"),
            ("csv", "CSV"),
        ],
    ),
    ("work-from", "work from", &[("upstream", "the server's time"), ("total", "the whole request")]),
    ("time-scale", "time scale", &[]),
    ("servers", "servers", &[]),
    ("slots", "slots per server", &[]),
];

/// The panel's markup: fixed text only (what a log holds goes in with
/// `set_text_content`).
const MARKUP: &str = r#"<p class="note">Drop an NGINX, HAProxy or AWS ALB access log, or a CSV (<code>arrival_ms,work_ms[,key][,class]</code>), gzipped or not, here or anywhere on the page. It is read in this browser: nothing is uploaded, nothing is stored, and a reload forgets it.</p>
<div class="plot-tools traffic-tools"><label>access log <input type="file" id="traffic-file"></label></div>
<p class="sweep-status"><progress id="traffic-progress" max="1" value="0" aria-label="log reading progress"></progress>
<span id="traffic-status" role="status"></span></p>
<ul id="traffic-skips" class="note"></ul>
<div id="traffic-summary" hidden><dl id="traffic-facts" class="traffic-facts"></dl>
<canvas id="traffic-rate" class="traffic-rate" role="img" aria-label="Arrivals per second over the log's span; the summary has the mean rate"></canvas>
<ul id="traffic-notes" class="note"></ul></div>
<div class="plot-tools traffic-tools" id="traffic-fields"></div>
<p class="plot-tools traffic-tools"><button type="button" id="traffic-fit">Fit a scenario</button>
<label class="share">fitted link <input id="traffic-link" readonly></label></p>"#;

/// The panel's state: the worker, the page's link a run starts from, and
/// what the page gave to draw a report.
struct Panel {
    worker: Worker,
    link: String,
    shown: Function,
    /// Whether a log is held by the worker (read whole).
    held: bool,
    /// The file's name, to say where the run came from.
    name: String,
}

thread_local! {
    static PANEL: RefCell<Option<Panel>> = const { RefCell::new(None) };
}

fn document() -> Document {
    web_sys::window().and_then(|w| w.document()).unwrap_or_else(|| panic!("no document"))
}

fn by_id<T: JsCast>(id: &str) -> Option<T> {
    document().get_element_by_id(id).and_then(|e| e.dyn_into::<T>().ok())
}

fn set_text(id: &str, text: &str) {
    if let Some(e) = by_id::<Element>(id) {
        e.set_text_content(Some(text));
    }
}

fn on(target: &web_sys::EventTarget, event: &str, f: impl FnMut(Event) + 'static) {
    let f = Closure::<dyn FnMut(Event)>::new(f);
    let _ = target.add_event_listener_with_callback(event, f.as_ref().unchecked_ref());
    f.forget();
}

fn get(o: &JsValue, key: &str) -> JsValue {
    Reflect::get(o, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

fn number(o: &JsValue, key: &str) -> f64 {
    get(o, key).as_f64().unwrap_or(0.0)
}

/// A count (a JavaScript number) with thousands separators, as the core
/// writes counts.
fn thousands(n: f64) -> String {
    lbsim_core::scenario::thousands(n.max(0.0).round() as u64)
}

/// Builds the panel once, starts the worker, and reads `file` if given.
pub fn show(root: &str, link: &str, file: JsValue, shown: Function) {
    let built = PANEL.with(|p| p.borrow().is_some());
    if !built {
        let Some(root) = by_id::<Element>(root) else { return };
        let Some(worker) = start_worker() else {
            root.set_text_content(Some(
                "Reading a log needs a Web Worker, which this browser did not start.",
            ));
            return;
        };
        root.set_inner_html(MARKUP);
        build_fields();
        PANEL.with(|p| {
            *p.borrow_mut() =
                Some(Panel { worker, link: link.to_string(), shown, held: false, name: String::new() })
        });
        wire();
    } else {
        PANEL.with(|p| {
            if let Some(p) = p.borrow_mut().as_mut() {
                if !p.held {
                    p.link = link.to_string();
                }
            }
        });
    }
    if let Ok(file) = file.dyn_into::<File>() {
        read(&file);
    }
}

fn build_fields() {
    let Some(row) = by_id::<Element>("traffic-fields") else { return };
    for (key, label, choices) in FIELDS {
        let Ok(l) = document().create_element("label") else { continue };
        l.set_text_content(Some(&format!("{label} ")));
        let input: Option<Element> = if choices.is_empty() {
            document().create_element("input").ok().inspect(|i| {
                let _ = i.set_attribute("type", "text");
                let _ = i.set_attribute("inputmode", "decimal");
                let _ = i.set_attribute("size", "5");
            })
        } else {
            document().create_element("select").ok().inspect(|s| {
                for (value, text) in *choices {
                    if let Ok(o) = document().create_element("option") {
                        let _ = o.set_attribute("value", value);
                        o.set_text_content(Some(text));
                        let _ = s.append_child(&o);
                    }
                }
            })
        };
        if let Some(input) = input {
            let _ = input.set_attribute("data-traffic-field", key);
            let _ = input.set_attribute("id", &format!("traffic-{key}"));
            let _ = l.append_child(&input);
        }
        let _ = row.append_child(&l);
    }
    if let Ok(b) = document().create_element("button") {
        let _ = b.set_attribute("type", "button");
        let _ = b.set_attribute("id", "traffic-rerun");
        b.set_text_content(Some("Run again"));
        let _ = row.append_child(&b);
    }
}

/// The value of a field's input, if the reader gave one.
fn field(key: &str) -> String {
    let id = format!("traffic-{key}");
    by_id::<HtmlInputElement>(&id)
        .map(|i| i.value())
        .or_else(|| by_id::<HtmlSelectElement>(&id).map(|s| s.value()))
        .unwrap_or_default()
        .trim()
        .to_string()
}

/// The fields set in the panel, as [key, value] pairs (one left empty
/// keeps the page's value; the servers, the log's).
fn fields() -> Array {
    FIELDS
        .iter()
        .filter_map(|(key, _, _)| {
            let value = field(key);
            (!value.is_empty())
                .then(|| JsValue::from(Array::of2(&JsValue::from_str(key), &JsValue::from_str(&value))))
        })
        .collect()
}

/// What a reading depends on: a change reads the held file again.
fn reading() -> String {
    format!("{}|{}", field("log-kind"), field("work-from"))
}

fn wire() {
    if let Some(input) = by_id::<HtmlInputElement>("traffic-file") {
        let picker = input.clone();
        on(&input, "change", move |_| {
            if let Some(file) = picker.files().and_then(|f| f.get(0)) {
                read(&file);
            }
        });
    }
    if let Some(b) = by_id::<HtmlElement>("traffic-rerun") {
        on(&b, "click", |_| rerun());
    }
    for (key, _, _) in FIELDS {
        if let Some(input) = by_id::<Element>(&format!("traffic-{key}")) {
            on(&input, "change", |_| rerun());
        }
    }
    if let Some(b) = by_id::<HtmlElement>("traffic-fit") {
        on(&b, "click", |_| {
            if let Some(link) = by_id::<HtmlInputElement>("traffic-link") {
                let _ = link.focus();
                link.select();
            }
        });
    }
}

fn post(message: &js_sys::Object) {
    PANEL.with(|p| {
        if let Some(p) = p.borrow().as_ref() {
            let _ = p.worker.post_message(message);
        }
    });
}

fn set(o: &js_sys::Object, key: &str, value: &JsValue) {
    let _ = Reflect::set(o, &JsValue::from_str(key), value);
}

/// Asks the worker to read `file`: the held log, if any, is let go.
fn read(file: &File) {
    if file.size() > MAX_LOG_BYTES as f64 {
        set_text("traffic-status", &too_large(file.size()));
        return;
    }
    PANEL.with(|p| {
        if let Some(p) = p.borrow_mut().as_mut() {
            p.name = file.name();
        }
    });
    if let Some(s) = by_id::<HtmlElement>("traffic-summary") {
        s.set_hidden(true);
    }
    set_text("traffic-skips", "");
    set_text("traffic-status", &format!("Reading {}…", file.name()));
    let message = js_sys::Object::new();
    set(&message, "read", file);
    add_run(&message);
    post(&message);
}

fn add_run(message: &js_sys::Object) {
    let link = PANEL.with(|p| p.borrow().as_ref().map(|p| p.link.clone())).unwrap_or_default();
    set(message, "link", &JsValue::from_str(&link));
    set(message, "fields", &fields());
    set(message, "reading", &JsValue::from_str(&reading()));
}

/// The panel's fields changed (or "Run again"): a changed reading setting
/// reads the held file again, else the held log runs again with them.
fn rerun() {
    let message = js_sys::Object::new();
    set(&message, "again", &JsValue::TRUE);
    add_run(&message);
    post(&message);
}

fn start_worker() -> Option<Worker> {
    let version = document()
        .query_selector("script[data-lbsim-lazy]")
        .ok()
        .flatten()
        .and_then(|s| s.get_attribute("data-lbsim-lazy"))
        .unwrap_or_default();
    let options = WorkerOptions::new();
    options.set_type(WorkerType::Module);
    let worker = Worker::new_with_options(&format!("./traffic-worker.js{version}"), &options).ok()?;
    let answer = Closure::<dyn FnMut(MessageEvent)>::new(|e: MessageEvent| arrived(&e.data()));
    worker.set_onmessage(Some(answer.as_ref().unchecked_ref()));
    answer.forget();
    let failed = Closure::<dyn FnMut(Event)>::new(|_: Event| {
        set_text("traffic-status", "The log's worker stopped; reload the page to try again.");
    });
    worker.set_onerror(Some(failed.as_ref().unchecked_ref()));
    failed.forget();
    Some(worker)
}

fn set_progress(value: f64) {
    if let Some(p) = by_id::<HtmlProgressElement>("traffic-progress") {
        p.set_value(value);
    }
}

/// What the worker said.
fn arrived(data: &JsValue) {
    match get(data, "type").as_string().as_deref() {
        Some("progress") => {
            let (lines, bytes, kept, skipped) =
                (number(data, "lines"), number(data, "bytes"), number(data, "kept"), number(data, "skipped"));
            let size = number(data, "size");
            if size > 0.0 {
                set_progress((number(data, "read") / size).min(1.0));
            }
            set_text(
                "traffic-status",
                &format!(
                    "Read {} lines ({:.1} MB): {} requests kept, {} lines skipped.",
                    thousands(lines),
                    bytes / 1e6,
                    thousands(kept),
                    thousands(skipped)
                ),
            );
            list("traffic-skips", &get(data, "skips"));
        }
        Some("summary") => summary(&get(data, "summary")),
        Some("running") => {
            let (done, total) = (number(data, "done"), number(data, "total"));
            set_progress(if total > 0.0 { done / total } else { 0.0 });
            set_text(
                "traffic-status",
                &format!("Running every rule on the log's requests: {done:.0} of {total:.0} done…"),
            );
        }
        Some("report") => {
            let bytes = get(data, "bytes");
            let name = PANEL.with(|p| p.borrow().as_ref().map(|p| p.name.clone())).unwrap_or_default();
            let link = get(data, "link").as_string().unwrap_or_default();
            if let Some(input) = by_id::<HtmlInputElement>("traffic-link") {
                let base = web_sys::window().and_then(|w| w.location().href().ok()).unwrap_or_default();
                let base = base.split('#').next().unwrap_or_default().to_string();
                input.set_value(&format!("{base}#{link}"));
            }
            PANEL.with(|p| {
                if let Some(p) = p.borrow_mut().as_mut() {
                    p.held = true;
                    let _ = p.shown.call3(
                        &JsValue::NULL,
                        &bytes,
                        &JsValue::from_str(&name),
                        &JsValue::from_str(&link),
                    );
                }
            });
            set_progress(1.0);
            set_text(
                "traffic-status",
                &format!("The plots and the table show every rule on {name}, read in this browser."),
            );
            if let Some(b) = document().body() {
                let _ = b.set_attribute("data-traffic", "shown");
            }
        }
        Some("error") => {
            // The reader's or the run's error; the page keeps its last good
            // result (nothing was drawn).
            set_progress(0.0);
            set_text("traffic-status", &get(data, "message").as_string().unwrap_or_default());
            if let Some(b) = document().body() {
                let _ = b.set_attribute("data-traffic", "error");
            }
        }
        _ => {}
    }
}

/// Fills the list `id` with the strings of `items`.
fn list(id: &str, items: &JsValue) {
    let Some(ul) = by_id::<Element>(id) else { return };
    ul.set_text_content(None);
    for item in Array::from(items).iter() {
        if let Ok(li) = document().create_element("li") {
            li.set_text_content(item.as_string().as_deref());
            let _ = ul.append_child(&li);
        }
    }
}

/// The summary of what the log holds, before the run.
fn summary(s: &JsValue) {
    let Some(dl) = by_id::<Element>("traffic-facts") else { return };
    dl.set_text_content(None);
    for pair in Array::from(&get(s, "facts")).iter() {
        let pair = Array::from(&pair);
        for (tag, i) in [("dt", 0), ("dd", 1)] {
            if let Ok(e) = document().create_element(tag) {
                e.set_text_content(pair.get(i).as_string().as_deref());
                let _ = dl.append_child(&e);
            }
        }
    }
    list("traffic-notes", &get(s, "notes"));
    if let Some(e) = by_id::<HtmlElement>("traffic-summary") {
        e.set_hidden(false);
    }
    let servers = number(s, "servers");
    if servers > 0.0 {
        if let Some(input) = by_id::<HtmlInputElement>("traffic-servers") {
            input.set_placeholder(&format!("{servers:.0}"));
        }
    }
    let rate: Vec<f64> = js_sys::Float64Array::new(&get(s, "rate")).to_vec();
    draw_rate(&rate);
}

/// Arrivals per second as a line, drawn at the canvas's pixel size in the
/// page's text colour.
fn draw_rate(rate: &[f64]) {
    let Some(canvas) = by_id::<HtmlCanvasElement>("traffic-rate") else { return };
    let scale = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio()).max(1.0);
    let (w, h) = (f64::from(canvas.client_width()) * scale, f64::from(canvas.client_height()) * scale);
    canvas.set_width(w as u32);
    canvas.set_height(h as u32);
    let Some(ctx) =
        canvas.get_context("2d").ok().flatten().and_then(|c| c.dyn_into::<CanvasRenderingContext2d>().ok())
    else {
        return;
    };
    let colour = web_sys::window()
        .and_then(|w| w.get_computed_style(&canvas).ok().flatten())
        .and_then(|s| s.get_property_value("color").ok())
        .unwrap_or_else(|| String::from("#888"));
    ctx.clear_rect(0.0, 0.0, w, h);
    let top = rate.iter().copied().fold(0.0, f64::max).max(1.0);
    // The label above the line's highest point, not on it.
    let (pad, top_pad) = (4.0 * scale, 16.0 * scale);
    ctx.set_stroke_style_str(&colour);
    ctx.set_line_width(1.5 * scale);
    ctx.begin_path();
    let n = rate.len().max(2) - 1;
    for (i, r) in rate.iter().enumerate() {
        let x = pad + (w - 2.0 * pad) * i as f64 / n as f64;
        let y = h - pad - (h - pad - top_pad) * r / top;
        if i == 0 {
            ctx.move_to(x, y);
        } else {
            ctx.line_to(x, y);
        }
    }
    ctx.stroke();
    ctx.set_fill_style_str(&colour);
    ctx.set_font(&format!("{}px sans-serif", 11.0 * scale));
    ctx.fill_text(&format!("{top:.0} /s peak"), pad, 12.0 * scale).ok();
}
