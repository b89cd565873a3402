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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speeds_are_the_inverse_of_mean_logged_work() {
        // Work 10 ms on servers of speed 0.5, 1 and 2 is logged as 20, 10
        // and 5 ms: the fitted speeds stand as 0.5 : 1 : 2.
        let work = [20.0, 10.0, 5.0, 20.0, 10.0, 5.0];
        let served_by = [0, 1, 2, 0, 1, 2];
        let speeds = fit_speeds(&work, &served_by, 3);
        assert!((speeds[1] / speeds[0] - 2.0).abs() < 1e-12, "{speeds:?}");
        assert!((speeds[2] / speeds[1] - 2.0).abs() < 1e-12, "{speeds:?}");
    }
}
