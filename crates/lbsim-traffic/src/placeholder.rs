//! Stand-in for `lbsim_core::access_log` until it lands: CSV only.
#![allow(missing_docs, dead_code)]

use lbsim_core::workload::Request;
use lbsim_core::{Prepared, Scenario, ScenarioError};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogKind { Nginx, HaproxyHttp, HaproxyTcp, Alb, Csv }
impl LogKind {
    pub fn id(self) -> &'static str { match self { LogKind::Nginx => "nginx", LogKind::HaproxyHttp => "haproxy", LogKind::HaproxyTcp => "haproxy-tcp", LogKind::Alb => "alb", LogKind::Csv => "csv" } }
}
impl core::str::FromStr for LogKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> { Ok(match s { "nginx" => LogKind::Nginx, "haproxy" => LogKind::HaproxyHttp, "haproxy-tcp" => LogKind::HaproxyTcp, "alb" => LogKind::Alb, "csv" => LogKind::Csv, _ => return Err(format!("log-kind: {s}")) }) }
}
#[derive(Clone, Copy, Debug, Default)]
pub enum WorkFrom { #[default] Upstream, Total }
#[derive(Clone, Debug, Default)]
pub struct LogSettings { pub kind: Option<LogKind>, pub format: Option<String>, pub work_from: WorkFrom }
#[derive(Debug)]
pub struct LogError(pub String);
impl core::fmt::Display for LogError { fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result { f.write_str(&self.0) } }
#[derive(Clone, Debug, Default)]
pub struct LogProgress { pub lines: u64, pub bytes: u64, pub kept: u64, pub skipped: u64, pub first_skips: Vec<(u64, String)>, pub kind: Option<LogKind> }
pub struct LogReader { rest: Vec<u8>, progress: LogProgress, requests: Vec<Request> }
impl LogReader {
    pub fn new(_settings: LogSettings) -> LogReader { LogReader { rest: Vec::new(), progress: LogProgress::default(), requests: Vec::new() } }
    pub fn push(&mut self, chunk: &[u8]) -> Result<(), LogError> {
        self.progress.bytes += chunk.len() as u64;
        self.rest.extend_from_slice(chunk);
        while let Some(at) = self.rest.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.rest.drain(..=at).collect();
            self.line(&line[..line.len() - 1]);
        }
        Ok(())
    }
    fn line(&mut self, line: &[u8]) {
        self.progress.lines += 1;
        let text = core::str::from_utf8(line).unwrap_or("");
        let mut parts = text.split(',');
        let (Some(a), Some(w)) = (parts.next().and_then(|a| a.parse().ok()), parts.next().and_then(|w| w.parse().ok())) else {
            self.progress.skipped += 1;
            if self.progress.first_skips.len() < 5 { self.progress.first_skips.push((self.progress.lines, "not arrival_ms,work_ms".into())); }
            return;
        };
        self.progress.kept += 1;
        self.progress.kind = Some(LogKind::Csv);
        self.requests.push(Request { arrival_ms: a, work_ms: w, user: 1, slow: false, copy: 0 });
    }
    pub fn progress(&self) -> LogProgress { self.progress.clone() }
    pub fn finish(mut self) -> Result<Traffic, LogError> {
        let rest = core::mem::take(&mut self.rest);
        if !rest.is_empty() { self.line(&rest); }
        if self.requests.is_empty() { return Err(LogError("no request could be read: expected arrival_ms,work_ms lines".into())); }
        Ok(Traffic { requests: self.requests, keys: vec!["user-1".into()], served_by: Vec::new(), servers: Vec::new(), classed: false, errors: 0, retries: 0, notes: Vec::new(), kind: LogKind::Csv })
    }
}
pub struct Traffic { pub requests: Vec<Request>, pub keys: Vec<String>, pub served_by: Vec<u16>, pub servers: Vec<String>, pub classed: bool, pub errors: u64, pub retries: u64, pub notes: Vec<String>, pub kind: LogKind }
pub fn with_traffic(scenario: &Scenario, traffic: &Traffic) -> Result<Prepared, ScenarioError> {
    let mut s = scenario.clone();
    s.requests = traffic.requests.len() as u64;
    Prepared::new(&s)
}
