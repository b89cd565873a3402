//! The core's behaviour, one module per behaviour, in one test binary (one
//! link for them all). Each pins the simulator against something outside
//! its code: a formula from queueing theory, what a reference
//! implementation documents, an oracle's output, the captured reports.
//! `cargo test -p lbsim-core --test behaviour NAME` runs the tests whose
//! path holds NAME, a module's name among them (`golden_reports`).

mod alb_documented_entries;
mod common;
// The fuzz harness, shared with the CLI's tests.
mod fuzz;

mod aperture_slices;
mod docs_measure_every_rule;
mod engine_invariants;
mod error_messages_escape_input;
mod events_after_the_run;
mod fit_recovers_known_scenarios;
mod fleet_behaviour;
mod fleet_cost;
mod front_end_decisions;
mod fuzz_inputs;
mod fuzz_reports;
mod golden_reports;
mod grpc_stride_scheduler;
mod jiq_matches_its_model;
mod learned_weights;
mod least_connections_pooled_bound;
mod littles_law;
mod locality;
mod log_keys_are_the_users;
mod logged_keys_are_hashed;
mod mmc_random_routing;
mod nginx_ring_matches_the_oracle;
mod placement_note;
mod power_of_two_mean_field;
mod prequal_probe_cost;
mod preset_lessons;
mod replay_shows_what_rules_hear;
mod ring_placements;
mod round_robin_erlang_n;
mod scenario_codec;
mod zipf_shares;
