//! Writing a workspace's files into the staging directory: the BM25 index, the manifest, the
//! graph and `workspace.json`.

use super::BUILDER_VERSION;
use crate::error::BuildError;
use crate::normalize::{Normalized, lexical_doc_with_body};
use crate::parse_cache::ParseCache;
use crate::progress::BuildProgress;
use crate::report::RootReport;
use crate::stage_cache::lock;
use gos_core::SkillGraph;
use gos_core::index::lexical::{LexicalDoc, LexicalIndex, PartStats, SegmentLayout};
use gos_core::workspace::manifest::Manifest;
use gos_core::workspace::{FORMAT_VERSION, WorkspaceInfo, WorkspaceRoot};
use sha2::{Digest, Sha256};
use std::path::Path;

/// Write `text` to `path`, naming the path in the error.
pub(super) fn write(path: &Path, text: &str) -> Result<(), BuildError> {
    std::fs::write(path, text).map_err(|source| BuildError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// Index `normalized` into `dir/tantivy`, moving each body into its document: the bodies are
/// not read after this (the later stages read nodes), so `normalized[i].body` is left empty.
/// With a live session's `cache`, unchanged index parts come from it
/// ([`LexicalIndex::build_reusing`]). Returns the SHA-256 of the indexed names and
/// descriptions, in node order, which is all the BM25 neighbour rows read of the index.
pub(super) fn build_lexical(
    dir: &Path,
    normalized: &mut [Normalized],
    progress: &dyn BuildProgress,
    cache: Option<&ParseCache>,
) -> Result<([u8; 32], PartStats), BuildError> {
    let tantivy_dir = dir.join("tantivy");
    std::fs::create_dir(&tantivy_dir).map_err(|source| BuildError::Io {
        path: tantivy_dir.clone(),
        source,
    })?;
    let docs: Vec<LexicalDoc> = normalized
        .iter_mut()
        .enumerate()
        .map(|(i, n)| {
            progress.advance(1);
            let body = std::mem::take(&mut n.body);
            lexical_doc_with_body(i, n, body)
        })
        .collect();
    let mut h = Sha256::new();
    for d in &docs {
        for text in [&d.name, &d.description] {
            h.update((text.len() as u64).to_le_bytes());
            h.update(text.as_bytes());
        }
    }
    let parts = match cache {
        Some(c) => {
            let layout = c.stages.layout();
            let parts = LexicalIndex::build_reusing(
                &tantivy_dir,
                &docs,
                &mut lock(&c.stages.index),
                layout,
            )?;
            c.stages.wrote_live.store(
                layout == SegmentLayout::Live,
                std::sync::atomic::Ordering::Relaxed,
            );
            parts
        }
        None => {
            LexicalIndex::build(&tantivy_dir, docs)?;
            PartStats::default()
        }
    };
    Ok((h.finalize().into(), parts))
}

/// Write the manifest, the graph and `workspace.json` of `nodes` and `graph` into `dir`.
pub(super) fn write_workspace(
    dir: &Path,
    root: &Path,
    roots: &[RootReport],
    nodes: &[gos_core::SkillNode],
    graph: &SkillGraph,
    dense: Option<gos_core::index::dense::DenseInfo>,
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
        // A classic one-root build writes no `roots`, so its workspace.json is unchanged.
        roots: roots
            .iter()
            .filter_map(|r| {
                r.label.as_ref().map(|label| WorkspaceRoot {
                    label: label.clone(),
                    path: r.path.clone(),
                })
            })
            .collect(),
        skills: nodes.len(),
        dense,
    };
    let info_json = serde_json::to_string_pretty(&info).expect("info serializes");
    write(&dir.join("workspace.json"), &info_json)?;
    Ok(())
}
