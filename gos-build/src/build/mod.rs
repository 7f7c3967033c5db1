//! The build pipeline: discover -> parse -> normalize -> relate -> index -> write, into a
//! staging directory renamed into place at the end ([`gos_core::workspace::commit_dir`]).

use crate::alternative::{ALTERNATIVES_FILE, alternative_groups, duplicate_edges, same_job_edges};
use crate::declared::{Declaration, declared_edges};
use crate::dedup::{DedupDoc, DedupParams, stored_groups_cached};
use crate::embed::{EmbedOptions, Embedder};
use crate::llm::{CACHE_FILE, LlmOptions, LlmReport, LlmRun};
use crate::parse_cache::ParseCache;
use crate::relate::{RelateOptions, RelateStats, io_edges, mention_edges};
use crate::report::{BuildReport, DegreeStats, ReuseStats, RootReport, Skipped};
use crate::roots::{LibrarySpec, discover_roots};
use crate::semantic::SemanticStats;
use crate::stage_cache::{bm25_semantic, lock, vector_semantic};
use crate::workflow::workflow_edges_cached;
use gos_core::SkillGraph;
use gos_core::index::dense::{TextView, Vectors, vectors_file};
use gos_core::index::lexical::LexicalIndex;
use gos_core::workspace::duplicates::DUPLICATES_FILE;
use gos_core::workspace::lock::{BuildLock, LockHolder};
use gos_core::workspace::{
    BuildTarget, check_build_target, commit_dir, recover_interrupted_swap, staging_dir,
};
use parse::parse_packages;
use std::path::PathBuf;
use std::time::Instant;
use write::{build_lexical, write, write_workspace};

mod parse;
mod write;

pub use crate::error::BuildError;
pub use crate::progress::{BuildProgress, NoProgress};

/// Version of this builder, recorded in manifests.
pub const BUILDER_VERSION: &str = env!("CARGO_PKG_VERSION");

/// What to build and how.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    /// Library root: a folder of skill packages.
    pub library: PathBuf,
    /// Workspace directory to create or replace.
    pub workspace: PathBuf,
    /// Deterministic relation options.
    pub relate: RelateOptions,
    /// Dense embeddings; `None` builds a lexical-only workspace.
    pub embed: Option<EmbedOptions>,
    /// Replace a non-empty workspace even when this build found no usable package or skipped
    /// more than half of those it found (see [`BuildError::WouldEmpty`]).
    pub force: bool,
}

/// Build the workspace described by `opts`.
///
/// The previous workspace at `opts.workspace`, if any, stays whole until the new one is
/// complete; on error the staging directory is removed.
///
/// # Errors
/// [`BuildError`] when the library cannot be read or the workspace cannot be written.
pub fn build_workspace(
    opts: &BuildOptions,
    progress: &dyn BuildProgress,
) -> Result<BuildReport, BuildError> {
    build_workspace_with(opts, None, progress)
}

/// Build the workspace described by `opts`, with the LLM layer when `llm` is given
/// (semantic completion, relation validation; see [`crate::llm`]). Without it the result is
/// exactly that of [`build_workspace`] (a previous workspace's `llm-cache.jsonl` is carried
/// over so its replies are not lost). LLM failures never fail the build: they are counted in
/// the report's `llm` section, whose `complete` flag says whether every request succeeded.
///
/// The build waits for another build of the same workspace to finish (see
/// [`build_workspace_locked`]).
///
/// # Errors
/// As [`build_workspace`].
pub fn build_workspace_with(
    opts: &BuildOptions,
    llm: Option<&LlmOptions>,
    progress: &dyn BuildProgress,
) -> Result<BuildReport, BuildError> {
    build_workspace_locked(opts, llm, progress, true, &|_| {})
}

/// [`build_workspace_with`], choosing what happens when another build holds the workspace's
/// build lock ([`gos_core::workspace::lock`]): with `wait`, `on_wait` is called once with the
/// holder and the build waits for the lock; without, the build fails at once.
///
/// The lock is taken after the target is checked (so a refused target gets no lock file) and
/// held until the new workspace is in place. Holding it, the build first finishes what a build
/// killed between its two renames left ([`recover_interrupted_swap`]).
///
/// # Errors
/// As [`build_workspace`]; [`BuildError::Workspace`] wrapping [`gos_core::Error::Locked`]
/// when the lock is held and `wait` is false.
pub fn build_workspace_locked(
    opts: &BuildOptions,
    llm: Option<&LlmOptions>,
    progress: &dyn BuildProgress,
    wait: bool,
    on_wait: &dyn Fn(&LockHolder),
) -> Result<BuildReport, BuildError> {
    let library = LibrarySpec::single(&opts.library);
    build_library_cached(opts, &library, llm, progress, None, wait, on_wait)
}

/// Build a workspace from the roots and filters of `library` ([`crate::roots`]); `opts.library`
/// is not read. With one unlabelled root and no filters this is exactly
/// [`build_workspace_with`]. Waits for the build lock.
///
/// # Errors
/// As [`build_workspace`]; also [`BuildError::Library`] for a root that cannot be read, a root
/// given twice, or a bad glob or `.gosignore`, and [`BuildError::Workspace`] when the workspace
/// would lie inside, or contain, any root.
pub fn build_library(
    opts: &BuildOptions,
    library: &LibrarySpec,
    llm: Option<&LlmOptions>,
    progress: &dyn BuildProgress,
) -> Result<BuildReport, BuildError> {
    build_library_cached(opts, library, llm, progress, None, true, &|_| {})
}

/// [`build_library`], taking unchanged packages from `cache` instead of parsing them again and
/// storing what it parses there (see [`crate::parse_cache`]), and waiting for the build lock or not
/// as [`build_workspace_locked`] does.
///
/// # Errors
/// As [`build_library`] and [`build_workspace_locked`].
pub fn build_library_cached(
    opts: &BuildOptions,
    library: &LibrarySpec,
    llm: Option<&LlmOptions>,
    progress: &dyn BuildProgress,
    cache: Option<&ParseCache>,
    wait: bool,
    on_wait: &dyn Fn(&LockHolder),
) -> Result<BuildReport, BuildError> {
    let start = Instant::now();
    let Some(first) = library.roots.first() else {
        return Err(BuildError::Library {
            path: opts.library.clone(),
            reason: "no library root given".into(),
        });
    };
    let root = first.path.canonicalize().map_err(|e| BuildError::Library {
        path: first.path.clone(),
        reason: e.to_string(),
    })?;
    // Refuse a target gos does not own before any work: nothing outside a workspace gos wrote
    // is ever replaced or removed, and no root may hold the workspace or lie inside it.
    let check_all = || -> Result<BuildTarget, BuildError> {
        let target = check_build_target(&opts.workspace, &root)?;
        for other in &library.roots[1..] {
            check_build_target(&opts.workspace, &other.path)?;
        }
        Ok(target)
    };
    check_all()?;
    let _lock = BuildLock::acquire(&opts.workspace, wait, on_wait)?;
    recover_interrupted_swap(&opts.workspace)?;
    // Checked again under the lock: another build may have changed the target meanwhile.
    let target = check_all()?;
    // Load the encoder first: a bad model directory fails before any other work.
    let embedder = opts.embed.as_ref().map(Embedder::load).transpose()?;
    let mut report = BuildReport {
        library: root.display().to_string(),
        workspace: opts.workspace.display().to_string(),
        ..BuildReport::default()
    };
    let mut stage_start = Instant::now();
    let mut end_stage = |name: &str, report: &mut BuildReport| {
        report
            .stage_ms
            .insert(name.to_string(), stage_start.elapsed().as_millis() as u64);
        stage_start = Instant::now();
    };

    progress.stage("discover", None);
    let found = discover_roots(library)?;
    progress.advance(found.packages.len() as u64);
    progress.finish_stage();
    report.discovered = found.packages.len() + found.left_out.len();
    for l in &found.left_out {
        report.skipped.push(Skipped {
            path: l.path.clone(),
            reason: l.reason.clone(),
        });
    }
    report.roots = found
        .roots
        .iter()
        .map(|r| RootReport {
            label: r.label.clone(),
            path: r.path.display().to_string(),
            packages: r.packages,
        })
        .collect();
    end_stage("discover", &mut report);

    progress.stage("parse", Some(found.packages.len() as u64));
    let (mut normalized, declared) = parse_packages(&found, cache, progress, &mut report);
    progress.finish_stage();
    end_stage("parse", &mut report);
    if let BuildTarget::Workspace { skills: previous } = target {
        // Packages left out on purpose (.gosignore, globs) do not count as failures.
        let skipped = report.skipped.len() - found.filtered;
        let mostly_skipped =
            normalized.is_empty() || 2 * skipped > report.discovered - found.filtered;
        if previous > 0 && mostly_skipped && !opts.force {
            return Err(BuildError::WouldEmpty {
                path: opts.workspace.clone(),
                previous,
                usable: normalized.len(),
                discovered: report.discovered,
                skipped,
            });
        }
    }

    progress.stage("relate", None);
    let mut nodes: Vec<gos_core::SkillNode> = normalized.iter().map(|n| n.node.clone()).collect();
    let mut stats = RelateStats::default();
    // Declared edges first: an inferred edge of the same pair and type (weight at most 1)
    // never replaces one (see SkillGraph::add_edge).
    let mut decls: Vec<Vec<Declaration>> = vec![Vec::new(); nodes.len()];
    for (id, d) in declared {
        if let Ok(i) = nodes.binary_search_by(|n| n.id.as_str().cmp(&id)) {
            decls[i] = d;
        }
    }
    // Declared, then mention edges before the io rule's: an edge of the same pair and type
    // that a body states is never hidden behind an inferred one (the io filters below may
    // remove the io edge; the statement must survive).
    let mut edges = declared_edges(&nodes, &decls, &mut report.declared);
    let mentions: Vec<Vec<String>> = normalized.iter().map(|n| n.mentions.clone()).collect();
    edges.extend(mention_edges(&nodes, &mentions, &mut stats));
    edges.extend(io_edges(&nodes, &opts.relate, &mut stats));
    let mut graph = SkillGraph::new(nodes.iter().map(|n| n.id.clone()));
    for e in edges {
        graph.add_edge(e);
    }
    // The io edges that rest on common types alone, judged on the parsed types the io rule
    // read (LLM completion may change the types later).
    let weak_io =
        crate::io_filters::common_type_io_pairs(&graph, &nodes, opts.relate.specific_type_df);
    let common_types: std::collections::BTreeSet<String> =
        stats.generic_types.keys().cloned().collect();
    let max_type_df = match opts.relate.max_type_df {
        0 => (nodes.len() / 50).max(20),
        m => m,
    };
    report.relate = stats;
    progress.finish_stage();
    end_stage("relate", &mut report);

    let mut reused = ReuseStats::default();
    progress.stage("dedup", None);
    let duplicates = {
        let ids: Vec<&str> = nodes.iter().map(|n| n.id.as_str()).collect();
        let docs: Vec<DedupDoc> = nodes
            .iter()
            .zip(&normalized)
            .map(|(node, n)| DedupDoc {
                body: &n.body,
                name: &node.name,
                folder: node.id.rsplit('/').next().unwrap_or(&node.id),
                description: &node.description.value,
            })
            .collect();
        let keys: Vec<&str> = nodes.iter().map(|n| n.content_hash.as_str()).collect();
        let mut memo = cache.map(|c| lock(&c.stages.dedup));
        let found = stored_groups_cached(
            &ids,
            &docs,
            &DedupParams::default(),
            memo.as_deref_mut().map(|m| (&keys[..], m)),
        );
        if let Some(m) = memo {
            reused.dedup_bodies = m.reused;
        }
        found
    };
    end_stage("dedup", &mut report);
    // Alternative edges: every pair of a near-duplicate group, and skills doing the same job.
    let dup_edges = duplicate_edges(duplicates.as_ref().map_or(&[][..], |d| &d.groups[..]));
    let job_edges = same_job_edges(&nodes, &opts.relate.alternative);
    for e in dup_edges.into_iter().chain(job_edges) {
        let by_duplicate = e.provenance == gos_core::EdgeProvenance::Duplicate;
        if graph.add_edge(e) {
            if by_duplicate {
                report.alternative.duplicate_edges += 1;
            } else {
                report.alternative.same_job_edges += 1;
            }
        }
    }
    report.relate.io_alternatives = crate::io_filters::drop_io_between_alternatives(&mut graph);
    end_stage("alternative", &mut report);
    // Workflow edges: explicit sequencing in the bodies; copies of one skill resolve together.
    let copy_groups: Vec<Vec<usize>> = duplicates.as_ref().map_or(Vec::new(), |d| {
        d.groups
            .iter()
            .map(|g| {
                g.iter()
                    .filter_map(|id| nodes.binary_search_by(|n| n.id.as_str().cmp(id)).ok())
                    .collect()
            })
            .collect()
    });
    let bodies: Vec<&str> = normalized.iter().map(|n| n.body.as_str()).collect();
    let mut memo = cache.map(|c| lock(&c.stages.workflow));
    for e in workflow_edges_cached(
        &nodes,
        &bodies,
        &copy_groups,
        &opts.relate.workflow,
        &mut report.workflow,
        memo.as_deref_mut(),
    ) {
        graph.add_edge(e);
    }
    if let Some(m) = memo {
        reused.workflow_bodies = m.reused;
    }
    if opts.relate.io_drop_both_ways {
        let dropped = crate::io_filters::drop_io_both_ways(&mut graph);
        report.relate.io_both_ways = dropped.io_pairs;
        report.relate.io_against_stated = dropped.against_stated;
    }
    progress.finish_stage();
    end_stage("workflow", &mut report);

    let staging = staging_dir(&opts.workspace)?;
    let mut llm_run = llm.map(|o| LlmRun::start(o, &staging, &opts.workspace));
    let mut llm_ms = 0u64;
    let mut embed_ms = 0u64;
    let mut semantic_ms = 0u64;
    let result = (|| -> Result<(), BuildError> {
        if let Some(run) = llm_run.as_mut() {
            let t = Instant::now();
            run.complete(&mut normalized, progress);
            llm_ms += t.elapsed().as_millis() as u64;
            nodes = normalized.iter().map(|n| n.node.clone()).collect();
        } else {
            let old_cache = opts.workspace.join(CACHE_FILE);
            if old_cache.is_file() {
                std::fs::copy(&old_cache, staging.join(CACHE_FILE)).map_err(|source| {
                    BuildError::Io {
                        path: old_cache.clone(),
                        source,
                    }
                })?;
            }
        }
        // Embeddings after completion, so inferred fields reach the card view.
        let dense = match &embedder {
            Some(e) => {
                let t = Instant::now();
                let (info, stats) = e.run(&normalized, &opts.workspace, &staging, progress)?;
                report.embed = Some(stats);
                embed_ms = t.elapsed().as_millis() as u64;
                Some(info)
            }
            None => None,
        };
        progress.stage("index", Some(normalized.len() as u64));
        if let Some(c) = cache {
            let bm25_pass = dense.is_none() && opts.relate.semantic.k > 0;
            c.stages
                .plan_index(&nodes, opts.relate.semantic.k, bm25_pass);
        }
        let (fields_digest, parts) = build_lexical(&staging, &mut normalized, progress, cache)?;
        reused.index_parts = parts.reused;
        reused.index_parts_indexed = parts.indexed;
        reused.index_segments_merged = parts.merged;
        progress.finish_stage();
        // The skill vectors, read once for the io floor and the semantic stage. The floor was
        // set on card-view cosines, so other views leave the io edges alone.
        let vectors = match &dense {
            Some(info) => Some((
                info.view.parts()[0],
                Vectors::read(&staging.join(vectors_file(info.view.parts()[0])))?,
            )),
            None => None,
        };
        if let Some((TextView::Card, v)) = &vectors {
            report.relate.io_below_cosine = crate::io_filters::drop_io_below_cosine(
                &mut graph,
                v,
                opts.relate.io_min_cosine,
                &weak_io,
            );
        }
        if opts.relate.semantic.k > 0 {
            progress.stage("semantic", None);
            let t = Instant::now();
            let sem = &opts.relate.semantic;
            let mut stats = SemanticStats::default();
            let edges = match vectors.as_ref().map(|(_, v)| v) {
                Some(vectors) => {
                    stats.method = "vector".into();
                    let memo = cache.map(|c| &c.stages);
                    vector_semantic(&nodes, vectors, sem, &mut stats, memo, &mut reused)
                }
                None => {
                    stats.method = "bm25".into();
                    let index = staging.join("tantivy");
                    let memo = cache.map(|c| &c.stages);
                    bm25_semantic(
                        &nodes,
                        &index,
                        &fields_digest,
                        sem,
                        &mut stats,
                        memo,
                        &mut reused,
                    )?
                }
            };
            for e in edges {
                graph.add_edge(e);
            }
            semantic_ms = t.elapsed().as_millis() as u64;
            stats.ms = semantic_ms;
            report.semantic = Some(stats);
            progress.finish_stage();
        }
        if let Some(run) = llm_run.as_mut() {
            let t = Instant::now();
            let lexical = LexicalIndex::open(&staging.join("tantivy"), nodes.len())?;
            run.relations(
                &nodes,
                &mut graph,
                &lexical,
                &common_types,
                max_type_df,
                &staging,
                progress,
            )
            .map_err(|source| BuildError::Io {
                path: staging.clone(),
                source,
            })?;
            llm_ms += t.elapsed().as_millis() as u64;
        }
        write_workspace(&staging, &root, &report.roots, &nodes, &graph, dense)?;
        let ids: Vec<&str> = nodes.iter().map(|n| n.id.as_str()).collect();
        if let Some(groups) = alternative_groups(&ids, graph.edges()) {
            report.alternative.groups = groups.groups.len();
            report.alternative.grouped_skills = groups.groups.iter().map(Vec::len).sum();
            let mut text = serde_json::to_string_pretty(&groups).expect("groups serialize");
            text.push('\n');
            write(&staging.join(ALTERNATIVES_FILE), &text)?;
        }
        if let Some(groups) = &duplicates {
            let mut text = serde_json::to_string_pretty(groups).expect("groups serialize");
            text.push('\n');
            write(&staging.join(DUPLICATES_FILE), &text)?;
        }
        Ok(())
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_dir_all(&staging);
        return Err(e);
    }
    report.llm = match llm_run {
        Some(run) => run.finish(),
        None => LlmReport::not_configured(),
    };
    end_stage("index", &mut report);
    // The LLM and embedding stages ran inside the "index" span; report them on their own.
    if let Some(ms) = report.stage_ms.get_mut("index") {
        *ms = ms.saturating_sub(llm_ms + embed_ms);
    }
    if llm.is_some() {
        report.stage_ms.insert("llm".into(), llm_ms);
    }
    if embedder.is_some() {
        report.stage_ms.insert("embed".into(), embed_ms);
    }
    if let Some(ms) = report.stage_ms.get_mut("index") {
        *ms = ms.saturating_sub(semantic_ms);
    }
    if report.semantic.is_some() {
        report.stage_ms.insert("semantic".into(), semantic_ms);
    }

    if cache.is_some() {
        report.reused = Some(reused);
    }
    report.nodes = nodes.len();
    for e in graph.edges() {
        *report
            .edges
            .entry(e.edge_type.as_str().to_string())
            .or_insert(0) += 1;
        *report
            .edges_by_provenance
            .entry(e.provenance.as_str().to_string())
            .or_insert(0) += 1;
    }
    report.isolated = graph.isolated_count();
    for w in nodes.iter().flat_map(|n| &n.warnings) {
        *report.warnings.entry(w.rule.clone()).or_insert(0) += 1;
    }
    let degrees: Vec<usize> = (0..graph.node_count()).map(|i| graph.degree(i)).collect();
    if let Some((imax, &max)) = degrees
        .iter()
        .enumerate()
        .max_by_key(|(i, d)| (**d, std::cmp::Reverse(*i)))
    {
        report.degree = DegreeStats {
            mean: degrees.iter().sum::<usize>() as f64 / degrees.len() as f64,
            max,
            max_node: graph.id_of(imax).to_string(),
        };
    }
    report.skipped.sort_by(|a, b| a.path.cmp(&b.path));
    report.wall_ms = start.elapsed().as_millis() as u64;
    let report_json = serde_json::to_string_pretty(&report).expect("report serializes");
    write(&staging.join("build-report.json"), &report_json)?;
    if let Err(e) = commit_dir(&staging, &opts.workspace) {
        let _ = std::fs::remove_dir_all(&staging);
        return Err(e.into());
    }
    Ok(report)
}
