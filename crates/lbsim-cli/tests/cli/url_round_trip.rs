//! `lbsim url` writes the link docs/embedding.md#share-links describes, and `lbsim run
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

/// `--embed` writes the address an embed takes
/// (docs/embedding.md#what-an-embed-shows-keys-and-defaults): the preset's
/// lesson plot and the table (the page's own default), the same fragment
/// as the share link; a link's preset counts as `--preset` does.
#[test]
fn url_embed_names_the_lessons_plot() {
    let base = "https://example.org/lbsim/";
    let embed = |args: &[&str]| {
        let mut all = vec!["url", "--embed", "--base", base];
        all.extend(args);
        stdout(&all).trim().to_string()
    };
    assert_eq!(embed(&["--preset", "crash"]), format!("{base}?embed=1&plots=errors,table#v=1&preset=crash"));
    assert_eq!(
        embed(&["--preset", "degraded", "--seed", "7"]),
        format!("{base}?embed=1&plots=loads,table#v=1&preset=degraded&seed=7")
    );
    assert_eq!(
        embed(&["--url", "#v=1&preset=cache-locality"]),
        format!("{base}?embed=1&plots=hits,table#v=1&preset=cache-locality")
    );
    assert_eq!(embed(&["--zipf", "1.5"]), format!("{base}?embed=1&plots=cdf,table#v=1&zipf=1.5"));
    for p in lbsim_core::presets::PRESETS.iter().filter(|p| !p.remapping) {
        let share = stdout(&["url", "--preset", p.id, "--base", base]);
        let embedded = embed(&["--preset", p.id]);
        let (query, fragment) = embedded.split_once('#').expect("a fragment");
        assert_eq!(share.trim().split_once('#').map(|s| s.1), Some(fragment), "{}", p.id);
        assert_eq!(query, format!("{base}?embed=1&plots={},table", p.plot.id()), "{}", p.id);
    }
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

/// Alone, a link means what the core's strict decoder says it means: the
/// same scenario, or an error.
#[test]
fn links_read_as_the_cores_strict_decoder_reads_them() {
    let links = [
        "v=1&slow-share=0.2&zipf=1.2&seed=7",
        "https://example.org/lbsim/?embed=1#v=1&servers=3&speeds=1,1,0.2&names=A,B,C",
        "#v=1&speeds=1%2C1%2C1%2C0.2&hash=crc32",
        "v=1&rate=&load=0.5&algorithms=maglev,random",
        "v=1&servers=3&speeds=1,1",
        "v=1&colour=blue",
        "v=2",
        "v=1&hash=md5",
        "v=1&names=a,a,b,c",
    ];
    for link in links {
        let out = crate::lbsim().args(["url", "--url", link]).output().expect("lbsim runs");
        match lbsim_core::url::decode_strict(link) {
            Ok(scenario) => {
                let expected = lbsim_core::url::share_url("http://127.0.0.1:8080/", &scenario);
                assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), expected, "{link}");
            }
            Err(e) => {
                assert_eq!(out.status.code(), Some(2), "{link} should fail as the core says: {e}");
                assert!(String::from_utf8_lossy(&out.stderr).contains(&e.field), "{link}: {e}");
            }
        }
    }
}

/// The page's view keys (the sweep, the replay) ride through `lbsim url`
/// unchanged and change nothing in `lbsim run --url`.
#[test]
fn view_keys_ride_along_and_change_no_number() {
    let views =
        "&sweep=load=0.5..0.9:0.2&view=replay&pair=round-robin,least-connections&t=12.5&speed=2&window=2000";
    let link = format!("#v=1&preset=crash&requests=2000{views}");
    let printed = stdout(&["url", "--base", "https://example.org/lbsim/", "--url", &link]);
    assert_eq!(printed.trim(), format!("https://example.org/lbsim/{link}"));
    let with_views = stdout(&["run", "--format", "json", "--url", &link]);
    let without = stdout(&["run", "--format", "json", "--url", "#v=1&preset=crash&requests=2000"]);
    assert_eq!(with_views, without);
}
