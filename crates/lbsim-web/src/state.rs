//! What the page knows: the current scenario, the workers and the run it
//! waits for, the last report on screen and how it is viewed, the sweep.
//! One `App` per page, reached through [`with`]. Plain data: the modules
//! above (`pool`, `run`, `sweep`, `view`, ...) change it.

use std::cell::RefCell;
use std::rc::Rc;

use lbsim_core::presets::{Plot, Preset};
use lbsim_core::report::Headline;
use lbsim_core::sweep::Sweep;
use lbsim_core::{Report, Scenario};
use web_sys::Worker;

use crate::dom::{document, set_body_data, window};
use crate::palette::Theme;
use crate::plots::cdf::{CdfView, Class};
use crate::plots::legend::LegendRow;
use crate::plots::look::Look;
use crate::table::Sort;

/// Everything the page knows.
pub struct App {
    /// The current (last valid) scenario.
    pub scenario: Scenario,
    /// The pool of workers.
    pub workers: Vec<Slot>,
    /// Which of them runs the full simulator, once a run named a rule
    /// this module leaves out (the last one started).
    pub full: Option<usize>,
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
    /// The plots an embed shows (`&plots=`), when the author picked them.
    pub embed_plots: Option<Vec<Plot>>,
    /// What the remapping panel last drew, to skip redrawing the same.
    pub remap_key: String,
    /// Whether no plot has been drawn yet.
    pub first_plot: bool,
    /// The sweep view.
    pub sweep: SweepState,
    /// The replay view's keys a link gave (`view=replay`), kept in the
    /// links the page writes.
    pub replay: Option<lbsim_core::replay::Keys>,
    /// The theme a link chose (`theme=`), kept in the links the page writes.
    pub theme: Option<&'static str>,
    /// A long scenario the reader agreed to run.
    pub confirmed: Option<Scenario>,
    /// Each plot's legend as last drawn, by canvas id (for a saved PNG).
    pub legends: Vec<(&'static str, Vec<LegendRow>)>,
    /// The part of the page a link named (`#glossary`, from an embed):
    /// focused once the first plot is drawn and the page's height settled.
    pub jump_to: Option<String>,
    /// Whether a slider is being dragged: its first move made a history
    /// entry, the later ones replace it.
    pub dragging: bool,
}

/// One worker of the pool.
pub struct Slot {
    /// The Web Worker.
    pub worker: Worker,
    /// Whether it said it is ready.
    pub ready: bool,
}

/// The run the page waits for: one part per worker, merged when all came.
pub struct Pending {
    /// The run's id.
    pub run_id: u32,
    /// What the result is for: the main view, or one value of a sweep.
    pub purpose: Purpose,
    /// The workers running a part, by part.
    pub workers: Vec<usize>,
    /// The parts that came.
    pub parts: Vec<Option<Report>>,
    /// Each part's progress (done, total).
    pub progress: Vec<(u64, u64)>,
}

impl Pending {
    /// The part `worker` runs, if this is run `run_id`.
    pub fn part_of(&mut self, worker: usize, run_id: u32) -> Option<usize> {
        if self.run_id != run_id {
            return None;
        }
        self.workers.iter().position(|&w| w == worker)
    }
}

/// What a run's report is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    /// The plots and the table.
    Main,
    /// One value of the sweep view's range.
    Sweep,
}

/// The sweep view's state.
#[derive(Default)]
pub struct SweepState {
    /// The range the reader set up (it goes in the link).
    pub spec: Option<Sweep>,
    /// Whether the link asked for the sweep, to run once the page has run.
    pub asked: bool,
    /// The sweep going, value by value.
    pub running: Option<SweepRun>,
    /// The last finished sweep: the range and each value's rows.
    pub result: Option<(Sweep, Vec<Vec<Headline>>)>,
}

/// A sweep going: its values' scenarios and the rows of those done.
pub struct SweepRun {
    /// The range.
    pub sweep: Sweep,
    /// One scenario per value.
    pub scenarios: Vec<Scenario>,
    /// The rows of the values done, in order.
    pub rows: Vec<Vec<Headline>>,
    /// The run of the value going.
    pub run_id: u32,
    /// The core's estimate for the whole sweep on this page.
    pub seconds: f64,
}

thread_local! {
    static APP: RefCell<App> = RefCell::new(App {
        scenario: Scenario::default(),
        workers: Vec::new(),
        full: None,
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
        embed_plots: None,
        remap_key: String::new(),
        first_plot: true,
        sweep: SweepState::default(),
        replay: None,
        theme: None,
        confirmed: None,
        legends: Vec::new(),
        jump_to: None,
        dragging: false,
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

/// The theme: the one the link chose (`theme=`, which boot.js and
/// `links::apply_theme` write on `<html>` as `data-theme`), else the
/// reader's preference; on paper (print media, not `screen`) light.
fn dark() -> bool {
    let chosen = document().document_element().and_then(|html| html.get_attribute("data-theme"));
    let query = match chosen.as_deref() {
        Some("dark") => "screen",
        Some("light") => return false,
        _ => "screen and (prefers-color-scheme: dark)",
    };
    window().match_media(query).ok().flatten().is_some_and(|m| m.matches())
}

/// Pixel scale and theme for a redraw.
pub fn look() -> Look {
    let focus = with(|app| app.preset.map_or(&[][..], |p| p.view.focus));
    Look { scale: window().device_pixel_ratio().max(1.0), theme: Theme::new(dark()), focus }
}
