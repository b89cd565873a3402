//! Error messages echo input escaped as Rust's `escape_debug` does, so the
//! CLI's terminal and the page's notices never receive a control sequence
//! or a line break from a link, a flag or a file.

use lbsim_core::{url, ScenarioError};

#[test]
fn field_and_value_are_escaped_as_escape_debug() {
    let e = ScenarioError {
        field: "colour\u{7}".into(),
        value: "\n\u{1b}[31mX 'q' \\ \u{202e}é".into(),
        allowed: "ours, quoting `\u{1b}[0m` and 'this'".into(),
    };
    assert_eq!(
        e.to_string(),
        r"colour\u{7}: '\n\u{1b}[31mX \'q\' \\ \u{202e}é' is not allowed; allowed: ours, quoting `\u{1b}[0m` and 'this'"
    );
}

#[test]
fn notices_of_a_hostile_link_are_one_printable_line_each() {
    let decoded = url::decode("v=1&servers=%0a%1b[31mX&%1b[2J=1&names=a%0db");
    assert_eq!(decoded.problems.len(), 3);
    for problem in &decoded.problems {
        let text = problem.to_string();
        assert!(!text.chars().any(char::is_control), "{text:?}");
    }
}

#[test]
fn plain_messages_are_unchanged() {
    let e = ScenarioError { field: "servers".into(), value: "0".into(), allowed: "1 to 1024".into() };
    assert_eq!(e.to_string(), "servers: '0' is not allowed; allowed: 1 to 1024");
}
