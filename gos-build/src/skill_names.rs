//! The skills of a library by name: how a name that one skill's text gives resolves to another
//! skill. Shared by the declared rule ([`crate::declared`]), the mention rule
//! ([`crate::relate`]), the workflow rule ([`crate::workflow`]) and `gos lint`'s
//! `mention-unmarked` ([`crate::lint`]).

use gos_core::SkillNode;
use std::collections::{BTreeSet, HashMap};

/// The skills of a library by lower-cased frontmatter name and folder name, for resolving the
/// names a body gives (the mention rule's, and `gos lint`'s `mention-unmarked`).
pub(crate) struct SkillNames<'a> {
    nodes: &'a [SkillNode],
    by_name: HashMap<String, BTreeSet<usize>>,
}

/// What a name given by one skill's body resolves to ([`SkillNames::resolve`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Resolved {
    /// Exactly one other skill.
    One(usize),
    /// Several other skills, none the only one with that folder name.
    Ambiguous,
    /// No other skill.
    Unknown,
}

impl<'a> SkillNames<'a> {
    /// Index `nodes` by name. Cost: O(N).
    pub(crate) fn new(nodes: &'a [SkillNode]) -> Self {
        let mut by_name: HashMap<String, BTreeSet<usize>> = HashMap::new();
        for (i, node) in nodes.iter().enumerate() {
            by_name
                .entry(node.name.to_lowercase())
                .or_default()
                .insert(i);
            by_name
                .entry(node.folder().to_lowercase())
                .or_default()
                .insert(i);
        }
        SkillNames { nodes, by_name }
    }

    /// Every lower-cased frontmatter and folder name, with the skills carrying it.
    pub(crate) fn by_name(&self) -> &HashMap<String, BTreeSet<usize>> {
        &self.by_name
    }

    /// The skill the lower-cased `name` names in the body of skill `by` (never `by` itself):
    /// the one skill carrying it, or among several the only one whose folder has it. Never
    /// narrowed by `by`'s collection: a collection signal would leak the benchmark's layout
    /// into the graph ([`crate::relate`] module docs).
    pub(crate) fn resolve(&self, name: &str, by: usize) -> Resolved {
        let pool: Vec<usize> = self
            .by_name
            .get(name)
            .map(|all| all.iter().copied().filter(|&i| i != by).collect())
            .unwrap_or_default();
        match pool.as_slice() {
            [] => Resolved::Unknown,
            [one] => Resolved::One(*one),
            many => {
                let exact: Vec<usize> = many
                    .iter()
                    .copied()
                    .filter(|&i| self.nodes[i].folder().eq_ignore_ascii_case(name))
                    .collect();
                match exact.as_slice() {
                    [one] => Resolved::One(*one),
                    _ => Resolved::Ambiguous,
                }
            }
        }
    }
}
