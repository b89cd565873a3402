//! Health, as the three balancers do it
//! (docs/model.md#health-checks-retries-warm-up), one file per program's
//! mechanism: NGINX's passive checks (`passive.rs`) and Envoy's outlier
//! detection (`outlier.rs`) per balancer copy, HAProxy's active checks
//! (`active.rs`) shared by every copy, and Envoy's slow start
//! (`slow_start.rs`). What they share is here: the time a server is
//! unavailable to a copy, whichever of them took it out.

mod active;
mod outlier;
mod passive;
mod slow_start;

pub use self::active::Active;
pub use self::outlier::Outlier;
pub use self::passive::Passive;
pub use self::slow_start::slow_start_factor;

/// Time a server is unavailable to one copy, as the union of its spells.
#[derive(Clone, Copy, Debug, Default)]
pub struct Downtime {
    since: Option<f64>,
    /// Closed spells, in ms.
    pub total_ms: f64,
}

impl Downtime {
    /// The server became unavailable (`down`) or available at `t`.
    pub fn mark(&mut self, down: bool, t: f64) {
        match (down, self.since) {
            (true, None) => self.since = Some(t),
            (false, Some(since)) => {
                self.total_ms += t - since;
                self.since = None;
            }
            _ => {}
        }
    }

    /// The total with an open spell closed at `end`, each spell cut at `end`.
    pub fn until(&self, end: f64) -> f64 {
        self.total_ms + self.since.map_or(0.0, |since| (end - since).max(0.0))
    }
}
