//! Deterministic relations: I/O dependency edges and explicit skill mentions.
//!
//! **I/O dependency edges** (\[P\] §3.2, \[C\] `_dependency_edges_for_pair`, reworked): producer
//! `P -> C` consumer when the IDF-weighted share of `C`'s input types that `P` outputs is at
//! least the threshold (zeta, default 0.6):
//! `score(P, C) = sum_{t in out(P) & in(C)} idf(t) / sum_{t in in(C)} idf(t)`,
//! `idf(t) = ln(1 + N / df(t))` with `df(t)` the number of nodes naming `t` as input or output.
//! Candidates come from an inverted index `type -> producers`; types produced by more than
//! `max_type_df` nodes (generic containers such as `json` in a large library, the reference's
//! §7.15 spurious-edge source) do not generate candidates, so the cost is
//! O(sum over specific types of producers x consumers), never all N^2 pairs; every scored pair
//! is counted in [`RelateStats::scored_pairs`]. A pair that reaches the threshold also needs
//! *specific evidence* ([`crate::edge_evidence`]): a shared type few skills name, or at least
//! `min_shared_terms` shared rare words of the two names and descriptions (a tool, library or
//! format); copies of one skill (identical descriptions), *namesakes* (two skills with one
//! normalized frontmatter name, `xlsx` and `XLSX`: versions or forks of one skill, not a
//! producer and its consumer) and skills of one kind ([`same_kind`]: `elevenlabs-tts`,
//! `voice-ai-tts`) are never joined, and the build later drops an io edge between
//! two skills it finds to be alternatives ([`crate::io_filters::drop_io_between_alternatives`])
//! and both io edges of two skills joined both ways ([`crate::io_filters::drop_io_both_ways`]).
//! Each consumer keeps
//! its best `max_producers` producers; among equal scores, the one with more shared specific
//! terms, then the smaller id. (Until session 3 the tie went to producers of the consumer's own
//! collection: on the real library 13 of the 14 DEV oracle pairs joined by an I/O edge came
//! from that tie-break, a collection signal the retrieval must not use; docs/graph-quality.md.)
//! The edge's evidence lists the shared types, then the shared terms after `;`.
//!
//! **Mention edges**: when a body says "use the `x` skill" (backticked,
//! [`crate::normalize::skill_mentions`]; a name without backticks makes no edge, `gos lint`
//! reports it), the node named `x` (frontmatter name or folder name, case-insensitive) becomes
//! a prerequisite: edge `x -> mentioner`, type
//! dependency, provenance mention, weight 1. An ambiguous name resolves only when exactly one
//! of its skills has it as folder name; otherwise, or when the name is a common word, no edge.
//! (Until session 3 an ambiguous name resolved to the mentioner's collection, a collection
//! signal like the I/O tie-break above; removed for the same reason.)
//! Six rules keep mention edges to prerequisites:
//!
//! - **self-mentions**: a body naming its own skill ("the `literature-review` skill helps ...")
//!   names nothing else, even when a copy elsewhere carries that name;
//! - **both ways**: two skills that name each other are siblings pointing at one another
//!   ("see also"), not a prerequisite and its user: neither edge is kept (unless the
//!   specialisation rule below turns both into one direction: `nextjs` and `cloudflare-nextjs`
//!   naming each other give `nextjs -> cloudflare-nextjs` twice);
//! - **hub damping**: a skill named by more than [`MAX_MENTION_FAN_IN`] mentioners is a
//!   "see also" footnote (one upgrade skill was named by 27 skills of its collection), not a
//!   prerequisite of each: none of its mention edges is kept;
//! - **lists**: a body naming more than [`MAX_MENTION_FAN_OUT`] skills is a "see also" list;
//!   none of its mentions is kept;
//! - **deprecated skills** (the word "deprecated" in the description: "deprecated, use X")
//!   are nobody's prerequisite;
//! - **specialisations**: when the named skill's name extends the mentioner's (`zod` names
//!   `react-hook-form-zod`), the mention points to a more specific skill, so the edge runs
//!   from the mentioner to it.

use crate::edge_evidence::{TermEvidence, is_common_word, is_deprecated};
use crate::skill_names::{Resolved, SkillNames};
use gos_core::{EdgeProvenance, EdgeType, SkillEdge, SkillNode};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Options of the deterministic relation pass.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RelateOptions {
    /// zeta: least I/O score for a dependency edge, in (0, 1]. Default 0.6 (\[P\], \[C\]
    /// `DEPENDENCY_MATCH_THRESHOLD`).
    pub threshold: f64,
    /// Most producers kept per consumer (default 5).
    pub max_producers: usize,
    /// Types produced by more nodes than this generate no candidates; 0 means automatic:
    /// `max(20, N / 50)`.
    pub max_type_df: usize,
    /// A shared type named (as input or output) by at most this many nodes is specific
    /// evidence on its own (default 20: on the real library `seismic-waveform`, `netcdf`,
    /// `fits`, `geojson`, but not `fastq`, `vcf` or `image`). In the issue-22 read samples most
    /// edges resting on a rare type alone were wrong (`copywriting -> astropy` on `fits`,
    /// `ef-core -> ...-motif-deviation` on `sqlite`): types mis-read from prose.
    pub specific_type_df: usize,
    /// Least number of shared specific terms that make evidence without a specific type
    /// (default 2: with 1, single common-ish words such as `urls` or `units` joined unrelated
    /// skills). 3 with [`RelateOptions::reject_same_stage`] was tried for issue 22 and not
    /// kept: a fresh read sample accepted 8 of 50 edges against 12 of 50 for the default
    /// (docs/graph-quality.md). 0 turns the evidence requirement off (every pair above the
    /// threshold is kept).
    pub min_shared_terms: usize,
    /// A term used by more nodes than this is not specific; 0 means automatic:
    /// `max(3, N / 100)` (55 on the real library).
    pub term_max_df: usize,
    /// Drop a pair of the *same stage*: the producer also consumes every shared type, or the
    /// consumer also produces every shared type (two converters of one format, two aligners,
    /// two slide builders: alternatives or siblings, not a chain). Default false: in a read
    /// sample of 50 io edges 14 of the 38 rejected were such pairs, but with it the edges left
    /// rest mostly on a rare type alone (`hdf5`, `sqlite`, `fits`), which a fresh sample
    /// rejected (docs/graph-quality.md, issue 22).
    pub reject_same_stage: bool,
    /// With card-view skill vectors, least cosine between the two skills' vectors for an I/O
    /// edge that rests on common types alone (named by more than `specific_type_df` skills) to
    /// stay ([`crate::io_filters::drop_io_below_cosine`]); 0 keeps every edge. Default
    /// [`crate::io_filters::DEFAULT_IO_MIN_COSINE`]. Lexical workspaces have no vectors and
    /// keep their I/O edges.
    pub io_min_cosine: f32,
    /// Drop the io edges of pairs joined by io edges both ways, and io edges against a stated
    /// dependency or workflow edge ([`crate::io_filters::drop_io_both_ways`]). Default true.
    pub io_drop_both_ways: bool,
    /// Semantic edges ([`crate::semantic`]).
    pub semantic: crate::semantic::SemanticOptions,
    /// Alternative edges ([`crate::alternative`]).
    pub alternative: crate::alternative::AlternativeOptions,
    /// Workflow edges ([`crate::workflow`]).
    pub workflow: crate::workflow::WorkflowOptions,
}

impl Default for RelateOptions {
    fn default() -> Self {
        RelateOptions {
            threshold: 0.6,
            max_producers: 5,
            max_type_df: 0,
            specific_type_df: 20,
            min_shared_terms: 2,
            term_max_df: 0,
            reject_same_stage: false,
            io_min_cosine: crate::io_filters::DEFAULT_IO_MIN_COSINE,
            io_drop_both_ways: true,
            semantic: crate::semantic::SemanticOptions::default(),
            alternative: crate::alternative::AlternativeOptions::default(),
            workflow: crate::workflow::WorkflowOptions::default(),
        }
    }
}

/// Counters of the relation pass.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct RelateStats {
    /// Producer/consumer pairs whose I/O score was computed.
    pub scored_pairs: u64,
    /// N^2 - N, for comparison.
    pub all_pairs: u64,
    /// Types too common to generate candidates, with their producer counts.
    pub generic_types: BTreeMap<String, usize>,
    /// Mentions that named no node.
    pub mentions_unresolved: usize,
    /// Mentions that stayed ambiguous.
    pub mentions_ambiguous: usize,
    /// Mentions rejected as common words.
    pub mentions_common_word: usize,
    /// Pairs above the I/O threshold dropped for lack of specific evidence
    /// ([`crate::edge_evidence`]).
    pub io_without_evidence: u64,
    /// Pairs above the I/O threshold dropped because both skills carry one normalized name
    /// (module docs).
    pub io_namesakes: u64,
    /// Pairs above the I/O threshold dropped because both names end in the same word
    /// ([`same_kind`]).
    pub io_same_kind: u64,
    /// I/O edges dropped because their two skills are joined by an alternative edge
    /// ([`crate::io_filters::drop_io_between_alternatives`]).
    pub io_alternatives: u64,
    /// I/O edges on common types alone dropped because their skills' card vectors are further
    /// apart than [`RelateOptions::io_min_cosine`] ([`crate::io_filters::drop_io_below_cosine`];
    /// 0 without vectors).
    pub io_below_cosine: u64,
    /// I/O edges of pairs joined by I/O edges in both directions, dropped
    /// ([`crate::io_filters::drop_io_both_ways`]; two per pair).
    pub io_both_ways: u64,
    /// I/O edges dropped because they run against a declared, mention or workflow edge of the
    /// same two skills ([`crate::io_filters::drop_io_both_ways`]).
    pub io_against_stated: u64,
    /// Mention edges dropped because the named skill is a hub ([`MAX_MENTION_FAN_IN`]).
    pub mentions_hub: usize,
    /// Mention edges dropped because the mentioner names a list of skills
    /// ([`MAX_MENTION_FAN_OUT`]).
    pub mentions_list: usize,
    /// Mention edges dropped because the named skill is deprecated.
    pub mentions_deprecated: usize,
    /// Mention edges turned around because the named skill specialises the mentioner.
    pub mentions_reversed: usize,
    /// Mentions of the mentioner's own name or folder name (a skill naming itself, which
    /// would otherwise resolve to a copy of it elsewhere in the library).
    pub mentions_self: usize,
    /// Mentions of two skills that name each other, dropped (at least two per pair): a "see
    /// also" between siblings, not a prerequisite (the workflow rule's both-ways guard).
    pub mentions_both_ways: usize,
}

/// A skill named as a skill by more mentioners than this gets no mention edges (hub damping,
/// module docs). On the real library only one skill is above it (27 mentioners); the next
/// names have 6 (`trailmark`, named by the `trailmark-*` skills that build on it) or fewer.
pub const MAX_MENTION_FAN_IN: usize = 10;

/// A body that names more skills than this (resolved ones) is a "see also" list, not a list of
/// prerequisites: none of its mentions becomes an edge. On the real library 6 bodies name 4 or 5
/// skills (`treatment-plans` names literature review, citation management, research lookup,
/// clinical reports and one more); in a read sample 1 of their 15 edges was a prerequisite.
pub const MAX_MENTION_FAN_OUT: usize = 3;

/// I/O dependency edges over `nodes` (see the module docs).
pub fn io_edges(
    nodes: &[SkillNode],
    opts: &RelateOptions,
    stats: &mut RelateStats,
) -> Vec<SkillEdge> {
    let n = nodes.len();
    stats.all_pairs = (n as u64) * (n as u64).saturating_sub(1);
    let df = crate::io_filters::type_frequencies(nodes);
    let mut producers: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, node) in nodes.iter().enumerate() {
        for t in &node.outputs.value {
            producers.entry(t.as_str()).or_default().push(i);
        }
    }
    let max_df = if opts.max_type_df == 0 {
        (n / 50).max(20)
    } else {
        opts.max_type_df
    };
    for (t, p) in &producers {
        if p.len() > max_df {
            stats.generic_types.insert(t.to_string(), p.len());
        }
    }
    let idf = |t: &str| (1.0 + n as f64 / *df.get(t).unwrap_or(&1) as f64).ln();
    let term_max_df = match opts.term_max_df {
        0 => (n / 100).max(3),
        m => m,
    };
    let evidence = (opts.min_shared_terms > 0).then(|| TermEvidence::new(nodes, term_max_df));
    // Per node once: the namesake key (its words joined by `-`) and its kind.
    let names: Vec<String> = nodes.iter().map(|n| words(&n.name).join("-")).collect();
    let kinds: Vec<Option<String>> = nodes.iter().map(|n| kind(&n.name)).collect();
    let mut edges = Vec::new();
    for (c, consumer) in nodes.iter().enumerate() {
        let inputs: BTreeSet<&str> = consumer.inputs.value.iter().map(String::as_str).collect();
        let denom: f64 = inputs.iter().map(|t| idf(t)).sum();
        if denom <= 0.0 {
            continue;
        }
        let mut candidates: BTreeSet<usize> = BTreeSet::new();
        for t in &inputs {
            if let Some(ps) = producers.get(t).filter(|ps| ps.len() <= max_df) {
                candidates.extend(ps.iter().copied().filter(|&p| p != c));
            }
        }
        let mut scored: Vec<(f64, usize, usize, String)> = Vec::new();
        for p in candidates {
            stats.scored_pairs += 1;
            let shared: Vec<&str> = nodes[p]
                .outputs
                .value
                .iter()
                .map(String::as_str)
                .filter(|t| inputs.contains(t))
                .collect();
            let score = shared.iter().map(|t| idf(t)).sum::<f64>() / denom;
            if score + 1e-12 < opts.threshold {
                continue;
            }
            if !names[c].is_empty() && names[p] == names[c] {
                stats.io_namesakes += 1;
                continue;
            }
            if kinds[p].is_some() && kinds[p] == kinds[c] {
                stats.io_same_kind += 1;
                continue;
            }
            let mut note = shared.join(", ");
            let mut n_terms = 0;
            if let Some(ev) = &evidence {
                let specific_type = shared
                    .iter()
                    .any(|t| df.get(t).is_some_and(|&d| d <= opts.specific_type_df));
                let terms = ev.shared(p, c);
                n_terms = terms.len();
                let enough_terms = terms.len() >= opts.min_shared_terms;
                let same_stage = opts.reject_same_stage
                    && (shared
                        .iter()
                        .all(|t| nodes[p].inputs.value.iter().any(|x| x == t))
                        || shared
                            .iter()
                            .all(|t| consumer.outputs.value.iter().any(|x| x == t)));
                if ev.same_description(p, c) || same_stage || !(specific_type || enough_terms) {
                    stats.io_without_evidence += 1;
                    continue;
                }
                if !terms.is_empty() {
                    let shown: Vec<&str> = terms.into_iter().take(4).collect();
                    note = format!("{note}; {}", shown.join(", "));
                }
            }
            scored.push((score, n_terms, p, note));
        }
        scored.sort_by(|a, b| {
            b.0.total_cmp(&a.0)
                .then(b.1.cmp(&a.1))
                .then(nodes[a.2].id.cmp(&nodes[b.2].id))
        });
        for (score, _, p, note) in scored.into_iter().take(opts.max_producers) {
            edges.push(SkillEdge {
                source: nodes[p].id.clone(),
                target: consumer.id.clone(),
                edge_type: EdgeType::Dependency,
                weight: (score * 1e6).round() / 1e6,
                provenance: EdgeProvenance::Io,
                evidence: note,
            });
        }
    }
    edges
}

/// A name's words: maximal runs of (Unicode) alphanumeric characters, lower-cased
/// (`PDF_Processing` gives `pdf`, `processing`; `图片-ocr` gives `图片`, `ocr`).
fn words(name: &str) -> Vec<String> {
    name.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// Endings that name no kind: a skill's version or edition (`docx-official`, `foo-skill`).
const KINDLESS_ENDINGS: &[&str] = &["official", "skill", "skills", "latest"];

/// The kind a skill name names ([`same_kind`]): its last word that is not a number, a version
/// or an edition; none for a converter's name (the word `to`) or a name without such a word.
fn kind(name: &str) -> Option<String> {
    let words = words(name);
    if words.iter().any(|w| w == "to") {
        return None;
    }
    let version = |w: &str| {
        w.chars().all(|c| c.is_ascii_digit())
            || (w.len() > 1 && w.starts_with('v') && w[1..].chars().all(|c| c.is_ascii_digit()))
    };
    words
        .into_iter()
        .rev()
        .find(|w| !version(w) && !KINDLESS_ENDINGS.contains(&w.as_str()))
}

/// Whether two skill names end in the same word, a word being a maximal run of (Unicode)
/// alphanumeric characters, lower-cased: `elevenlabs-tts` and `voice-ai-tts`,
/// `hisat2-alignment` and `bwa-alignment`, `scientific-slides` and `frontend-slides`. A name's
/// last word names the skill's kind, and two skills of one kind are alternatives or siblings,
/// not a producer and its consumer. In the issue-22 read samples (200 io edges) 1 of the 20
/// such pairs was acceptable against 51 of the other 180, and a sample of the pairs the rule
/// drops found none of 25 acceptable (docs/graph-quality.md, session 15).
///
/// Endings that name no kind are passed over: numbers and versions (`xlsx-2`, `docx-v2`) and
/// editions (`official`, `skill`, `skills`, `latest`). A converter's name ends in its output
/// format (`html-to-pdf`), so a name with the word `to` is never of one kind with another
/// (`html-to-pdf` feeds `merge-pdf`). Names with no kind word never match.
pub fn same_kind(a: &str, b: &str) -> bool {
    matches!((kind(a), kind(b)), (Some(x), Some(y)) if x == y)
}

/// Mention edges: `mentions[i]` are the names node `i` mentions as skills.
pub fn mention_edges(
    nodes: &[SkillNode],
    mentions: &[Vec<String>],
    stats: &mut RelateStats,
) -> Vec<SkillEdge> {
    let names = SkillNames::new(nodes);
    let mut resolved: Vec<(usize, usize, &str)> = Vec::new();
    for (c, mentioned) in mentions.iter().enumerate() {
        for m in mentioned {
            if is_common_word(m) || m.len() < 2 {
                stats.mentions_common_word += 1;
                continue;
            }
            if nodes[c].name.eq_ignore_ascii_case(m) || nodes[c].folder().eq_ignore_ascii_case(m) {
                stats.mentions_self += 1;
                continue;
            }
            match names.resolve(m, c) {
                Resolved::One(p) => resolved.push((p, c, m.as_str())),
                Resolved::Unknown => stats.mentions_unresolved += 1,
                Resolved::Ambiguous => stats.mentions_ambiguous += 1,
            }
        }
    }
    // Fan-in and fan-out count every resolved mention, those dropped below as both ways
    // included (as the workflow rule counts its claims before dropping contradictory pairs).
    let mut fan_in: HashMap<usize, BTreeSet<usize>> = HashMap::new();
    let mut fan_out: HashMap<usize, usize> = HashMap::new();
    for &(p, c, _) in &resolved {
        fan_in.entry(p).or_default().insert(c);
        *fan_out.entry(c).or_insert(0) += 1;
    }
    // Each mention's edge, (source, target): the named skill first, unless it specialises the
    // mentioner (module docs).
    let directed: Vec<(usize, usize, &str, bool)> = resolved
        .into_iter()
        .map(|(p, c, m)| (p, c, m, specialises(&nodes[p], &nodes[c])))
        .collect();
    let edge_of = |&(p, c, _, reversed): &(usize, usize, &str, bool)| {
        if reversed { (c, p) } else { (p, c) }
    };
    // Both ways: two mentions whose edges run in opposite directions. A specialisation named
    // by its general skill and naming it back gives one direction twice, and stays.
    let pairs: BTreeSet<(usize, usize)> = directed.iter().map(edge_of).collect();
    let mut edges = Vec::new();
    for d in &directed {
        let &(p, c, m, reversed) = d;
        let (source, target) = edge_of(d);
        if pairs.contains(&(target, source)) {
            stats.mentions_both_ways += 1;
            continue;
        }
        if fan_out[&c] > MAX_MENTION_FAN_OUT {
            stats.mentions_list += 1;
            continue;
        }
        if fan_in[&p].len() > MAX_MENTION_FAN_IN {
            stats.mentions_hub += 1;
            continue;
        }
        if is_deprecated(&nodes[p]) {
            stats.mentions_deprecated += 1;
            continue;
        }
        let evidence = if reversed {
            stats.mentions_reversed += 1;
            format!("`{m}` skill, which specialises it")
        } else {
            format!("`{m}` skill")
        };
        edges.push(SkillEdge {
            source: nodes[source].id.clone(),
            target: nodes[target].id.clone(),
            edge_type: EdgeType::Dependency,
            weight: 1.0,
            provenance: EdgeProvenance::Mention,
            evidence,
        });
    }
    edges
}

/// The words of a skill name (split at `-`, `_` and spaces, lower-cased).
fn name_words(name: &str) -> Vec<String> {
    name.split(['-', '_', ' '])
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Whether `named`'s name extends `mentioner`'s: it holds all of the mentioner's name words in
/// a row, and more (`react-hook-form-zod` specialises `zod`).
fn specialises(named: &SkillNode, mentioner: &SkillNode) -> bool {
    let (long, short) = (name_words(&named.name), name_words(&mentioner.name));
    !short.is_empty() && long.len() > short.len() && long.windows(short.len()).any(|w| w == short)
}

#[cfg(test)]
pub(crate) mod tests;
