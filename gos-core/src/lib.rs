//! The retrieval core of gos: dependency-aware retrieval of agent skills.
//!
//! A *workspace* (built offline by `gos-build`) holds a manifest of [`SkillNode`]s, a typed
//! [`SkillGraph`] of relations between them, and a BM25 [`lexical`] index. At query time a
//! [`Retriever`] runs the online stages of the Graph-of-Skills method:
//!
//! 1. **seeds**: BM25 over the normalized fields gives a seed set with weights ([`seed`]);
//! 2. **diffusion**: the seed weights form a personalization vector, spread over a sparse
//!    row-stochastic transition matrix by reverse-aware Personalized PageRank ([`ppr`]), or by
//!    one of the ablation modes ([`RetrievalMode`]);
//! 3. **rerank**: graph score and field evidence are combined ([`rerank`]), optionally
//!    followed by a cross-encoder over the top candidates ([`cross_encoder`]);
//! 4. **hydration**: skills are rendered into a bundle under character budgets ([`hydrate`]).
//!
//! The crate has no network code. Errors are typed ([`Error`]).

pub mod cross_encoder;
pub mod dense;
pub mod device;
pub mod error;
pub mod graph;
pub mod hydrate;
pub mod lexical;
pub mod manifest;
mod model_dir;

pub mod ppr;
pub mod rerank;
pub mod retrieve;
pub mod rng;
pub mod seed;
pub mod skill;
pub mod text;
pub mod workspace;

pub use error::{Error, Result};
pub use graph::{EdgeProvenance, EdgeType, SkillEdge, SkillGraph};
pub use hydrate::{Budgets, Bundle, BundleSkill, RetrievalStatus};
pub use manifest::Manifest;
pub use retrieve::{RetrievalMode, RetrieveOptions, Retriever};
pub use skill::{Field, Provenance, SkillNode};
pub use workspace::Workspace;
