//! The enumerated settings of a scenario: the work distribution, the
//! active check's kind and the balancer's layer, each with the id that
//! URLs, flags and JSON use.

use core::str::FromStr;

use serde::{Deserialize, Serialize};

/// What an active health check probes (HAProxy `check`, `option httpchk`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CheckKind {
    /// A TCP connect: fails only on a crashed server.
    #[default]
    Tcp,
    /// An HTTP request that does real work: also fails on a failing one.
    Http,
}

impl CheckKind {
    /// Both kinds, in the order the page lists them.
    pub const ALL: [CheckKind; 2] = [CheckKind::Tcp, CheckKind::Http];

    /// The id used in URLs, flags and JSON.
    pub fn id(self) -> &'static str {
        match self {
            CheckKind::Tcp => "tcp",
            CheckKind::Http => "http",
        }
    }
}

impl FromStr for CheckKind {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        CheckKind::ALL.into_iter().find(|k| k.id() == s).ok_or(())
    }
}

/// Where the balancer works (docs/model.md#caches-and-connections): per request (layer 7) or
/// per connection (layer 4, long-lived multiplexed connections). JSON
/// writes it as the number.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "u8", try_from = "u8")]
pub enum Layer {
    /// Layer 4: each user's connection is placed once and carries its
    /// requests until it is re-opened.
    L4,
    /// Layer 7: every request is placed on its own.
    #[default]
    L7,
}

impl Layer {
    /// Both layers, the default first (the order the page lists them).
    pub const ALL: [Layer; 2] = [Layer::L7, Layer::L4];

    /// The id used in URLs, flags and JSON.
    pub fn id(self) -> &'static str {
        match self {
            Layer::L4 => "4",
            Layer::L7 => "7",
        }
    }
}

impl From<Layer> for u8 {
    fn from(layer: Layer) -> u8 {
        match layer {
            Layer::L4 => 4,
            Layer::L7 => 7,
        }
    }
}

impl TryFrom<u8> for Layer {
    type Error = &'static str;
    fn try_from(n: u8) -> Result<Layer, &'static str> {
        match n {
            4 => Ok(Layer::L4),
            7 => Ok(Layer::L7),
            _ => Err("layer is 4 or 7"),
        }
    }
}

impl FromStr for Layer {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        Layer::ALL.into_iter().find(|l| l.id() == s).ok_or(())
    }
}

/// The distribution of service demand (work, in ms at speed 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WorkKind {
    /// Quick (`fast-ms`) or slow (`slow-ms`) with probability `slow-share`.
    Bimodal,
    /// Every request needs `mean-ms`.
    Constant,
    /// Exponential with mean `mean-ms`.
    Exponential,
    /// Log-normal with mean `mean-ms` and shape `sigma`.
    Lognormal,
}

impl WorkKind {
    /// All kinds, in the order the page lists them.
    pub const ALL: [WorkKind; 4] =
        [WorkKind::Bimodal, WorkKind::Constant, WorkKind::Exponential, WorkKind::Lognormal];

    /// The kebab-case id used in URLs, flags and JSON.
    pub fn id(self) -> &'static str {
        match self {
            WorkKind::Bimodal => "bimodal",
            WorkKind::Constant => "constant",
            WorkKind::Exponential => "exponential",
            WorkKind::Lognormal => "lognormal",
        }
    }
}

impl FromStr for WorkKind {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        WorkKind::ALL.into_iter().find(|k| k.id() == s).ok_or(())
    }
}

/// Which program wrote an access log (docs/model.md#your-own-traffic).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LogKind {
    /// NGINX, by a `log_format` with timing.
    Nginx,
    /// HAProxy's `option httplog`.
    #[serde(rename = "haproxy")]
    HaproxyHttp,
    /// HAProxy's `option tcplog`.
    HaproxyTcp,
    /// AWS Application Load Balancer access logs.
    Alb,
    /// `arrival_ms,work_ms[,key][,class]` with a header.
    Csv,
}

impl LogKind {
    /// All kinds, in the order the page and the CLI's help list them.
    pub const ALL: [LogKind; 5] =
        [LogKind::Nginx, LogKind::HaproxyHttp, LogKind::HaproxyTcp, LogKind::Alb, LogKind::Csv];

    /// The id used in URLs, flags and JSON.
    pub fn id(self) -> &'static str {
        match self {
            LogKind::Nginx => "nginx",
            LogKind::HaproxyHttp => "haproxy",
            LogKind::HaproxyTcp => "haproxy-tcp",
            LogKind::Alb => "alb",
            LogKind::Csv => "csv",
        }
    }
}

impl FromStr for LogKind {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        LogKind::ALL.into_iter().find(|k| k.id() == s).ok_or(())
    }
}

/// How a request's work is taken from the durations a log holds
/// (docs/model.md#your-own-traffic): both include the queueing the logging
/// balancer caused, so both overstate the work under load.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WorkFrom {
    /// The server's own time: NGINX `$upstream_response_time`, HAProxy
    /// `Tr`, ALB `target_processing_time` (CSV: its `work_ms`).
    #[default]
    Upstream,
    /// The whole time the balancer held the request: NGINX
    /// `$request_time`, HAProxy `Ta` (`Tt` for TCP), ALB's three times
    /// summed (CSV: its `work_ms`).
    Total,
}

impl WorkFrom {
    /// Both choices, the default first.
    pub const ALL: [WorkFrom; 2] = [WorkFrom::Upstream, WorkFrom::Total];

    /// The id used in URLs, flags and JSON.
    pub fn id(self) -> &'static str {
        match self {
            WorkFrom::Upstream => "upstream",
            WorkFrom::Total => "total",
        }
    }
}

impl FromStr for WorkFrom {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        WorkFrom::ALL.into_iter().find(|k| k.id() == s).ok_or(())
    }
}
