//! The worker's side (`web/traffic-worker.js`): the log pushed chunk by
//! chunk into the core's reader, what it read so far, the summary of what
//! it holds, and every rule run on its requests. The log lives only in
//! this worker's memory: nothing here stores or sends it anywhere but back
//! to the page as figures and a report.

use js_sys::{Array, Function, Object, Reflect};
use lbsim_core::{fit, url, Scenario};
use lbsim_protocol::{wire, FromWorker};
use wasm_bindgen::prelude::*;

use lbsim_core::access_log::{LogReader, LogSettings, Traffic};
use lbsim_core::Prepared;

/// The largest file the page reads, in bytes of text (after gzip): the
/// reader's requests and a run of every rule on them stay within what a
/// tab's wasm memory holds (docs/web.md#your-traffic); the CLI reads more.
pub const MAX_LOG_BYTES: u64 = 1 << 30;

/// The refusal of a file above [`MAX_LOG_BYTES`], naming its size and the
/// command that reads it.
pub fn too_large(bytes: f64) -> String {
    format!(
        "This log is {:.0} MB of text; the page reads at most {} MB. The CLI reads it: lbsim run --log FILE",
        bytes / 1e6,
        MAX_LOG_BYTES / 1_000_000
    )
}

fn set(object: &Object, key: &str, value: impl Into<JsValue>) {
    let _ = Reflect::set(object, &JsValue::from_str(key), &value.into());
}

/// The scenario `link` with `fields` ([key, value] pairs) set; an error
/// names the field, the value and its range (the core's message).
fn scenario(link: &str, fields: &Array) -> Result<Scenario, String> {
    let mut scenario = url::decode_strict(link).map_err(|e| e.to_string())?;
    for pair in fields.iter() {
        let pair = Array::from(&pair);
        let (key, value) =
            (pair.get(0).as_string().unwrap_or_default(), pair.get(1).as_string().unwrap_or_default());
        scenario.set(&key, &value).map_err(|e| e.to_string())?;
    }
    Ok(scenario)
}

/// A log being read.
#[wasm_bindgen]
pub struct LogRead {
    reader: LogReader,
}

#[wasm_bindgen]
impl LogRead {
    /// A reader as the scenario `link` with `fields` ([key, value] pairs)
    /// says: its `log-kind`, `log-format` and `work-from`.
    #[wasm_bindgen(constructor)]
    pub fn new(link: &str, fields: Array) -> Result<LogRead, String> {
        // A bug's message in the worker's console, not only "unreachable".
        std::panic::set_hook(Box::new(|info| {
            web_sys::console::error_1(&JsValue::from_str(&info.to_string()))
        }));
        let scenario = scenario(link, &fields)?;
        Ok(LogRead { reader: LogReader::new(LogSettings::of(&scenario)) })
    }

    /// Feeds the next bytes of the file.
    pub fn push(&mut self, chunk: &[u8]) -> Result<(), String> {
        self.reader.push(chunk).map_err(|e| e.to_string())?;
        let bytes = self.reader.progress().bytes;
        if bytes > MAX_LOG_BYTES {
            return Err(too_large(bytes as f64));
        }
        Ok(())
    }

    /// What was read so far: lines, bytes, requests kept, lines skipped,
    /// the first few skips' reasons, the kind found.
    pub fn progress(&self) -> Object {
        let p = self.reader.progress();
        let o = Object::new();
        set(&o, "lines", p.lines as f64);
        set(&o, "bytes", p.bytes as f64);
        set(&o, "kept", p.kept as f64);
        set(&o, "skipped", p.skipped as f64);
        let skips: Array = p.first_skips.iter().map(|skip| JsValue::from_str(&skip.to_string())).collect();
        set(&o, "skips", skips);
        set(&o, "kind", p.kind.map_or("", |k| k.id()));
        o
    }

    /// The whole log, read: what the simulator takes from it.
    pub fn finish(self) -> Result<HeldLog, String> {
        let traffic = self.reader.finish().map_err(|e| e.to_string())?;
        Ok(HeldLog { traffic })
    }
}

/// A log read whole, held in the worker for as long as the page shows it.
#[wasm_bindgen]
pub struct HeldLog {
    traffic: Traffic,
}

#[wasm_bindgen]
impl HeldLog {
    /// What the log holds, for the panel: `facts` ([label, value] pairs),
    /// `rate` (arrivals per second, one per second of the span), the
    /// servers seen, the notes.
    pub fn summary(&self) -> Object {
        let t = &self.traffic;
        let s = t.summary();
        let o = Object::new();
        let facts = Array::new();
        let fact = |label: &str, value: String| {
            facts.push(&Array::of2(&JsValue::from_str(label), &JsValue::from_str(&value)));
        };
        let span_s = s.span_ms / 1000.0;
        fact("log", String::from(t.kind.id()));
        fact("requests", s.requests.to_string());
        fact("span", format!("{span_s:.1} s"));
        fact("mean rate", format!("{:.1} /s", if span_s > 0.0 { s.requests as f64 / span_s } else { 0.0 }));
        let [p50, p90, p99, max] = s.work_ms;
        fact("work p50 / p90 / p99 / max", format!("{p50:.1} / {p90:.1} / {p99:.1} / {max:.1} ms"));
        let top: Vec<String> =
            s.top_keys.iter().take(5).map(|(key, share)| format!("{key} {:.1}%", share * 100.0)).collect();
        fact("top keys", if top.is_empty() { String::from("none") } else { top.join(", ") });
        let servers: Vec<String> = s.servers.iter().map(|(name, n)| format!("{name} ({n})")).collect();
        fact(
            "servers seen",
            if servers.is_empty() { String::from("none named") } else { servers.join(", ") },
        );
        fact("errors, retries", format!("{}, {} (counted, not replayed)", t.errors, t.retries));
        set(&o, "facts", facts);
        let rate: Vec<f64> = s.per_second.iter().map(|&n| f64::from(n)).collect();
        set(&o, "rate", js_sys::Float64Array::from(&rate[..]));
        set(&o, "servers", t.servers.len() as f64);
        let notes: Array = t.notes.iter().map(|n| JsValue::from_str(n)).collect();
        set(&o, "notes", notes);
        o
    }

    /// Every rule of the scenario `link` (the page's, with the panel's
    /// fields set: `fields`, [key, value] pairs) run on the log's requests,
    /// as the bytes of a [`FromWorker::Done`] the page decodes as its own
    /// workers' answers; `progress` is told (done, total) as rules finish.
    pub fn run(&self, link: &str, fields: Array, progress: &Function) -> Result<Vec<u8>, String> {
        let scenario = self.scenario(link, &fields)?;
        let prepared = Prepared::with_traffic(&scenario, &self.traffic).map_err(|e| e.to_string())?;
        let rules = prepared.scenario().algorithms.clone();
        let total = rules.len();
        let results = rules
            .iter()
            .enumerate()
            .map(|(i, &rule)| {
                let result = prepared.run_one(rule);
                let _ = progress.call2(
                    &JsValue::NULL,
                    &JsValue::from(i as u32 + 1),
                    &JsValue::from(total as u32),
                );
                result
            })
            .collect();
        let report = prepared.report(results);
        Ok(wire::encode(&FromWorker::Done { run_id: 0, report: Box::new(report) }))
    }

    /// The link of a scenario fitted to the log (the core's fit over the
    /// run's scenario: rate, work, keys, servers), as a fragment; a log
    /// too short to fit gives the run's own scenario. It carries numbers
    /// only, never a line of the log.
    pub fn link(&self, link: &str, fields: Array) -> Result<String, String> {
        let base = self.scenario(link, &fields)?;
        let t = &self.traffic;
        let observed = fit::Observed { requests: &t.requests, served_by: &t.served_by, servers: &t.servers };
        Ok(fit::fit(&observed, &base).map_or_else(|_| url::encode(&base), |fitted| fitted.link))
    }
}

impl HeldLog {
    /// The scenario a run of the log takes: `link` with `fields`, the
    /// fleet the log's servers unless the panel set the servers.
    fn scenario(&self, link: &str, fields: &Array) -> Result<Scenario, String> {
        let mut scenario = scenario(link, fields)?;
        let servers_set =
            fields.iter().any(|pair| Array::from(&pair).get(0).as_string().as_deref() == Some("servers"));
        if !servers_set {
            self.traffic.fleet_into(&mut scenario);
        }
        Ok(scenario)
    }
}
