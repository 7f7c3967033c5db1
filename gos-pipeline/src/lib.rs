//! Retrieval pipelines as data: gos, SkillFlow and SkillRouter as presets, and custom mixes
//! (e.g. gos's graph diffusion followed by SkillFlow's rerankers) as TOML files.
//!
//! A pipeline ([`PipelineSpec`]) is an ordered list of stages over a candidate list:
//!
//! | kind | what it does | source of its defaults |
//! | --- | --- | --- |
//! | `gos` | [`gos_core::Retriever::retrieve`]: seeds, diffusion, field-evidence rerank | `gos retrieve` |
//! | `dense` | a bi-encoder ([`gos_core::index::dense::TextEmbedder`]) over a skill text view; union of each query's nearest skills, re-scored by cosine | SkillFlow retriever (t_k = 200, k₁ = 1000, description only) |
//! | `rerank` | a cross-encoder ([`gos_core::rerank::PairScorer`]) over the top candidates, each cut to a character cap | SkillFlow shallow reranker (512 characters, k₂ = 100) |
//! | `llm-queries` | SkillFlow's multi-query generation ([`gos_llm::skillflow`]) | M₁ = 5 |
//! | `llm-select` | SkillFlow's selector | at most 5 skills |
//!
//! [`Pipeline::load`] loads the stages' models; [`Pipeline::run`] runs one task into a
//! [`gos_core::retrieve::Retrieval`] (so the CLI, the server's JSON and `gos eval` treat it as
//! any retrieval) and a [`PipelineTrace`]: per stage, its input and output counts, caps, time,
//! model and fallbacks. LLM failures never fail a run: the stage falls back to its input order
//! (or to the task text as the only query) and the trace says why.
//!
//! This is a crate of its own because its LLM stages need gos-llm, and gos-core stays free of
//! network code (gos-llm depends on gos-core, not the other way round).
//!
//! Dense stages keep document vectors in the workspace ([`doc_vectors`]).

#![warn(missing_docs)]

pub mod doc_vectors;
pub mod error;
pub mod run;
pub mod spec;
pub mod stages;
pub mod view;

pub use error::{Error, Result};
pub use run::{Pipeline, PipelineRun, PipelineTrace, StageTrace};
pub use spec::{PRESETS, PipelineSpec, StageSpec};
pub use view::DocView;
