//! The parsed form of a package ([`SkillPackage`] and its parts), produced by
//! [`crate::package::parse_package`] and read by normalization.

use crate::frontmatter::Frontmatter;

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
