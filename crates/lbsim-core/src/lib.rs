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
//! layer or below, from arithmetic and randomness at the bottom through the
//! rules, the scenario, the server model, the fleet and the engine to the
//! link codec on top; the layers are listed once, in
//! `crates/xtask/src/layers.rs`, which `cargo xtask layers` checks
//! (CONTRIBUTING.md, "Layers").
#![no_std]

extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

pub mod access_log;
pub mod balancer;
mod bus;
pub mod chacha;
pub mod config;
pub mod cost;
pub mod engine;
pub mod events;
pub mod fit;
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
