//! `lbsim config`: the scenario as NGINX, HAProxy or Envoy configuration.
//! That every rule's whole config passes `nginx -t` and `haproxy -c`, and
//! that NGINX routes through these blocks as `lbsim trace` predicts, is
//! `cargo xtask conformance`'s, against the real programs; here, what the
//! text must hold whichever machine runs the tests.

use super::lbsim;

fn config(args: &[&str]) -> String {
    let out = lbsim().arg("config").args(args).output().expect("lbsim runs");
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("UTF-8")
}

#[test]
fn nginx_gets_the_rule_the_weights_and_the_retries() {
    let text = config(&[
        "--for",
        "nginx",
        "--algorithm",
        "consistent-hash",
        "--ring",
        "nginx",
        "--servers",
        "2",
        "--names",
        "10.0.0.1:8080,10.0.0.2:8080",
        "--weights",
        "2,1",
        "--retries",
        "1",
        "--count-5xx",
        "true",
    ]);
    for line in [
        "upstream lbsim {",
        "    hash $arg_user consistent;",
        "    server 10.0.0.1:8080 weight=2;",
        "    server 10.0.0.2:8080;",
        "#     proxy_next_upstream error timeout http_500;",
        "#     proxy_next_upstream_tries 2;",
    ] {
        assert!(text.lines().any(|l| l == line), "{line:?} missing:\n{text}");
    }
    assert!(!text.contains("ring differs"), "ring=nginx is NGINX's: no note\n{text}");
}

#[test]
fn what_the_balancer_cannot_do_is_a_comment_never_dropped() {
    let text =
        config(&["--for", "nginx", "--algorithm", "maglev", "--check-ms", "2000", "--slow-start-ms", "5000"]);
    for note in
        ["# maglev: not in NGINX", "# active health checks (check-ms)", "# slow start (slow-start-ms)"]
    {
        assert!(text.contains(note), "{note:?} missing:\n{text}");
    }
    // HAProxy does have active checks and slow start.
    let text = config(&[
        "--for",
        "haproxy",
        "--algorithm",
        "bounded-load",
        "--check-ms",
        "2000",
        "--slow-start-ms",
        "5000",
    ]);
    for part in [
        "balance url_param user",
        "hash-type consistent",
        "hash-balance-factor 125",
        "check inter 2s fall 3 rise 2 slowstart 5s",
    ] {
        assert!(text.contains(part), "{part:?} missing:\n{text}");
    }
    let text = config(&["--for", "envoy", "--algorithm", "maglev", "--outlier-5xx", "5"]);
    for part in ["# not checked against Envoy", "lb_policy: MAGLEV", "consecutive_5xx: 5"] {
        assert!(text.contains(part), "{part:?} missing:\n{text}");
    }
}

#[test]
fn the_key_can_come_from_a_header() {
    let nginx = config(&["--for", "nginx", "--algorithm", "consistent-hash", "--key", "header:X-User"]);
    assert!(nginx.contains("hash $http_x_user consistent;"), "{nginx}");
    let haproxy = config(&["--for", "haproxy", "--algorithm", "consistent-hash", "--key", "header:X-User"]);
    assert!(haproxy.contains("balance hdr(X-User)"), "{haproxy}");
}

#[test]
fn bad_requests_name_the_flag() {
    for (args, field) in [
        (&["--for", "apache", "--algorithm", "random"][..], "for: 'apache'"),
        (&["--for", "nginx"][..], "algorithm: ''"),
        (&["--for", "nginx", "--algorithm", "random", "--key", "cookie:x"][..], "key: 'cookie:x'"),
        (&["--for", "nginx", "--algorithm", "random", "--port", "0"][..], "port: '0'"),
    ] {
        let out = lbsim().arg("config").args(args).output().expect("lbsim runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(field), "{args:?}: {stderr}");
    }
}

#[test]
fn what_would_mislead_is_said() {
    // Plain names become loopback addresses, which a hashing balancer hashes.
    let text = config(&["--for", "nginx", "--algorithm", "consistent-hash", "--ring", "nginx"]);
    assert!(text.contains("server 127.0.0.1:8081;  # s1") && text.contains("(--names)"), "{text}");
    // HAProxy takes weights up to 256.
    let text =
        config(&["--for", "haproxy", "--algorithm", "round-robin", "--servers", "2", "--weights", "300,1"]);
    assert!(text.contains("weight 256") && text.contains("# weights above 256"), "{text}");
    // Envoy's retries live on the route.
    let text =
        config(&["--for", "envoy", "--algorithm", "round-robin", "--retries", "2", "--events", "5s:s1:fail"]);
    assert!(text.contains("# retries: on the route") && text.contains("# passive checks"), "{text}");
}
