//! What a front end says beside a run's hashing rules: a rule that places
//! requests by their key alone sends each user to one server, so its
//! largest share is where the heaviest users land, and a reader who sees
//! one rule at 43% should know that before suspecting the rule. The note
//! is read off the report (no field of it changes), and the page and
//! `lbsim run` print the same text.

use alloc::format;
use alloc::string::String;

use super::Report;

impl Report {
    /// The note beside the results when a rule placed requests by key
    /// ([`AlgorithmId::places_by_key`](crate::AlgorithmId::places_by_key)):
    /// the heaviest users' shares and the by-key rule with the largest
    /// share; `None` when no rule did. The seed changes how many requests
    /// each user sends, not where a key goes; the hash function does.
    pub fn placement_note(&self) -> Option<String> {
        let top = self
            .results
            .iter()
            .filter(|r| r.algorithm.places_by_key())
            .max_by(|a, b| a.busiest_share.total_cmp(&b.busiest_share))?;
        let z = &self.realized;
        Some(format!(
            "Hashing sends each user to one server, so where the heaviest users land decides a hashing \
             rule's largest share: here the heaviest user sends {:.1}% of requests, the ten heaviest \
             {:.1}%; {}'s {:.1}% is where its heaviest users happened to land. The seed changes how much \
             each user sends, not where it goes; the hash function (hash=) moves them.",
            z.top_user_share * 100.0,
            z.top10_share * 100.0,
            top.algorithm.id(),
            top.busiest_share * 100.0
        ))
    }
}
