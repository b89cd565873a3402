//! Layer 4 (docs/model.md#caches-and-connections): each user holds one long-lived multiplexed
//! connection (HTTP/2, gRPC). The rule places the connection, not the
//! request: it picks a server when the connection opens, through the copy
//! that got the user's request, and every request on it goes there.
//!
//! A connection is re-opened lazily, at the user's first request after
//! `conn-life-ms` (0: never), through that request's copy. A copy counts
//! its open connections as an L4 balancer does: `dispatched` when one
//! opens, `closed` when it closes. `leave` and `crash` close a server's
//! connections (they re-open at their user's next request); a `fail`ing
//! server keeps them, the layer 4 black hole.

use alloc::boxed::Box;
use alloc::vec::Vec;

use crate::balancer::Balancer;

#[derive(Clone, Copy, Debug)]
struct Connection {
    server: u32,
    /// The balancer copy that opened it (it counts it).
    copy: u16,
    opened_ms: f64,
}

/// Every user's connection.
pub(crate) struct Connections {
    /// By user id.
    open: Vec<Option<Connection>>,
    life_ms: f64,
}

/// The rule of copy `c` (one rule may serve every copy).
fn rule(copies: &mut [Box<dyn Balancer>], c: usize) -> &mut dyn Balancer {
    let last = copies.len() - 1;
    &mut *copies[c.min(last)]
}

impl Connections {
    /// No connection yet for any of `users`; each lives `life_ms` (0: for
    /// ever).
    pub(crate) fn new(users: u32, life_ms: u32) -> Connections {
        Connections {
            open: alloc::vec![None; users as usize + 1],
            life_ms: if life_ms == 0 { f64::INFINITY } else { f64::from(life_ms) },
        }
    }

    /// Server `s` left or crashed at `now`: its connections close, each
    /// told to the copy that opened it.
    pub(crate) fn close_to(&mut self, s: usize, now: f64, copies: &mut [Box<dyn Balancer>]) {
        for slot in &mut self.open {
            if let Some(conn) = slot.filter(|conn| conn.server as usize == s) {
                rule(copies, usize::from(conn.copy)).closed(s, now);
                *slot = None;
            }
        }
    }
}

/// The server for a request of `user` that reached copy `c` at `now`, and
/// the copy that answers for it. At layer 7 (no `connections`) the rule of
/// copy `c` picks with `pick`. At layer 4 it is the user's open
/// connection's, or a new connection that `pick` places through copy `c`
/// (closing one whose life is over). `None` when `pick` finds no server.
pub(crate) fn place(
    connections: &mut Option<Connections>,
    user: u32,
    c: usize,
    now: f64,
    copies: &mut [Box<dyn Balancer>],
    pick: impl FnOnce(&mut dyn Balancer) -> Option<usize>,
) -> Option<(usize, usize)> {
    let Some(connections) = connections else {
        return Some((pick_through(copies, c, pick)?, c));
    };
    let slot = &mut connections.open[user as usize];
    if let Some(conn) = *slot {
        if now - conn.opened_ms < connections.life_ms {
            return Some((conn.server as usize, usize::from(conn.copy)));
        }
        rule(copies, usize::from(conn.copy)).closed(conn.server as usize, now);
        *slot = None;
    }
    let s = pick_through(copies, c, pick)?;
    *slot = Some(Connection { server: s as u32, copy: c as u16, opened_ms: now });
    Some((s, c))
}

/// Copy `c`'s rule picks with `pick` and is told what it dispatched.
fn pick_through(
    copies: &mut [Box<dyn Balancer>],
    c: usize,
    pick: impl FnOnce(&mut dyn Balancer) -> Option<usize>,
) -> Option<usize> {
    let copy = rule(copies, c);
    let s = pick(copy)?;
    copy.dispatched(s);
    Some(s)
}
