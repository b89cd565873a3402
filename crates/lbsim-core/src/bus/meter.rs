//! What one server measures for the bus's messages: its busy slot time,
//! finished and failed requests over report periods (what a load report
//! carries), and whether an idle queue holds it.

use alloc::collections::VecDeque;

use crate::balancer::Message;

/// What one server measures for its messages.
#[derive(Clone, Debug, Default)]
pub(super) struct Meter {
    /// Slots busy now, and the busy slot time of the open period up to `last_ms`.
    pub(super) running: u32,
    /// Starts not yet counted in `running`, in time order.
    pub(super) starts: VecDeque<f64>,
    pub(super) last_ms: f64,
    pub(super) busy_ms: f64,
    pub(super) finished: u32,
    pub(super) failed: u32,
    /// The open period ends here.
    pub(super) period_end_ms: f64,
    /// Figures of the last closed period: qps, eps, utilization.
    pub(super) closed: (f64, f64, f64),
    /// The copy whose idle queue holds this server, if any.
    pub(super) idle_in: Option<u32>,
}

impl Meter {
    /// Busy slot time accrues at the current count until `t`; periods that
    /// close on the way are closed.
    pub(super) fn advance(&mut self, t: f64, period_ms: f64, slots: u32) {
        if t >= self.period_end_ms {
            self.close(period_ms, slots);
            // The whole periods after it hold no start and no end (those
            // are events of their own), so they differ in nothing: only
            // the last is read, and the clock jumps to its start. Periods
            // are whole milliseconds (the field is an integer), so
            // `end + k * period` is exactly the sum period by period, and
            // a long quiet span costs one step, not one a period.
            let mut whole = libm::floor((t - self.period_end_ms) / period_ms);
            while self.period_end_ms + (whole + 1.0) * period_ms <= t {
                whole += 1.0;
            }
            while whole >= 0.0 && self.period_end_ms + whole * period_ms > t {
                whole -= 1.0;
            }
            if whole >= 0.0 {
                self.last_ms = self.period_end_ms + whole * period_ms - period_ms;
                self.period_end_ms = self.last_ms + period_ms;
                self.close(period_ms, slots);
            }
        }
        self.busy_ms += f64::from(self.running) * (t - self.last_ms);
        self.last_ms = t;
    }

    /// The open period closes at its end: its figures become the report's.
    fn close(&mut self, period_ms: f64, slots: u32) {
        let end = self.period_end_ms;
        self.busy_ms += f64::from(self.running) * (end - self.last_ms);
        let seconds = period_ms / 1000.0;
        self.closed = (
            f64::from(self.finished) / seconds,
            f64::from(self.failed) / seconds,
            self.busy_ms / (f64::from(slots) * period_ms),
        );
        self.busy_ms = 0.0;
        self.finished = 0;
        self.failed = 0;
        self.last_ms = end;
        self.period_end_ms = end + period_ms;
    }

    /// A request starts at `t`: counted when the meter next reads its
    /// figures ([`Meter::count_starts`]). Starts come in time order but
    /// after a crash, which frees a server's slots early.
    pub(super) fn started(&mut self, t: f64) {
        match self.starts.back() {
            Some(&last) if t < last => {
                let at = self.starts.partition_point(|&start| start <= t);
                self.starts.insert(at, t);
            }
            _ => self.starts.push_back(t),
        }
    }

    /// Counts the starts at or before `t`, the clock advanced to each in
    /// turn, as if each had been its own event before what happens at `t`.
    pub(super) fn count_starts(&mut self, t: f64, period_ms: f64, slots: u32) {
        while let Some(&start) = self.starts.front() {
            if start > t {
                break;
            }
            self.starts.pop_front();
            self.advance(start, period_ms, slots);
            self.running += 1;
        }
    }

    /// A request ends at `t`, `ok` or failed.
    pub(super) fn ended(&mut self, t: f64, ok: bool, period_ms: f64, slots: u32) {
        self.count_starts(t, period_ms, slots);
        self.advance(t, period_ms, slots);
        self.running = self.running.saturating_sub(1);
        self.finished += 1;
        self.failed += u32::from(!ok);
    }

    /// The clock reaches `t` (a period's close), starts until then counted.
    pub(super) fn close_until(&mut self, t: f64, period_ms: f64, slots: u32) {
        self.count_starts(t, period_ms, slots);
        self.advance(t, period_ms, slots);
    }

    /// The report of the last closed period, as `server` sends it.
    pub(super) fn report(&self, server: usize) -> Message {
        let (qps, eps, utilization) = self.closed;
        Message::LoadReport { server, qps, eps, utilization }
    }
}
