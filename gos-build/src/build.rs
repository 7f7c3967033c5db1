//! The build pipeline: discover -> parse -> normalize -> relate -> index -> write, into a
//! staging directory renamed into place at the end ([`gos_core::workspace::commit_dir`]).

use crate::embed::{EmbedOptions, Embedder};
use crate::llm::{CACHE_FILE, LlmOptions, LlmReport, LlmRun};
use crate::normalize::{Normalized, lexical_doc, normalize};
use crate::package::{ParseError, discover, parse_package};
use crate::relate::{RelateOptions, RelateStats, io_edges, mention_edges};
use crate::report::{BuildReport, DegreeStats, Recovered, Skipped};
use gos_core::SkillGraph;
use gos_core::lexical::LexicalIndex;
use gos_core::manifest::Manifest;
use gos_core::workspace::{
    BuildTarget, FORMAT_VERSION, WorkspaceInfo, check_build_target, commit_dir,
    recover_interrupted_swap, staging_dir,
};
use gos_core::workspace_lock::{BuildLock, LockHolder};
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::time::Instant;

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

fn write(path: &Path, text: &str) -> Result<(), BuildError> {
    std::fs::write(path, text).map_err(|source| BuildError::Io {
        path: path.to_path_buf(),
        source,
    })
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
/// build lock ([`gos_core::workspace_lock`]): with `wait`, `on_wait` is called once with the
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
    let start = Instant::now();
    let root = opts
        .library
        .canonicalize()
        .map_err(|e| BuildError::Library {
            path: opts.library.clone(),
            reason: e.to_string(),
        })?;
    if !root.is_dir() {
        return Err(BuildError::Library {
            path: opts.library.clone(),
            reason: "not a directory".into(),
        });
    }
    // Refuse a target gos does not own before any work: nothing outside a workspace gos wrote
    // is ever replaced or removed.
    check_build_target(&opts.workspace, &root)?;
    let _lock = BuildLock::acquire(&opts.workspace, wait, on_wait)?;
    recover_interrupted_swap(&opts.workspace)?;
    // Checked again under the lock: another build may have changed the target meanwhile.
    let target = check_build_target(&opts.workspace, &root)?;
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
    let found = discover(&root).map_err(|e| BuildError::Library {
        path: opts.library.clone(),
        reason: e.to_string(),
    })?;
    progress.finish_stage();
    report.discovered = found.packages.len() + found.refused.len();
    for (path, reason) in &found.refused {
        report.skipped.push(Skipped {
            path: path.clone(),
            reason: reason.clone(),
        });
    }
    end_stage("discover", &mut report);

    progress.stage("parse", Some(found.packages.len() as u64));
    type Parsed = Result<(Normalized, Vec<String>), (String, ParseError)>;
    let parsed: Vec<Parsed> = found
        .packages
        .par_iter()
        .map(|dir| {
            let r = parse_package(&root, dir)
                .map(|pkg| (normalize(&pkg), pkg.recoveries))
                .map_err(|e| (dir.to_string_lossy().replace('\\', "/"), e));
            progress.advance(1);
            r
        })
        .collect();
    progress.finish_stage();
    let mut normalized: Vec<Normalized> = Vec::with_capacity(parsed.len());
    for item in parsed {
        match item {
            Ok((n, recoveries)) => {
                for what in recoveries {
                    report.recovered.push(Recovered {
                        path: n.node.source_path.clone(),
                        what,
                    });
                }
                normalized.push(n);
            }
            Err((path, e)) => report.skipped.push(Skipped {
                path,
                reason: e.to_string(),
            }),
        }
    }
    normalized.sort_by(|a, b| a.node.id.cmp(&b.node.id));
    end_stage("parse", &mut report);
    if let BuildTarget::Workspace { skills: previous } = target {
        let skipped = report.skipped.len();
        let mostly_skipped = normalized.is_empty() || 2 * skipped > report.discovered;
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
    let mut edges = io_edges(&nodes, &opts.relate, &mut stats);
    let mentions: Vec<Vec<String>> = normalized.iter().map(|n| n.mentions.clone()).collect();
    edges.extend(mention_edges(&nodes, &mentions, &mut stats));
    let mut graph = SkillGraph::new(nodes.iter().map(|n| n.id.clone()));
    for e in edges {
        graph.add_edge(e);
    }
    let common_types: std::collections::BTreeSet<String> =
        stats.generic_types.keys().cloned().collect();
    let max_type_df = match opts.relate.max_type_df {
        0 => (nodes.len() / 50).max(20),
        m => m,
    };
    report.relate = stats;
    progress.finish_stage();
    end_stage("relate", &mut report);

    let staging = staging_dir(&opts.workspace)?;
    let mut llm_run = llm.map(|o| LlmRun::start(o, &staging, &opts.workspace));
    let mut llm_ms = 0u64;
    let mut embed_ms = 0u64;
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
        build_lexical(&staging, &normalized, progress)?;
        progress.finish_stage();
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
        write_workspace(&staging, &root, &nodes, &graph, dense)
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

/// The BM25 index of `normalized` in `dir/tantivy`.
fn build_lexical(
    dir: &Path,
    normalized: &[Normalized],
    progress: &dyn BuildProgress,
) -> Result<(), BuildError> {
    let tantivy_dir = dir.join("tantivy");
    std::fs::create_dir(&tantivy_dir).map_err(|source| BuildError::Io {
        path: tantivy_dir.clone(),
        source,
    })?;
    LexicalIndex::build(
        &tantivy_dir,
        normalized.iter().enumerate().map(|(i, n)| {
            progress.advance(1);
            lexical_doc(i, n)
        }),
    )?;
    Ok(())
}

fn write_workspace(
    dir: &Path,
    root: &Path,
    nodes: &[gos_core::SkillNode],
    graph: &SkillGraph,
    dense: Option<gos_core::dense::DenseInfo>,
) -> Result<(), BuildError> {
    let library_name = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let manifest = Manifest::new(BUILDER_VERSION, &library_name, nodes.to_vec());
    write(&dir.join("manifest.json"), &manifest.to_json())?;
    let mut graph_json =
        serde_json::to_string_pretty(&graph.to_file(FORMAT_VERSION)).expect("graph serializes");
    graph_json.push('\n');
    write(&dir.join("graph.json"), &graph_json)?;
    let info = WorkspaceInfo {
        format: "gos-workspace".into(),
        format_version: FORMAT_VERSION,
        builder_version: BUILDER_VERSION.into(),
        library_root: root.display().to_string(),
        skills: nodes.len(),
        dense,
    };
    let info_json = serde_json::to_string_pretty(&info).expect("info serializes");
    write(&dir.join("workspace.json"), &info_json)?;
    Ok(())
}
