//! `lbsim url` writes the link SPEC section 9 describes, and `lbsim run
//! --url` reads it back to the very same report.

use crate::stdout;

#[test]
fn url_prints_the_spec_example_link() {
    let link = stdout(&["url", "--slow-share", "0.2", "--zipf", "1.2", "--seed", "7"]);
    assert_eq!(link.trim(), "http://127.0.0.1:8080/#v=1&slow-share=0.2&zipf=1.2&seed=7");
    let link = stdout(&["url", "--base", "https://example.org/lbsim/", "--seed", "7"]);
    assert_eq!(link.trim(), "https://example.org/lbsim/#v=1&seed=7");
    assert_eq!(stdout(&["url"]).trim(), "http://127.0.0.1:8080/#v=1", "defaults are left out");
}

#[test]
fn a_link_reproduces_the_same_json() {
    let flags = [
        "--preset",
        "degraded",
        "--requests",
        "3000",
        "--zipf",
        "1.3",
        "--weights",
        "2,1,1",
        "--hash",
        "crc32",
        "--algorithms",
        "round-robin,bounded-load,maglev",
    ];
    let mut url_args = vec!["url"];
    url_args.extend(flags);
    let link = stdout(&url_args);
    let mut direct = vec!["run", "--format", "json"];
    direct.extend(flags);
    let from_link = stdout(&["run", "--format", "json", "--url", link.trim()]);
    assert_eq!(from_link, stdout(&direct));
    let fragment = link.trim().split_once('#').expect("a fragment").1;
    assert_eq!(stdout(&["run", "--format", "json", "--url", fragment]), from_link, "the fragment alone");
}
