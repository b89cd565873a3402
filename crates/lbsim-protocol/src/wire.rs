//! The bytes of a message between the page and a worker.
//!
//! Positional and little-endian: each struct writes its fields in the
//! order [`wire_struct!`] lists them, a `Vec` its length first, an `Option`
//! a presence byte, a scenario its link (the codec that already round-trips
//! every scenario exactly), an algorithm its index in [`AlgorithmId::ALL`].
//! Both ends are the same module, or two modules of one build (the page's
//! report and sweep rows, handed to the panels module), so no versioning
//! is needed.
//!
//! Why not serde: the report's JSON form skips absent fields, which only a
//! self-describing format can read back, and serde-wasm-bindgen's readers
//! were about 30 KB of the page's gzipped bundle (an eighth of it). This is
//! a few KB, and a report's field missing from a list is a compile error
//! (the decoder builds each struct with a literal).

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;

use lbsim_core::balancer::AlgorithmId;
use lbsim_core::fleet::{Cause, Outcome, Verdict};
use lbsim_core::replay::{Attempt, Probe, Replay, Request, WeightUpdate};
use lbsim_core::report::{
    AlgorithmResult, Connections, Distributions, Headline, KeyShare, Latencies, Percentiles, Realized,
    Report, ServerResult, Wait,
};
use lbsim_core::{url, Scenario};

use crate::{FromReplayWorker, FromWorker, ToWorker};

/// Why bytes could not be read back into a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WireError(pub String);

impl core::fmt::Display for WireError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Bytes being read, front first.
pub struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], WireError> {
        if self.bytes.len() < n {
            return Err(WireError(String::from("the message ends early")));
        }
        let (head, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Ok(head)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], WireError> {
        let mut out = [0; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }
}

/// A value that travels between the page and a worker.
pub trait Wire: Sized {
    /// Appends this value's bytes.
    fn put(&self, out: &mut Vec<u8>);
    /// Reads a value written by [`Wire::put`].
    fn get(input: &mut Reader<'_>) -> Result<Self, WireError>;
}

macro_rules! wire_number {
    ($($ty:ty),*) => {$(
        impl Wire for $ty {
            fn put(&self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn get(input: &mut Reader<'_>) -> Result<Self, WireError> {
                Ok(<$ty>::from_le_bytes(input.array()?))
            }
        }
    )*};
}

wire_number!(u8, u32, u64, f64);

impl Wire for bool {
    fn put(&self, out: &mut Vec<u8>) {
        out.push(u8::from(*self));
    }
    fn get(input: &mut Reader<'_>) -> Result<Self, WireError> {
        Ok(u8::get(input)? != 0)
    }
}

fn put_len(len: usize, out: &mut Vec<u8>) {
    (len as u64).put(out);
}

fn get_len(input: &mut Reader<'_>) -> Result<usize, WireError> {
    let len = u64::get(input)?;
    // A length can never exceed the bytes left: every element takes one.
    match usize::try_from(len) {
        Ok(n) if n <= input.bytes.len() => Ok(n),
        _ => Err(WireError(String::from("a length runs past the message"))),
    }
}

impl Wire for String {
    fn put(&self, out: &mut Vec<u8>) {
        put_len(self.len(), out);
        out.extend_from_slice(self.as_bytes());
    }
    fn get(input: &mut Reader<'_>) -> Result<Self, WireError> {
        let len = get_len(input)?;
        let bytes = input.take(len)?;
        core::str::from_utf8(bytes)
            .map(String::from)
            .map_err(|_| WireError(String::from("text is not UTF-8")))
    }
}

impl<T: Wire> Wire for Vec<T> {
    fn put(&self, out: &mut Vec<u8>) {
        put_len(self.len(), out);
        for item in self {
            item.put(out);
        }
    }
    fn get(input: &mut Reader<'_>) -> Result<Self, WireError> {
        let len = get_len(input)?;
        (0..len).map(|_| T::get(input)).collect()
    }
}

impl<T: Wire> Wire for Option<T> {
    fn put(&self, out: &mut Vec<u8>) {
        match self {
            None => out.push(0),
            Some(v) => {
                out.push(1);
                v.put(out);
            }
        }
    }
    fn get(input: &mut Reader<'_>) -> Result<Self, WireError> {
        Ok(if bool::get(input)? { Some(T::get(input)?) } else { None })
    }
}

impl<T: Wire> Wire for Box<T> {
    fn put(&self, out: &mut Vec<u8>) {
        (**self).put(out);
    }
    fn get(input: &mut Reader<'_>) -> Result<Self, WireError> {
        T::get(input).map(Box::new)
    }
}

impl Wire for [f64; 2] {
    fn put(&self, out: &mut Vec<u8>) {
        self[0].put(out);
        self[1].put(out);
    }
    fn get(input: &mut Reader<'_>) -> Result<Self, WireError> {
        Ok([f64::get(input)?, f64::get(input)?])
    }
}

impl Wire for Scenario {
    fn put(&self, out: &mut Vec<u8>) {
        url::encode(self).put(out);
    }
    fn get(input: &mut Reader<'_>) -> Result<Self, WireError> {
        let link = String::get(input)?;
        url::decode_strict(&link).map_err(|e| WireError(alloc::format!("scenario {link}: {e}")))
    }
}

impl Wire for AlgorithmId {
    fn put(&self, out: &mut Vec<u8>) {
        let index = AlgorithmId::ALL.iter().position(|a| a == self).unwrap_or(0);
        (index as u8).put(out);
    }
    fn get(input: &mut Reader<'_>) -> Result<Self, WireError> {
        let index = usize::from(u8::get(input)?);
        AlgorithmId::ALL.get(index).copied().ok_or_else(|| WireError(alloc::format!("no algorithm {index}")))
    }
}

/// A sweep's row, from the page to the panels module that draws and writes
/// the sweep: its rule by id (the text the row holds), then its figures.
impl Wire for Headline {
    fn put(&self, out: &mut Vec<u8>) {
        String::from(self.algorithm).put(out);
        self.quick_p99_ms.put(out);
        self.slow_p99_ms.put(out);
        self.p50_ms.put(out);
        self.p90_ms.put(out);
        self.p99_ms.put(out);
        self.p999_ms.put(out);
        self.max_ms.put(out);
        self.mean_ms.put(out);
        self.wait_mean_ms.put(out);
        self.wait_p99_ms.put(out);
        self.peak_queue.put(out);
        self.busiest_share.put(out);
        self.imbalance.put(out);
        self.errors.put(out);
        self.retries.put(out);
        self.error_share.put(out);
        self.hit_rate.put(out);
    }
    fn get(input: &mut Reader<'_>) -> Result<Self, WireError> {
        let id = String::get(input)?;
        let algorithm =
            id.parse::<AlgorithmId>().map_err(|()| WireError(alloc::format!("no algorithm {id}")))?;
        Ok(Headline {
            algorithm: algorithm.id(),
            quick_p99_ms: Wire::get(input)?,
            slow_p99_ms: Wire::get(input)?,
            p50_ms: Wire::get(input)?,
            p90_ms: Wire::get(input)?,
            p99_ms: Wire::get(input)?,
            p999_ms: Wire::get(input)?,
            max_ms: Wire::get(input)?,
            mean_ms: Wire::get(input)?,
            wait_mean_ms: Wire::get(input)?,
            wait_p99_ms: Wire::get(input)?,
            peak_queue: Wire::get(input)?,
            busiest_share: Wire::get(input)?,
            imbalance: Wire::get(input)?,
            errors: Wire::get(input)?,
            retries: Wire::get(input)?,
            error_share: Wire::get(input)?,
            hit_rate: Wire::get(input)?,
        })
    }
}

/// Each struct's fields, in the order they travel.
macro_rules! wire_struct {
    ($($ty:ident { $($field:ident),* $(,)? })*) => {$(
        impl Wire for $ty {
            fn put(&self, out: &mut Vec<u8>) {
                $(self.$field.put(out);)*
            }
            fn get(input: &mut Reader<'_>) -> Result<Self, WireError> {
                Ok($ty { $($field: Wire::get(input)?,)* })
            }
        }
    )*};
}

wire_struct! {
    Report { scenario, realized, results }
    Realized { requests, load, slow_share, rate_per_s, top_user_share, top10_share, heaviest_keys }
    KeyShare { key, share }
    Percentiles { p50, p90, p99, p999, max, mean }
    Latencies { all, quick, slow, ok }
    Distributions { all, quick, slow }
    Wait { mean, p99 }
    ServerResult {
        name, requests, share, load, peak_queue, mean_queue, queue_series, errors, ejected_ms,
        requests_series, hit_rate,
    }
    AlgorithmResult {
        algorithm, latency_ms, wait_ms, peak_queue, busiest_share, imbalance, errors, retries,
        error_share, error_series, hit_rate, hit_series, connections, makespan_ms, queue_bucket_ms,
        queue_series, cdf, servers,
    }
    Connections { fewest, most, total, full_mesh }
    Replay { algorithm, servers, requests, attempts, verdicts, probes, weights }
    Probe { copy, server, sent_ms, reached_ms, replied_ms, in_flight, latency_ms }
    WeightUpdate { at_ms, copy, weights }
    Verdict { at_ms, copy, server, out }
    Request { arrival_ms, slow, answered_ms, ok }
    Attempt { request, server, sent_ms, start_ms, done_ms, outcome, retry, hit }
}

/// Each enum's variants: a tag byte, then the variant's fields.
macro_rules! wire_enum {
    ($($ty:ident { $($tag:literal => $variant:ident $({ $($field:ident),* })?),* $(,)? })*) => {$(
        impl Wire for $ty {
            fn put(&self, out: &mut Vec<u8>) {
                match self {
                    $($ty::$variant $({ $($field),* })? => {
                        out.push($tag);
                        $($($field.put(out);)*)?
                    })*
                }
            }
            fn get(input: &mut Reader<'_>) -> Result<Self, WireError> {
                match u8::get(input)? {
                    $($tag => Ok($ty::$variant $({ $($field: Wire::get(input)?),* })?),)*
                    tag => Err(WireError(alloc::format!("no {} {tag}", stringify!($ty)))),
                }
            }
        }
    )*};
}

wire_enum! {
    ToWorker {
        0 => Run { run_id, scenario },
        1 => Cancel { run_id },
    }
    FromWorker {
        0 => Ready,
        1 => Progress { run_id, done, total },
        2 => Done { run_id, report },
        3 => Cancelled { run_id },
        4 => Error { run_id, message, fatal },
    }
    FromReplayWorker {
        0 => Done { id, replays },
        1 => Error { id, message },
    }
    Outcome {
        0 => Ok,
        1 => Http500,
        2 => Connection,
    }
    Cause {
        0 => Checks,
        1 => Passive,
        2 => Outlier,
    }
}

/// A message's bytes.
pub fn encode<T: Wire>(message: &T) -> Vec<u8> {
    let mut out = Vec::new();
    message.put(&mut out);
    out
}

/// A message read back from [`encode`]'s bytes; trailing bytes are an error.
pub fn decode<T: Wire>(bytes: &[u8]) -> Result<T, WireError> {
    let mut input = Reader { bytes };
    let message = T::get(&mut input)?;
    if input.bytes.is_empty() {
        Ok(message)
    } else {
        Err(WireError(String::from("bytes left over after the message")))
    }
}
