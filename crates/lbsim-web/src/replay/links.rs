//! The view in the page's links: its keys, where the first module reads
//! them for the links it writes (`data-keys` on the panel and an
//! `lbsim-keys` event, which its wiring turns into its links), and the
//! command that prints the same counters at the playhead.

use lbsim_core::url;
use lbsim_core::ScenarioError;
use web_sys::{Element, Event};

use super::state::with_player;
use crate::dom::{by_id, page_base, set_text};

/// A link's view keys that do not read: said at the top of the page with
/// the link's other notices (`data-key-errors` and an `lbsim-key-errors`
/// event, which the first module's wiring shows), and the view's keys
/// written back, so the address bar drops them.
pub fn refuse(errors: &[ScenarioError]) {
    if let Some(panel) = by_id::<Element>("replay-panel") {
        let _ = panel.set_attribute("data-key-errors", &url::notice(errors).join("\n"));
        if let Ok(event) = Event::new("lbsim-key-errors") {
            let _ = panel.dispatch_event(&event);
        }
    }
    publish();
}

/// Writes the view's keys where the first module reads them for its links.
pub fn publish() {
    let Some(keys) = with_player(|p| p.keys()) else { return };
    if let Some(panel) = by_id::<Element>("replay-panel") {
        let _ = panel.set_attribute("data-keys", keys.trim_start_matches('&'));
        if let Ok(event) = Event::new("lbsim-keys") {
            let _ = panel.dispatch_event(&event);
        }
    }
    cli();
}

/// The command that prints the same counters at the playhead.
pub fn cli() {
    let Some(text) = with_player(|p| p.command(&page_base())) else { return };
    set_text("replay-cli", &text);
}
