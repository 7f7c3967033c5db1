//! The manifest: one versioned JSON document listing every skill node of a workspace.
//!
//! The manifest is the unit of reproducibility (\[P\] recommends versioning normalized
//! manifests): it holds no timestamps or timings, nodes are sorted by id, and the same library
//! gives a byte-identical `manifest.json`. Its JSON Schema is `manifests/manifest.schema.json`.

use crate::skill::SkillNode;
use serde::{Deserialize, Serialize};

/// Manifest schema version written by this build. History: `manifests/CHANGELOG.md`.
pub const MANIFEST_SCHEMA_VERSION: u32 = 1;

/// The manifest document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// Always `"gos-manifest"`.
    pub format: String,
    /// [`MANIFEST_SCHEMA_VERSION`] at write time.
    pub schema_version: u32,
    /// Version of the builder that wrote it (`CARGO_PKG_VERSION` of gos-build).
    pub builder_version: String,
    /// Name of the library root directory (its last path component; the absolute path is in
    /// `workspace.json`, so that the manifest does not depend on where the library lives).
    pub library: String,
    /// Nodes sorted by id.
    pub nodes: Vec<SkillNode>,
}

impl Manifest {
    /// A manifest over `nodes`, sorted by id.
    pub fn new(builder_version: &str, library: &str, mut nodes: Vec<SkillNode>) -> Self {
        nodes.sort_by(|a, b| a.id.cmp(&b.id));
        Manifest {
            format: "gos-manifest".to_string(),
            schema_version: MANIFEST_SCHEMA_VERSION,
            builder_version: builder_version.to_string(),
            library: library.to_string(),
            nodes,
        }
    }

    /// Canonical JSON text (pretty-printed, trailing newline).
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("manifest serializes");
        s.push('\n');
        s
    }
}
