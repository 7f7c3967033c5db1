//! `gos`: dependency-aware retrieval of agent skills, from the command line.
//!
//! All flags are defined in this file; each subcommand's work lives in its own module.

mod build_cmd;
mod encoder_arg;
mod eval_cmd;
mod llm_args;
mod progress;
mod rerank_args;
mod retrieve_cmd;
mod stats_cmd;
mod synth_cmd;

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
    /// Write a synthetic skill library and labelled tasks (scale benchmarks).
    Synth(SynthArgs),
}

/// Arguments of `gos synth`.
#[derive(Debug, clap::Args)]
struct SynthArgs {
    /// Number of skill packages (10 to 10,000,000).
    #[arg(long)]
    skills: usize,
    /// Seed; the same (skills, seed) pair always writes the same files.
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Most tasks written to tasks.jsonl (one per planted chain).
    #[arg(long, default_value_t = 200)]
    tasks: usize,
    /// Output folder: OUT/library/ and OUT/tasks.jsonl (OUT/library must not exist).
    #[arg(long)]
    out: PathBuf,
    /// Print a JSON summary on stdout.
    #[arg(long)]
    json: bool,
    /// No progress bar.
    #[arg(short, long)]
    quiet: bool,
}

/// Arguments of `gos build`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Exit status: 0 built, 3 built but the LLM layer could not serve every node (report: llm.skipped), 1 error. LLM setup: docs/llm.md."
)]
struct BuildArgs {
    /// Library root: a folder whose subfolders hold SKILL.md packages.
    library: PathBuf,
    /// Workspace directory to create or replace (replaced atomically at the end). It must be a new
    /// path, an empty directory or a workspace gos built, outside the library; anything else is
    /// refused and left untouched.
    #[arg(short = 'w', long, env = "GOS_WORKSPACE")]
    workspace: PathBuf,
    /// Least I/O overlap score (zeta) for a dependency edge, in (0, 1].
    #[arg(long, default_value_t = 0.6)]
    dependency_threshold: f64,
    /// Most producers kept per consumer for I/O dependency edges.
    #[arg(long, default_value_t = 5)]
    max_producers: usize,
    /// Sentence encoder directory in Hugging Face layout (config.json, tokenizer.json,
    /// model.safetensors), e.g. models/all-MiniLM-L6-v2 from scripts/setup-model.sh. With it the
    /// workspace gets skill vectors for dense and hybrid seeds; without it, lexical only.
    #[arg(long, env = "GOS_MODEL_DIR")]
    model_dir: Option<PathBuf>,
    /// Build without vectors even when GOS_MODEL_DIR is set.
    #[arg(long)]
    no_embed: bool,
    /// Replace a non-empty workspace even when this build finds no usable package or skips more
    /// than half of them (refused without it, as a likely wrong library path).
    #[arg(long)]
    force: bool,
    /// Text of each skill that is embedded: description, card, body or sectioned.
    #[arg(long, default_value = "card")]
    view: String,
    /// Texts per encoder forward pass.
    #[arg(long, default_value_t = gos_core::dense::encoder::DEFAULT_BATCH_SIZE)]
    embed_batch: usize,
    /// Libraries with at least this many skills also get an HNSW index (exact search below).
    #[arg(long, default_value_t = gos_core::dense::index::DEFAULT_HNSW_THRESHOLD)]
    hnsw_threshold: usize,
    /// Device of the sentence encoder: cpu, or cuda:N with a `--features cuda` build.
    #[arg(long, default_value = "cpu")]
    device: String,
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
    /// PPR solver: push (local forward push, error stated per query) or exact (power
    /// iteration to an L1 change of 1e-6).
    #[arg(long, default_value = "push")]
    ppr: String,
    /// Most skills in the bundle.
    #[arg(long, default_value_t = 8)]
    top_n: usize,
    /// Most characters per skill block (header lines included).
    #[arg(long, default_value_t = 2400)]
    max_chars_per_skill: usize,
    /// Most characters of the whole rendered context.
    #[arg(long, default_value_t = 12000)]
    max_context_chars: usize,
    /// First-stage seeds: lexical (BM25), dense (sentence encoder), or hybrid (both, fused).
    /// Default: hybrid when the workspace has vectors, else lexical.
    #[arg(long)]
    seeds: Option<String>,
    #[command(flatten)]
    dense: encoder_arg::DenseArgs,
    /// Lexical relevance floor (lexical seeds): NO_SKILL_HIT when the best BM25 score divided
    /// by the query's idf mass is below it (default 0.5).
    #[arg(long)]
    min_score: Option<f32>,
    /// Dense relevance floor (dense and hybrid seeds): NO_SKILL_HIT when the best query-skill
    /// cosine is below it.
    #[arg(long, default_value_t = gos_core::retrieve::DEFAULT_MIN_DENSE_SCORE)]
    min_dense_score: f32,
    /// Reranking after diffusion: `fields` (graph score and field evidence) or
    /// `cross-encoder` (then a cross-encoder over the top candidates; needs --reranker-dir).
    #[arg(long, default_value = "fields", value_parser = ["fields", "cross-encoder"])]
    rerank: String,
    #[command(flatten)]
    cross_encoder: rerank_args::CrossEncoderArgs,
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
    /// no-graph; seeds lexical, dense, hybrid; reranker cross-encoder (needs
    /// --reranker-dir). Intervals compare each arm with the first reverse arm.
    #[arg(long, default_value = gos_eval::DEFAULT_ARMS)]
    arms: String,
    #[command(flatten)]
    dense: encoder_arg::DenseArgs,
    #[command(flatten)]
    cross_encoder: rerank_args::CrossEncoderArgs,
    /// PPR solver of the graph arms: exact (power iteration, the reference) or push.
    #[arg(long, default_value = "exact")]
    ppr: String,
    /// Bootstrap resamples.
    #[arg(long, default_value_t = gos_eval::bootstrap::DEFAULT_RESAMPLES)]
    resamples: usize,
    /// Bootstrap seed (recorded in the report).
    #[arg(long, default_value_t = gos_eval::bootstrap::DEFAULT_SEED)]
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
        Command::Synth(args) => synth_cmd::run(args).map(|()| ExitCode::SUCCESS),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
