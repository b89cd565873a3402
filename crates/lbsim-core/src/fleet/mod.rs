//! The fleet over time (SPEC section 12): events, health checks, retries
//! and slow start.

pub mod events;
