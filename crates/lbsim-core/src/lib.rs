//! # lbsim-core
//!
//! The deterministic discrete-event simulator behind lbsim: which server
//! gets your request, under every load-balancing rule in its registry
//! ([`AlgorithmId::ALL`]), from one common request stream.
//!
//! Data flows one way: a [`Scenario`] (from a URL, CLI flags or JSON) is
//! validated against the one table of ranges ([`scenario::FIELDS`]), drawn
//! into a [`workload::Workload`], run by the [`engine`] once per algorithm
//! and summarized in a [`Report`]. [`remap`] runs the remapping experiment.
//!
//! What it is not: it knows nothing of browsers, terminals or files. It is
//! `no_std` + `alloc`, uses ChaCha for randomness and `libm` for every
//! transcendental function, so the same scenario gives byte-identical
//! reports natively and in wasm.
//!
//! What it may import: no other crate of the workspace, and of the outside
//! world only arithmetic, hashing, randomness and serde (see its
//! `Cargo.toml`). Inside, its modules form layers, each naming only its own
//! layer or below (`cargo xtask layers` checks it, and that no file
//! reaches itself through the files it names):
//!
//! 1. `hash`, `chacha`, `sort`, `num`, `rng`, `ziggurat` (exponential and
//!    normal draws): arithmetic and randomness;
//! 2. [`balancer`] (the rules: each gets a [`balancer::Pool`], never a
//!    scenario) and [`events`] (the events grammar);
//! 3. [`scenario`]: the type, the one field table, validation;
//! 4. [`workload`], [`report`], [`theory`], [`remap`], [`cost`], [`config`]
//!    (the scenario as NGINX, HAProxy or Envoy configuration);
//! 5. `server`: the server model both engines run on;
//! 6. [`fleet`]: the event loop of a fleet that changes;
//! 7. [`engine`]: a run, through the static loop or the fleet's, and
//!    [`trace`] (a rule's picks for given arrivals and finishes);
//! 8. [`sweep`], [`presets`], then [`replay`] (a run's first requests,
//!    attempt by attempt; its default pair is a preset's), then [`url`],
//!    which names them all.
#![no_std]

extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

pub mod balancer;
pub mod chacha;
pub mod config;
pub mod cost;
pub mod engine;
pub mod events;
pub mod fleet;
pub mod hash;
mod num;
pub mod presets;
pub mod remap;
pub mod replay;
pub mod report;
mod rng;
pub mod scenario;
mod server;
pub mod sort;
pub mod sweep;
pub mod theory;
pub mod trace;
pub mod url;
pub mod workload;
mod ziggurat;

pub use balancer::AlgorithmId;
pub use engine::{run, Prepared, Simulation};
pub use report::Report;
pub use scenario::{Scenario, ScenarioError};
