//! CSV: `arrival_ms,work_ms[,key][,class]` with a header.
