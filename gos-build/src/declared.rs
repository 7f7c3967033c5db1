//! Declared dependencies: frontmatter that names the skills a skill needs.
//!
//! The keys read are [`DECLARATION_KEYS`] at the top level and `requires` inside `metadata`.
//! A value may be a string (several names separated by commas), a list of strings, or a mapping
//! whose `skills` entry is such a value (other entries of a mapping, such as the `scripts` and
//! `references` lists some libraries keep under `dependencies`, name files, not skills, and are
//! not read).
//!
//! A declared name resolves, in order, to: the skill with exactly that id; the skills whose id
//! ends with `/name` (a relative id under a root label); the skills whose frontmatter name or
//! folder name equals the name, ignoring case. When several skills match (or none),
//! nothing is linked and the declaration is reported with its candidates; the author can write
//! the longer id (`collection/name`), which resolves by the `/name` rule. The declaring skill's
//! collection is never used to choose: a collection signal would leak a library's layout into
//! the graph (docs/graph-quality.md).
//!
//! **Package requirements are not skill references** (issue 22 item 8): many libraries list
//! the Python or npm packages and tools a skill needs under the same keys (`dependencies:
//! torch>=2.0.0`, `requires: railway-cli`). A declared name is a package requirement, and links
//! nothing and warns of nothing, when it carries a version specifier, extras or a URL
//! (`>=`, `==`, `<`, `~=`, `^`, `[train]`, `@ git+...`; [`is_versioned`]), or when it names no
//! skill at all under a generic key (`requires`, `depends`, `dependencies`,
//! `metadata.requires`): a skill reference is then written as an id (`collection/name`) or
//! under `requires_skills` (and a `skills` list), where an unresolved name stays a warning. A
//! bare name that matches exactly one skill (`dependencies: peft` in a skill built on the
//! `peft` skill) still links: the package's own skill is what the declaring skill needs. A bare
//! name a typo away from a skill's name (`requires: [csv-cleanp]` beside the `csv-cleanup`
//! skill, [`Resolver::near`]) is a broken skill reference, not a package: it stays unresolved,
//! and `gos lint` asks "did you mean".
//! On the real library this turns 254 unresolved-dependency warnings into 0 package-free
//! ones (docs/graph-quality.md).
//!
//! A resolved declaration `s requires x` becomes the dependency edge `x -> s` (x is a
//! prerequisite of s) with provenance [`EdgeProvenance::Declared`], weight 1 and the
//! declaration (`requires: x`) as evidence.

use crate::frontmatter::{Frontmatter, value_to_string};
use crate::skill_names::SkillNames;
use gos_core::{EdgeProvenance, EdgeType, SkillEdge, SkillNode};
use serde::Serialize;
use serde_json::Value;
use std::collections::HashMap;

/// Top-level frontmatter keys that declare dependencies.
pub const DECLARATION_KEYS: [&str; 4] = ["requires", "requires_skills", "depends", "dependencies"];

/// One declared dependency: the key it came from and the name it gives.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Declaration {
    /// `requires`, `dependencies`, `metadata.requires`, ...
    pub key: String,
    /// The name or id as written (trimmed).
    pub name: String,
}

impl Declaration {
    /// The evidence text of an edge: `key: name`.
    pub fn evidence(&self) -> String {
        format!("{}: {}", self.key, self.name)
    }
}

/// A declaration that linked nothing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Unlinked {
    /// Id of the declaring skill.
    pub id: String,
    /// The declaration.
    #[serde(flatten)]
    pub declaration: Declaration,
    /// Ids that matched (empty when nothing did; two or more when ambiguous).
    pub candidates: Vec<String>,
    /// When nothing matched: skill names a typo away from the declared one
    /// ([`Resolver::near`]), for "did you mean".
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub near: Vec<String>,
}

/// Counters and unlinked declarations of the declared pass, in the build report.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct DeclaredStats {
    /// Declarations read.
    pub declarations: usize,
    /// Edges made.
    pub edges: usize,
    /// Declarations that named no skill.
    pub unresolved: Vec<Unlinked>,
    /// Declarations that named several skills.
    pub ambiguous: Vec<Unlinked>,
    /// Declarations read as package requirements (module docs): no edge, no warning.
    pub packages: Vec<Unlinked>,
}

/// Whether a declared name carries a version specifier, extras or a URL (`torch>=2.0.0`,
/// `ray[train]`, `robocasa @ git+https://...`, `react@^18`): a package requirement, never a
/// skill name.
pub fn is_versioned(name: &str) -> bool {
    name.contains(['<', '>', '=', '~', '^', '[', '@']) || name.contains("://")
}

/// Whether a declaration under `key` that resolved to no skill is a package requirement
/// rather than a broken skill reference: the key is generic and the name is not an id.
fn generic_key(key: &str) -> bool {
    key != "requires_skills" && !key.ends_with(".skills")
}

fn names_of(value: &Value) -> Vec<String> {
    match value {
        Value::String(s) => s
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect(),
        Value::Array(items) => items
            .iter()
            .filter(|v| !v.is_object() && !v.is_array())
            .filter_map(value_to_string)
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty())
            .collect(),
        Value::Object(map) => map.get("skills").map(names_of).unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// The declarations of one frontmatter, in key order then value order, without repeats.
pub fn declarations(fm: &Frontmatter) -> Vec<Declaration> {
    let mut out: Vec<Declaration> = Vec::new();
    let mut push = |key: &str, value: &Value| {
        for name in names_of(value) {
            if !out.iter().any(|d| d.name == name) {
                out.push(Declaration {
                    key: key.to_owned(),
                    name,
                });
            }
        }
    };
    for key in DECLARATION_KEYS {
        match fm.fields.get(key) {
            // A mapping's `skills` entry names skills on purpose: its key says so.
            Some(v) if v.is_object() => push(&format!("{key}.skills"), v),
            Some(v) => push(key, v),
            None => {}
        }
    }
    if let Some(v) = fm.fields.get("metadata").and_then(|m| m.get("requires")) {
        push("metadata.requires", v);
    }
    out
}

/// Lookup tables over the nodes for [`Resolver::resolve`].
pub struct Resolver<'a> {
    nodes: &'a [SkillNode],
    by_id: HashMap<&'a str, usize>,
    names: SkillNames<'a>,
}

impl<'a> Resolver<'a> {
    /// Index `nodes` by id, frontmatter name and folder name.
    pub fn new(nodes: &'a [SkillNode]) -> Self {
        Resolver {
            nodes,
            by_id: nodes
                .iter()
                .enumerate()
                .map(|(i, n)| (n.id.as_str(), i))
                .collect(),
            names: SkillNames::new(nodes),
        }
    }

    /// The node `name`, declared by node `from`, resolves to: `Ok(index)`, or `Err(candidates)`
    /// (empty: no match; several: ambiguous). A skill never resolves to itself.
    pub fn resolve(&self, from: usize, name: &str) -> Result<usize, Vec<usize>> {
        if let Some(&i) = self.by_id.get(name).filter(|&&i| i != from) {
            return Ok(i);
        }
        let mut pool: Vec<usize> = if name.contains('/') {
            let suffix = format!("/{name}");
            (0..self.nodes.len())
                .filter(|&i| i != from && self.nodes[i].id.ends_with(&suffix))
                .collect()
        } else {
            Vec::new()
        };
        if pool.is_empty() {
            pool = self
                .names
                .by_name()
                .get(&name.to_lowercase())
                .map(|v| v.iter().copied().filter(|&i| i != from).collect())
                .unwrap_or_default();
        }
        match pool.as_slice() {
            [one] => Ok(*one),
            _ => Err(pool),
        }
    }

    /// The skill names (frontmatter or folder, lower-cased, sorted) one edit
    /// (Damerau-Levenshtein, `strsim`) from `name`, declared by node `from`, other than its own,
    /// or two edits when `name` has at least [`TWO_EDIT_CHARS`] characters: a likely typo
    /// (`csv-cleanp` for `csv-cleanup`). Only compound names (`-` or `_`, as skill names are)
    /// of at least [`MIN_TYPO_CHARS`] characters are checked (`jq` is one edit from many
    /// names). Two edits
    /// on short names, or any edit on a one-word name, read packages as typos: on the real
    /// library the package `openai` is one edit from the skill `openpi`, `gradio` two from
    /// `drawio`.
    /// Cost: O(names in the library) edit distances.
    pub fn near(&self, from: usize, name: &str) -> Vec<String> {
        let name = name.to_lowercase();
        let chars = name.chars().count();
        if chars < MIN_TYPO_CHARS || !name.contains(['-', '_']) {
            return Vec::new();
        }
        let max_edits = if chars >= TWO_EDIT_CHARS { 2 } else { 1 };
        let mut out: Vec<String> = self
            .names
            .by_name()
            .iter()
            .filter(|(k, v)| {
                k.chars().count() >= MIN_TYPO_CHARS
                    && v.iter().any(|&i| i != from)
                    && (1..=max_edits).contains(&strsim::damerau_levenshtein(&name, k.as_str()))
            })
            .map(|(k, _)| k.clone())
            .collect();
        out.sort();
        out
    }
}

/// Least characters of a declared name for two edits to count as a typo ([`Resolver::near`]).
pub const TWO_EDIT_CHARS: usize = 12;

/// Least characters of a name for "did you mean" ([`Resolver::near`]): shorter names are a few
/// edits from too many others.
pub const MIN_TYPO_CHARS: usize = 6;

/// Declared dependency edges: `decls[i]` are node `i`'s declarations (see the module docs).
pub fn declared_edges(
    nodes: &[SkillNode],
    decls: &[Vec<Declaration>],
    stats: &mut DeclaredStats,
) -> Vec<SkillEdge> {
    let resolver = Resolver::new(nodes);
    let mut edges = Vec::new();
    for (c, ds) in decls.iter().enumerate() {
        for d in ds {
            stats.declarations += 1;
            let package = |stats: &mut DeclaredStats| {
                stats.packages.push(Unlinked {
                    id: nodes[c].id.clone(),
                    declaration: d.clone(),
                    candidates: Vec::new(),
                    near: Vec::new(),
                })
            };
            if is_versioned(&d.name) {
                package(stats);
                continue;
            }
            match resolver.resolve(c, &d.name) {
                Ok(p) => {
                    stats.edges += 1;
                    edges.push(SkillEdge {
                        source: nodes[p].id.clone(),
                        target: nodes[c].id.clone(),
                        edge_type: EdgeType::Dependency,
                        weight: 1.0,
                        provenance: EdgeProvenance::Declared,
                        evidence: d.evidence(),
                    });
                }
                Err(cands) => {
                    let near = if cands.is_empty() && !d.name.contains('/') {
                        resolver.near(c, &d.name)
                    } else {
                        Vec::new()
                    };
                    let unlinked = Unlinked {
                        id: nodes[c].id.clone(),
                        declaration: d.clone(),
                        candidates: cands.iter().map(|&i| nodes[i].id.clone()).collect(),
                        near,
                    };
                    // A name a typo away from a skill's is a broken reference, not a package.
                    if cands.is_empty()
                        && generic_key(&d.key)
                        && !d.name.contains('/')
                        && unlinked.near.is_empty()
                    {
                        package(stats);
                    } else if cands.is_empty() {
                        stats.unresolved.push(unlinked);
                    } else {
                        stats.ambiguous.push(unlinked);
                    }
                }
            }
        }
    }
    edges
}

#[cfg(test)]
mod tests {
    use super::*;
    use gos_core::Field;

    fn node(id: &str, name: &str) -> SkillNode {
        SkillNode {
            id: id.into(),
            name: name.into(),
            description: Field::default(),
            capability: Field::default(),
            inputs: Field::default(),
            outputs: Field::default(),
            domain_tags: Field::default(),
            tooling: Field::default(),
            example_tasks: Field::default(),
            entrypoints: Field::default(),
            headings: vec![],
            source_path: format!("{id}/SKILL.md"),
            content_hash: String::new(),
            warnings: Vec::new(),
        }
    }

    fn fm(yaml: &str) -> Frontmatter {
        crate::frontmatter::split(&format!("---\n{yaml}\n---\nbody\n")).frontmatter
    }

    #[test]
    fn every_key_and_shape_is_read_and_file_maps_are_not() {
        let d = declarations(&fm("requires: [a, b]\n\
             depends: c, d\n\
             requires_skills: e\n\
             dependencies:\n  scripts: [x.py]\n  skills: [f]\n\
             metadata:\n  requires: g"));
        let got: Vec<(&str, &str)> = d
            .iter()
            .map(|d| (d.key.as_str(), d.name.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("requires", "a"),
                ("requires", "b"),
                ("requires_skills", "e"),
                ("depends", "c"),
                ("depends", "d"),
                ("dependencies.skills", "f"),
                ("metadata.requires", "g"),
            ]
        );
        assert!(declarations(&fm("dependencies:\n  scripts: [a.py]")).is_empty());
    }

    #[test]
    fn by_name_by_id_unresolved_and_ambiguous() {
        let nodes = vec![
            node("team/pdf-extract", "pdf-extract"),
            node("team/report", "report"),
            node("a/csv", "csv"),
            node("b/csv", "csv"),
            node("c/uses", "uses"),
        ];
        let decls = vec![
            vec![],
            vec![
                Declaration {
                    key: "requires".into(),
                    name: "PDF-Extract".into(),
                },
                Declaration {
                    key: "requires_skills".into(),
                    name: "nowhere".into(),
                },
            ],
            vec![],
            vec![],
            vec![
                Declaration {
                    key: "depends".into(),
                    name: "b/csv".into(),
                },
                Declaration {
                    key: "depends".into(),
                    name: "csv".into(),
                },
            ],
        ];
        let mut stats = DeclaredStats::default();
        let edges = declared_edges(&nodes, &decls, &mut stats);
        let got: Vec<(&str, &str, &str)> = edges
            .iter()
            .map(|e| (e.source.as_str(), e.target.as_str(), e.evidence.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("team/pdf-extract", "team/report", "requires: PDF-Extract"),
                ("b/csv", "c/uses", "depends: b/csv"),
            ]
        );
        assert!(
            edges
                .iter()
                .all(|e| e.provenance == EdgeProvenance::Declared)
        );
        assert_eq!(stats.declarations, 4);
        assert_eq!(stats.edges, 2);
        assert_eq!(stats.unresolved.len(), 1);
        assert_eq!(stats.unresolved[0].declaration.name, "nowhere");
        assert_eq!(stats.ambiguous.len(), 1);
        assert_eq!(stats.ambiguous[0].candidates, ["a/csv", "b/csv"]);
    }

    #[test]
    fn package_requirements_make_no_edge_and_no_unresolved_entry() {
        let nodes = vec![
            node("ml/peft", "peft"),
            node("ml/trainer", "trainer"),
            node("ml/torch-skill", "torch"),
        ];
        let decl = |key: &str, name: &str| Declaration {
            key: key.into(),
            name: name.into(),
        };
        let decls = vec![
            vec![],
            vec![
                decl("dependencies", "torch>=2.0.0"),
                decl("dependencies", "peft"),
                decl("requires", "railway-cli"),
                decl("dependencies", "ray[train]"),
                decl("dependencies", "robocasa @ git+https://example.org/r.git"),
                decl("requires_skills", "nowhere"),
                decl("requires", "team/missing"),
            ],
            vec![],
        ];
        let mut stats = DeclaredStats::default();
        let edges = declared_edges(&nodes, &decls, &mut stats);
        // `peft` names one skill and links; `torch>=2.0.0` is versioned and does not link to
        // the `torch` skill; a bare name that matches nothing under a generic key is a package.
        let got: Vec<(&str, &str)> = edges
            .iter()
            .map(|e| (e.source.as_str(), e.target.as_str()))
            .collect();
        assert_eq!(got, [("ml/peft", "ml/trainer")]);
        let packages: Vec<&str> = stats
            .packages
            .iter()
            .map(|u| u.declaration.name.as_str())
            .collect();
        assert_eq!(
            packages,
            [
                "torch>=2.0.0",
                "railway-cli",
                "ray[train]",
                "robocasa @ git+https://example.org/r.git"
            ]
        );
        // A skill-only key and an id stay unresolved warnings.
        let unresolved: Vec<&str> = stats
            .unresolved
            .iter()
            .map(|u| u.declaration.name.as_str())
            .collect();
        assert_eq!(unresolved, ["nowhere", "team/missing"]);
        assert!(is_versioned("react@^18") && !is_versioned("railway-cli"));
    }

    /// A bare name one edit from a skill's compound name is a typo, not a package: it stays
    /// unresolved with the name to suggest; a one-word package one edit from a skill
    /// (`openai`, `openpi`) and a compound two edits away (`auto-gptq`, `autogpt`) stay
    /// packages.
    #[test]
    fn a_name_a_typo_away_from_a_skill_is_unresolved_with_a_suggestion() {
        let nodes = vec![
            node("a/csv-cleanup", "csv-cleanup"),
            node("a/openpi", "openpi"),
            node("a/autogpt", "autogpt"),
            node("a/report", "report"),
        ];
        let decl = |name: &str| Declaration {
            key: "requires".into(),
            name: name.into(),
        };
        let decls = vec![
            vec![],
            vec![],
            vec![],
            vec![decl("csv-cleanp"), decl("openai"), decl("auto-gptq")],
        ];
        let mut stats = DeclaredStats::default();
        assert!(declared_edges(&nodes, &decls, &mut stats).is_empty());
        let unresolved: Vec<(&str, &[String])> = stats
            .unresolved
            .iter()
            .map(|u| (u.declaration.name.as_str(), u.near.as_slice()))
            .collect();
        assert_eq!(
            unresolved,
            [("csv-cleanp", &["csv-cleanup".to_string()][..])]
        );
        let packages: Vec<&str> = stats
            .packages
            .iter()
            .map(|u| u.declaration.name.as_str())
            .collect();
        assert_eq!(packages, ["openai", "auto-gptq"]);
    }

    #[test]
    fn an_ambiguous_name_links_nothing_even_inside_the_declaring_collection() {
        let nodes = vec![
            node("a/csv", "csv"),
            node("b/csv", "csv"),
            node("b/plot", "plot"),
        ];
        let decl = |name: &str| Declaration {
            key: "requires".into(),
            name: name.into(),
        };
        // b/plot names `csv` (two skills, one a sibling): ambiguous; `b/csv` resolves.
        let decls = vec![vec![], vec![], vec![decl("csv"), decl("b/csv")]];
        let mut stats = DeclaredStats::default();
        let edges = declared_edges(&nodes, &decls, &mut stats);
        assert_eq!(edges.len(), 1);
        assert_eq!(edges[0].source, "b/csv");
        assert_eq!(stats.ambiguous.len(), 1);
        assert_eq!(stats.ambiguous[0].candidates, ["a/csv", "b/csv"]);
    }
}
