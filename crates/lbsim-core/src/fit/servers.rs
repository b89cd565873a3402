//! The fleet a log shows: the servers seen and each one's speed from its
//! mean logged work. A server of speed `v` takes `w / v` for work `w`, so
//! with requests spread over servers independently of their work (any
//! non-hashing rule) the per-server means are `E[w] / v`.

use alloc::vec::Vec;

/// Per-server speeds from the logged work each one served, scaled so the
/// servers' request-weighted mean speed is 1 (the work the fit reports is
/// then the log's as measured). Servers that served nothing keep speed 1.
pub fn fit_speeds(work_ms: &[f64], served_by: &[u16], servers: usize) -> Vec<f64> {
    let mut sum = alloc::vec![0.0f64; servers];
    let mut count = alloc::vec![0u64; servers];
    for (&w, &s) in work_ms.iter().zip(served_by) {
        if let (Some(total), Some(n)) = (sum.get_mut(usize::from(s)), count.get_mut(usize::from(s))) {
            *total += w;
            *n += 1;
        }
    }
    let all: f64 = sum.iter().sum();
    let n: u64 = count.iter().sum();
    if n == 0 || all <= 0.0 {
        return alloc::vec![1.0; servers];
    }
    let overall = all / n as f64;
    sum.iter()
        .zip(&count)
        .map(|(&total, &k)| if k == 0 || total <= 0.0 { 1.0 } else { overall / (total / k as f64) })
        .collect()
}
