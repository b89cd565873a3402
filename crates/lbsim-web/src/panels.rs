//! The panels the second module (`lbsim-tools`) draws, each for the
//! scenario of a share link (what `lazy` passes): the remapping
//! experiment, and the Config panel, the scenario as NGINX, HAProxy or
//! Envoy configuration, written by the core's `config` (what `lbsim
//! config` prints), for the rule and balancer the reader picks. What the
//! balancer cannot express is a comment in the text, never dropped. The
//! first module never names this one, so its code is not in the first
//! visit's.

use lbsim_core::config::{self, Balancer, Key, Request};
use lbsim_core::{url, AlgorithmId};
use web_sys::{HtmlDetailsElement, HtmlInputElement, HtmlSelectElement};

use crate::dom::{by_id, document, set_text};
use crate::state::look;
use crate::view;

/// Draws the remapping panel for the scenario of `link`.
pub fn remapping(link: &str, force: bool) {
    view::draw_remapping(&url::decode(link).scenario, &look(), force);
}

/// Saves the canvas `id` as a PNG, its legend under it.
pub fn save_png(id: &str) {
    view::save_png(id);
}

/// Writes the Config panel for the scenario of `link`, if it is open: the
/// rule list follows the scenario's rules (keeping the reader's pick while
/// it is one of them), then the config and the command that prints the
/// same.
pub fn config(link: &str) {
    if !by_id::<HtmlDetailsElement>("config-panel").is_some_and(|d| d.open()) {
        return;
    }
    let (Some(balancer_select), Some(rule_select)) =
        (by_id::<HtmlSelectElement>("config-for"), by_id::<HtmlSelectElement>("config-rule"))
    else {
        return;
    };
    let scenario = url::decode(link).scenario;
    let rules = scenario.rules();
    let chosen: Option<AlgorithmId> = rule_select.value().parse().ok().filter(|r| rules.contains(r));
    let listed: Vec<String> =
        (0..rule_select.length()).filter_map(|i| rule_select.item(i)).map(|o| o.id()).collect();
    let wanted: Vec<String> = rules.iter().map(|r| format!("config-rule-{}", r.id())).collect();
    if listed != wanted {
        rule_select.set_inner_html("");
        for rule in &rules {
            if let Ok(option) = document().create_element("option") {
                option.set_id(&format!("config-rule-{}", rule.id()));
                option.set_attribute("value", rule.id()).ok();
                option.set_text_content(Some(rule.id()));
                rule_select.append_child(&option).ok();
            }
        }
    }
    let Some(rule) = chosen.or_else(|| rules.first().copied()) else {
        set_text("config-text", "No rule is chosen: pick one under Algorithms.");
        return;
    };
    rule_select.set_value(rule.id());
    let balancer: Balancer = balancer_select.value().parse().unwrap_or(Balancer::Nginx);
    let full = by_id::<HtmlInputElement>("config-full").is_some_and(|c| c.checked());
    let request = Request { balancer, rule, full, key: Key::Arg("user".into()), port: 8080 };
    set_text("config-text", &config::write(&scenario, &request));
    let whole = if full { " --full" } else { "" };
    set_text(
        "config-cli",
        &format!("lbsim config --for {} --algorithm {}{whole} --url '{}'", balancer.id(), rule.id(), link),
    );
}
