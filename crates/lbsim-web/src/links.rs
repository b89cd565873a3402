//! The scenario in the address bar, share links, and the embed view: the
//! fragment is read and written with the core's codec ([`url`]), and an
//! embedded page tells its parent how tall its content is.

use std::cell::Cell;

use lbsim_core::presets::Preset;
use lbsim_core::sweep::Sweep;
use lbsim_core::{url, Scenario};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlInputElement};

use crate::controls::{self, thousands, MAX_INTERACTIVE_REQUESTS};
use crate::dom::{self, after, by_id, cancel, document, on, window};
use crate::state::with;
use crate::view::show_notice;

/// Delay before the address bar follows the controls.
const URL_DEBOUNCE_MS: i32 = 250;
/// The controls an embed shows unless `&controls=` says otherwise.
const EMBED_CONTROLS: &str = "slow-share,zipf,seed";

/// Reads a link's fragment: its scenario and the preset it names; problems
/// become a notice naming each key.
pub fn scenario_from_link(link: &str) -> (Scenario, Option<&'static Preset>, Option<Sweep>) {
    let decoded = url::decode(link);
    let mut scenario = decoded.scenario;
    let mut lines: Vec<String> = decoded
        .problems
        .iter()
        .map(|e| {
            if e.is_unknown_key() {
                format!("unknown key '{}' ignored", e.field.escape_debug())
            } else {
                e.to_string()
            }
        })
        .collect();
    if scenario.requests > MAX_INTERACTIVE_REQUESTS {
        lines.push(format!(
            "requests: {} is more than this page runs; capped at {} (the CLI runs it in full)",
            thousands(scenario.requests),
            thousands(MAX_INTERACTIVE_REQUESTS)
        ));
        scenario.requests = MAX_INTERACTIVE_REQUESTS;
    }
    if !lines.is_empty() {
        show_notice(
            "Parts of this link were not used; they fall back to the defaults (or the preset's):",
            &lines,
        );
    }
    (scenario, decoded.preset, decoded.sweep)
}

/// The link's fragment (without `#`) for the page's scenario, over the
/// preset it came from.
fn current_fragment() -> String {
    with(|app| url::encode_link(&app.scenario, app.preset, app.sweep.spec.as_ref()))
}

/// The share link without the sweep: what `lbsim sweep --url` takes
/// beside `--param`.
pub fn share_url_without_sweep() -> String {
    with(|app| url::share_url_over(&page_base(), &app.scenario, app.preset))
}

/// The address bar's fragment, with its `#`.
pub fn fragment() -> String {
    window().location().hash().unwrap_or_default()
}

/// A query parameter of the page's address (`?embed=1`).
pub fn query(name: &str) -> Option<String> {
    let search = window().location().search().ok()?;
    web_sys::UrlSearchParams::new_with_str(&search).ok()?.get(name)
}

/// The page's own address without query and fragment.
fn page_base() -> String {
    let l = window().location();
    format!("{}{}", l.origin().unwrap_or_default(), l.pathname().unwrap_or_default())
}

/// The share link of the current scenario (with its preset).
pub fn share_url() -> String {
    format!("{}#{}", page_base(), current_fragment())
}

/// The address bar follows the scenario, debounced.
pub fn schedule_url() {
    if let Some(t) = with(|app| app.url_timer.take()) {
        cancel(t);
    }
    let t = after(URL_DEBOUNCE_MS, write_url);
    with(|app| app.url_timer = Some(t));
    update_links();
}

fn write_url() {
    with(|app| app.url_timer = None);
    let l = window().location();
    let search = l.search().unwrap_or_default();
    let target = format!("{}{search}#{}", l.pathname().unwrap_or_default(), current_fragment());
    if let Ok(history) = window().history() {
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&target));
    }
}

/// The share link and the embed's "open in the full playground" link
/// follow the scenario.
fn update_links() {
    if let Some(input) = by_id::<HtmlInputElement>("share-url") {
        input.set_value(&share_url());
    }
    if let Some(a) = by_id::<Element>("open-full") {
        let pathname = window().location().pathname().unwrap_or_default();
        let _ = a.set_attribute("href", &format!("{pathname}#{}", current_fragment()));
    }
}

/// The iframe snippet for the current scenario.
pub fn embed_code() -> String {
    let (embedded, listed) = with(|app| (app.embed, app.embed_controls.clone()));
    let controls = if embedded { listed.join(",") } else { EMBED_CONTROLS.to_string() };
    let plots = with(|app| app.embed_plots.clone()).map(|p| format!("&plots={p}")).unwrap_or_default();
    let src = format!("{}?embed=1&controls={controls}{plots}#{}", page_base(), current_fragment());
    format!(
        "<iframe src=\"{}\" title=\"lbsim: load-balancing playground\" loading=\"lazy\" width=\"100%\" \
         height=\"900\" style=\"border:0\"></iframe>",
        src.replace('&', "&amp;").replace('"', "&quot;")
    )
}

thread_local! {
    /// The height last posted to the parent page (0: none yet, or not embedded).
    static POSTED_HEIGHT: Cell<i32> = const { Cell::new(0) };
}

/// In an embed, posts `{type: "lbsim:resize", height}` to the parent when
/// the content's own height changed (not the document's, which never gets
/// smaller than the frame, so a frame could only grow).
pub fn post_height() {
    if !with(|app| app.embed) {
        return;
    }
    let Some(parent) = window().parent().ok().flatten() else { return };
    let Some(body) = document().body() else { return };
    let height = body.get_bounding_client_rect().height().ceil() as i32;
    if height == POSTED_HEIGHT.with(Cell::get) {
        return;
    }
    POSTED_HEIGHT.with(|h| h.set(height));
    let message = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&message, &"type".into(), &"lbsim:resize".into());
    let _ = js_sys::Reflect::set(&message, &"height".into(), &height.into());
    let _ = parent.post_message(&message, "*");
}

/// The plots an author picked for an embed (`&plots=cdf,loads`): the
/// others, and the table unless `table` is named, are hidden. Unknown names
/// are said in a notice.
fn show_plots(listed: &str) {
    let wanted: Vec<&str> = listed.split(',').map(str::trim).filter(|k| !k.is_empty()).collect();
    let Ok(parts) = document().query_selector_all("[data-plot]") else { return };
    let mut known = Vec::new();
    for i in 0..parts.length() {
        if let Some(part) = parts.item(i).and_then(|n| n.dyn_into::<web_sys::HtmlElement>().ok()) {
            let name = part.get_attribute("data-plot").unwrap_or_default();
            part.set_hidden(!wanted.contains(&name.as_str()));
            known.push(name);
        }
    }
    if !wanted.contains(&"table") {
        dom::set_hidden("realized", true);
    }
    let unknown: Vec<String> = wanted
        .iter()
        .filter(|w| !known.iter().any(|k| k == *w))
        .map(|w| format!("plots: unknown plot {w:?} ignored; known: {}", known.join(", ")))
        .collect();
    if !unknown.is_empty() {
        show_notice("Parts of this embed's address were not used:", &unknown);
    }
    with(|app| app.embed_plots = Some(listed.to_string()));
}

/// `?embed=1`: the compact view; its height goes to the parent page.
pub fn embed() {
    let listed: Vec<String> = query("controls")
        .unwrap_or_else(|| EMBED_CONTROLS.to_string())
        .split(',')
        .map(|k| k.trim().to_string())
        .filter(|k| !k.is_empty())
        .collect();
    with(|app| {
        app.embed = true;
        app.embed_controls = listed.clone();
    });
    if let Some(plots) = query("plots") {
        show_plots(&plots);
    }
    if let Some(body) = document().body() {
        let _ = body.class_list().add_1("embed");
    }
    controls::show_only(&listed);
    dom::set_hidden("open-full", false);
    let callback = Closure::<dyn FnMut()>::new(post_height);
    if let (Ok(observer), Some(body)) =
        (web_sys::ResizeObserver::new(callback.as_ref().unchecked_ref()), document().body())
    {
        observer.observe(&body);
    }
    callback.forget();
    on(&window(), "load", |_| post_height());
    post_height();
}
