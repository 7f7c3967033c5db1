//! Workflow edges: explicit sequencing in a skill's text that names another skill of the library
//! (\[P\] §3.2, the `workflow` relation), found deterministically.
//!
//! A skill's body orders itself against another skill in words: "run `brand-voice` first",
//! "the last stop after `checkpoint-promotion`", "hand off the design to the
//! `multi-agent-brainstorming` skill", "use the `diagramming-code` skill after augmenting", or
//! numbered steps that name other skills one after the other. Each such sentence gives an edge
//! of type [`EdgeType::Workflow`], provenance [`EdgeProvenance::Sequence`], weight 1, directed
//! in execution order (source first), evidence = the sentence, clipped to
//! [`MAX_EVIDENCE_CHARS`] with markup and control characters removed, so a reason can quote it.
//!
//! **What counts as naming a skill.** Fenced code, table rows and headings are skipped. A name
//! is a skill's frontmatter name or folder name (lower-case) and must be *explicit*: followed
//! within three words by "skill"/"skills", or a compound name (`-` or `_` in it) in backticks
//! or bold. A bare word (`search`, `extract`, `review`: the subcommands and flags that bodies
//! backtick all the time) names nothing, nor does a word of the mention rule's common-word list.
//!
//! **Cues and direction** (the name replaced by a placeholder `X`, lower-case, first rule that
//! matches decides; "this" is the skill whose body it is):
//!
//! | pattern | order |
//! | --- | --- |
//! | "before (using) X", "then / next / finally (use) X", "followed by X", "hand / pass / feed ... to X", "X next", "X ... after" | this, then X |
//! | "after (running) X", "output of X", "X's output", "produced by X", "first, (use) X", "X ... first", "X ... before", "X ... then" | X, then this |
//! | numbered steps `1.` / `Step 2:` naming X in one step and Y in a later one | X, then Y |
//!
//! **Guards**, the mention rule's ([`crate::relate`]) with the same reasons:
//!
//! - an ambiguous name links nothing; it resolves when exactly one candidate has it as folder
//!   name, or when all candidates are copies of one skill (one near-duplicate group of
//!   [`crate::dedup`], at most [`WorkflowOptions::max_copies`]): then to each copy. The
//!   naming skill's own name and its copies are never candidates;
//! - a skill named in sequence by more than [`WorkflowOptions::max_fan_in`] skills is a hub
//!   ("see also" in a template): none of its workflow edges is kept;
//! - a body sequencing more than [`WorkflowOptions::max_fan_out`] skills is an index or an
//!   orchestrator's table of contents: none of its edges is kept;
//! - a deprecated skill (the word in its description) is in nobody's workflow;
//! - a pair ordered both ways (by the two bodies, or twice in one) is dropped.
//!
//! No collection, folder or path is evidence: a folder name is only one of the two names a
//! text can call a skill by, and candidates are never narrowed by where they live.
//!
//! Cost: one pass over each body (O(total body length) with a hash lookup per word), then
//! O(edges) for the guards.

use gos_core::{EdgeProvenance, EdgeType, SkillEdge, SkillNode};
use rayon::prelude::*;
use scan::{Order, cue, evidence, explicit_names, pieces};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Most characters of an edge's evidence (the quoted sentence).
pub const MAX_EVIDENCE_CHARS: usize = 160;

/// Parameters of the workflow pass.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WorkflowOptions {
    /// Whether the pass runs (default true).
    pub enabled: bool,
    /// A skill named in sequence by more skills than this gets no workflow edge (default 10,
    /// the mention rule's [`crate::relate::MAX_MENTION_FAN_IN`]).
    pub max_fan_in: usize,
    /// A body sequencing more skills than this gives no workflow edge (default 5).
    pub max_fan_out: usize,
    /// A name that every candidate shares as copies of one skill links to each copy when
    /// there are at most this many (default 3); more copies link nothing.
    pub max_copies: usize,
}

impl Default for WorkflowOptions {
    fn default() -> Self {
        WorkflowOptions {
            enabled: true,
            max_fan_in: 10,
            max_fan_out: 5,
            max_copies: 3,
        }
    }
}

/// Counters of the workflow pass (the build report's `workflow` entry).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct WorkflowStats {
    /// Sequencing sentences or step pairs that named a skill explicitly (before resolution).
    pub cues: usize,
    /// Of those, names that stayed ambiguous.
    pub ambiguous: usize,
    /// Sequencing sentences left out because they deny needing the skill they name ("you
    /// don't need the `x` skill first", [`crate::edge_evidence::denies_need`]).
    pub denied: usize,
    /// Edges dropped because the named skill is a hub ([`WorkflowOptions::max_fan_in`]).
    pub hub: usize,
    /// Edges dropped because the body sequences a list ([`WorkflowOptions::max_fan_out`]).
    pub list: usize,
    /// Edges dropped because one end is deprecated.
    pub deprecated: usize,
    /// Pairs dropped because they were ordered both ways.
    pub contradictory: usize,
    /// Edges made, of which `from_steps` from numbered steps.
    pub edges: usize,
    /// Edges made from numbered steps.
    pub from_steps: usize,
}

/// One body's claim of an ordered pair: `((source, target), evidence, from numbered steps)`.
pub(crate) type Claim = ((usize, usize), String, bool);

/// One body's claims in the order it makes them, with its cue counts.
pub(crate) type BodyClaims = (Vec<Claim>, WorkflowStats);

/// Workflow edges over `nodes` with their markdown `bodies` (same order); `copies` are the
/// near-duplicate groups as node indices (see the module docs).
pub fn workflow_edges(
    nodes: &[SkillNode],
    bodies: &[&str],
    copies: &[Vec<usize>],
    opts: &WorkflowOptions,
    stats: &mut WorkflowStats,
) -> Vec<SkillEdge> {
    workflow_edges_cached(nodes, bodies, copies, opts, stats, None)
}

/// [`workflow_edges`], taking each body's claims from `cache` when neither the body nor
/// anything else the claims read changed (see [`WorkflowCache`]).
pub(crate) fn workflow_edges_cached(
    nodes: &[SkillNode],
    bodies: &[&str],
    copies: &[Vec<usize>],
    opts: &WorkflowOptions,
    stats: &mut WorkflowStats,
    mut cache: Option<&mut WorkflowCache>,
) -> Vec<SkillEdge> {
    if !opts.enabled {
        return Vec::new();
    }
    let names = crate::skill_names::SkillNames::new(nodes);
    let by_name = names.by_name();
    let mut group_of: Vec<Option<usize>> = vec![None; nodes.len()];
    for (g, members) in copies.iter().enumerate() {
        for &m in members {
            group_of[m] = Some(g);
        }
    }
    // Each body's candidates in the order it names them, with its cue counts; bodies are read
    // in parallel and merged in body order, so the first claim of a pair wins as in one pass.
    if let Some(c) = cache.as_deref_mut() {
        c.start(nodes, &group_of, opts);
    }
    let known = cache.as_deref();
    let hits = AtomicUsize::new(0);
    let per_body: Vec<Arc<BodyClaims>> = bodies
        .par_iter()
        .enumerate()
        .map(|(me, body)| {
            if let Some(hit) = known.and_then(|c| c.get(me, &nodes[me], body)) {
                hits.fetch_add(1, Ordering::Relaxed);
                return hit;
            }
            let mut local = WorkflowStats::default();
            let stats = &mut local;
            let mut claims: Vec<Claim> = Vec::new();
            let own = nodes[me].name.to_lowercase();
            let resolve = |name: &str, stats: &mut WorkflowStats| -> Vec<usize> {
                if name == own || name == nodes[me].folder().to_lowercase() {
                    return Vec::new();
                }
                let pool: Vec<usize> = by_name[name]
                    .iter()
                    .copied()
                    .filter(|&i| i != me && (group_of[i].is_none() || group_of[i] != group_of[me]))
                    .collect();
                match pool.as_slice() {
                    [] => Vec::new(),
                    [one] => vec![*one],
                    many => {
                        let exact: Vec<usize> = many
                            .iter()
                            .copied()
                            .filter(|&i| nodes[i].folder().eq_ignore_ascii_case(name))
                            .collect();
                        let group = group_of[many[0]];
                        if exact.len() == 1 {
                            exact
                        } else if group.is_some()
                            && many.iter().all(|&i| group_of[i] == group)
                            && many.len() <= opts.max_copies
                        {
                            many.to_vec()
                        } else {
                            stats.ambiguous += 1;
                            Vec::new()
                        }
                    }
                }
            };
            let mut steps: Vec<((usize, usize), String, usize, String)> = Vec::new();
            for piece in pieces(body) {
                for named in explicit_names(&piece.text, by_name) {
                    if let Some((run, index)) = piece.step {
                        steps.push((
                            (run, index),
                            named.name.clone(),
                            named.start,
                            piece.text.clone(),
                        ));
                    }
                    let Some(order) = cue(&piece.text, &named) else {
                        continue;
                    };
                    if crate::edge_evidence::denies_need(&piece.text, named.start) {
                        stats.denied += 1;
                        continue;
                    }
                    stats.cues += 1;
                    let ev = evidence(&piece.text, named.start);
                    for other in resolve(&named.name, stats) {
                        let pair = match order {
                            Order::ThisFirst => (me, other),
                            Order::NamedFirst => (other, me),
                        };
                        claims.push((pair, ev.clone(), false));
                    }
                }
            }
            // Numbered steps: a name in one step, the next named step's name after it.
            for w in steps.windows(2) {
                let (a, b) = (&w[0], &w[1]);
                if a.0.0 != b.0.0 || a.0.1 >= b.0.1 || a.1 == b.1 {
                    continue;
                }
                stats.cues += 1;
                let (ra, rb) = (resolve(&a.1, stats), resolve(&b.1, stats));
                let ev = format!(
                    "step {}: {} / step {}: {}",
                    a.0.1,
                    evidence(&a.3, a.2)
                        .chars()
                        .take(MAX_EVIDENCE_CHARS / 2 - 10)
                        .collect::<String>(),
                    b.0.1,
                    evidence(&b.3, b.2)
                        .chars()
                        .take(MAX_EVIDENCE_CHARS / 2 - 10)
                        .collect::<String>(),
                );
                for &x in &ra {
                    for &y in &rb {
                        if x != y {
                            claims.push(((x, y), ev.clone(), true));
                        }
                    }
                }
            }
            Arc::new((claims, local))
        })
        .collect();
    if let Some(c) = cache {
        c.keep(nodes, bodies, &per_body, hits.into_inner());
    }
    // (source, target) -> evidence, and whether it came from steps, with the naming body.
    let mut found: BTreeMap<(usize, usize), (String, bool, usize)> = BTreeMap::new();
    for (me, body) in per_body.iter().enumerate() {
        let (claims, local) = &**body;
        stats.cues += local.cues;
        stats.ambiguous += local.ambiguous;
        stats.denied += local.denied;
        for (pair, ev, from_steps) in claims {
            found
                .entry(*pair)
                .or_insert_with(|| (ev.clone(), *from_steps, me));
        }
    }
    // Guards over all candidates.
    let mut fan_in: HashMap<usize, BTreeSet<usize>> = HashMap::new();
    let mut fan_out: HashMap<usize, BTreeSet<usize>> = HashMap::new();
    for (&(s, t), &(_, _, body)) in &found {
        for named in [s, t].into_iter().filter(|&x| x != body) {
            fan_in.entry(named).or_default().insert(body);
            fan_out.entry(body).or_default().insert(named);
        }
    }
    let mut edges = Vec::new();
    for (&(s, t), (ev, from_steps, body)) in &found {
        if found.contains_key(&(t, s)) {
            if s < t {
                stats.contradictory += 1;
            }
            continue;
        }
        if fan_out[body].len() > opts.max_fan_out {
            stats.list += 1;
            continue;
        }
        let named: Vec<usize> = [s, t].into_iter().filter(|x| x != body).collect();
        if named.iter().any(|x| fan_in[x].len() > opts.max_fan_in) {
            stats.hub += 1;
            continue;
        }
        if crate::edge_evidence::is_deprecated(&nodes[s])
            || crate::edge_evidence::is_deprecated(&nodes[t])
        {
            stats.deprecated += 1;
            continue;
        }
        stats.from_steps += usize::from(*from_steps);
        edges.push(SkillEdge {
            source: nodes[s].id.clone(),
            target: nodes[t].id.clone(),
            edge_type: EdgeType::Workflow,
            weight: 1.0,
            provenance: EdgeProvenance::Sequence,
            evidence: ev.clone(),
        });
    }
    stats.edges = edges.len();
    edges
}

mod cache;
mod scan;
pub(crate) use cache::WorkflowCache;

#[cfg(test)]
mod tests;
