//! One skill at a time: its SKILL.md and files, its graph neighbourhood, and the workspace
//! summary. Unknown ids get an error that names the closest ids.

use crate::error::RequestError;
use crate::request::Limits;
use crate::state::{Loaded, ServerState};
use gos_core::EdgeType;
use gos_core::Workspace;
use rmcp::schemars::{self, JsonSchema};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Most entries of a skill's file list.
pub const MAX_FILES: usize = 500;

/// A skill's SKILL.md and package files.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SkillDocument {
    /// Skill id.
    pub id: String,
    /// Display name.
    pub name: String,
    /// Description.
    pub description: String,
    /// SKILL.md path relative to the library root.
    pub source: String,
    /// The SKILL.md text, cut at [`Limits::max_skill_bytes`].
    pub skill_md: String,
    /// Whether `skill_md` was cut.
    pub truncated: bool,
    /// `library` when `skill_md` was read from the library folder, `index` when the library
    /// has moved and the body stored in the workspace index was used instead.
    pub skill_md_from: String,
    /// Files of the package relative to its folder, sorted (at most [`MAX_FILES`]; empty
    /// when the library folder is gone).
    pub files: Vec<String>,
}

/// One edge seen from a skill.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Neighbor {
    /// The other skill's id.
    pub id: String,
    /// Its display name.
    pub name: String,
    /// Relation: `dependency`, `workflow`, `semantic` or `alternative`.
    #[serde(rename = "type")]
    pub edge_type: String,
    /// How the edge was found: `io`, `mention` or `llm`.
    pub provenance: String,
    /// Edge weight in (0, 1].
    pub weight: f64,
    /// Why: the shared artifact types or the mention text.
    pub evidence: String,
}

/// A skill's neighbourhood in the graph.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Neighborhood {
    /// The skill's id.
    pub id: String,
    /// Its display name.
    pub name: String,
    /// Skills it needs first: sources of its incoming dependency and workflow edges.
    pub prerequisites: Vec<Neighbor>,
    /// Skills that need it: targets of its outgoing dependency and workflow edges.
    pub dependents: Vec<Neighbor>,
    /// Semantic and alternative neighbours (symmetric relations), either direction.
    pub related: Vec<Neighbor>,
}

/// Counts and identity of the served workspace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct WorkspaceStatus {
    /// Workspace directory.
    pub workspace: String,
    /// Library root it was built from.
    pub library_root: String,
    /// Workspace format version.
    pub format_version: u32,
    /// Version of the builder that wrote it.
    pub builder_version: String,
    /// Skill count.
    pub skills: usize,
    /// Edge count.
    pub edges: usize,
    /// Edge count per type.
    pub edges_by_type: BTreeMap<String, usize>,
    /// When `workspace.json` was written, in seconds since the Unix epoch (the build's end).
    pub built_at_unix: Option<u64>,
    /// Model identity of the skill vectors, when the workspace has them.
    pub vectors_model: Option<String>,
    /// Model identity of the loaded query encoder (`None`: lexical seeds).
    pub encoder_model: Option<String>,
    /// Seed source a default request uses (`hybrid` with an encoder, else `lexical`).
    pub seed_source: String,
    /// Served generation: 1 at start, one more per reload.
    pub generation: u64,
    /// When this generation was loaded, in seconds since the Unix epoch.
    pub loaded_at_unix: u64,
    /// Milliseconds the load took.
    pub load_ms: f64,
    /// Why the last reload failed, unless a later one succeeded.
    pub last_reload_error: Option<String>,
    /// The server's version.
    pub server_version: String,
}

/// Up to 5 known ids close to `id`: ids and folder names that contain it or are within a
/// Jaro-Winkler similarity of 0.8, most similar first.
pub fn close_matches(ws: &Workspace, id: &str) -> Vec<String> {
    let want = id.trim().to_lowercase();
    let mut scored: Vec<(f64, &str)> = ws
        .manifest()
        .nodes
        .iter()
        .filter_map(|n| {
            let full = n.id.to_lowercase();
            let folder = n.folder().to_lowercase();
            let contains = !want.is_empty() && (full.contains(&want) || want.contains(&folder));
            let sim = strsim::jaro_winkler(&want, &full).max(strsim::jaro_winkler(&want, &folder));
            let score = if contains { 1.0 + sim } else { sim };
            (score >= 0.8).then_some((score, n.id.as_str()))
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    scored
        .into_iter()
        .take(5)
        .map(|(_, s)| s.to_string())
        .collect()
}

/// The node index of `id`, or an `unknown_skill` error naming close matches.
///
/// # Errors
/// `unknown_skill` when no skill has that id.
pub fn resolve(ws: &Workspace, id: &str) -> Result<usize, RequestError> {
    ws.index_of(id).ok_or_else(|| {
        let close = close_matches(ws, id);
        let hint = if close.is_empty() {
            "no close match; search_skills lists ids".to_string()
        } else {
            format!("close matches: {}", close.join(", "))
        };
        RequestError {
            code: "unknown_skill",
            message: format!("no skill has id `{id}`; {hint}"),
            close_matches: close,
        }
    })
}

/// Cut `text` to at most `max` bytes at a character boundary.
fn cut(text: &mut String, max: usize) -> bool {
    if text.len() <= max {
        return false;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    true
}

/// The file `rel` of the library at `root` as it may be read now, by the build's rule
/// (gos-build `discover::check_symlink`): once every symbolic link is resolved it must be a
/// regular file inside the library root. `Ok(None)` when it (or the root) no longer exists,
/// so the caller falls back to what the build stored.
///
/// The build checked the file, but a library can change after it: a SKILL.md swapped for a
/// link to a file outside the library must not be served.
///
/// # Errors
/// `outside_library` (403) when the path now leaves the library or is not a regular file.
pub fn library_file(root: &Path, rel: &str) -> Result<Option<PathBuf>, RequestError> {
    let (Ok(canon_root), Ok(target)) = (root.canonicalize(), root.join(rel).canonicalize()) else {
        return Ok(None);
    };
    if !target.starts_with(&canon_root) {
        return Err(RequestError::new(
            "outside_library",
            format!(
                "`{rel}` is now a symbolic link that leads outside the library, so gos does not \
                 serve it; replace the link with the file itself and rebuild (`gos build` refuses \
                 such links too)"
            ),
        ));
    }
    if !target.is_file() {
        return Err(RequestError::new(
            "outside_library",
            format!("`{rel}` is no longer a regular file in the library; rebuild the workspace"),
        ));
    }
    Ok(Some(target))
}

/// Relative paths of the files under `dir`, sorted, at most [`MAX_FILES`]; symbolic links
/// are not followed, and listed only when they resolve to a file inside `dir`'s library
/// `root` (the build's rule, [`library_file`]).
fn package_files(root: &Path, dir: &Path) -> Vec<String> {
    let canon_root = root.canonicalize().ok();
    let inside = |path: &Path| {
        let target = path.canonicalize().ok();
        match (&canon_root, target) {
            (Some(r), Some(t)) => t.starts_with(r) && t.is_file(),
            _ => false,
        }
    };
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            match entry.file_type() {
                Ok(t) if t.is_dir() => stack.push(path),
                Ok(t) if t.is_symlink() && !inside(&path) => {}
                Ok(_) => {
                    if let Ok(rel) = path.strip_prefix(dir) {
                        out.push(rel.to_string_lossy().replace('\\', "/"));
                    }
                }
                Err(_) => {}
            }
            if out.len() >= MAX_FILES {
                break;
            }
        }
    }
    out.sort();
    out.truncate(MAX_FILES);
    out
}

/// The SKILL.md and file list of `id`.
///
/// # Errors
/// `unknown_skill` with close matches.
pub fn get_skill(
    loaded: &Loaded,
    id: &str,
    limits: &Limits,
) -> Result<SkillDocument, RequestError> {
    let ws = loaded.workspace();
    let i = resolve(ws, id)?;
    let node = &ws.manifest().nodes[i];
    let root = Path::new(&ws.info().library_root);
    let read = match library_file(root, &node.source_path)? {
        Some(path) => std::fs::read(path),
        None => Err(std::io::ErrorKind::NotFound.into()),
    };
    let (mut skill_md, from) = match read {
        Ok(bytes) => (String::from_utf8_lossy(&bytes).into_owned(), "library"),
        Err(_) => {
            let body = ws.lexical().body(i).ok().flatten().unwrap_or_default();
            (body, "index")
        }
    };
    let truncated = cut(&mut skill_md, limits.max_skill_bytes);
    Ok(SkillDocument {
        id: node.id.clone(),
        name: node.name.clone(),
        description: node.description.value.clone(),
        source: node.source_path.clone(),
        skill_md,
        truncated,
        skill_md_from: from.to_string(),
        files: package_files(root, &root.join(&node.id)),
    })
}

/// The SKILL.md text of `id` alone (the MCP resource), cut like [`get_skill`].
///
/// # Errors
/// `unknown_skill` with close matches.
pub fn skill_md(loaded: &Loaded, id: &str, limits: &Limits) -> Result<String, RequestError> {
    get_skill(loaded, id, limits).map(|d| d.skill_md)
}

/// The graph neighbourhood of `id`.
///
/// # Errors
/// `unknown_skill` with close matches.
pub fn neighbors(loaded: &Loaded, id: &str) -> Result<Neighborhood, RequestError> {
    let ws = loaded.workspace();
    let i = resolve(ws, id)?;
    let nodes = &ws.manifest().nodes;
    let graph = ws.graph();
    let neighbor = |other: usize, e: &gos_core::SkillEdge| Neighbor {
        id: nodes[other].id.clone(),
        name: nodes[other].name.clone(),
        edge_type: e.edge_type.as_str().to_string(),
        provenance: e.provenance.as_str().to_string(),
        weight: e.weight,
        evidence: e.evidence.clone(),
    };
    let directed = |t: EdgeType| matches!(t, EdgeType::Dependency | EdgeType::Workflow);
    let mut prerequisites = Vec::new();
    let mut dependents = Vec::new();
    let mut related = Vec::new();
    for (other, e) in graph.incoming(i) {
        if directed(e.edge_type) {
            prerequisites.push(neighbor(other, e));
        } else {
            related.push(neighbor(other, e));
        }
    }
    for (other, e) in graph.outgoing(i) {
        if directed(e.edge_type) {
            dependents.push(neighbor(other, e));
        } else if !related
            .iter()
            .any(|r: &Neighbor| r.id == nodes[other].id && r.edge_type == e.edge_type.as_str())
        {
            related.push(neighbor(other, e));
        }
    }
    for list in [&mut prerequisites, &mut dependents, &mut related] {
        list.sort_by(|a, b| b.weight.total_cmp(&a.weight).then_with(|| a.id.cmp(&b.id)));
    }
    Ok(Neighborhood {
        id: nodes[i].id.clone(),
        name: nodes[i].name.clone(),
        prerequisites,
        dependents,
        related,
    })
}

/// The summary of the state `state` serves now.
pub fn status(state: &ServerState) -> WorkspaceStatus {
    let loaded = state.current();
    let ws = loaded.workspace();
    let info = ws.info();
    let mut edges_by_type = BTreeMap::new();
    for e in ws.graph().edges() {
        *edges_by_type
            .entry(e.edge_type.as_str().to_string())
            .or_insert(0) += 1;
    }
    let built_at_unix = std::fs::metadata(ws.dir().join("workspace.json"))
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_secs());
    let retriever = loaded.retriever();
    WorkspaceStatus {
        workspace: ws.dir().display().to_string(),
        library_root: info.library_root.clone(),
        format_version: info.format_version,
        builder_version: info.builder_version.clone(),
        skills: ws.len(),
        edges: ws.graph().edge_count(),
        edges_by_type,
        built_at_unix,
        vectors_model: ws.dense().map(|d| d.info.model.clone()),
        encoder_model: loaded.encoder_model().map(str::to_string),
        seed_source: retriever
            .seed_source(gos_core::seed::SeedSource::Auto)
            .as_str()
            .to_string(),
        generation: loaded.generation,
        loaded_at_unix: loaded.loaded_at_unix,
        load_ms: loaded.open_ms,
        last_reload_error: state.last_failure().map(|f| f.reason),
        server_version: env!("CARGO_PKG_VERSION").to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cutting_keeps_whole_characters() {
        let mut s = "aé".repeat(3); // 9 bytes
        assert!(cut(&mut s, 5)); // byte 5 is inside the second 'é' (bytes 4..6)
        assert_eq!(s, "aéa");
        let mut short = "abc".to_string();
        assert!(!cut(&mut short, 3));
        assert_eq!(short, "abc");
    }
}
