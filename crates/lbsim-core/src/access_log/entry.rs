//! The gathering of parsed lines into [`Traffic`].

use alloc::string::String;
use alloc::vec::Vec;

use super::{LogKind, Traffic};

/// Lines gathered so far.
#[derive(Debug, Default)]
pub(super) struct Gathered {}

impl Gathered {
    /// The traffic the gathered lines make.
    pub fn finish(self, kind: LogKind) -> Traffic {
        Traffic {
            requests: Vec::new(),
            keys: Vec::new(),
            served_by: Vec::new(),
            servers: Vec::new(),
            classed: false,
            errors: 0,
            retries: 0,
            notes: Vec::<String>::new(),
            kind,
        }
    }
}
