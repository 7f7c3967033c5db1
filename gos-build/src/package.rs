//! Parsed SKILL.md packages: the output of discovery and parsing, before normalization.
//!
//! A package is a directory holding a `SKILL.md`. [`discover`] walks a library root and lists
//! package directories; [`parse_package`] reads one package into a [`SkillPackage`], recovering
//! from the damage real packages carry (BOM, CRLF, tabs in YAML, unquoted `: ` in values) and
//! recording each recovery, or returns a [`ParseError`] that names the file and the problem.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One parsed package, with text normalized to UTF-8 without BOM and with LF line ends.
#[derive(Debug, Clone, PartialEq)]
pub struct SkillPackage {
    /// Package directory relative to the library root, `/`-separated (e.g. `skillsbench/pdf-1`).
    /// When the library root itself holds a SKILL.md, the id is the root directory's name.
    pub id: String,
    /// `SKILL.md` path relative to the library root (`<id>/SKILL.md`).
    pub source_path: String,
    /// Frontmatter mapping; empty when the file has none.
    pub frontmatter: Frontmatter,
    /// Markdown body after the frontmatter (whole text when there is no frontmatter).
    pub body: String,
    /// Whole normalized SKILL.md text, frontmatter included.
    pub raw: String,
    /// Sections in document order: one per heading.
    pub sections: Vec<Section>,
    /// Fenced and indented code blocks in document order.
    pub code_blocks: Vec<CodeBlock>,
    /// Bundled regular files relative to the package directory, sorted, `SKILL.md` excluded,
    /// never following symlinks out of the library root.
    pub files: Vec<String>,
    /// Script entrypoints: files under `scripts/` with a script extension
    /// (py, sh, bash, js, mjs, ts, rb, pl, r, jl), relative to the package directory, sorted.
    pub entrypoints: Vec<String>,
    /// Files under `references/` (relative to the package directory), sorted.
    pub references: Vec<String>,
    /// Lower-case hex SHA-256 of the SKILL.md bytes as read from disk.
    pub content_hash: String,
    /// Human-readable notes of what the parser repaired (e.g. "stripped UTF-8 BOM",
    /// "quoted value of `description` containing ': '"). Empty for clean files.
    pub recoveries: Vec<String>,
}

/// The YAML frontmatter as a JSON-like mapping. Keys keep their spelling.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Frontmatter {
    /// Every top-level key with its value converted to JSON (dates become strings).
    pub fields: BTreeMap<String, serde_json::Value>,
}

/// One markdown section: a heading and the text up to the next heading of any level.
///
/// Text before the first heading, when there is any, forms a first section with level 1 and
/// an empty title.
#[derive(Debug, Clone, PartialEq)]
pub struct Section {
    /// Heading level, 1..=6.
    pub level: u8,
    /// Heading text as plain text (inline markup removed); empty for the preamble section.
    pub title: String,
    /// Plain text of the section (paragraphs, list items, inline code), code blocks excluded.
    /// Paragraphs are separated by a blank line and joined into one line each; list items are
    /// one per line, prefixed `- ` (or `N. ` when numbered), nested items indented by two
    /// spaces; table rows are one per line with cells joined by ` | `.
    pub text: String,
}

/// One code block of the body.
#[derive(Debug, Clone, PartialEq)]
pub struct CodeBlock {
    /// Lower-cased info-string language (`python`, `bash`, ...), `None` when absent.
    pub lang: Option<String>,
    /// Code text.
    pub code: String,
}

/// Why a package could not be used. `Display` names the file and the problem.
#[derive(Debug, thiserror::Error)]
pub enum ParseError {
    /// The SKILL.md could not be read.
    #[error("{path}: cannot read: {source}")]
    Io {
        /// File that failed.
        path: PathBuf,
        /// Underlying error.
        source: std::io::Error,
    },
    /// The package cannot become a skill node (empty file, binary content, no usable name...).
    #[error("{path}: {reason}")]
    Unusable {
        /// File concerned.
        path: PathBuf,
        /// What is wrong, in words.
        reason: String,
    },
}

/// A package directory found by [`discover`], or a SKILL.md that discovery refused.
#[derive(Debug, Clone, PartialEq)]
pub struct Discovery {
    /// Package directories relative to the library root, sorted.
    pub packages: Vec<PathBuf>,
    /// `(path relative to root, reason)` for SKILL.md files refused (e.g. symlink out of root).
    pub refused: Vec<(String, String)>,
}

impl Frontmatter {
    /// String value of `key` (strings as they are, numbers and booleans in string form; lists
    /// joined with ", "); `None` when absent, null or empty after trimming.
    pub fn get_str(&self, key: &str) -> Option<String> {
        crate::frontmatter::value_to_string(self.fields.get(key)?)
    }

    /// List value of `key`: a list gives its items' string forms; a string gives itself as one
    /// item; a mapping gives `key: value` items. Empty items are dropped.
    pub fn get_list(&self, key: &str) -> Vec<String> {
        self.fields
            .get(key)
            .map(crate::frontmatter::value_to_list)
            .unwrap_or_default()
    }
}

/// Walk `root` for directories holding a file named `SKILL.md` (also accepts `skill.md` in any
/// case), in sorted order, without following symlinked directories, and refusing SKILL.md
/// symlinks whose target resolves outside `root`. Skips `.git` and `node_modules`.
///
/// # Errors
/// Only when `root` itself cannot be read.
pub fn discover(root: &Path) -> Result<Discovery, ParseError> {
    crate::discover::discover(root)
}

/// Read and parse the package at `root/rel_dir`.
///
/// # Errors
/// [`ParseError`] when the package cannot become a node; every other defect is repaired and
/// noted in [`SkillPackage::recoveries`].
pub fn parse_package(root: &Path, rel_dir: &Path) -> Result<SkillPackage, ParseError> {
    crate::parse::parse_package(root, rel_dir)
}
