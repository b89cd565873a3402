//! What a mismatch shows: the lines a block shows against the lines
//! `lbsim` printed, as a short diff.

/// The expected and the printed lines, those that differ marked `-` and
/// `+` with two lines of context around them: a longest common subsequence
/// of the lines, as `diff` finds.
pub(super) fn diff(shown: &[String], printed: &[String]) -> String {
    const CONTEXT: usize = 2;
    let (n, m) = (shown.len(), printed.len());
    // lcs[i][j]: the longest common subsequence of shown[i..] and printed[j..].
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] =
                if shown[i] == printed[j] { lcs[i + 1][j + 1] + 1 } else { lcs[i + 1][j].max(lcs[i][j + 1]) };
        }
    }
    let mut rows: Vec<(char, &str)> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && shown[i] == printed[j] {
            rows.push((' ', &shown[i]));
            i += 1;
            j += 1;
        } else if i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1]) {
            rows.push(('-', &shown[i]));
            i += 1;
        } else {
            rows.push(('+', &printed[j]));
            j += 1;
        }
    }
    let near_change = |k: usize| {
        let lo = k.saturating_sub(CONTEXT);
        let hi = (k + CONTEXT + 1).min(rows.len());
        rows[lo..hi].iter().any(|(mark, _)| *mark != ' ')
    };
    let mut out = String::from("--- shown in the doc\n+++ printed by lbsim\n");
    let mut skipped = false;
    for (k, (mark, line)) in rows.iter().enumerate() {
        if near_change(k) {
            out.push_str(&format!("{mark} {line}\n"));
            skipped = false;
        } else if !skipped {
            out.push_str("  ...\n");
            skipped = true;
        }
    }
    out.trim_end().to_string()
}
