//! The retrieval core of gos: dependency-aware retrieval of agent skills.
//!
//! An agent's skill library holds thousands of packages (folders with a `SKILL.md`). For one
//! task, gos returns the smallest *bundle* of skills that is enough to do it: the skills that
//! match the task, plus the prerequisites those skills need (parsers, converters, setup steps)
//! even when the task never names them. The method is Graph of Skills (GoS): a typed skill graph
//! built offline, and reverse-aware Personalized PageRank at query time.
//!
//! # Using it
//!
//! A [`Workspace`] is what `gos build` (the `gos-build` crate) writes for a library. Open it,
//! make a [`Retriever`], and ask:
//!
//! ```
//! # let tmp = tempfile::tempdir()?;
//! # let dir = tmp.path().join("ws");
//! # let library = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/library");
//! # gos_build::build_workspace(
//! #     &gos_build::BuildOptions {
//! #         library,
//! #         workspace: dir.clone(),
//! #         relate: Default::default(),
//! #         embed: None,
//! #         force: false,
//! #     },
//! #     &gos_build::build::NoProgress,
//! # )?;
//! use gos_core::{RetrievalStatus, RetrieveOptions, Retriever, Workspace};
//!
//! let ws = Workspace::open(&dir)?;
//! // Lexical seeds; `gos_models::retriever` adds the workspace's sentence encoder when it has
//! // vectors (then seeds are hybrid).
//! let retriever = Retriever::new(ws);
//! let r = retriever.retrieve(
//!     "Make a choropleth map of population density from a county shapefile",
//!     &RetrieveOptions::default(),
//! )?;
//! assert_eq!(r.bundle.status, RetrievalStatus::SkillHit);
//! for skill in &r.bundle.skills {
//!     println!("{} ({:.3}): {}", skill.id, skill.score, skill.reason);
//! }
//! // `r.bundle.rendered_context` is the text to put into the agent's prompt.
//! assert!(r.bundle.rendered_context.len() <= RetrieveOptions::default().budgets.max_context_chars);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # The pipeline
//!
//! [`Retriever::retrieve`] runs five stages, each a module with one job:
//!
//! 1. **seed** ([`seed`]): a [`seed::Seeder`] (lexical BM25 over [`lexical`], dense cosine over
//!    [`dense`], or hybrid, fused by [`fusion`]) gives the first-stage pool; its top entries are
//!    the seed set, weighted by score;
//! 2. **diffuse** ([`diffuse`]): the seed weights form a personalization vector, spread over a
//!    sparse row-stochastic transition matrix by reverse-aware Personalized PageRank ([`ppr`]),
//!    or by one of the ablation modes ([`RetrievalMode`]); which edges make a prerequisite is
//!    [`prerequisite`];
//! 3. **rerank** ([`rerank`]): graph score and field evidence are mixed
//!    ([`rerank::FieldEvidence`]), optionally followed by a cross-encoder ([`rerank::CrossEncoderReranker`] over a
//!    [`rerank::PairScorer`]);
//! 4. **decide** ([`relevance`]): the relevance floors say whether anything is relevant
//!    (SKILL_HIT or NO_SKILL_HIT, with the reason);
//! 5. **hydrate** ([`hydrate`]): skills are rendered into a bundle under character budgets.
//!
//! The crate has no network code. Errors are typed ([`Error`]).

#![warn(missing_docs)]

pub mod candidate;
pub mod dense;
pub mod diffuse;
pub mod duplicates;
pub mod error;
pub mod facets;
pub mod fusion;
pub mod graph;
pub mod hydrate;
pub mod lexical;
pub mod manifest;
pub mod mode;
pub mod ppr;
pub mod prerequisite;
pub mod query;
pub mod relevance;
pub mod rerank;
pub mod retrieve;
pub mod rng;
pub mod sanitize;
pub mod seed;
pub mod skill;
pub mod text;
pub mod workspace;
pub mod workspace_lock;

pub use error::{Error, Result};
pub use graph::{EdgeProvenance, EdgeType, SkillEdge, SkillGraph};
pub use hydrate::{Budgets, Bundle, BundleSkill, RetrievalStatus};
pub use manifest::Manifest;
pub use query::Query;
pub use retrieve::{RetrievalMode, RetrieveOptions, Retriever};
pub use skill::ContentWarning;
pub use skill::{Field, Provenance, SkillNode};
pub use workspace::Workspace;
