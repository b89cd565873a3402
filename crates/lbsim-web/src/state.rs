//! What the page knows: the current scenario, the run it waits for, the
//! last report on screen and how it is viewed. One `App` per page, reached
//! through [`with`].

use std::cell::RefCell;
use std::rc::Rc;

use lbsim_core::presets::Preset;
use lbsim_core::{Report, Scenario};

use crate::dom::{set_body_data, window};
use crate::palette::Theme;
use crate::plots::{CdfView, Class, Look};
use crate::pool::{Pending, Slot};
use crate::sweep::SweepState;
use crate::table::Sort;

/// Everything the page knows.
pub struct App {
    /// The current (last valid) scenario.
    pub scenario: Scenario,
    /// The pool of workers.
    pub workers: Vec<Slot>,
    /// Worker restarts since the last good result.
    pub restarts: u32,
    /// Last run id handed out.
    pub run_id: u32,
    /// The run whose result the page waits for.
    pub pending: Option<Pending>,
    /// When the input that asked for the running run happened.
    pub asked_ms: f64,
    /// The report on screen.
    pub report: Option<Rc<Report>>,
    /// How the latency plot is drawn.
    pub view: CdfView,
    /// How the table is sorted.
    pub sort: Option<Sort>,
    /// Timers: the debounced run, the address bar, a redraw.
    pub run_timer: Option<i32>,
    /// The debounced address-bar update.
    pub url_timer: Option<i32>,
    /// The debounced redraw after a resize.
    pub redraw_timer: Option<i32>,
    /// The preset the scenario came from, until an edit.
    pub preset: Option<&'static Preset>,
    /// Whether the page is the compact view of an iframe (`?embed=1`).
    pub embed: bool,
    /// The controls an embed shows (`&controls=`).
    pub embed_controls: Vec<String>,
    /// The plots an embed shows (`&plots=`), when the author picked them.
    pub embed_plots: Option<String>,
    /// What the remapping panel last drew, to skip redrawing the same.
    pub remap_key: String,
    /// Whether no plot has been drawn yet.
    pub first_plot: bool,
    /// The sweep view.
    pub sweep: SweepState,
    /// A long scenario the reader agreed to run.
    pub confirmed: Option<Scenario>,
}

thread_local! {
    static APP: RefCell<App> = RefCell::new(App {
        scenario: Scenario::default(),
        workers: Vec::new(),
        restarts: 0,
        run_id: 0,
        pending: None,
        asked_ms: 0.0,
        report: None,
        view: CdfView { class: Class::All, tail: false },
        sort: None,
        run_timer: None,
        url_timer: None,
        redraw_timer: None,
        preset: None,
        embed: false,
        embed_controls: Vec::new(),
        embed_plots: None,
        remap_key: String::new(),
        first_plot: true,
        sweep: SweepState::default(),
        confirmed: None,
    });
}

/// Runs `f` on the page's state. Never call it from inside `f`.
pub fn with<R>(f: impl FnOnce(&mut App) -> R) -> R {
    APP.with(|app| f(&mut app.borrow_mut()))
}

/// `data-state` on `<body>`: loading, running, ready, error (the tests
/// and the styles read it).
pub fn set_state(state: &str) {
    set_body_data("state", state);
}

fn dark() -> bool {
    window().match_media("(prefers-color-scheme: dark)").ok().flatten().is_some_and(|m| m.matches())
}

/// Pixel scale and theme for a redraw.
pub fn look() -> Look {
    let focus = with(|app| app.preset.map_or(&[][..], |p| p.view.focus));
    Look { scale: window().device_pixel_ratio().max(1.0), theme: Theme::new(dark()), focus }
}
