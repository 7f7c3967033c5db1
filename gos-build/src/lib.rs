//! The offline builder of gos.
//!
//! `gos-build` turns a folder of skill packages (directories holding a `SKILL.md`) into a gos
//! workspace, in stages:
//!
//! 1. [`package::discover`] lists package directories under the library root ([`roots`]
//!    reads several roots, with labels, `.gosignore` files and id globs);
//! 2. [`package::parse_package`] reads one package (frontmatter, markdown sections, code blocks,
//!    bundled files), repairing what real packages break and noting each repair;
//! 3. [`normalize`] turns a parsed package into a [`gos_core::SkillNode`] with per-field
//!    provenance and deterministic input/output artifact types;
//! 4. [`relate`] induces deterministic dependency edges (I/O overlap through an inverted index,
//!    and explicit mentions of other skills), and [`declared`] reads the dependencies the
//!    frontmatter declares; [`semantic`] (mutual nearest neighbours by vector cosine or BM25,
//!    with shared specific terms) and [`alternative`] (near-duplicates, the same job) add the
//!    symmetric relations once the vectors and the BM25 index exist; [`workflow`] reads
//!    explicit sequencing ("run `x` first", numbered steps naming skills) into workflow edges;
//! 5. [`llm`] (optional) fills empty fields and adds LLM-validated relations through an
//!    OpenAI-compatible endpoint and a response cache;
//! 6. [`embed`] embeds each skill's text view with a local sentence encoder (optional), reusing
//!    the vectors of unchanged texts;
//! 7. [`build`] runs everything and writes the workspace atomically (temporary directory, then
//!    rename), with a [`report::BuildReport`].
//!
//! [`lint`] checks packages against the Agent Skills specification and what gos needs, with
//! the same discovery and parser.
//!
//! The modules form a graph without cycles, [`build`] at the top: shared types sit in their
//! own modules ([`error`], [`progress`], the parsed package types) so the stages use them
//! without pointing back at the pipeline. The LLM client, cache, prompts and service are the
//! `gos-llm` crate; [`llm`] holds only the build-time stages.

#![warn(missing_docs)]

pub mod alternative;
pub mod artifacts;
pub mod build;
pub mod dedup;
pub mod edge_evidence;
pub mod embed;
pub mod error;
pub mod io_filters;
pub mod llm;
pub mod normalize;
pub mod package;
pub mod parse_cache;
pub mod progress;
pub mod relate;
pub mod report;
pub mod semantic;
pub mod warnings;
pub mod workflow;

// Skill libraries as people keep them (issue 13): several roots, declared dependencies, lint.
pub mod declared;
pub mod lint;
pub mod roots;
pub mod watch;

mod discover;
pub mod frontmatter;
mod markdown;
mod parse;
mod parsed;
mod skill_names;
mod stage_cache;

pub use build::{
    BuildOptions, build_library, build_workspace, build_workspace_locked, build_workspace_with,
};
pub use error::BuildError;
pub use report::BuildReport;
pub use roots::{LibrarySpec, Root};
