//! Parsed SKILL.md packages: the output of discovery and parsing, before normalization.
//!
//! A package is a directory holding a `SKILL.md`. [`discover`] walks a library root and lists
//! package directories; [`parse_package`] reads one package into a [`SkillPackage`], recovering
//! from the damage real packages carry (BOM, CRLF, tabs in YAML, unquoted `: ` in values) and
//! recording each recovery, or returns a [`ParseError`] that names the file and the problem.
//!
//! This module is the public face of the stage; the work is done in private modules that
//! never point back here (discovery, parsing, markdown, the types in `parsed`).

pub use crate::discover::{Discovery, discover};
pub use crate::error::ParseError;
pub use crate::frontmatter::Frontmatter;
pub use crate::parse::{parse_bytes, parse_package};
pub use crate::parsed::{CodeBlock, Section, SkillPackage};
