//! The integration tests of gos-build, one binary (`tests/it/`): a module per former test file, so
//! the crate's tests link once.

mod build_workspace;
mod concurrent_builds;
mod duplicates;
mod embed_workspace;
mod fuzz_regressions;
mod libraries;
mod lint;
mod llm_build;
mod llm_secrets;
mod parse_odd_skills;
mod semantic_walk;
mod stage_caches;
mod stated_prerequisites;
mod vector_stage_cache;
mod watch;
