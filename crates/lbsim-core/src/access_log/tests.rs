//! The readers against lines as each program documents them, and the bad
//! inputs of docs/model.md#your-own-traffic.

use alloc::string::{String, ToString};
use alloc::vec::Vec;
use alloc::{format, vec};

use super::*;

fn read(settings: LogSettings, text: &str) -> Result<Traffic, LogError> {
    let mut reader = LogReader::new(settings);
    reader.push(text.as_bytes())?;
    reader.finish()
}

fn given(kind: LogKind) -> LogSettings {
    LogSettings { kind: Some(kind), ..LogSettings::default() }
}

/// Lines in lbsim's timing format; by hand: arrival = $msec - $request_time.
const NGINX: &str = "\
203.0.113.7 [07/Dec/2026:18:14:27 +0000] \"GET /a HTTP/1.1\" 200 1796667267.250 0.050 0.040 10.0.0.1:8080
203.0.113.8 [07/Dec/2026:18:14:27 +0000] \"GET /b HTTP/1.1\" 200 1796667267.300 0.080 0.010, 0.070 10.0.0.1:8080, 10.0.0.2:8080
203.0.113.7 [07/Dec/2026:18:14:28 +0000] \"GET /c HTTP/1.1\" 502 1796667268.000 0.001 0.001 10.0.0.2:8080
";

#[test]
fn nginx_arrival_is_msec_less_request_time_and_work_the_last_try() {
    let t = read(LogSettings::default(), NGINX).unwrap();
    assert_eq!(t.kind, LogKind::Nginx);
    // 267.250 - 0.050 = 267.200 and 267.300 - 0.080 = 267.220: 20 ms apart.
    let arrivals: Vec<f64> = t.requests.iter().map(|r| r.arrival_ms).collect();
    assert_eq!(arrivals.len(), 2);
    assert_eq!(arrivals[0], 0.0);
    assert!((arrivals[1] - 20.0).abs() < 1e-6, "{arrivals:?}");
    let work: Vec<f64> = t.requests.iter().map(|r| r.work_ms).collect();
    assert!((work[0] - 40.0).abs() < 1e-9 && (work[1] - 70.0).abs() < 1e-9, "{work:?}");
    assert_eq!(t.keys, ["203.0.113.7", "203.0.113.8"]);
    assert_eq!(t.servers, ["10.0.0.1:8080", "10.0.0.2:8080"]);
    assert_eq!(t.served_by, [0, 1]);
    // The 502 is an error; the list of two tries one retry.
    assert_eq!((t.errors, t.retries), (1, 1));
    let total = read(LogSettings { work_from: WorkFrom::Total, ..LogSettings::default() }, NGINX).unwrap();
    assert!((total.requests[1].work_ms - 80.0).abs() < 1e-9);
}

#[test]
fn a_users_log_format_is_parsed_by_its_variables_and_literals() {
    let format = "$msec|$cookie_session|$upstream_response_time|$request_time|$upstream_addr|$status";
    let line = "1796667267.500|abc|0.200|0.250|app-1:80|200\n1796667268.500|def|0.100|0.125|app-2:80|200\n";
    let settings = LogSettings { format: Some(format.to_string()), ..LogSettings::default() };
    let t = read(settings, line).unwrap();
    assert_eq!(t.keys, ["abc", "def"]);
    assert_eq!(t.servers, ["app-1:80", "app-2:80"]);
    // 268.500 - 0.125 - (267.500 - 0.250) = 1.125 s.
    assert!((t.requests[1].arrival_ms - 1125.0).abs() < 1e-6);
    // A whole directive reads too.
    let directive = format!("log_format mine '{format}';");
    assert!(read(LogSettings { format: Some(directive), ..LogSettings::default() }, line).is_ok());
}

#[test]
fn the_combined_format_is_refused_with_the_log_format_line_to_add() {
    let combined =
        "203.0.113.7 - - [07/Dec/2026:18:14:27 +0000] \"GET / HTTP/1.1\" 200 612 \"-\" \"curl/8.0\"\n";
    let error = read(LogSettings::default(), combined).unwrap_err();
    let text = error.to_string();
    assert!(matches!(error, LogError::NoTiming { .. }), "{text}");
    assert!(text.contains("$request_time") && text.contains("combined"), "{text}");
    assert!(text.contains(&LbsimFormat::directive()), "{text}");
    // Given as the format, the same.
    let settings = LogSettings {
        format: Some("$remote_addr - $remote_user [$time_local] \"$request\" $status $body_bytes_sent \"$http_referer\" \"$http_user_agent\"".to_string()),
        ..LogSettings::default()
    };
    let text = read(settings, combined).unwrap_err().to_string();
    assert!(text.contains("$request_time") && text.contains("log_format lbsim"), "{text}");
}

/// HAProxy's configuration manual, "8.2.3. HTTP log format" and "8.2.2.
/// TCP log format": its example lines, with the syslog header.
const HAPROXY_HTTP: &str = "Feb  6 12:14:14 localhost haproxy[14389]: 10.0.1.2:33317 [06/Feb/2009:12:14:14.655] http-in static/srv1 10/0/30/69/109 200 2750 - - ---- 1/1/1/1/0 0/0 {1wt.eu} {} \"GET /index.html HTTP/1.1\"\n";
const HAPROXY_TCP: &str = "Feb  6 12:12:56 localhost haproxy[14387]: 10.0.1.2:33313 [06/Feb/2009:12:12:51.443] fnt bck/srv1 0/0/5007 212 -- 0/0/0/0/3 0/0\n";

#[test]
fn haproxy_lines_as_its_manual_prints_them() {
    let t = read(LogSettings::default(), HAPROXY_HTTP).unwrap();
    assert_eq!(t.kind, LogKind::HaproxyHttp);
    assert_eq!(t.keys, ["10.0.1.2"]);
    assert_eq!(t.servers, ["srv1"]);
    // Tr = 69 ms, Ta = 109 ms.
    assert_eq!(t.requests[0].work_ms, 69.0);
    let total =
        read(LogSettings { work_from: WorkFrom::Total, ..LogSettings::default() }, HAPROXY_HTTP).unwrap();
    assert_eq!(total.requests[0].work_ms, 109.0);
    let t = read(LogSettings::default(), HAPROXY_TCP).unwrap();
    assert_eq!(t.kind, LogKind::HaproxyTcp);
    // Tt 5007 less Tw 0 and Tc 0; the last connection count is 3 retries.
    assert_eq!((t.requests[0].work_ms, t.retries), (5007.0, 3));
}

#[test]
fn haproxy_minus_one_and_nosrv_are_errors_not_work() {
    let never = HAPROXY_HTTP.replace("10/0/30/69/109 200", "10/0/30/-1/109 504");
    let nosrv = HAPROXY_HTTP.replace("static/srv1 10/0/30/69/109 200", "static/<NOSRV> 10/-1/-1/-1/11 503");
    let text = [HAPROXY_HTTP, &never, &nosrv].concat();
    let t = read(given(LogKind::HaproxyHttp), &text).unwrap();
    assert_eq!((t.requests.len(), t.errors), (1, 2));
}

/// Written from AWS's documented field order ("Access log entries" of the
/// Application Load Balancer guide; the guide itself is not in the search
/// corpus): its first example's values, then two fields AWS added later.
const ALB: &str = "http 2018-07-02T22:23:00.186641Z app/my-loadbalancer/50dc6c495c0c9188 192.168.131.39:2817 10.0.0.1:80 0.000 0.001 0.000 200 200 34 366 \"GET http://www.example.com:80/ HTTP/1.1\" \"curl/7.46.0\" - - arn:aws:elasticloadbalancing:us-east-2:123456789012:targetgroup/my-targets/73e2d6bc24d8a067 \"Root=1-58337262-36d228ad5d99923122bbe354\" \"-\" \"-\" 0 2018-07-02T22:22:48.364000Z \"forward\" \"-\" \"-\" \"10.0.0.1:80\" \"200\" \"-\" \"-\" TID_1 \"-\"\n";

#[test]
fn alb_lines_in_awss_field_order_with_new_trailing_fields() {
    let t = read(LogSettings::default(), ALB).unwrap();
    assert_eq!(t.kind, LogKind::Alb);
    assert_eq!(t.keys, ["192.168.131.39"]);
    assert_eq!(t.servers, ["10.0.0.1:80"]);
    assert_eq!(t.requests[0].work_ms, 1.0);
    let never = ALB.replace("0.000 0.001 0.000 200 200", "-1 -1 -1 502 -");
    let t = read(given(LogKind::Alb), &[ALB, &never].concat()).unwrap();
    assert_eq!((t.requests.len(), t.errors), (1, 1));
    assert_eq!(alb::split_fields(ALB.trim_end())[21], "2018-07-02T22:22:48.364000Z");
}

#[test]
fn csv_is_taken_as_written_and_user_keys_read_back_as_their_users() {
    let text = "arrival_ms,work_ms,key,class\n0.5,20,user-3,quick\n1.25,400,user-1,slow\n";
    let t = read(LogSettings::default(), text).unwrap();
    assert_eq!(t.kind, LogKind::Csv);
    assert_eq!(t.requests[0].arrival_ms, 0.5);
    assert_eq!((t.requests[0].user, t.requests[1].user), (3, 1));
    assert_eq!(t.keys, ["user-1", "user-2", "user-3"]);
    assert!(t.classed && t.requests[1].slow && !t.requests[0].slow);
}

#[test]
fn any_chunking_reads_the_same() {
    let whole = read(LogSettings::default(), NGINX).unwrap();
    for size in [1, 2, 7, 64] {
        let mut reader = LogReader::new(LogSettings::default());
        for chunk in NGINX.as_bytes().chunks(size) {
            reader.push(chunk).unwrap();
        }
        assert_eq!(reader.finish().unwrap(), whole, "chunks of {size}");
    }
}

#[test]
fn a_bad_line_is_skipped_with_its_number_and_why() {
    let mut lines: Vec<String> = NGINX.lines().map(String::from).collect();
    lines.insert(1, "this is not a log line".to_string());
    lines.push("203.0.113.9 [07/Dec/2026:18:14:29 +0000] \"GET / HTTP/1.1\" 200 1796667269.000 -0.5 0.1 10.0.0.1:8080".to_string());
    let mut reader = LogReader::new(LogSettings::default());
    reader.push((lines.join("\n") + "\n").as_bytes()).unwrap();
    let progress = reader.progress();
    assert_eq!((progress.lines, progress.skipped), (5, 2));
    assert_eq!(progress.first_skips[0].line, 2);
    assert!(progress.first_skips[0].reason.contains("expected"), "{:?}", progress.first_skips);
    assert_eq!(progress.first_skips[1].line, 5);
    assert!(progress.first_skips[1].reason.contains("negative"), "{:?}", progress.first_skips);
    let t = reader.finish().unwrap();
    assert!(t.notes.iter().any(|n| n.contains("2 of 5 lines skipped")), "{:?}", t.notes);
}

#[test]
fn a_file_of_mostly_failing_lines_stops_naming_the_kind_and_what_it_saw() {
    let text = [NGINX, "garbage\n", "more garbage\n", "and more\n", "still\n"].concat();
    let error = read(given(LogKind::Nginx), &text).unwrap_err();
    assert!(matches!(error, LogError::MostLinesFail { kind: LogKind::Nginx, skipped: 4, .. }), "{error}");
    let text = error.to_string();
    assert!(text.contains("nginx") && text.contains("line 4"), "{text}");
}

#[test]
fn out_of_order_lines_are_sorted_and_a_clock_jump_noted() {
    let late = "203.0.113.9 [07/Dec/2026:18:14:27 +0000] \"GET / HTTP/1.1\" 200 1796667260.000 0.010 0.010 10.0.0.1:8080\n";
    let t = read(LogSettings::default(), &[NGINX, late].concat()).unwrap();
    let arrivals: Vec<f64> = t.requests.iter().map(|r| r.arrival_ms).collect();
    assert!(arrivals.windows(2).all(|w| w[0] <= w[1]), "{arrivals:?}");
    assert_eq!(t.keys[t.requests[0].user as usize - 1], "203.0.113.9");
    assert!(t.notes.iter().any(|n| n.contains("arrival order")), "{:?}", t.notes);
    let jump = late.replace("1796667260.000", "1796660000.000");
    let t = read(LogSettings::default(), &[NGINX, &jump].concat()).unwrap();
    assert!(t.notes.iter().any(|n| n.contains("clock stepped back")), "{:?}", t.notes);
}

#[test]
fn dashes_and_minus_one_are_not_work() {
    let dash = NGINX.lines().next().unwrap().replace("0.050 0.040", "0.050 -");
    let t = read(LogSettings::default(), &format!("{dash}\n{NGINX}")).unwrap();
    // Without a server time the balancer's whole time is the work, said.
    assert_eq!(t.requests.len(), 3);
    assert!(t.notes.iter().any(|n| n.contains("no server time")), "{:?}", t.notes);
    let none = NGINX.lines().next().unwrap().replace("0.050 0.040", "- -");
    let mut reader = LogReader::new(LogSettings::default());
    reader.push(format!("{NGINX}{none}\n").as_bytes()).unwrap();
    assert!(reader.progress().first_skips[0].reason.contains("no duration"));
}

#[test]
fn empty_binary_and_overlong_input() {
    assert_eq!(read(LogSettings::default(), ""), Err(LogError::Empty));
    assert_eq!(read(LogSettings::default(), "\n\n  \n"), Err(LogError::Empty));
    let mut reader = LogReader::new(LogSettings::default());
    let error = reader.push(b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03").unwrap_err();
    assert_eq!(error, LogError::Binary { offset: 3 });
    assert!(error.to_string().contains("binary"));
    // A 10 MB line between good ones, fed in 64 KiB chunks: skipped, counted.
    let mut reader = LogReader::new(LogSettings::default());
    let mut text = String::from(NGINX);
    text.push_str(&"x".repeat(10 << 20));
    text.push('\n');
    text.push_str(NGINX);
    for chunk in text.as_bytes().chunks(64 << 10) {
        reader.push(chunk).unwrap();
    }
    assert!(reader.held_bytes() < 1 << 20);
    let progress = reader.progress();
    assert_eq!((progress.lines, progress.skipped), (7, 1));
    assert!(progress.first_skips[0].reason.contains("longer than"));
    assert_eq!(reader.finish().unwrap().requests.len(), 4);
}

#[test]
fn an_ambiguous_or_unknown_first_line_says_what_it_saw() {
    let error = read(LogSettings::default(), "hello world\n").unwrap_err();
    assert!(error.to_string().contains("hello world") && error.to_string().contains("--log-kind"), "{error}");
    let csv_bad = read(given(LogKind::Csv), "1,2\n").unwrap_err();
    assert!(csv_bad.to_string().contains("1,2"), "{csv_bad}");
}

#[test]
fn unnameable_servers_are_renamed_with_a_note() {
    let text = NGINX.replace("10.0.0.2:8080", "unix:/run/app.sock");
    let t = read(LogSettings::default(), &text).unwrap();
    assert_eq!(t.servers, ["s1", "s2"]);
    assert!(t.notes.iter().any(|n| n.contains("renamed s1..s2")), "{:?}", t.notes);
}

#[test]
fn the_summary_counts_what_was_read() {
    let t = read(LogSettings::default(), NGINX).unwrap();
    let s = t.summary();
    assert_eq!(s.requests, 2);
    assert_eq!(s.per_second, vec![2]);
    assert_eq!(s.top_keys[0].1, 0.5);
    assert_eq!(s.servers, vec![("10.0.0.1:8080".to_string(), 1), ("10.0.0.2:8080".to_string(), 1)]);
}
