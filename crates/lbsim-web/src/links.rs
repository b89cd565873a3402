//! The scenario in the address bar, share links, and the embed view: the
//! fragment is read and written with the core's codec ([`url`]), and an
//! embedded page tells its parent how tall its content is.

use std::cell::Cell;

use lbsim_core::presets::{Plot, Preset};
use lbsim_core::scenario::{field_spec, Echo};
use lbsim_core::url::{self, THEMES};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlDetailsElement, HtmlElement, HtmlInputElement};

use crate::controls::{self, thousands, MAX_INTERACTIVE_REQUESTS};
use crate::dom::{self, after, by_id, cancel, document, on, page_base, window};
use crate::state::with;
use crate::view::{add_notice, show_notice};

/// Delay before the address bar follows the controls.
const URL_DEBOUNCE_MS: i32 = 250;

/// Reads a link's fragment: its scenario, the preset it names and the
/// views it opens (only those that read, so the address bar drops the
/// rest); problems become one notice at the top, in the core's few lines
/// ([`url::notice`]), and the requests are capped at what the page runs.
pub fn scenario_from_link(link: &str) -> url::Decoded {
    let mut decoded = url::decode(link);
    let scenario = &mut decoded.scenario;
    let mut lines = url::notice(&decoded.problems);
    if scenario.requests > MAX_INTERACTIVE_REQUESTS {
        lines.push(format!(
            "requests: {} is more than this page runs, capped at {}; allowed: {}",
            thousands(scenario.requests),
            thousands(MAX_INTERACTIVE_REQUESTS),
            field_spec("requests").map(controls::range_text).unwrap_or_default()
        ));
        scenario.requests = MAX_INTERACTIVE_REQUESTS;
    }
    if !lines.is_empty() {
        show_notice(
            "Parts of this link were not used; they fall back to the defaults (or the preset's):",
            &lines,
        );
    }
    decoded
}

/// The views the page's links keep: the sweep set up, the replay's keys,
/// the theme.
fn views(app: &crate::state::App) -> url::Views<'_> {
    url::Views { sweep: app.sweep.spec.as_ref(), replay: app.replay.as_ref(), theme: app.theme }
}

/// The theme on `<html>` (`data-theme`, which the styles and the plots
/// read): the link's `theme=`, else the page address's, else none (the
/// reader's `prefers-color-scheme`), as boot.js set it before the first
/// paint. Whether it changed (a pasted link's theme), so the plots redraw.
pub fn apply_theme() -> bool {
    let Some(html) = document().document_element() else { return false };
    let chosen = with(|app| app.theme).map(str::to_string).or_else(|| query("theme"));
    let wanted = chosen.filter(|t| t != "auto" && THEMES.contains(&t.as_str()));
    if html.get_attribute("data-theme") == wanted {
        return false;
    }
    let _ = match &wanted {
        Some(theme) => html.set_attribute("data-theme", theme),
        None => html.remove_attribute("data-theme"),
    };
    true
}

/// The link's fragment (without `#`) for the page's scenario, over the
/// preset it came from.
pub fn current_fragment() -> String {
    with(|app| url::encode_link(&app.scenario, app.preset, &views(app)))
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

/// The share link of the current scenario (with its preset).
pub fn share_url() -> String {
    format!("{}#{}", page_base(), current_fragment())
}

/// The address bar follows the scenario, debounced, in the history entry
/// it has (a link opened, a slider being dragged).
pub fn schedule_url() {
    if let Some(t) = with(|app| app.url_timer.take()) {
        cancel(t);
    }
    let t = after(URL_DEBOUNCE_MS, || write_url(false));
    with(|app| app.url_timer = Some(t));
    update_links();
}

/// A committed edit (Enter, leaving a field, a menu, a slider's first
/// move): the address bar follows at once, in a new history entry, so
/// Back undoes the edit. An edit that left the link as it was adds none.
pub fn push_url() {
    if let Some(t) = with(|app| app.url_timer.take()) {
        cancel(t);
    }
    update_links();
    write_url(true);
}

/// Writes the address bar now: in a new entry (`push`) or in place.
pub fn write_url(push: bool) {
    with(|app| app.url_timer = None);
    let l = window().location();
    let fragment = format!("#{}", current_fragment());
    if push && l.hash().is_ok_and(|h| h == fragment) {
        return;
    }
    let target = format!("{}{}{fragment}", l.pathname().unwrap_or_default(), l.search().unwrap_or_default());
    if let Ok(history) = window().history() {
        let _ = if push {
            history.push_state_with_url(&JsValue::NULL, "", Some(&target))
        } else {
            history.replace_state_with_url(&JsValue::NULL, "", Some(&target))
        };
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

/// The address an iframe embeds for the current scenario: the core's
/// embed address (the lesson's plot and the table, as `lbsim url --embed`
/// writes it), with the page's theme when it was given one. The snippet
/// around it, as tall as the embed, is `embed_code`'s.
pub fn embed_src() -> String {
    let mut src = with(|app| url::embed_url(&page_base(), &app.scenario, app.preset, &views(app)));
    if let Some(theme) = query("theme").filter(|t| t != "auto" && THEMES.contains(&t.as_str())) {
        src = src.replacen('#', &format!("&theme={theme}#"), 1);
    }
    src
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

/// The names of a comma-separated list (`plots=cdf,loads`).
fn names(list: &str) -> Vec<String> {
    list.split(',').map(str::trim).filter(|k| !k.is_empty()).map(str::to_string).collect()
}

/// Shows the embed's plots, in the order listed, and hides the others
/// (the realized figures go with the table); a folded panel shown opens.
fn show_plots(plots: &[Plot]) {
    let Ok(parts) = document().query_selector_all("[data-plot]") else { return };
    let realized = by_id::<Element>("realized");
    for p in plots {
        for i in 0..parts.length() {
            let Some(part) = parts.item(i).and_then(|n| n.dyn_into::<HtmlElement>().ok()) else { continue };
            if part.get_attribute("data-plot").as_deref() != Some(p.id()) {
                continue;
            }
            // Moved to the end of the results: the order on screen and for
            // a screen reader is the author's.
            if let Some(parent) = part.parent_node() {
                if let Some(realized) = realized.as_ref().filter(|_| *p == Plot::Table) {
                    let _ = parent.append_child(realized);
                }
                let _ = parent.append_child(&part);
            }
        }
    }
    for i in 0..parts.length() {
        let Some(part) = parts.item(i).and_then(|n| n.dyn_into::<HtmlElement>().ok()) else { continue };
        let name = part.get_attribute("data-plot").unwrap_or_default();
        let shown = plots.iter().any(|p| p.id() == name);
        part.set_hidden(!shown);
        if let Some(panel) = part.dyn_ref::<HtmlDetailsElement>().filter(|_| shown) {
            panel.set_open(true);
        }
    }
    dom::set_hidden("realized", !plots.contains(&Plot::Table));
}

/// In an embed whose author named no plots, the plots follow the preset
/// (a reader may pick another when the preset picker is one of its
/// controls).
pub fn follow_preset(p: Option<&'static Preset>) {
    if with(|app| app.embed && app.embed_plots.is_none()) {
        show_plots(&url::embed_plots(p));
    }
}

/// The page's own query: `theme=` on any page, and with `embed=1` the
/// compact view of an iframe
/// (docs/embedding.md#what-an-embed-shows-keys-and-defaults): the lesson, the plots
/// `plots=` names (by default the preset's, [`url::embed_plots`]), the
/// controls `controls=` names (none by default), and a last line linking
/// the full playground and its glossary; its height goes to the parent
/// page. Names it does not know are said in one notice.
pub fn apply_query(preset: Option<&'static Preset>) {
    let mut unknown = Vec::new();
    if let Some(theme) = query("theme").filter(|t| !THEMES.contains(&t.as_str())) {
        unknown.push(format!(
            "theme: unknown theme \"{}\" ignored; known: {}",
            Echo::bare(&theme),
            THEMES.join(", ")
        ));
    }
    if query("embed").as_deref() == Some("1") {
        embed(preset, &mut unknown);
    }
    if !unknown.is_empty() {
        add_notice("Parts of this page's address were not used:", &url::capped(unknown));
    }
}

/// The compact view of [`apply_query`]; what it does not know goes to
/// `unknown`.
fn embed(preset: Option<&'static Preset>, unknown: &mut Vec<String>) {
    let known: Vec<&str> = Plot::ALL.iter().map(|p| p.id()).collect();
    let chosen: Option<Vec<Plot>> = query("plots").map(|list| {
        names(&list)
            .iter()
            .filter_map(|id| {
                let plot = Plot::parse(id);
                if plot.is_none() {
                    let id = Echo::bare(id);
                    unknown
                        .push(format!("plots: unknown plot \"{id}\" ignored; known: {}", known.join(", ")));
                }
                plot
            })
            .collect()
    });
    with(|app| {
        app.embed = true;
        app.embed_plots = chosen.clone();
    });
    if let Some(body) = document().body() {
        let _ = body.class_list().add_1("embed");
    }
    show_plots(&chosen.unwrap_or_else(|| url::embed_plots(preset)));
    let listed = names(&query("controls").unwrap_or_default());
    let mut missing = controls::show_only(&listed);
    // The preset picker sits in the status bar, not in the form: the
    // styles show it for `body.picker`.
    if missing.iter().any(|k| k == "preset") {
        missing.retain(|k| k != "preset");
        if let Some(body) = document().body() {
            let _ = body.class_list().add_1("picker");
        }
    }
    unknown.extend(missing.iter().map(|key| {
        let key = Echo::bare(key);
        format!("controls: unknown control \"{key}\" ignored; a control is named by its link key (slow-share, zipf, seed)")
    }));
    // The controls sit under the lesson, over the plots they change.
    if let (Some(form), Some(lesson)) = (by_id::<HtmlElement>("controls"), by_id::<Element>("lesson")) {
        form.set_hidden(listed.iter().all(|k| k == "preset" || missing.contains(k)));
        let _ = lesson.after_with_node_1(&form);
    }
    // The glossary is the full playground's, in a new tab.
    if let Ok(links) = document().query_selector_all("a[href='#glossary']") {
        for i in 0..links.length() {
            if let Some(a) = links.item(i).and_then(|n| n.dyn_into::<Element>().ok()) {
                let _ = a.set_attribute("href", "./#glossary");
                let _ = a.set_attribute("target", "_blank");
                let _ = a.set_attribute("rel", "noopener");
            }
        }
    }
    dom::set_hidden("embed-links", false);
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
