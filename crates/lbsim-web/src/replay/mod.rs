//! The replay view, which the replay's module (`lbsim-replay`) draws: two
//! rules' runs of the same first requests, side by side on one clock. What
//! moves is the core's attempt log (`lbsim_core::replay`), run in the
//! replay's worker (`web/replay-worker.js`, on the same module) and
//! sent whole; the counters beside each rule are `Replay::at` at the
//! playhead, a server's state is the core's `ServerState` there, and the
//! pair a link leaves unnamed is the core's `default_pair`, as
//! `lbsim replay`'s. This module decides only where the dots go. The first
//! module never names it, so a first visit does not carry it.
//!
//! Its state lives in that module's instance; the page's links learn
//! the view's keys from the panel (`data-keys` and an `lbsim-keys` event,
//! which the first module's wiring turns into its links).
//!
//! Its files, each naming only those before it: `state` (the player and
//! the arithmetic it plays by, no page in it), `draw` (a side on its
//! canvas), `links` (the view's keys, the command line), `frame` (what the
//! view shows at the playhead, the status line), `playback` (play, pause,
//! step), `worker` (asking the replay's worker, its answers), `controls`
//! (the markup and its handlers), and this one (the entry point). Its
//! `tests` pin the logic that needs no browser; `tests/replay.test.mjs`
//! the view in one.

mod controls;
mod draw;
mod frame;
mod links;
mod playback;
mod state;
#[cfg(test)]
mod tests;
mod worker;

use lbsim_core::replay::default_pair;
use lbsim_core::url;
use web_sys::Element;

use self::state::{with_player, Player};
use crate::dom::{by_id, window};

/// Shows the replay for `link` (the page's share link with its view keys):
/// builds the view the first time (brought into sight when the link opens
/// it, far below the plots), asks the worker for a new window when the
/// scenario, the pair or the window changed, else redraws.
pub fn show(link: &str) {
    let decoded = url::decode(link);
    if by_id::<Element>("replay-view").is_none() {
        controls::build();
        if decoded.replay.as_ref().is_some_and(|k| k.open()) {
            frame::bring_into_sight();
        }
    }
    let (view, errors) = decoded.replay.clone().unwrap_or_default().view();
    let scenario = decoded.scenario;
    let pair = view.pair.unwrap_or_else(|| default_pair(&scenario, decoded.preset));
    if with_player(|p| p.set(scenario.clone(), decoded.preset, pair, &view)).is_none() {
        let reduced_motion = window()
            .match_media("(prefers-reduced-motion: reduce)")
            .ok()
            .flatten()
            .is_some_and(|m| m.matches());
        state::start(Player::new(scenario, decoded.preset, pair, &view, &errors, reduced_motion));
    }
    if !errors.is_empty() {
        links::refuse(&errors);
    }
    controls::show_choices();
    worker::compute_if_changed();
}
