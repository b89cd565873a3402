//! NGINX access logs, read by the `log_format` string they were written by.

/// lbsim's documented timing format (docs/model.md#your-own-traffic).
pub const DEFAULT_FORMAT: &str = "$remote_addr [$time_local] \"$request\" $status $msec $request_time \
                                  $upstream_response_time $upstream_addr";

/// The `log_format` line to add to an NGINX configuration for
/// [`DEFAULT_FORMAT`].
#[derive(Clone, Copy, Debug)]
pub struct LbsimFormat;

impl LbsimFormat {
    /// `log_format lbsim '...';`
    pub fn directive() -> alloc::string::String {
        alloc::format!("log_format lbsim '{DEFAULT_FORMAT}';")
    }
}
