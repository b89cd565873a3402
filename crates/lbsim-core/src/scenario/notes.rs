//! What a balancer's configuration says of a field it cannot express:
//! the comments `lbsim config` writes, named by the rows of the field
//! table (`fields.rs`) that point at them. Several rows share a note, which
//! the config writes once.

pub const COPIES: &str = "balancer copies (balancers): run that many instances of this config";
pub const WARM_UP: &str = "warm-up (warmup-ms): the servers' own, not the balancer's";
pub const CONNECTION_LIFE: &str = "connection lifetime (conn-life-ms): the clients' own, not the balancer's";
pub const NGINX_HASH: &str = "hash function (hash): NGINX hashes with its own CRC-32";
pub const HAPROXY_HASH: &str =
    "hash function (hash): not one of HAProxy's (sdbm, djb2, wt6, crc32); its default, sdbm, is written";
pub const ENVOY_HASH: &str = "hash function (hash): Envoy's rings hash with xxHash64";
pub const NGINX_POINTS: &str = "ring points (vnodes): NGINX places 160 per weight unit";
pub const HAPROXY_POINTS: &str = "ring points (vnodes): HAProxy places 16 per weight unit";
pub const ENVOY_POINTS: &str = "ring points (vnodes): Envoy sizes its ring by minimum_ring_size";
pub const NGINX_BOUNDED: &str = "bounded loads (balance-factor): not in NGINX";
pub const ENVOY_BOUNDED: &str =
    "bounded loads (balance-factor): Envoy's hash_balance_factor, for its ring and Maglev only";
pub const NGINX_MAGLEV: &str = "Maglev table size (maglev-size): no Maglev in NGINX";
pub const HAPROXY_MAGLEV: &str = "Maglev table size (maglev-size): no Maglev in HAProxy";
pub const ENVOY_RETRIES: &str =
    "retries: on the route, retry_policy { num_retries, retry_on: connect-failure (and 5xx with count-5xx) }";
pub const ENVOY_5XX: &str = "a 500 counted as failed (count-5xx): on the route, retry_on: 5xx";
pub const HAPROXY_PASSIVE: &str =
    "passive checks (max-fails, fail-timeout-ms): NGINX's; HAProxy's nearest is observe layer4 with error-limit";
pub const ENVOY_PASSIVE: &str =
    "passive checks (max-fails, fail-timeout-ms): NGINX's; Envoy's nearest is outlier detection";
pub const NGINX_ACTIVE: &str =
    "active health checks (check-ms): NGINX Plus's health_check, not open-source NGINX";
pub const NGINX_OUTLIER: &str =
    "outlier detection (outlier-5xx): Envoy's; NGINX's passive checks are max_fails";
pub const HAPROXY_OUTLIER: &str =
    "outlier detection (outlier-5xx): Envoy's; HAProxy's nearest is observe layer7 with error-limit";
pub const NGINX_SLOW_START: &str =
    "slow start (slow-start-ms): NGINX Plus's slow_start, not open-source NGINX";
pub const HAPROXY_AGGRESSION: &str =
    "slow-start aggression (slow-start-aggression): Envoy's; HAProxy's slowstart ramps linearly";
pub const NGINX_LAYER_4: &str = "layer 4 (layer): NGINX's stream module, not this http upstream";
pub const HAPROXY_LAYER_4: &str = "layer 4 (layer): HAProxy's mode tcp, not mode http";
pub const ENVOY_LAYER_4: &str = "layer 4 (layer): Envoy's tcp_proxy filter, not an HTTP route";
pub const NGINX_BIAS: &str =
    "active-request bias (active-request-bias): Envoy's least request; NGINX has no such rule";
pub const HAPROXY_BIAS: &str =
    "active-request bias (active-request-bias): Envoy's least request; HAProxy has no such rule";
// gRPC's service config holds the balancing policy; the rest of a fleet's
// settings live in gRPC's resolver, xDS or the method config.
pub const GRPC_SERVERS: &str =
    "servers (servers, names, weights): gRPC's name resolver or xDS gives them, not the service config";
pub const GRPC_HASH: &str = "hash function (hash): gRPC's ring hashes with xxHash64";
pub const GRPC_BOUNDED: &str = "bounded loads (balance-factor): not in gRPC";
pub const GRPC_MAGLEV: &str = "Maglev table size (maglev-size): no Maglev in gRPC";
pub const GRPC_RETRIES: &str =
    "retries (retries, count-5xx): gRPC's methodConfig retryPolicy (maxAttempts, retryableStatusCodes), \
     with a backoff lbsim does not model";
pub const GRPC_PASSIVE: &str =
    "passive checks (max-fails, fail-timeout-ms): NGINX's; gRPC's nearest is outlier_detection_experimental";
pub const GRPC_ACTIVE: &str =
    "active health checks (check-ms, fall, rise, check): gRPC's healthCheckConfig watches a stream, with no \
     interval or thresholds";
pub const GRPC_OUTLIER: &str =
    "outlier detection (outlier-5xx): gRPC's outlier_detection_experimental ejects on success rate or \
     failure percentage, not errors in a row";
pub const GRPC_SLOW_START: &str = "slow start (slow-start-ms, slow-start-aggression): not in gRPC";
pub const GRPC_LAYER_4: &str =
    "layer 4 (layer): gRPC balances calls; one server a connection is its pick_first";
pub const GRPC_BIAS: &str =
    "active-request bias (active-request-bias): Envoy's least request; gRPC's has no bias";
