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
//! 1. **seed** ([`seed`]): a [`seed::Seeder`] (lexical BM25 over [`index::lexical`], dense
//!    cosine over [`index::dense`], or hybrid, fused by [`seed::fusion`]) gives the first-stage
//!    pool; its top entries are the seed set, weighted by score;
//! 2. **diffuse** ([`diffuse`]): the seed weights form a personalization vector, spread over a
//!    sparse row-stochastic transition matrix by reverse-aware Personalized PageRank
//!    ([`graph::ppr`]), or by one of the ablation modes ([`RetrievalMode`]); which edges make a
//!    prerequisite is [`graph::prerequisite`];
//! 3. **rerank** ([`rerank`]): graph score and field evidence are mixed
//!    ([`rerank::FieldEvidence`], [`rerank::mix`]), optionally followed by a cross-encoder
//!    ([`rerank::CrossEncoderReranker`] over a [`PairScorer`]);
//! 4. **decide** ([`relevance`]): the relevance floors say whether anything is relevant
//!    (SKILL_HIT or NO_SKILL_HIT, with the reason);
//! 5. **hydrate** ([`hydrate`]): skills are rendered into a bundle under character budgets.
//!
//! # Where things are
//!
//! The modules in the order of the data flow:
//!
//! | module | what it holds |
//! | --- | --- |
//! | [`skill`] | the data model of one skill: [`SkillNode`], its fields with provenance, content warnings |
//! | [`graph`] | the typed skill graph ([`SkillGraph`], [`SkillEdge`]); [`graph::ppr`]: the transition matrix and the PPR solvers; [`graph::prerequisite`]: the dependency-edge rule |
//! | [`workspace`] | what `gos build` writes and [`Workspace::open`] reads: [`workspace::manifest`], [`workspace::duplicates`] (near-duplicate groups), [`workspace::lock`] (the build lock) |
//! | [`index`] | what the first stage searches: [`index::lexical`] (tantivy BM25, its analyzer and field boosts), [`index::dense`] (skill vectors, exact or HNSW search, [`index::dense::TextView`], [`TextEmbedder`]) |
//! | [`query`] | the query as the stages see it: its terms, boosts and embeddings, markup handling |
//! | [`seed`] | the first stage: seeders, seed sources and parameters, [`seed::fusion`] of the lexical and dense lists |
//! | [`diffuse`] | the graph operation of each [`RetrievalMode`] |
//! | [`rerank`] | the rerankers, the candidate ([`rerank::RankedSkill`]), the score mixing ([`rerank::mix`]) and the model interface of the cross-encoder stage ([`PairScorer`]) |
//! | [`relevance`] | the relevance floors and the hit / no-hit decision |
//! | [`hydrate`] | the bundle under character budgets, its framing, and [`hydrate::sanitize`] for untrusted text |
//! | [`retrieve`] | [`Retriever`] (the pipeline), [`RetrieveOptions`], the candidate list, the reasons, the query limits |
//! | [`error`], [`text`], [`rng`] | typed errors; text clipping; the deterministic random source |
//! | [`facets`], [`prerequisite`] | experimental options, off by default (facet coverage; prerequisite reservation) |
//!
//! Each stage depends only on the modules above it and the utilities ([`retrieve`] uses them
//! all, the experimental options included); no module depends on another in a cycle. The
//! models live in the `gos-models` crate, behind [`TextEmbedder`] and [`PairScorer`]. The
//! crate has no network code. Errors are typed ([`Error`]).

#![warn(missing_docs)]

pub mod skill;

pub mod graph;

pub mod workspace;

pub mod index;

pub mod query;

pub mod seed;

pub mod diffuse;

pub mod rerank;

pub mod relevance;

pub mod hydrate;

pub mod retrieve;

pub mod error;
pub mod rng;
pub mod text;

// Experimental options (off by default), where they were; a later step moves them.
pub mod facets;
pub mod prerequisite;

pub mod param;

pub use diffuse::RetrievalMode;
pub use error::{Error, Result};
pub use graph::{EdgeProvenance, EdgeType, SkillEdge, SkillGraph};
pub use hydrate::{Budgets, Bundle, BundleSkill, RetrievalStatus};
pub use index::dense::TextEmbedder;
pub use query::Query;
pub use rerank::PairScorer;
pub use retrieve::{RetrieveOptions, Retriever};
pub use skill::{ContentWarning, Field, Provenance, SkillNode};
pub use workspace::Workspace;
pub use workspace::manifest::Manifest;
