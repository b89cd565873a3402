//! `lbsim workload`: a scenario's requests as the CSV `lbsim run --log`
//! reads back (docs/cli.md#lbsim-workload), so a drawn workload can be
//! looked at, edited by a script, or run again as a log.

use std::io::{self, BufWriter, Write};

use clap::{Args, ValueEnum};
use lbsim_core::access_log::csv;
use lbsim_core::Prepared;

use crate::flags::Sources;
use crate::log;
use crate::outcome::{complain, Failure};

/// Output formats of `lbsim workload`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum WorkloadFormat {
    /// `arrival_ms,work_ms,key[,class]`, header first (class when the work is bimodal).
    #[default]
    Csv,
}

#[derive(Args, Debug)]
pub struct WorkloadArgs {
    #[command(flatten)]
    pub sources: Sources,
    /// Output format
    #[arg(long, value_enum, default_value_t)]
    pub format: WorkloadFormat,
}

pub fn workload(args: &WorkloadArgs) -> Result<(), Failure> {
    let mut scenario = args.sources.scenario()?;
    let traffic = log::read(&mut scenario, args.sources.fleet_given())?;
    for note in args.sources.without_effect(&scenario) {
        complain(&note);
    }
    let prepared = match &traffic {
        Some(traffic) => Prepared::with_traffic(&scenario, traffic)?,
        None => Prepared::new(&scenario)?,
    };
    let workload = prepared.workload();
    let WorkloadFormat::Csv = args.format;
    let mut out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
    writeln!(out, "{}", csv::header(workload.classed))?;
    let mut line = String::with_capacity(96);
    for request in &workload.requests {
        line.clear();
        csv::write_line(&mut line, request, workload.classed);
        out.write_all(line.as_bytes())?;
    }
    out.flush()?;
    Ok(())
}
