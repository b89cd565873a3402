//! A server's latency estimate, as a Prequal probe reply carries it
//! (docs/model.md#prequal): the median latency of its recent finished
//! requests whose in-flight count on arrival is nearest the count a probe
//! finds.
//!
//! It is asked up to a few times a request (once a probe), so the recent
//! requests are kept sorted by (in-flight count, latency) as they finish,
//! and a question walks outward from the count asked: the nearer half is a
//! merge of the entries above and below it, and only the lower half of
//! the latencies met is kept, for the median. No sort, no allocation.

/// Recent finished requests a server keeps for its latency estimate.
pub(super) const RECENT: usize = 16;

/// The latencies the median is taken from are at most `RECENT / 2`, and
/// the median is the lower middle: at most this many are kept.
const LOWER_HALF: usize = RECENT / 4;

/// One server's recent finished requests, as (in-flight count on arrival,
/// latency's bits): latencies are never negative, so their bits order as
/// they do.
#[derive(Clone, Debug)]
pub(super) struct Recent {
    /// In the order they finished: the oldest is replaced when full.
    ring: [(u32, u64); RECENT],
    /// The same entries sorted by (in-flight count, latency).
    sorted: [(u32, u64); RECENT],
    len: usize,
    next: usize,
    /// The last estimate asked for, by in-flight count, until a request
    /// finishes (probes of a server often find the same count in between).
    estimated: Option<(u32, Option<f64>)>,
}

impl Default for Recent {
    fn default() -> Recent {
        Recent { ring: [(0, 0); RECENT], sorted: [(0, 0); RECENT], len: 0, next: 0, estimated: None }
    }
}

impl Recent {
    /// A request that arrived to find `in_flight` requests finished after
    /// `latency_ms`: it replaces the oldest of a full set.
    pub(super) fn finished(&mut self, in_flight: u32, latency_ms: f64) {
        let entry = (in_flight, latency_ms.to_bits());
        let len = if self.len < RECENT {
            self.ring[self.len] = entry;
            self.len += 1;
            self.len - 1
        } else {
            let old = core::mem::replace(&mut self.ring[self.next], entry);
            // Equal entries are interchangeable: any one of them goes.
            let at = self.sorted.iter().position(|&e| e == old).unwrap_or(RECENT - 1);
            self.sorted.copy_within(at + 1.., at);
            RECENT - 1
        };
        let at = self.sorted[..len].partition_point(|&e| e <= entry);
        self.sorted.copy_within(at..len, at + 1);
        self.sorted[at] = entry;
        self.next = (self.next + 1) % RECENT;
        self.estimated = None;
    }

    /// [`Recent::latency_near`], kept until the next finished request.
    pub(super) fn estimate(&mut self, in_flight: u32) -> Option<f64> {
        if let Some((asked, estimate)) = self.estimated {
            if asked == in_flight {
                return estimate;
            }
        }
        let estimate = self.latency_near(in_flight);
        self.estimated = Some((in_flight, estimate));
        estimate
    }

    /// The median latency (the lower middle of an even count) of the
    /// nearer half (at least one) of the recent requests by distance of
    /// their in-flight count from `in_flight`, ties to the lower latency;
    /// `None` before any finished.
    pub(super) fn latency_near(&self, in_flight: u32) -> Option<f64> {
        let kept = self.len;
        if kept == 0 {
            return None;
        }
        let near = kept.div_ceil(2);
        let median = (near - 1) / 2;
        let sorted = &self.sorted[..kept];
        // Above (and at) the count, nearer means further along `sorted`,
        // and an equal count's latencies come lowest first. Below it,
        // nearer means further back, but each count's latencies still
        // come lowest first: the walk down takes a count's entries as a
        // group, from its start.
        let mut up = sorted.partition_point(|&(rif, _)| rif < in_flight);
        let mut down_end = up;
        let (mut group, mut group_end) = (up, up);
        let mut lowest = [u64::MAX; LOWER_HALF];
        for _ in 0..near {
            if group == group_end && down_end > 0 {
                let rif = sorted[down_end - 1].0;
                group_end = down_end;
                group = sorted[..down_end].partition_point(|&(r, _)| r < rif);
                down_end = group;
            }
            let below = (group < group_end).then(|| (in_flight - sorted[group].0, sorted[group].1));
            let above = (up < kept).then(|| (sorted[up].0 - in_flight, sorted[up].1));
            let latency = match (below, above) {
                (Some(b), Some(a)) if b < a => {
                    group += 1;
                    b.1
                }
                (Some(b), None) => {
                    group += 1;
                    b.1
                }
                (_, Some(a)) => {
                    up += 1;
                    a.1
                }
                (None, None) => break,
            };
            // Keep the lowest `median + 1` latencies met, in order.
            let mut i = median;
            if latency < lowest[i] {
                while i > 0 && lowest[i - 1] > latency {
                    lowest[i] = lowest[i - 1];
                    i -= 1;
                }
                lowest[i] = latency;
            }
        }
        Some(f64::from_bits(lowest[median]))
    }
}
