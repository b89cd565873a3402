//! `cargo xtask layers`: the import layers hold. Each crate's sources are
//! parsed (syn) and every path between its modules is followed: `use`
//! trees, paths in code and types, and `a::b` sequences inside macro
//! invocations (the rules' registry names its modules there). Code under
//! `#[cfg(test)]` is left out: tests may reach anywhere.
//!
//! Two rules, both per file (a `mod.rs` and each file beside it are
//! separate modules):
//! - no circle: no file reaches itself through the files it names, so a
//!   parent that re-exports its children is never named by them;
//! - layers: where a crate lists its layers (bottom first), a module names
//!   only modules of its own layer or below, and every module is in a
//!   layer, so a new file has to be placed.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::Visit;

use crate::tools::{root, step};

/// A crate's layers, bottom first; a module belongs to the layer that
/// names it or its nearest named ancestor (`plots` holds `plots::cdf`).
/// `crate` is the root file (`lib.rs` or `main.rs`) alone: a module that
/// no layer names, itself or through an ancestor, fails the check.
struct Layers {
    dir: &'static str,
    layers: &'static [&'static [&'static str]],
}

const LAYERS: &[Layers] = &[
    Layers {
        dir: "crates/lbsim-core",
        layers: &[
            // Arithmetic, hashing and randomness, knowing nothing of load balancing.
            &["hash", "chacha", "sort", "num", "rng", "ziggurat"],
            // The rules, and the events grammar: what a scenario is made of.
            &["balancer", "events"],
            // The scenario: its type, the one field table, validation.
            &["scenario"],
            // What a scenario draws and what a run reports; formulas; remapping;
            // the scenario as a real balancer's config.
            &["workload", "report", "theory", "remap", "cost", "config"],
            // An access log read as the requests a scenario runs on.
            &["access_log"],
            // The server model both engines run on, and the messages the
            // servers send balancer copies.
            &["server", "bus"],
            // The fleet's event loop, then the engine that runs either loop, and
            // a rule's picks for given steps (with the fleet's timeline and checks).
            &["fleet"],
            &["engine", "trace"],
            // Built on whole runs: sweeps, presets, the replay of a run (its
            // default pair is a preset's), then links that name them all.
            &["sweep", "presets"],
            &["replay"],
            &["url"],
            // Scenarios fitted to observed traffic, with their links.
            &["fit"],
            &["crate"],
        ],
    },
    Layers {
        dir: "crates/lbsim-cli",
        layers: &[
            // What a command gives back, and the progress bar.
            &["outcome", "progress"],
            // Where a scenario comes from: the flags from the core's table.
            &["flags"],
            // A scenario's access log, read.
            &["log"],
            // The commands, the ones that share run's output first.
            &["run"],
            &["remap", "sweep"],
            &["trace", "config", "replay", "list", "workload"],
            // A scenario fitted to an access log.
            &["fit"],
            &["crate"],
        ],
    },
    Layers {
        dir: "crates/lbsim-web",
        layers: &[
            // Leaf helpers.
            &["dom", "palette", "backend"],
            // Drawing pieces that know nothing of the page's state.
            &["plots", "table", "events", "controls"],
            // What the page knows, as plain data.
            &["state"],
            // Views and workers.
            &["lazy", "view", "panels", "replay", "links", "pool", "sweep", "run", "embed_code", "traffic"],
            // What each input does, and the start.
            &["wiring"],
            &["crate"],
        ],
    },
];

/// The crates whose modules are checked for circles (all of the
/// workspace's, with layers where `LAYERS` lists them).
fn crate_dirs() -> Result<Vec<PathBuf>, String> {
    let crates = root().join("crates");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&crates)
        .map_err(|e| format!("{}: {e}", crates.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.join("src").is_dir())
        .collect();
    dirs.sort();
    Ok(dirs)
}

pub fn check() -> Result<(), String> {
    step("import layers: no circle between files, no module naming a higher layer");
    let mut problems = Vec::new();
    let mut files = 0;
    for dir in crate_dirs()? {
        let graph = Graph::of_crate(&dir.join("src"))?;
        files += graph.modules.len();
        let name = dir.strip_prefix(root()).unwrap_or(&dir).display().to_string();
        problems.extend(graph.circles().into_iter().map(|c| format!("{name}: circle: {}", c.join(" -> "))));
        if let Some(layers) = LAYERS.iter().find(|l| l.dir == name) {
            problems.extend(graph.layer_breaks(layers.layers).into_iter().map(|p| format!("{name}: {p}")));
        }
    }
    if problems.is_empty() {
        eprintln!("  {files} files, no circle, every layer holds");
        return Ok(());
    }
    for p in &problems {
        eprintln!("  {p}");
    }
    Err(format!(
        "{} import problem(s); see above (layers are listed in crates/xtask/src/layers.rs)",
        problems.len()
    ))
}

/// One crate's modules (one per file) and the modules each file names,
/// with the line of the first mention.
struct Graph {
    src: PathBuf,
    modules: BTreeMap<String, PathBuf>,
    edges: BTreeMap<String, BTreeMap<String, usize>>,
}

impl Graph {
    fn of_crate(src: &Path) -> Result<Graph, String> {
        let mut modules = BTreeMap::new();
        collect(src, src, &mut modules)?;
        let names: BTreeSet<String> = modules.keys().cloned().collect();
        let mut edges = BTreeMap::new();
        for (module, file) in &modules {
            let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
            let ast = syn::parse_file(&text).map_err(|e| format!("{}: {e}", file.display()))?;
            let mut walker = Walker { names: &names, scope: split(module), named: BTreeMap::new() };
            walker.visit_file(&ast);
            let named = walker.named.into_iter().filter(|(to, _)| to != module).collect();
            edges.insert(module.clone(), named);
        }
        Ok(Graph { src: src.to_path_buf(), modules, edges })
    }

    /// Every circle, one for each set of files that reach each other, as
    /// the shortest way around from the first of them.
    fn circles(&self) -> Vec<Vec<String>> {
        // Tarjan's strongly connected components: a component of more than
        // one module is a circle (a module naming itself is dropped above).
        let mut state = Tarjan::default();
        for m in self.modules.keys() {
            if !state.index.contains_key(m) {
                state.visit(m, self);
            }
        }
        state
            .components
            .into_iter()
            .filter(|c| c.len() > 1)
            .map(|c| {
                let within: BTreeSet<&String> = c.iter().collect();
                let start = within.iter().next().map_or(String::new(), |m| m.to_string());
                self.way_around(&start, &within).iter().map(|m| self.file_of(m)).collect()
            })
            .collect()
    }

    /// The shortest path from `start` back to it through `within`
    /// (breadth first), start at both ends.
    fn way_around(&self, start: &str, within: &BTreeSet<&String>) -> Vec<String> {
        let mut came_from: BTreeMap<String, String> = BTreeMap::new();
        let mut queue = std::collections::VecDeque::from([start.to_string()]);
        while let Some(m) = queue.pop_front() {
            for to in self.edges[&m].keys().filter(|t| within.contains(t)) {
                if to == start {
                    let mut path = vec![start.to_string(), m.clone()];
                    while let Some(prev) = came_from.get(path.last().map_or("", String::as_str)) {
                        path.push(prev.clone());
                    }
                    path.reverse();
                    return path;
                }
                if !came_from.contains_key(to) && to != start {
                    came_from.insert(to.clone(), m.clone());
                    queue.push_back(to.clone());
                }
            }
        }
        vec![start.to_string()]
    }

    fn layer_breaks(&self, layers: &[&[&str]]) -> Vec<String> {
        let listed = |key: &str| layers.iter().position(|l| l.contains(&key));
        // The root file is `crate`; any other module is placed by its own
        // path or its nearest listed ancestor, never by the root, so a new
        // top-level module is in no layer until it is listed.
        let layer_of = |module: &str| -> Option<usize> {
            let mut path = split(module);
            if path.is_empty() {
                return listed("crate");
            }
            while !path.is_empty() {
                if let Some(i) = listed(&path.join("::")) {
                    return Some(i);
                }
                path.pop();
            }
            None
        };
        let mut breaks = Vec::new();
        for module in self.modules.keys() {
            let Some(from) = layer_of(module) else {
                breaks.push(format!(
                    "{} is in no layer: list `{}` in this crate's layers in crates/xtask/src/layers.rs \
                     (its child modules go with it)",
                    self.file_of(module),
                    split(module).first().map_or("", String::as_str)
                ));
                continue;
            };
            for (to, line) in &self.edges[module] {
                if layer_of(to).is_some_and(|layer| layer > from) {
                    breaks.push(format!(
                        "{}:{line} names {}, a higher layer",
                        self.file_of(module),
                        self.file_of(to)
                    ));
                }
            }
        }
        breaks
    }

    fn file_of(&self, module: &str) -> String {
        let file = &self.modules[module];
        file.strip_prefix(&self.src).unwrap_or(file).display().to_string()
    }
}

#[derive(Default)]
struct Tarjan {
    next: usize,
    index: BTreeMap<String, usize>,
    low: BTreeMap<String, usize>,
    stack: Vec<String>,
    on_stack: BTreeSet<String>,
    components: Vec<Vec<String>>,
}

impl Tarjan {
    fn visit(&mut self, m: &str, graph: &Graph) {
        self.index.insert(m.to_string(), self.next);
        self.low.insert(m.to_string(), self.next);
        self.next += 1;
        self.stack.push(m.to_string());
        self.on_stack.insert(m.to_string());
        for to in graph.edges[m].keys() {
            if !self.index.contains_key(to) {
                self.visit(to, graph);
                let low = self.low[m].min(self.low[to]);
                self.low.insert(m.to_string(), low);
            } else if self.on_stack.contains(to) {
                let low = self.low[m].min(self.index[to]);
                self.low.insert(m.to_string(), low);
            }
        }
        if self.low[m] == self.index[m] {
            let mut component = Vec::new();
            while let Some(top) = self.stack.pop() {
                self.on_stack.remove(&top);
                let done = top == m;
                component.push(top);
                if done {
                    break;
                }
            }
            self.components.push(component);
        }
    }
}

/// The crate's file modules: `lib.rs`/`main.rs` is `""`, `a.rs` and
/// `a/mod.rs` are `a`, `a/b.rs` is `a::b`. Binaries under `src/bin` are
/// crates of their own and left out.
fn collect(src: &Path, dir: &Path, modules: &mut BTreeMap<String, PathBuf>) -> Result<(), String> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for path in entries {
        let relative = path.strip_prefix(src).unwrap_or(&path);
        if relative.starts_with("bin") {
            continue;
        }
        if path.is_dir() {
            collect(src, &path, modules)?;
            continue;
        }
        if path.extension().and_then(|e| e.to_str()) != Some("rs") {
            continue;
        }
        let mut parts: Vec<String> =
            relative.with_extension("").iter().map(|p| p.to_string_lossy().into_owned()).collect();
        if matches!(parts.last().map(String::as_str), Some("mod")) {
            parts.pop();
        }
        if parts.len() == 1 && matches!(parts[0].as_str(), "lib" | "main") {
            parts.clear();
        }
        modules.insert(parts.join("::"), path);
    }
    Ok(())
}

fn split(module: &str) -> Vec<String> {
    module.split("::").filter(|s| !s.is_empty()).map(str::to_string).collect()
}

/// Walks one file, noting the file modules its paths name.
struct Walker<'a> {
    names: &'a BTreeSet<String>,
    /// The module the walk is in: the file's, plus inline `mod`s.
    scope: Vec<String>,
    named: BTreeMap<String, usize>,
}

impl Walker<'_> {
    /// Notes the file module a path lands in: `crate::a::b::C` names the
    /// longest known prefix (`a::b` when `a/b.rs` exists); `super::` and
    /// `self::` are taken from the scope; a first segment that is a child
    /// module of the scope reads as `self::` (edition 2018 paths).
    fn note(&mut self, segments: &[String], line: usize) {
        let Some(first) = segments.first() else { return };
        let mut path: Vec<String> = match first.as_str() {
            "crate" => Vec::new(),
            "self" | "super" => self.scope.clone(),
            name if self.is_child(name) => self.scope.clone(),
            _ => return,
        };
        let mut rest = segments;
        if first == "crate" || first == "self" {
            rest = &segments[1..];
        }
        while rest.first().is_some_and(|s| s == "super") {
            path.pop();
            rest = &rest[1..];
        }
        path.extend(rest.iter().cloned());
        while !path.is_empty() && !self.names.contains(&path.join("::")) {
            path.pop();
        }
        self.named.entry(path.join("::")).or_insert(line);
    }

    fn is_child(&self, name: &str) -> bool {
        let mut child = self.scope.clone();
        child.push(name.to_string());
        self.names.contains(&child.join("::"))
    }

    /// `a::b` sequences in a macro's tokens.
    fn note_tokens(&mut self, tokens: TokenStream) {
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        let mut i = 0;
        while i < trees.len() {
            match &trees[i] {
                TokenTree::Group(g) => self.note_tokens(g.stream()),
                TokenTree::Ident(ident) => {
                    let line = ident.span().start().line;
                    let mut segments = vec![ident.to_string()];
                    let mut j = i + 1;
                    while let (
                        Some(TokenTree::Punct(a)),
                        Some(TokenTree::Punct(b)),
                        Some(TokenTree::Ident(next)),
                    ) = (trees.get(j), trees.get(j + 1), trees.get(j + 2))
                    {
                        if a.as_char() != ':' || b.as_char() != ':' {
                            break;
                        }
                        segments.push(next.to_string());
                        j += 3;
                    }
                    if segments.len() > 1 {
                        self.note(&segments, line);
                        i = j;
                        continue;
                    }
                }
                _ => {}
            }
            i += 1;
        }
    }

    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree, line: usize) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree, line);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                prefix.push(n.ident.to_string());
                self.note(prefix, line);
                prefix.pop();
            }
            syn::UseTree::Rename(r) => {
                prefix.push(r.ident.to_string());
                self.note(prefix, line);
                prefix.pop();
            }
            syn::UseTree::Glob(_) => self.note(prefix, line),
            syn::UseTree::Group(g) => {
                for item in &g.items {
                    self.use_tree(prefix, item, line);
                }
            }
        }
    }
}

/// Whether an item is compiled for tests only (`#[cfg(test)]`).
fn for_tests(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg") && a.meta.require_list().is_ok_and(|l| l.tokens.to_string().trim() == "test")
    })
}

impl<'ast> Visit<'ast> for Walker<'_> {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        let attrs: &[syn::Attribute] = match item {
            syn::Item::Mod(m) => &m.attrs,
            syn::Item::Fn(f) => &f.attrs,
            syn::Item::Use(u) => &u.attrs,
            syn::Item::Impl(i) => &i.attrs,
            syn::Item::Struct(s) => &s.attrs,
            syn::Item::Enum(e) => &e.attrs,
            syn::Item::Const(c) => &c.attrs,
            syn::Item::Static(s) => &s.attrs,
            syn::Item::Macro(m) => &m.attrs,
            syn::Item::Trait(t) => &t.attrs,
            syn::Item::Type(t) => &t.attrs,
            _ => &[],
        };
        if for_tests(attrs) {
            return;
        }
        syn::visit::visit_item(self, item);
    }

    fn visit_impl_item(&mut self, item: &'ast syn::ImplItem) {
        let attrs: &[syn::Attribute] = match item {
            syn::ImplItem::Fn(f) => &f.attrs,
            syn::ImplItem::Const(c) => &c.attrs,
            syn::ImplItem::Type(t) => &t.attrs,
            _ => &[],
        };
        if for_tests(attrs) {
            return;
        }
        syn::visit::visit_impl_item(self, item);
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        // A `mod x;` declaration is not a path to `x`; an inline module
        // is a scope of its own.
        if let Some((_, items)) = &m.content {
            self.scope.push(m.ident.to_string());
            for item in items {
                self.visit_item(item);
            }
            self.scope.pop();
        }
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        let line = u.use_token.span.start().line;
        self.use_tree(&mut Vec::new(), &u.tree, line);
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        if segments.len() > 1 {
            let line = path.segments.first().map_or(0, |s| s.ident.span().start().line);
            self.note(&segments, line);
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.note_tokens(mac.tokens.clone());
        syn::visit::visit_macro(self, mac);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(files: &[(&str, &str)]) -> Graph {
        // A directory per call: the tests run in parallel.
        static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("layers-test-{}-{call}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for (path, text) in files {
            let file = dir.join(path);
            std::fs::create_dir_all(file.parent().unwrap_or(&dir)).ok();
            std::fs::write(&file, text).ok();
        }
        let graph = Graph::of_crate(&dir);
        let _ = std::fs::remove_dir_all(&dir);
        graph.unwrap_or(Graph { src: dir, modules: BTreeMap::new(), edges: BTreeMap::new() })
    }

    #[test]
    fn a_child_naming_its_re_exporting_parent_is_a_circle() {
        let g = graph(&[
            ("lib.rs", "mod a;"),
            ("a/mod.rs", "mod b; pub use self::b::B; pub struct A;"),
            ("a/b.rs", "use super::A; pub struct B;"),
        ]);
        assert_eq!(g.circles(), vec![vec!["a/mod.rs", "a/b.rs", "a/mod.rs"]]);
    }

    #[test]
    fn siblings_test_code_and_macro_paths_are_followed_as_they_should_be() {
        let g = graph(&[
            ("lib.rs", "mod a; mod b; mod c; fn f() { m!(b::X); }"),
            (
                "a.rs",
                "use crate::b::{X, Y}; #[cfg(test)] mod tests { use crate::c::Z; } \
                      impl X { #[cfg(test)] fn t() -> crate::c::Z { todo!() } }",
            ),
            ("b.rs", "pub struct X; pub struct Y; fn g() -> crate::c::Z { todo!() }"),
            ("c.rs", "pub struct Z;"),
        ]);
        assert!(g.circles().is_empty());
        let named = |m: &str| g.edges[m].keys().cloned().collect::<Vec<_>>();
        assert_eq!(named("a"), vec!["b"], "test code, test-only methods included, is left out");
        assert_eq!(named("b"), vec!["c"], "paths in types count");
        assert_eq!(named(""), vec!["b"], "paths in macros count");
        let breaks = g.layer_breaks(&[&["c", "b"], &["a"], &["crate"]]);
        assert!(breaks.is_empty(), "{breaks:?}");
        let breaks = g.layer_breaks(&[&["b"], &["c", "a"], &["crate"]]);
        assert_eq!(breaks, vec!["b.rs:1 names c.rs, a higher layer"]);
    }

    #[test]
    fn a_module_no_layer_lists_is_refused_and_children_go_with_their_parent() {
        let g = graph(&[
            ("lib.rs", "mod a; mod b; mod c;"),
            ("a.rs", "pub struct A;"),
            ("b/mod.rs", "mod d;"),
            ("b/d.rs", "use crate::a::A;"),
            ("c/mod.rs", "mod e;"),
            ("c/e.rs", "pub struct E;"),
        ]);
        let breaks = g.layer_breaks(&[&["a"], &["b"], &["crate"]]);
        let listing = "in this crate's layers in crates/xtask/src/layers.rs (its child modules go with it)";
        assert_eq!(
            breaks,
            vec![
                format!("c/mod.rs is in no layer: list `c` {listing}"),
                format!("c/e.rs is in no layer: list `c` {listing}"),
            ],
            "b/d.rs is placed with b; c and its child are in no layer, not in the root's"
        );
        assert!(g.layer_breaks(&[&["a"], &["b", "c"], &["crate"]]).is_empty());
    }
}
