//! Skill nodes: the normalized, provenance-carrying record of one skill package.

use serde::{Deserialize, Serialize};

/// Where the value of a node field came from.
///
/// The paper (\[P\] §3.1) describes field-level provenance flags; the reference implementation
/// only keeps a per-node flag, so gos records provenance per field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Provenance {
    /// Read or derived deterministically from the package itself.
    Parsed,
    /// Filled by LLM semantic completion; never overwrites a parsed value.
    Inferred {
        /// Model identifier used for the completion.
        model: String,
        /// Hash of the rendered prompt (hex).
        prompt_hash: String,
    },
}

/// A field value with its provenance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Field<T> {
    /// The value.
    pub value: T,
    /// Where it came from.
    pub provenance: Provenance,
}

impl<T> Field<T> {
    /// A value read from the package.
    pub fn parsed(value: T) -> Self {
        Field {
            value,
            provenance: Provenance::Parsed,
        }
    }
}

impl<T: Default> Default for Field<T> {
    fn default() -> Self {
        Field::parsed(T::default())
    }
}

/// One skill of the library, as stored in the manifest.
///
/// The identity is [`SkillNode::id`], the package path relative to the library root, because
/// frontmatter names repeat across collections (several libraries ship a `pdf` skill); the
/// reference implementation keyed nodes by name and silently lost repeated ones (§7.8).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SkillNode {
    /// Stable id: package directory relative to the library root, `/`-separated.
    pub id: String,
    /// Display name: the frontmatter `name`, else the folder name.
    pub name: String,
    /// One- or few-sentence description (frontmatter, else the first body paragraph).
    pub description: Field<String>,
    /// Short capability text: an explicit capability/summary key, else the description's first
    /// sentence.
    pub capability: Field<String>,
    /// Input artifact types, normalized (lower case, e.g. `csv`, `pdf`, `geojson`).
    pub inputs: Field<Vec<String>>,
    /// Output artifact types, normalized like [`SkillNode::inputs`].
    pub outputs: Field<Vec<String>>,
    /// Domain tags (frontmatter tags/category/domain, plus the collection name).
    pub domain_tags: Field<Vec<String>>,
    /// Tools and libraries the skill uses (frontmatter tools/allowed-tools, code languages).
    pub tooling: Field<Vec<String>>,
    /// Example tasks (frontmatter examples, "Use when"/"Examples" sections).
    pub example_tasks: Field<Vec<String>>,
    /// Script entrypoints relative to the package directory (e.g. `scripts/run.py`).
    pub entrypoints: Field<Vec<String>>,
    /// Section headings of the body, in order (used as lexical evidence).
    pub headings: Vec<String>,
    /// `SKILL.md` path relative to the library root; the bundle's `Source:` line.
    pub source_path: String,
    /// Lower-case hex SHA-256 of the SKILL.md bytes.
    pub content_hash: String,
    /// What the build's content rules flagged in the SKILL.md (docs/security.md); empty for
    /// most skills. Absent from manifests written before the rules existed, and omitted from
    /// the JSON when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<ContentWarning>,
}

/// One finding of the build-time content rules (`gos-build::warnings`, docs/security.md):
/// text in a skill package that an agent should not follow blindly, such as piping a download
/// into a shell or asking to print credentials.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContentWarning {
    /// Rule id (`pipe-to-shell`, `base64-to-shell`, `secret-access`, `hidden-unicode`,
    /// `instruction-override`).
    pub rule: String,
    /// What the rule found, in a few words.
    pub message: String,
    /// 1-based line number in the SKILL.md (frontmatter included) of the first hit.
    pub line: usize,
    /// The hit's line, sanitized ([`crate::hydrate::sanitize::inline`]) and clipped to at most 120
    /// characters.
    pub excerpt: String,
}

impl SkillNode {
    /// Collection of the node: the first path component of its id (`skillsbench` for
    /// `skillsbench/pdf-1`), or the empty string for a top-level package.
    pub fn collection(&self) -> &str {
        match self.id.split_once('/') {
            Some((head, _)) => head,
            None => "",
        }
    }

    /// Folder name of the package: the last path component of its id.
    pub fn folder(&self) -> &str {
        self.id.rsplit('/').next().unwrap_or(&self.id)
    }
}
