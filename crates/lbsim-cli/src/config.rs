//! `lbsim config`: the scenario as a real balancer's configuration, from
//! the core's `config` (what the balancer cannot express is a comment).

use clap::Args;
use lbsim_core::config::{self, Key, Program, Request};
use lbsim_core::AlgorithmId;

use crate::flags::Sources;
use crate::outcome::{bad, print, Failure};

#[derive(Args, Debug)]
pub struct ConfigArgs {
    /// The balancer: nginx, haproxy, envoy or grpc (a service config)
    #[arg(long = "for", value_name = "BALANCER")]
    pub program: String,
    /// The rule (one of the scenario's; needed when it has more than one)
    #[arg(long, value_name = "A")]
    pub algorithm: Option<String>,
    /// A whole runnable config (NGINX and HAProxy listening on 127.0.0.1:PORT) instead of the block
    #[arg(long)]
    pub full: bool,
    /// The port a whole config listens on: 1 to 65535 [default: 8080]
    #[arg(long, value_name = "PORT")]
    pub port: Option<String>,
    /// Where the hash key, the user id, comes from: arg:NAME (a query argument) or header:NAME [default: arg:user]
    #[arg(long, value_name = "SOURCE")]
    pub key: Option<String>,
    #[command(flatten)]
    pub sources: Sources,
}

pub fn config(args: &ConfigArgs) -> Result<(), Failure> {
    let ids = |all: &[Program]| all.iter().map(|b| b.id()).collect::<Vec<_>>().join(", ");
    let program: Program =
        args.program.trim().parse().map_err(|()| bad("for", &args.program, ids(&Program::ALL)))?;
    let scenario = args.sources.scenario()?;
    let rule = match (&args.algorithm, scenario.rules().as_slice()) {
        (Some(text), rules) => {
            text.trim().parse().ok().filter(|rule: &AlgorithmId| rules.contains(rule)).ok_or_else(|| {
                let ids: Vec<&str> = rules.iter().map(|a| a.id()).collect();
                bad("algorithm", text, format!("one of the scenario's rules: {}", ids.join(", ")))
            })?
        }
        (None, [one]) => *one,
        (None, _) => {
            return Err(bad(
                "algorithm",
                "",
                "one rule: the scenario has several, so name one with --algorithm",
            ));
        }
    };
    let port = match &args.port {
        None => 8080,
        Some(text) => text
            .trim()
            .parse::<u16>()
            .ok()
            .filter(|&p| p > 0)
            .ok_or_else(|| bad("port", text, "1 to 65535"))?,
    };
    let key = match &args.key {
        None => Key::Arg("user".into()),
        Some(text) => Key::parse(text.trim()).map_err(|why| bad("key", text, why))?,
    };
    let request = Request { program, rule, full: args.full, key, port };
    config::check(&scenario, &request).map_err(|(field, value, why)| bad(field, &value, why))?;
    print(&config::write(&scenario, &request))
}
