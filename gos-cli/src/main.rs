//! `gos`: dependency-aware retrieval of agent skills, from the command line.
//!
//! All flags are defined in this file; each subcommand's work lives in its own module.

mod build_cmd;
mod eval_cmd;
mod eval_plots;
mod eval_report;
mod llm_args;
mod progress;
mod retrieve_cmd;
mod stats_cmd;

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

/// Retrieve the skills a task needs, prerequisites included, from a library of SKILL.md
/// packages: build a typed skill graph offline, then query it.
#[derive(Debug, Parser)]
#[command(name = "gos", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Build a workspace (manifest, skill graph, BM25 index) from a skill library.
    Build(BuildArgs),
    /// Retrieve a hydrated skill bundle for a task.
    Retrieve(RetrieveArgs),
    /// Show node and edge counts of a workspace.
    Stats(StatsArgs),
    /// Evaluate retrieval arms on a labelled task set (ablation harness).
    Eval(EvalArgs),
}

/// Arguments of `gos build`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Exit status: 0 built, 3 built but the LLM layer could not serve every node (report: llm.skipped), 1 error. LLM setup: docs/llm.md."
)]
struct BuildArgs {
    /// Library root: a folder whose subfolders hold SKILL.md packages.
    library: PathBuf,
    /// Workspace directory to create or replace (replaced atomically at the end).
    #[arg(short = 'w', long, env = "GOS_WORKSPACE")]
    workspace: PathBuf,
    /// Least I/O overlap score (zeta) for a dependency edge, in (0, 1].
    #[arg(long, default_value_t = 0.6)]
    dependency_threshold: f64,
    /// Most producers kept per consumer for I/O dependency edges.
    #[arg(long, default_value_t = 5)]
    max_producers: usize,
    /// Print the build report as one JSON object on stdout.
    #[arg(long)]
    json: bool,
    /// No progress bars.
    #[arg(short, long)]
    quiet: bool,
    #[command(flatten)]
    llm: llm_args::LlmArgs,
    #[command(flatten)]
    llm_build: llm_args::LlmBuildArgs,
}

/// Arguments of `gos retrieve`.
#[derive(Debug, clap::Args)]
struct RetrieveArgs {
    /// Workspace directory built by `gos build`.
    #[arg(short = 'w', long, env = "GOS_WORKSPACE")]
    workspace: PathBuf,
    /// Graph operation: reverse (prerequisites via reverse-aware PPR), forward, one-hop,
    /// no-graph.
    #[arg(long, default_value = "reverse")]
    mode: String,
    /// Most skills in the bundle.
    #[arg(long, default_value_t = 8)]
    top_n: usize,
    /// Most characters per skill block (header lines included).
    #[arg(long, default_value_t = 2400)]
    max_chars_per_skill: usize,
    /// Most characters of the whole rendered context.
    #[arg(long, default_value_t = 12000)]
    max_context_chars: usize,
    /// Relevance floor: NO_SKILL_HIT when the best BM25 score divided by the query's idf
    /// mass is below it (default 0.5).
    #[arg(long)]
    min_score: Option<f32>,
    /// Print one JSON object instead of the rendered context.
    #[arg(long)]
    json: bool,
    /// Rewrite the task into a retrieval schema (goal, operations, artifacts, constraints,
    /// keywords) with the LLM first; without an endpoint the task text is used as is.
    #[arg(long)]
    rewrite: bool,
    #[command(flatten)]
    llm: llm_args::LlmArgs,
    /// Task text; `-` reads it from stdin.
    query: String,
}

/// Arguments of `gos stats`.
#[derive(Debug, clap::Args)]
struct StatsArgs {
    /// Workspace directory.
    #[arg(short = 'w', long, env = "GOS_WORKSPACE")]
    workspace: PathBuf,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// Arguments of `gos eval`.
#[derive(Debug, clap::Args)]
struct EvalArgs {
    /// Workspace directory built by `gos build`.
    #[arg(short = 'w', long, env = "GOS_WORKSPACE")]
    workspace: PathBuf,
    /// Labelled tasks, one JSON object a line (`id`, `instruction`, `oracle_skills`,
    /// `oracle_dirs`).
    #[arg(long)]
    tasks: PathBuf,
    /// Output directory for report.json, report.md and the SVG plots.
    #[arg(long)]
    out: PathBuf,
    /// Comma-separated arms, each MODE/SEEDS[/RERANKER]; modes reverse, forward, one-hop,
    /// no-graph; seeds lexical. Intervals compare each arm with the reverse arm.
    #[arg(long, default_value = eval_cmd::DEFAULT_ARMS)]
    arms: String,
    /// Bootstrap resamples.
    #[arg(long, default_value_t = gos_core::bootstrap::DEFAULT_RESAMPLES)]
    resamples: usize,
    /// Bootstrap seed (recorded in the report).
    #[arg(long, default_value_t = gos_core::bootstrap::DEFAULT_SEED)]
    seed: u64,
    /// Print report.json's `arms` and `ci` as one JSON object on stdout.
    #[arg(long)]
    json: bool,
    /// No progress bar.
    #[arg(short, long)]
    quiet: bool,
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("GOS_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .init();
    let cli = Cli::parse();
    let result = match cli.command {
        // `gos build` exits with status 3 when the workspace was written but the LLM layer
        // could not serve every node (docs/llm.md).
        Command::Build(args) => build_cmd::run(args),
        Command::Retrieve(args) => retrieve_cmd::run(args).map(|()| ExitCode::SUCCESS),
        Command::Stats(args) => stats_cmd::run(args).map(|()| ExitCode::SUCCESS),
        Command::Eval(args) => eval_cmd::run(args).map(|()| ExitCode::SUCCESS),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
