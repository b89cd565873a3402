//! `lbsim config` writes a config the balancer reads as the scenario
//! means, or refuses it with the reason (docs/cli.md#server-names-and-keys): a
//! config that loads and then routes elsewhere than `lbsim trace` predicts
//! is the worst kind of wrong. What each balancer's own syntax means is
//! from its documentation: NGINX's `$arg_NAME` ends at the first character
//! that cannot be in a variable's name, NGINX drops headers with `_`
//! unless `underscores_in_headers on`, `unix:` is a Unix socket, HAProxy
//! refuses two servers of one name, and YAML 1.1 reads `true`, `null`,
//! `0x10` and `.inf` unquoted as other types.

use super::lbsim;

fn config(args: &[&str]) -> String {
    let out = lbsim().arg("config").args(args).output().expect("lbsim runs");
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// Exit status 2 and stderr, which names `field` and holds `why`.
fn refused(command: &[&str], field: &str, why: &str) {
    let out = lbsim().args(command).output().expect("lbsim runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{command:?}: {stderr}");
    assert!(stderr.contains(&format!("{field}: ")) && stderr.contains(why), "{command:?}: {stderr}");
}

#[test]
fn a_key_nginx_would_split_is_refused_for_nginx_only() {
    let nginx = ["config", "--for", "nginx", "--algorithm", "consistent-hash", "--key", "arg:user-id"];
    refused(&nginx, "key", "NGINX reads $arg_user-id as the variable up to the first -");
    let haproxy = config(&["--for", "haproxy", "--algorithm", "consistent-hash", "--key", "arg:user-id"]);
    assert!(haproxy.contains("balance url_param user-id"), "{haproxy}");
    let long = format!("arg:{}", "k".repeat(257));
    refused(&["config", "--for", "nginx", "--algorithm", "user-hash", "--key", &long], "key", "at most 256");
}

#[test]
fn a_header_with_an_underscore_is_read_by_nginx() {
    let full = config(&["--for", "nginx", "--algorithm", "user-hash", "--key", "header:X_User", "--full"]);
    assert!(full.contains("    hash $http_x_user;"), "{full}");
    assert!(full.lines().any(|l| l.trim() == "underscores_in_headers on;"), "{full}");
    let block = config(&["--for", "nginx", "--algorithm", "user-hash", "--key", "header:X_User"]);
    assert!(block.contains("# underscores_in_headers on;"), "{block}");
    let dashed = config(&["--for", "nginx", "--algorithm", "user-hash", "--key", "header:X-User", "--full"]);
    assert!(!dashed.contains("underscores_in_headers"), "{dashed}");
}

#[test]
fn names_a_balancer_reads_otherwise_are_refused_with_the_reason() {
    for (names, why) in [
        ("unix:80,unix:81", "Unix socket"),
        ("a:0,b:80", "port is 1 to 65535"),
        ("a:65536,b:80", "port is 1 to 65535"),
        ("a:0777,b:80", "without a leading 0"),
        ("::1:80,b:80", "two colons"),
        ("a:b:80,b:80", "two colons"),
        ("[zz]:80,b:80", "IPv6 address is hex digits"),
        ("[a,b", "letters, digits"),
    ] {
        refused(&["run", "--servers", "2", "--names", names], "names", why);
    }
    let text = config(&[
        "--for",
        "nginx",
        "--algorithm",
        "round-robin",
        "--servers",
        "2",
        "--names",
        "[::1]:8081,[2001:db8::1]:80",
    ]);
    assert!(
        text.contains("    server [::1]:8081;") && text.contains("    server [2001:db8::1]:80;"),
        "{text}"
    );
    // Spaces around the names of a list are trimmed, as every list's are.
    let trace = super::stdout(&[
        "trace",
        "--algorithm",
        "round-robin",
        "--servers",
        "2",
        "--names",
        "a, b",
        "--picks",
        "2",
    ]);
    assert!(trace.contains("sequence: a b"), "{trace}");
}

#[test]
fn addresses_never_collide_and_the_balancer_is_not_its_own_backend() {
    let text = config(&[
        "--for",
        "nginx",
        "--algorithm",
        "round-robin",
        "--servers",
        "2",
        "--names",
        "a,127.0.0.1:8081",
    ]);
    let servers: Vec<&str> = text.lines().filter(|l| l.trim_start().starts_with("server ")).collect();
    assert_eq!(servers, ["    server 127.0.0.1:8082;  # a", "    server 127.0.0.1:8081;"], "{text}");
    let full = config(&["--for", "nginx", "--algorithm", "round-robin", "--port", "8082", "--full"]);
    assert!(!full.contains("server 127.0.0.1:8082;"), "{full}");
    assert!(full.contains("server 127.0.0.1:8085;  # s4"), "{full}");
    refused(
        &[
            "config",
            "--for",
            "haproxy",
            "--algorithm",
            "round-robin",
            "--servers",
            "2",
            "--names",
            "a,127.0.0.1:9000",
            "--port",
            "9000",
            "--full",
        ],
        "port",
        "127.0.0.1:9000 is a server",
    );
}

#[test]
fn haproxy_server_names_are_unique() {
    let text = config(&[
        "--for",
        "haproxy",
        "--algorithm",
        "round-robin",
        "--servers",
        "2",
        "--names",
        "s2,10.0.0.1:80",
    ]);
    let names: Vec<&str> =
        text.lines().filter_map(|l| l.trim_start().strip_prefix("server ")?.split(' ').next()).collect();
    assert_eq!(names, ["s2", "server2"], "{text}");
}

#[test]
fn layer_4_is_written_as_haproxys_mode_tcp() {
    let text = config(&["--for", "haproxy", "--algorithm", "consistent-hash", "--layer", "4", "--full"]);
    assert!(text.contains("\n    mode tcp\n") && !text.contains("\n    mode http\n"), "{text}");
    assert!(text.contains("    balance source\n"), "{text}");
    let nginx =
        config(&["--for", "nginx", "--algorithm", "round-robin", "--layer", "4", "--conn-life-ms", "5000"]);
    assert!(
        nginx.contains("# layer 4 (layer)") && nginx.contains("# connection lifetime (conn-life-ms)"),
        "{nginx}"
    );
}

#[test]
fn envoys_yaml_is_typed_as_protobufs_json_mapping_wants() {
    let text = config(&[
        "--for",
        "envoy",
        "--algorithm",
        "round-robin",
        "--names",
        "[::1]:80,true:80,0x10:8080,.inf:80",
        "--slow-start-ms",
        "1500",
        "--check-ms",
        "2500",
    ]);
    for line in [
        "type: STRICT_DNS",
        "    slow_start_window: 1.5s",
        "  interval: 2.5s",
        "      endpoint: { address: { socket_address: { address: \"::1\", port_value: 80 } } }",
        "      endpoint: { address: { socket_address: { address: \"true\", port_value: 80 } } }",
        "      endpoint: { address: { socket_address: { address: \"0x10\", port_value: 8080 } } }",
        "      endpoint: { address: { socket_address: { address: \".inf\", port_value: 80 } } }",
    ] {
        assert!(text.lines().any(|l| l == line), "{line:?} missing:\n{text}");
    }
    let addresses = config(&[
        "--for",
        "envoy",
        "--algorithm",
        "round-robin",
        "--servers",
        "2",
        "--names",
        "10.0.0.1:80,[::1]:81",
    ]);
    assert!(addresses.contains("type: STATIC\n"), "{addresses}");
}
