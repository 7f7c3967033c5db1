//! The integration tests of gos-cli, one binary (`tests/it/`): a module per former test file, so
//! the crate's tests link once.

mod agents_cli;
mod cli;
mod context_parse;
mod context_parser;
mod coverage_cli;
mod cross_encoder_cli;
mod dense_cli;
mod duplicates_cli;
mod eval_cli;
mod forged_context;
mod libraries_cli;
mod library_matches_cli;
mod llm_cli;
mod mcp_client;
mod mcp_lifecycle;
mod model_identity_cli;
mod models_pull_cli;
mod pipeline_cli;
mod pipeline_real;
mod robustness;
mod serve_http;
mod serve_support;
mod skills_extension;
mod synth_cli;
mod util;
mod web_page;
mod workspace_safety;
