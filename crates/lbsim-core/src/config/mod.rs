//! The scenario as a real balancer's configuration (`lbsim config`): the
//! NGINX `upstream` block, the HAProxy `backend`, the Envoy cluster or the
//! gRPC service config that realises one rule over the scenario's servers,
//! weights, health checks, retries and slow start. What the balancer cannot express is written as
//! a comment, never dropped: a reader sees what their balancer would not
//! do. The hash key is the user id, from a query argument (`user`) or a
//! header.
//!
//! Servers named as addresses (`10.0.0.1:8080`) keep their names; others
//! (`s1`) become `127.0.0.1:8081`, `127.0.0.1:8082`, ... with the name as
//! a comment, so every output is a config the program takes (`nginx -t`,
//! `haproxy -c`, gRPC's own parser through `grpcio`; Envoy's is not run
//! here).

use alloc::string::String;

use crate::scenario::Scenario;

mod envoy;
mod grpc;
mod haproxy;
mod nginx;
mod request;

pub use request::{check, Key, Program, Request, MAX_KEY_NAME};

/// The configuration `request` asks for.
pub fn write(scenario: &Scenario, request: &Request) -> String {
    match request.program {
        Program::Nginx => nginx::nginx(scenario, request),
        Program::Haproxy => haproxy::haproxy(scenario, request),
        Program::Envoy => envoy::envoy(scenario, request),
        Program::Grpc => grpc::grpc(scenario, request),
    }
}

#[cfg(test)]
mod tests;
