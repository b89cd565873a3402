//! Users are Zipf(s) over U: rank k's share is k^-s / H(U, s); the top
//! user's is 1 / H(U, s).

use lbsim_core::{run, AlgorithmId, Scenario};

fn harmonic(users: u32, s: f64) -> f64 {
    (1..=users).map(|k| (k as f64).powf(-s)).sum()
}

#[test]
fn realized_shares_match_the_harmonic_numbers() {
    for (users, s) in [(2000, 1.0), (500, 1.4), (100, 0.0)] {
        let requests = 200_000;
        let scenario = Scenario {
            requests,
            users,
            zipf: s,
            algorithms: vec![AlgorithmId::RoundRobin],
            ..Scenario::default()
        };
        let realized = run(&scenario).expect("valid").realized;
        let h = harmonic(users, s);
        let n = requests as f64;
        // Binomial standard error of a share p over n requests; 4 SE band.
        let band = |p: f64| 4.0 * (p * (1.0 - p) / n).sqrt();
        let top = 1.0 / h;
        if s > 0.0 {
            assert!(
                (realized.top_user_share - top).abs() <= band(top),
                "U={users} s={s}: {realized:?} vs {top}"
            );
            assert_eq!(realized.heaviest_keys[0].key, "user-1");
            let top10: f64 = (1..=10).map(|k| (k as f64).powf(-s)).sum::<f64>() / h;
            assert!(
                (realized.top10_share - top10).abs() <= band(top10),
                "top 10 {} vs {top10}",
                realized.top10_share
            );
        } else {
            // Uniform: the heaviest of 100 users is the maximum of 100
            // binomials, above 1/100 but within a few SE of it.
            assert!(realized.top_user_share > top && realized.top_user_share < top + 2.0 * band(top));
        }
    }
}
