//! HAProxy `option httplog` and `option tcplog` lines.
