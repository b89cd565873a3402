//! A result never depends on a buffer size: keys longer than the core's
//! stack buffer are hashed whole, so rendezvous still spreads them.

use crate::json;

/// The command: 21 `{i}` make keys of 126 bytes and more, which
/// once lost the node name from `{key}#{name}` and sent about 125,000 of
/// 200,000 keys to s1 (every node scored the same).
#[test]
fn rendezvous_spreads_keys_longer_than_the_stack_buffer() {
    let pattern = "{i}".repeat(21);
    let r = json(&["remap", "--scheme", "rendezvous", "--keys", "200000", "--key-format", &pattern]);
    for (node, keys) in r["before"].as_object().expect("before") {
        let share = keys.as_f64().expect("a count") / 200_000.0;
        assert!((0.22..0.28).contains(&share), "{node} has {share} of the keys before");
    }
    for (node, keys) in r["after"].as_object().expect("after") {
        let share = keys.as_f64().expect("a count") / 200_000.0;
        assert!((0.17..0.23).contains(&share), "{node} has {share} of the keys after");
    }
}
