//! Incremental relation validation: only new or changed focus skills, and the focus skills
//! whose pools they enter, get a new pool (and so a new prompt and request); every other
//! focus skill reuses the pool recorded by the previous build in `llm-pools.json`, so its
//! prompt renders identically and its reply comes from the cache.
//!
//! A focus skill is *clean* when its content hash is unchanged, every member of its
//! recorded pool still exists with an unchanged content hash, and the candidate edges its
//! prompt shows (semantic, alternative, workflow: [`candidate_fingerprint`]) are unchanged. A changed or new skill `x`
//! *enters* the pool of a clean skill `f` when `f` is among `x`'s provider neighbours and the
//! fresh pool of `f` contains a changed skill; such an `f` is revalidated. The cost is one
//! fresh pool per changed skill plus one per provider neighbour of it, proportional to the
//! change (\[P\]: incremental indexing is O(|V_new| x N) in the reference, less here because the
//! neighbours come from indexes). Neighbourhood is taken as roughly symmetric (lexical and I/O
//! neighbours are), which is the approximation this relies on.

use super::pools::{PoolProvider, pool_of};
use gos_core::SkillNode;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// File name of the pools record in a workspace.
pub const POOLS_FILE: &str = "llm-pools.json";

/// The pools record (`llm-pools.json`), written by every build that ran relation validation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PoolsFile {
    /// Always `gos-llm-pools`.
    pub format: String,
    /// Version of this record's layout (1).
    pub version: u32,
    /// Model id of the validator.
    pub model: String,
    /// Validation template id.
    pub template: String,
    /// Pool size k.
    pub pool_k: usize,
    /// Provider names in order.
    pub providers: Vec<String>,
    /// Per focus skill id: its content hash and its pool (candidate ids, best first).
    pub focus: BTreeMap<String, FocusRecord>,
}

/// One focus skill's record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FocusRecord {
    /// Content hash of the focus skill when the pool was made.
    pub content_hash: String,
    /// Candidate ids, best first.
    pub candidates: Vec<String>,
    /// Fingerprint of the candidate edges (semantic, alternative, workflow) the prompt showed
    /// for this focus skill ([`candidate_fingerprint`]); empty when there were none. A focus
    /// skill whose fingerprint changed is revalidated, since its prompt changed.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub candidate_edges: String,
}

/// Fingerprint of the candidate edges incident to each node: SHA-256 (hex, first 16 bytes) of
/// the sorted lines `other id, type, direction, provenance, evidence`; empty for a node with
/// none. Everything the prompt's "Proposed by the build" lines show is in it.
pub fn candidate_fingerprint(nodes: &[SkillNode], graph: &gos_core::SkillGraph) -> Vec<String> {
    use sha2::{Digest, Sha256};
    let mut lines: Vec<Vec<String>> = vec![Vec::new(); nodes.len()];
    for (s, t, e) in graph.indexed_edges() {
        if !e.provenance.is_candidate() || s >= nodes.len() || t >= nodes.len() {
            continue;
        }
        let line = |other: usize, dir: &str| {
            format!(
                "{}\t{}\t{dir}\t{}\t{}",
                nodes[other].id,
                e.edge_type.as_str(),
                e.provenance.as_str(),
                e.evidence
            )
        };
        lines[s].push(line(t, "out"));
        lines[t].push(line(s, "in"));
    }
    lines
        .into_iter()
        .map(|mut l| {
            if l.is_empty() {
                return String::new();
            }
            l.sort();
            hex::encode(&Sha256::digest(l.join("\n").as_bytes())[..16])
        })
        .collect()
}

/// What the incremental plan did.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct IncrementalStats {
    /// Whether a usable previous pools record was found.
    pub previous: bool,
    /// Why the previous record was not used, when it was not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub full_because: Option<String>,
    /// Focus skills that reused their recorded pool.
    pub reused: usize,
    /// Focus skills given a fresh pool.
    pub revalidated: usize,
    /// New or changed skills.
    pub new_or_changed: usize,
    /// Clean focus skills revalidated because a new or changed skill entered their pool.
    pub entered_pools: usize,
    /// Focus skills revalidated because a pool member was removed or changed.
    pub member_changed: usize,
    /// Skills of the previous build that are gone.
    pub removed: usize,
    /// Clean focus skills revalidated because the candidate edges shown in their prompt
    /// changed ([`FocusRecord::candidate_edges`]).
    pub candidates_changed: usize,
}

impl PoolsFile {
    /// A record of `pools` (node indices) over `nodes`.
    /// `fingerprints[i]` is node `i`'s [`candidate_fingerprint`] (missing entries are empty).
    pub fn new(
        nodes: &[SkillNode],
        pools: &[Vec<usize>],
        fingerprints: &[String],
        model: &str,
        template: &str,
        pool_k: usize,
        providers: Vec<String>,
    ) -> Self {
        let focus = nodes
            .iter()
            .zip(pools)
            .enumerate()
            .map(|(i, (n, p))| {
                (
                    n.id.clone(),
                    FocusRecord {
                        content_hash: n.content_hash.clone(),
                        candidates: p.iter().map(|&c| nodes[c].id.clone()).collect(),
                        candidate_edges: fingerprints.get(i).cloned().unwrap_or_default(),
                    },
                )
            })
            .collect();
        PoolsFile {
            format: "gos-llm-pools".into(),
            version: 1,
            model: model.into(),
            template: template.into(),
            pool_k,
            providers,
            focus,
        }
    }

    /// Canonical JSON text (pretty, trailing newline).
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("pools serialize");
        s.push('\n');
        s
    }

    /// Read a previous record; `None` when absent or unreadable.
    pub fn read(path: &std::path::Path) -> Option<Self> {
        let text = std::fs::read_to_string(path).ok()?;
        serde_json::from_str(&text).ok()
    }
}

/// Pools of every node: reused from `previous` where clean, fresh elsewhere (module docs).
/// `fingerprints[i]` is node `i`'s [`candidate_fingerprint`] in this build: a clean focus
/// skill whose fingerprint differs from its record's is revalidated too.
pub fn plan_pools(
    nodes: &[SkillNode],
    previous: Option<&PoolsFile>,
    expected: &PoolsFile,
    fingerprints: &[String],
    providers: &[&dyn PoolProvider],
    exclude: &(dyn Fn(usize, usize) -> bool + Sync),
) -> (Vec<Vec<usize>>, IncrementalStats) {
    let k = expected.pool_k;
    let mut stats = IncrementalStats::default();
    let all: Vec<usize> = (0..nodes.len()).collect();
    let full = |stats: &mut IncrementalStats, why: &str| {
        stats.full_because = Some(why.to_string());
        stats.revalidated = nodes.len();
        stats.new_or_changed = nodes.len();
        super::pools::build_pools(&all, k, providers, exclude)
    };
    let Some(prev) = previous else {
        let pools = full(&mut stats, "no previous pools record");
        return (pools, stats);
    };
    if prev.model != expected.model
        || prev.template != expected.template
        || prev.pool_k != k
        || prev.providers != expected.providers
        || prev.version != expected.version
    {
        let pools = full(
            &mut stats,
            "model, template, pool size or providers changed",
        );
        return (pools, stats);
    }
    stats.previous = true;
    let index: HashMap<&str, usize> = nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.id.as_str(), i))
        .collect();
    stats.removed = prev
        .focus
        .keys()
        .filter(|id| !index.contains_key(id.as_str()))
        .count();
    let changed: BTreeSet<usize> = nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| {
            prev.focus
                .get(&n.id)
                .is_none_or(|r| r.content_hash != n.content_hash)
        })
        .map(|(i, _)| i)
        .collect();
    stats.new_or_changed = changed.len();
    if changed.len() * 2 > nodes.len() {
        let pools = full(
            &mut stats,
            "more than half of the skills are new or changed",
        );
        stats.previous = true;
        stats.new_or_changed = changed.len();
        return (pools, stats);
    }
    let mut pools: Vec<Option<Vec<usize>>> = vec![None; nodes.len()];
    for (i, n) in nodes.iter().enumerate() {
        if changed.contains(&i) {
            continue;
        }
        let rec = &prev.focus[&n.id];
        if rec.candidate_edges != fingerprints.get(i).map_or("", String::as_str) {
            stats.candidates_changed += 1;
            continue;
        }
        let members: Option<Vec<usize>> = rec
            .candidates
            .iter()
            .map(|c| {
                index
                    .get(c.as_str())
                    .copied()
                    .filter(|j| !changed.contains(j))
            })
            .collect();
        match members {
            Some(m) => pools[i] = Some(m),
            None => stats.member_changed += 1,
        }
    }
    // Clean skills whose fresh pool a changed skill enters.
    let mut entered = BTreeSet::new();
    for &x in &changed {
        for p in providers {
            for f in p.neighbours(x, 2 * k) {
                if pools[f].is_some() && !entered.contains(&f) {
                    let fresh = pool_of(f, k, providers, exclude);
                    if fresh.iter().any(|c| changed.contains(c)) {
                        entered.insert(f);
                    }
                }
            }
        }
    }
    stats.entered_pools = entered.len();
    for &f in &entered {
        pools[f] = None;
    }
    let dirty: Vec<usize> = (0..nodes.len()).filter(|&i| pools[i].is_none()).collect();
    let fresh = super::pools::build_pools(&dirty, k, providers, exclude);
    for (i, p) in dirty.iter().zip(fresh) {
        pools[*i] = Some(p);
    }
    stats.revalidated = dirty.len();
    stats.reused = nodes.len() - dirty.len();
    (
        pools.into_iter().map(|p| p.unwrap_or_default()).collect(),
        stats,
    )
}
