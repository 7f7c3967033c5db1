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
//! format); copies of one skill (identical descriptions) are never joined. Each consumer keeps
//! its best `max_producers` producers; among equal scores, the one with more shared specific
//! terms, then the smaller id. (Until session 3 the tie went to producers of the consumer's own
//! collection: on the real library 13 of the 14 DEV oracle pairs joined by an I/O edge came
//! from that tie-break, a collection signal the retrieval must not use; docs/graph-quality.md.)
//! The edge's evidence lists the shared types, then the shared terms after `;`.
//!
//! **Mention edges**: when a body says "use the `x` skill", the node named `x` (frontmatter
//! name or folder name, case-insensitive) becomes a prerequisite: edge `x -> mentioner`, type
//! dependency, provenance mention, weight 1. An ambiguous name resolves only when exactly one
//! of its skills has it as folder name; otherwise, or when the name is a common word, no edge.
//! (Until session 3 an ambiguous name resolved to the mentioner's collection, a collection
//! signal like the I/O tie-break above; removed for the same reason.)
//! Four rules keep mention edges to prerequisites:
//!
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
    /// Mention edges dropped because the named skill is a hub ([`MAX_MENTION_FAN_IN`]).
    pub mentions_hub: usize,
    /// Mention edges dropped because the mentioner names a list of skills
    /// ([`MAX_MENTION_FAN_OUT`]).
    pub mentions_list: usize,
    /// Mention edges dropped because the named skill is deprecated.
    pub mentions_deprecated: usize,
    /// Mention edges turned around because the named skill specialises the mentioner.
    pub mentions_reversed: usize,
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
    let mut df: HashMap<&str, usize> = HashMap::new();
    let mut producers: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, node) in nodes.iter().enumerate() {
        let types: BTreeSet<&str> = node
            .inputs
            .value
            .iter()
            .chain(&node.outputs.value)
            .map(String::as_str)
            .collect();
        for t in types {
            *df.entry(t).or_insert(0) += 1;
        }
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

/// Mention edges: `mentions[i]` are the names node `i` mentions as skills.
pub fn mention_edges(
    nodes: &[SkillNode],
    mentions: &[Vec<String>],
    stats: &mut RelateStats,
) -> Vec<SkillEdge> {
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
    let mut resolved: Vec<(usize, usize, &str)> = Vec::new();
    for (c, names) in mentions.iter().enumerate() {
        for m in names {
            if is_common_word(m) || m.len() < 2 {
                stats.mentions_common_word += 1;
                continue;
            }
            let Some(all) = by_name.get(m) else {
                stats.mentions_unresolved += 1;
                continue;
            };
            // Never narrowed by the mentioner's collection: a collection signal would leak the
            // benchmark's layout into the graph (module docs).
            let pool: Vec<usize> = all.iter().copied().filter(|&i| i != c).collect();
            let chosen = match pool.as_slice() {
                [one] => Some(*one),
                [] => None,
                many => {
                    let exact: Vec<usize> = many
                        .iter()
                        .copied()
                        .filter(|&i| nodes[i].folder().eq_ignore_ascii_case(m))
                        .collect();
                    (exact.len() == 1).then(|| exact[0])
                }
            };
            match chosen {
                Some(p) => resolved.push((p, c, m.as_str())),
                None if pool_is_empty(&by_name, m, c) => stats.mentions_unresolved += 1,
                None => stats.mentions_ambiguous += 1,
            }
        }
    }
    let mut fan_in: HashMap<usize, BTreeSet<usize>> = HashMap::new();
    let mut fan_out: HashMap<usize, usize> = HashMap::new();
    for &(p, c, _) in &resolved {
        fan_in.entry(p).or_default().insert(c);
        *fan_out.entry(c).or_insert(0) += 1;
    }
    let mut edges = Vec::new();
    for (p, c, m) in resolved {
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
        let (source, target, evidence) = if specialises(&nodes[p], &nodes[c]) {
            stats.mentions_reversed += 1;
            (c, p, format!("`{m}` skill, which specialises it"))
        } else {
            (p, c, format!("`{m}` skill"))
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

fn pool_is_empty(by_name: &HashMap<String, BTreeSet<usize>>, m: &str, c: usize) -> bool {
    by_name.get(m).is_none_or(|s| s.iter().all(|&i| i == c))
}

#[cfg(test)]
mod tests {
    use super::*;
    use gos_core::Field;

    fn node(id: &str, name: &str, inputs: &[&str], outputs: &[&str]) -> SkillNode {
        SkillNode {
            id: id.into(),
            name: name.into(),
            description: Field::default(),
            capability: Field::default(),
            inputs: Field::parsed(inputs.iter().map(|s| s.to_string()).collect()),
            outputs: Field::parsed(outputs.iter().map(|s| s.to_string()).collect()),
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

    #[test]
    fn io_edges_follow_type_overlap_and_threshold() {
        let nodes = vec![
            node("geo/shp", "shp", &["shapefile"], &["geojson"]),
            node("geo/reproject", "reproject", &["geojson"], &["geojson"]),
            node("geo/map", "map", &["geojson", "csv"], &["image"]),
            node("x/plot", "plot", &["csv"], &["image"]),
        ];
        let mut stats = RelateStats::default();
        let no_evidence = RelateOptions {
            min_shared_terms: 0,
            ..RelateOptions::default()
        };
        let edges = io_edges(&nodes, &no_evidence, &mut stats);
        let pairs: Vec<(&str, &str)> = edges
            .iter()
            .map(|e| (e.source.as_str(), e.target.as_str()))
            .collect();
        assert!(pairs.contains(&("geo/shp", "geo/reproject")));
        // map needs geojson and csv; geojson alone carries idf share below 0.6? df(geojson)=3,
        // df(csv)=2: idf 0.847 vs 1.099, share 0.435 < 0.6: no edge.
        assert!(!pairs.iter().any(|p| p.1 == "geo/map"));
        assert!(stats.scored_pairs < stats.all_pairs);
        assert!(edges.iter().all(|e| e.weight >= 0.6));
    }

    fn described(mut n: SkillNode, description: &str) -> SkillNode {
        n.description = Field::parsed(description.into());
        n
    }

    #[test]
    fn io_edges_need_specific_evidence_beyond_one_generic_type() {
        let nodes = vec![
            described(
                node("m/ffmpeg-trim", "ffmpeg-trim", &[], &["video"]),
                "Trim clips with ffmpeg x264.",
            ),
            described(
                node("m/ffmpeg-concat", "ffmpeg-concat", &["video"], &[]),
                "Join clips with ffmpeg x264.",
            ),
            described(
                node("m/gemini-count", "gemini-count", &["video"], &[]),
                "Count objects in clips with gemini.",
            ),
            described(
                node("n/concat-copy", "concat-copy", &[], &["video"]),
                "Join clips with ffmpeg x264.",
            ),
        ];
        // `video` is named by 4 nodes: generic at specific_type_df 1; terms used by more than
        // 3 nodes (`clips`, `with`) are not specific.
        let opts = RelateOptions {
            specific_type_df: 1,
            min_shared_terms: 2,
            term_max_df: 3,
            ..RelateOptions::default()
        };
        let mut stats = RelateStats::default();
        let edges = io_edges(&nodes, &opts, &mut stats);
        let got: Vec<(&str, &str, &str)> = edges
            .iter()
            .map(|e| (e.source.as_str(), e.target.as_str(), e.evidence.as_str()))
            .collect();
        // trim -> concat share ffmpeg and x264; nothing specific joins the counter; the copy
        // has the consumer's own description.
        assert_eq!(
            got,
            vec![("m/ffmpeg-trim", "m/ffmpeg-concat", "video; ffmpeg, x264")]
        );
        assert_eq!(stats.io_without_evidence, 3);
        // A rare type is evidence on its own; 0 shared terms turns the requirement off.
        let rare = RelateOptions {
            specific_type_df: 4,
            ..opts
        };
        let mut stats = RelateStats::default();
        assert_eq!(io_edges(&nodes, &rare, &mut stats).len(), 3);
        let off = RelateOptions {
            min_shared_terms: 0,
            ..opts
        };
        let mut stats = RelateStats::default();
        assert_eq!(io_edges(&nodes, &off, &mut stats).len(), 4);
        assert_eq!(stats.io_without_evidence, 0);
    }

    #[test]
    fn io_edges_of_one_stage_are_dropped_and_a_chain_with_three_terms_is_kept() {
        let nodes = vec![
            described(
                node("b/bwa-align", "bwa-align", &["fastq"], &["bam"]),
                "Align reads with bwa mem2 mapq germline.",
            ),
            described(
                node("b/bowtie-align", "bowtie-align", &["fastq"], &["bam"]),
                "Align reads with bowtie mapq germline.",
            ),
            described(
                node("b/bam-sort", "bam-sort", &["bam"], &["bam"]),
                "Sort reads by mapq germline coordinate.",
            ),
            described(
                node("b/coverage", "coverage", &["bam"], &["bed"]),
                "Depth over reads mapq germline windows.",
            ),
        ];
        let opts = RelateOptions {
            term_max_df: 4,
            min_shared_terms: 3,
            reject_same_stage: true,
            ..RelateOptions::default()
        };
        let mut stats = RelateStats::default();
        let edges = io_edges(&nodes, &opts, &mut stats);
        let got: Vec<(&str, &str)> = edges
            .iter()
            .map(|e| (e.source.as_str(), e.target.as_str()))
            .collect();
        // The aligners feed coverage (bam; germline, mapq, reads); bam-sort consumes and
        // re-produces bam, so nothing joins it either way (same stage).
        assert_eq!(
            got,
            [
                ("b/bowtie-align", "b/coverage"),
                ("b/bwa-align", "b/coverage")
            ]
        );
        assert!(edges[0].evidence.starts_with("bam; "));
        assert_eq!(stats.io_without_evidence, 3);
    }

    #[test]
    fn mention_hubs_and_deprecated_skills_lose_their_edges_and_specialisations_turn() {
        let mut nodes = vec![
            node("c/hub", "hub", &[], &[]),
            described(node("c/old", "old", &[], &[]), "[DEPRECATED - use new]"),
            node("c/zod", "zod", &[], &[]),
            node("c/react-hook-form-zod", "react-hook-form-zod", &[], &[]),
        ];
        let mut mentions = vec![vec![], vec![], vec!["react-hook-form-zod".into()], vec![]];
        for i in 0..=MAX_MENTION_FAN_IN {
            nodes.push(node(&format!("c/user-{i}"), &format!("user-{i}"), &[], &[]));
            mentions.push(if i == 0 {
                vec!["hub".into(), "old".into()]
            } else {
                vec!["hub".into()]
            });
        }
        let mut stats = RelateStats::default();
        let edges = mention_edges(&nodes, &mentions, &mut stats);
        let got: Vec<(&str, &str, &str)> = edges
            .iter()
            .map(|e| (e.source.as_str(), e.target.as_str(), e.evidence.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![(
                "c/zod",
                "c/react-hook-form-zod",
                "`react-hook-form-zod` skill, which specialises it"
            )]
        );
        assert_eq!(stats.mentions_hub, MAX_MENTION_FAN_IN + 1);
        assert_eq!(stats.mentions_deprecated, 1);
        assert_eq!(stats.mentions_reversed, 1);
        // A body naming more than MAX_MENTION_FAN_OUT skills is a list: no edge.
        let nodes: Vec<SkillNode> = (0..=MAX_MENTION_FAN_OUT + 1)
            .map(|i| node(&format!("c/s{i}"), &format!("s{i}"), &[], &[]))
            .collect();
        let mut mentions = vec![Vec::new(); nodes.len()];
        mentions[0] = (1..nodes.len()).map(|i| format!("s{i}")).collect();
        mentions[1] = vec!["s2".into()];
        let mut stats = RelateStats::default();
        let edges = mention_edges(&nodes, &mentions, &mut stats);
        assert_eq!(edges.len(), 1);
        assert_eq!(
            (edges[0].source.as_str(), edges[0].target.as_str()),
            ("c/s2", "c/s1")
        );
        assert_eq!(stats.mentions_list, MAX_MENTION_FAN_OUT + 1);
    }

    #[test]
    fn ambiguous_mentions_link_nothing_whatever_the_collection_and_common_words_are_skipped() {
        let nodes = vec![
            node("docs/pdf", "pdf", &[], &[]),
            node("sci/pdf", "pdf", &[], &[]),
            node("docs/invoice", "invoice", &[], &[]),
            node("other/thing", "thing", &[], &[]),
        ];
        // docs/invoice names `pdf` (two skills, one in its own collection: still ambiguous),
        // `skill` (a common word) and `thing` (one skill, in another collection).
        let mentions = vec![
            vec![],
            vec![],
            vec!["pdf".into(), "skill".into(), "thing".into()],
            vec!["pdf".into()],
        ];
        let mut stats = RelateStats::default();
        let edges = mention_edges(&nodes, &mentions, &mut stats);
        assert_eq!(edges.len(), 1);
        assert_eq!(
            (edges[0].source.as_str(), edges[0].target.as_str()),
            ("other/thing", "docs/invoice")
        );
        assert_eq!(stats.mentions_common_word, 1);
        assert_eq!(stats.mentions_ambiguous, 2);
    }
}
