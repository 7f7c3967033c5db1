//! Every flag of `gos`, in one place. Defaults come from the libraries' constants; option
//! enums are the libraries' own types (`clap::ValueEnum`), so `--help` lists their values.

use clap::{CommandFactory, Parser, Subcommand};
use gos_core::RetrievalMode;
use gos_core::graph::ppr::PprMethod;
use gos_core::hydrate::{DEFAULT_MAX_CHARS_PER_SKILL, DEFAULT_MAX_CONTEXT_CHARS, DEFAULT_TOP_N};
use gos_core::index::dense::TextView;
use gos_core::relevance::{DEFAULT_MIN_SEED_SCORE, DenseFloor};
use gos_core::rerank::{self, RerankerKind};
use gos_core::seed::{Fusion, SeedSource};
use gos_models::dense::Precision;
use std::path::PathBuf;

/// The `gos` command as clap parses it: [`Cli`]'s flags, with the knob flags described by the
/// parameter registry ([`registry::apply`]). Parse with this, not `Cli::parse`, so `--help`
/// shows the registry's text.
pub fn command() -> clap::Command {
    registry::apply(Cli::command())
}

/// Retrieve the skills a task needs, prerequisites included, from a library of SKILL.md
/// packages: build a typed skill graph offline, then query it.
#[derive(Debug, Parser)]
#[command(name = "gos", version, about, long_about = None)]
pub struct Cli {
    /// The subcommand.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
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
    /// Serve a workspace to an agent over MCP on stdin/stdout (logs go to stderr).
    Mcp(McpArgs),
    /// Serve a workspace over HTTP: JSON API, web page, MCP at /mcp (docs/agents.md).
    Serve(ServeArgs),
    /// Check skill packages against the Agent Skills specification and what gos needs.
    Lint(LintArgs),
    /// Show one skill of a workspace: fields with provenance, near-duplicates, edges.
    Show(ShowArgs),
    /// Export a workspace's skill graph (DOT, GraphML or JSON).
    Export(ExportArgs),
    /// Print a shell completion script.
    Completions(CompletionsArgs),
    /// Fetch and list neural checkpoints (the only command that uses the network).
    Models(ModelsArgs),
    /// Answer an agent harness's prompt hook with a ranked skill listing and the top of the
    /// bundle (docs/agents.md).
    Hook(HookArgs),
    /// Register gos (MCP server and prompt hook) in an agent harness's configuration.
    Install(InstallArgs),
    /// Remove what `gos install` wrote.
    Uninstall(UninstallArgs),
}

/// A finite float (NaN and infinities are refused).
fn finite(s: &str) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|_| format!("`{s}` is not a number"))?;
    if v.is_finite() {
        Ok(v)
    } else {
        Err(format!("`{s}` is not a finite number"))
    }
}

/// A finite `f32`.
fn finite_f32(s: &str) -> Result<f32, String> {
    finite(s).map(|v| v as f32)
}

/// A float in [0, 1].
fn unit_interval(s: &str) -> Result<f64, String> {
    match finite(s)? {
        v if (0.0..=1.0).contains(&v) => Ok(v),
        v => Err(format!("{v} is outside [0, 1]")),
    }
}

/// A cosine floor in [-1, 1] (-1 turns the rule off).
fn cosine_floor(s: &str) -> Result<f32, String> {
    match finite(s)? {
        v if (-1.0..=1.0).contains(&v) => Ok(v as f32),
        v => Err(format!(
            "{v} is outside [-1, 1] (a cosine; -1 turns the rule off)"
        )),
    }
}

/// A float in (0, 1].
fn open_unit_interval(s: &str) -> Result<f64, String> {
    match finite(s)? {
        v if v > 0.0 && v <= 1.0 => Ok(v),
        v => Err(format!("{v} is outside (0, 1]")),
    }
}

/// An integer of at least 1.
fn at_least_one(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        Ok(_) => Err("must be at least 1".into()),
        Err(_) => Err(format!("`{s}` is not a positive integer")),
    }
}

/// A device name the neural models can run on (checked now, so a bad one fails before any
/// work).
fn device(s: &str) -> Result<String, String> {
    gos_models::device::parse_device(s)
        .map(|_| s.to_string())
        .map_err(|e| e.to_string())
}

/// A query encoder precision (`f32` or `int8`).
pub(crate) fn precision(s: &str) -> Result<Precision, String> {
    s.parse().map_err(|e: gos_core::Error| e.to_string())
}

/// A fusion of hybrid seeds.
fn fusion(s: &str) -> Result<Fusion, String> {
    s.parse().map_err(|e: gos_core::Error| e.to_string())
}

/// Arguments of `gos build`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Exit status: 0 built, 3 built but the LLM layer could not serve every node (report: llm.skipped), 1 error. LLM setup: docs/llm.md."
)]
pub struct BuildArgs {
    /// Library roots, `--root`, `--agent-roots`, globs, config file.
    #[command(flatten)]
    pub library: LibraryArgs,
    /// Keep the workspace current: watch the roots and rebuild (incrementally) after each
    /// burst of changes, one line per rebuild, until interrupted.
    #[arg(long)]
    pub watch: bool,
    /// Milliseconds of quiet after a change before `--watch` rebuilds.
    #[arg(long, default_value_t = 500)]
    pub debounce_ms: u64,
    /// Workspace directory to create or replace (replaced atomically at the end). It must be a
    /// new path, an empty directory or a workspace gos built, outside the library; anything
    /// else is refused and left untouched.
    #[arg(short = 'w', long, env = "GOS_WORKSPACE")]
    pub workspace: PathBuf,
    /// Least I/O overlap score (zeta) for a dependency edge, in (0, 1].
    #[arg(long, default_value_t = gos_build::relate::RelateOptions::default().threshold, value_parser = open_unit_interval)]
    pub dependency_threshold: f64,
    /// Most producers kept per consumer for I/O dependency edges.
    #[arg(long, default_value_t = gos_build::relate::RelateOptions::default().max_producers)]
    pub max_producers: usize,
    /// Sentence encoder directory in Hugging Face layout (config.json, tokenizer.json,
    /// model.safetensors), e.g. models/all-MiniLM-L6-v2 from scripts/setup-model.sh. With it the
    /// workspace gets skill vectors for dense and hybrid seeds; without it, lexical only.
    #[arg(long, env = "GOS_MODEL_DIR")]
    pub model_dir: Option<PathBuf>,
    /// Build without vectors even when GOS_MODEL_DIR is set.
    #[arg(long)]
    pub no_embed: bool,
    /// Replace a non-empty workspace even when this build finds no usable package or skips
    /// more than half of them (refused without it, as a likely wrong library path).
    #[arg(long)]
    pub force: bool,
    /// Text of each skill that is embedded.
    #[arg(long, value_enum, default_value_t = TextView::default())]
    pub view: TextView,
    /// Texts per encoder forward pass.
    #[arg(long, default_value_t = gos_build::embed::DEFAULT_BATCH_SIZE, value_parser = at_least_one)]
    pub embed_batch: usize,
    /// Libraries with at least this many skills also get an HNSW index (exact search below).
    #[arg(long, default_value_t = gos_core::index::dense::search::DEFAULT_HNSW_THRESHOLD)]
    pub hnsw_threshold: usize,
    /// Device of the sentence encoder: cpu, cuda or cuda:N (cuda needs a `--features cuda`
    /// build).
    #[arg(long, default_value = "cpu", value_parser = device)]
    pub device: String,
    /// Print the build report as one JSON object on stdout.
    #[arg(long)]
    pub json: bool,
    /// No progress bars.
    #[arg(short, long)]
    pub quiet: bool,
    /// LLM endpoint.
    #[command(flatten)]
    pub llm: LlmArgs,
    /// LLM build stages.
    #[command(flatten)]
    pub llm_build: LlmBuildArgs,
    /// Fail at once when another build is writing the same workspace (default: wait for it,
    /// saying which process holds the lock).
    #[arg(long)]
    pub no_wait: bool,
}

/// Arguments of `gos retrieve`.
#[derive(Debug, clap::Args)]
pub struct RetrieveArgs {
    /// Workspace directory built by `gos build`.
    #[arg(
        help_heading = "Input/output",
        short = 'w',
        long,
        env = "GOS_WORKSPACE"
    )]
    pub workspace: PathBuf,
    /// Graph operation.
    #[arg(help_heading = "Graph", long, value_enum, default_value_t = RetrievalMode::default())]
    pub mode: RetrievalMode,
    /// PPR solver: push (local forward push, error stated per query) or exact (power
    /// iteration to an L1 change of 1e-6).
    #[arg(help_heading = "Graph", long, value_enum, default_value_t = PprMethod::default())]
    pub ppr: PprMethod,
    /// Most skills in the bundle.
    #[arg(help_heading = "Bundle", long, default_value_t = DEFAULT_TOP_N, value_parser = at_least_one)]
    pub top_n: usize,
    /// Most characters per skill block (header lines included).
    #[arg(help_heading = "Bundle", long, default_value_t = DEFAULT_MAX_CHARS_PER_SKILL)]
    pub max_chars_per_skill: usize,
    /// Most characters of the whole rendered context.
    #[arg(help_heading = "Bundle", long, default_value_t = DEFAULT_MAX_CONTEXT_CHARS)]
    pub max_context_chars: usize,
    /// First-stage seeds (auto: hybrid when the workspace has vectors, else lexical).
    #[arg(help_heading = "Seeds", long, value_enum, default_value_t = SeedSource::default())]
    pub seeds: SeedSource,
    /// Dense and hybrid seeding.
    #[command(flatten)]
    pub dense: DenseArgs,
    /// Lexical relevance floor (lexical seeds): NO_SKILL_HIT when the best BM25 score divided
    /// by the query's idf mass is below it.
    #[arg(help_heading = "Relevance", long, alias = "min-score", default_value_t = DEFAULT_MIN_SEED_SCORE, value_parser = finite_f32, allow_negative_numbers = true)]
    pub min_seed_score: f32,
    /// Dense relevance floor (dense and hybrid seeds): NO_SKILL_HIT when the best query-skill
    /// cosine is below it. `auto` grows with the library, 0.15 + 0.05·sqrt(2 ln N) for N
    /// skills (0.28 for 36 skills, 0.36 for 5,584); a number is a fixed cosine
    #[arg(help_heading = "Relevance", long, value_name = "auto|COSINE", default_value_t = DenseFloor::Auto, allow_negative_numbers = true)]
    pub min_dense_score: DenseFloor,
    /// Reranking after diffusion (cross-encoder needs --reranker-dir).
    #[arg(help_heading = "Rerank", long, value_enum, default_value_t = RerankerKind::default())]
    pub rerank: RerankerKind,
    /// Cross-encoder reranking.
    #[command(flatten)]
    pub cross_encoder: CrossEncoderArgs,
    /// Print one JSON object instead of the rendered context.
    #[arg(help_heading = "Input/output", long)]
    pub json: bool,
    /// Rewrite the task into a retrieval schema (goal, operations, artifacts, constraints,
    /// keywords) with the LLM first; without an endpoint the task text is used as is.
    #[arg(help_heading = "LLM", long)]
    pub rewrite: bool,
    /// LLM endpoint (for --rewrite).
    #[command(flatten)]
    pub llm: LlmArgs,
    /// Leave out skills the build flagged with content warnings (docs/security.md).
    #[arg(help_heading = "Bundle", long)]
    pub exclude_flagged: bool,
    /// Write Source paths as absolute paths under the workspace's library root.
    #[arg(help_heading = "Bundle", long)]
    pub absolute_paths: bool,
    /// Keep one member per near-duplicate group of the workspace (at the group's best rank,
    /// the copy the query matches best) and list the others as its alternates. The default already does this and more (one slot per
    /// alternative group, `collapse_alternatives`); `--set collapse_alternatives=false` lets
    /// every copy compete for a slot.
    #[arg(help_heading = "Bundle", long)]
    pub collapse_duplicates: bool,
    /// Adaptive bundle size: end the bundle at the first skill whose final score is below
    /// this share of the best one (0 = off; `--top-n` stays the maximum; the default is
    /// cross-validated, docs/graph-quality.md).
    #[arg(help_heading = "Bundle", long, default_value_t = gos_core::retrieve::cut::DEFAULT_BUNDLE_FLOOR, value_parser = unit_interval)]
    pub bundle_floor: f64,
    /// Adaptive bundle size: end the bundle at the first skill whose final score is below
    /// this share of the score just above it (0 = off; the default is cross-validated,
    /// docs/graph-quality.md).
    #[arg(help_heading = "Bundle", long, default_value_t = gos_core::retrieve::cut::DEFAULT_BUNDLE_GAP, value_parser = unit_interval)]
    pub bundle_gap: f64,
    /// Adaptive bundle size: end the bundle at the first first-stage skill whose cosine with
    /// the query is below this, whatever its lexical match (dense and hybrid seeds; -1 = off;
    /// the default is the encoder's unrelated-pair level, docs/graph-quality.md "Session 21").
    #[arg(help_heading = "Bundle", long, default_value_t = gos_core::retrieve::cut::DEFAULT_BUNDLE_MIN_COSINE, value_parser = cosine_floor, allow_negative_numbers = true)]
    pub bundle_min_cosine: f32,
    /// Task text; `-` reads it from stdin.
    pub query: String,

    // Retrieval pipelines (issue 15, docs/pipelines.md).
    /// Run a retrieval pipeline: a preset (gos, skillflow, skillrouter) or a TOML pipeline
    /// file; --json adds a `pipeline` trace of every stage.
    #[arg(help_heading = "Pipeline", long, value_name = "NAME|FILE.toml")]
    pub pipeline: Option<String>,
    /// Models of the pipeline's stages.
    #[command(flatten)]
    pub stage_models: StageModelArgs,

    /// Query handling (issue 14 item 5).
    #[command(flatten)]
    pub query_handling: query::QueryArgs,
    /// Set any retrieval parameter of the registry, NAME=VALUE (repeatable; applied after the
    /// flags): the experimental ones (coverage, prereq_slots, markup, max_term_df,
    /// min_coverage, ...) and tuning knobs without a flag (seed_k, graph_weight, ...); names
    /// and ranges in docs/evaluation.md, "Parameters".
    #[arg(long = "set", value_name = "NAME=VALUE", help_heading = "Experimental")]
    pub set: Vec<String>,
}

/// Arguments of `gos stats`.
#[derive(Debug, clap::Args)]
pub struct StatsArgs {
    /// Workspace directory.
    #[arg(short = 'w', long, env = "GOS_WORKSPACE")]
    pub workspace: PathBuf,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `gos eval`.
#[derive(Debug, clap::Args)]
pub struct EvalArgs {
    /// Workspace directory built by `gos build`.
    #[arg(short = 'w', long, env = "GOS_WORKSPACE")]
    pub workspace: PathBuf,
    /// Labelled tasks, one JSON object a line (`id`, `instruction`, `oracle_skills`,
    /// `oracle_dirs`).
    #[arg(long)]
    pub tasks: PathBuf,
    /// Output directory for report.json, report.md and the SVG plots.
    #[arg(long)]
    pub out: PathBuf,
    /// Comma-separated arms, each MODE/SEEDS[/RERANKER]; modes reverse, forward, one-hop,
    /// no-graph; seeds lexical, dense, hybrid; reranker cross-encoder (needs
    /// --reranker-dir). Intervals compare each arm with the first reverse arm. An arm may
    /// also be a pipeline, pipeline:gos|skillflow|skillrouter|FILE.toml (docs/pipelines.md).
    #[arg(long, default_value = gos_eval::DEFAULT_ARMS)]
    pub arms: String,
    /// Dense and hybrid seeding.
    #[command(flatten)]
    pub dense: DenseArgs,
    /// Cross-encoder reranking.
    #[command(flatten)]
    pub cross_encoder: CrossEncoderArgs,
    /// PPR solver of the graph arms: exact (power iteration, the reference) or push.
    #[arg(long, value_enum, default_value_t = PprMethod::Exact)]
    pub ppr: PprMethod,
    /// Bootstrap resamples.
    #[arg(long, default_value_t = gos_eval::bootstrap::DEFAULT_RESAMPLES)]
    pub resamples: usize,
    /// Bootstrap seed (recorded in the report).
    #[arg(long, default_value_t = gos_eval::bootstrap::DEFAULT_SEED)]
    pub seed: u64,
    /// Print report.json's `arms` and `ci` as one JSON object on stdout.
    #[arg(long)]
    pub json: bool,
    /// No progress bar.
    #[arg(short, long)]
    pub quiet: bool,
    /// A peer retriever scored as one more arm (`peer`) in the same report: an executable run
    /// as `PROGRAM --library ROOT --tasks TASKS --top 50` that prints one JSON line per task,
    /// {"id", "ranked": [package ids], "ms"}; e.g. benches/peer_bm25.py, the skill-usage
    /// server's BM25 (docs/evaluation.md).
    #[arg(long, value_name = "PROGRAM")]
    pub peer: Option<PathBuf>,
    /// Library root given to the peer (default: the library the workspace was built from).
    #[arg(long, value_name = "DIR", requires = "peer")]
    pub peer_library: Option<PathBuf>,
    /// Cross-validate a parameter sweep with K folds over the tasks instead of comparing arms:
    /// the first arm runs at every point of the --sweep grid; writes cv.json and cv.md with
    /// in-sample and out-of-fold figures.
    #[arg(long, value_name = "K")]
    pub cv: Option<usize>,
    /// A swept parameter, NAME=V1,V2,... (repeatable; the grid is their product): a numeric
    /// parameter of the registry (gos_core::param), e.g. seed_k, restart_prob, graph_weight,
    /// top_n, min_seed_score, prereq_slots, coverage (0/1), markup (0 keep, 1 strip, 2
    /// strip-code), max_term_df, code_boost, name_boost, min_coverage. List the default
    /// first: ties keep the earlier value.
    #[arg(long, value_name = "NAME=V1,V2,...", requires = "cv")]
    pub sweep: Vec<String>,
    /// Metric the cross-validation optimizes (a per-task metric of report.json, e.g.
    /// recall_available, completeness, mrr_at_10; costs such as bundle_size are minimized).
    #[arg(long, value_name = "METRIC", default_value_t = gos_eval::cv::DEFAULT_CV_METRIC, requires = "cv")]
    pub cv_metric: gos_eval::Metric,

    // Pipeline arms, `pipeline:NAME` (issue 15, docs/pipelines.md).
    /// Models of the pipeline arms' stages.
    #[command(flatten)]
    pub stage_models: StageModelArgs,
    /// LLM endpoint of the pipeline arms' LLM stages (without one they fall back).
    #[command(flatten)]
    pub llm: LlmArgs,
    /// Set a retrieval parameter for every arm, NAME=VALUE (repeatable; any name of the
    /// parameter registry, e.g. prereq_slots=1, coverage=true or mode=one-hop), to compare
    /// arms at a value chosen by --cv.
    #[arg(long = "set", value_name = "NAME=V")]
    pub set: Vec<String>,
}

/// `gos synth --bodies`: see [`gos_synth::Bodies`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SynthBodies {
    /// The structured sections alone.
    Short,
    /// Padded to real-library lengths.
    Real,
}

/// Arguments of `gos synth`.
#[derive(Debug, clap::Args)]
pub struct SynthArgs {
    /// Number of skill packages (10 to 10,000,000).
    #[arg(long)]
    pub skills: usize,
    /// Seed; the same (skills, seed) pair always writes the same files.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Most tasks written to tasks.jsonl (one per planted chain).
    #[arg(long, default_value_t = 200)]
    pub tasks: usize,
    /// SKILL.md lengths: short (the structured sections alone, about 950 bytes) or real
    /// (padded with filler prose to lengths drawn from a real library's size distribution,
    /// mean about 8.4 KB; for build-speed figures at scale).
    #[arg(long, value_enum, default_value = "short")]
    pub bodies: SynthBodies,
    /// Output folder: OUT/library/ and OUT/tasks.jsonl (OUT/library must not exist).
    #[arg(long)]
    pub out: PathBuf,
    /// Print a JSON summary on stdout.
    #[arg(long)]
    pub json: bool,
    /// No progress bar.
    #[arg(short, long)]
    pub quiet: bool,
}

/// Dense and hybrid seeding options, shared by `gos retrieve` and `gos eval`.
#[derive(Debug, Clone, clap::Args)]
pub struct DenseArgs {
    /// Fusion of hybrid seeds: weighted:W (W = weight of the min-max normalized BM25 list,
    /// the rest for the dense list), rrf (reciprocal rank fusion, k = 60) or rrf:K.
    #[arg(long, help_heading = "Seeds", default_value_t = Fusion::default(), value_parser = fusion)]
    pub fusion: Fusion,
    /// Weight of the dense (cosine) evidence in the final score, next to graph 0.5 and BM25 1.0.
    #[arg(long, help_heading = "Rerank", default_value_t = rerank::DEFAULT_DENSE_WEIGHT, value_parser = finite, allow_negative_numbers = true)]
    pub dense_weight: f64,
    /// Also embed each passage of the task (paragraphs, list items) and score a skill by its
    /// best cosine over them.
    #[arg(long, help_heading = "Seeds")]
    pub query_chunks: bool,
    /// Sentence encoder for the query (default: the model the workspace was built with).
    #[arg(long, help_heading = "Models", env = "GOS_MODEL_DIR")]
    pub model_dir: Option<PathBuf>,
    /// Precision of the query encoder: f32, or int8 (quantized linear layers: about 15% faster
    /// on AVX2-only CPUs, slower than f32 on AVX-512 ones; query vectors at cosine >= 0.999 to
    /// f32; docs/performance.md). Skill vectors are always f32.
    #[arg(long, help_heading = "Models", env = "GOS_QUERY_PRECISION", default_value_t = Precision::F32, value_parser = precision)]
    pub query_precision: Precision,
}

/// Cross-encoder options (docs/cross-encoder.md), shared by `gos retrieve` and `gos eval`.
#[derive(Debug, Clone, clap::Args)]
pub struct CrossEncoderArgs {
    /// Cross-encoder model directory in Hugging Face layout (config.json, tokenizer.json,
    /// model.safetensors): a BERT (ms-marco MiniLM) or XLM-RoBERTa (bge-reranker) sequence
    /// classifier.
    #[arg(long, help_heading = "Models", env = "GOS_RERANKER_DIR")]
    pub reranker_dir: Option<PathBuf>,
    /// Candidates scored by the cross-encoder (the top R after field-evidence reranking).
    #[arg(long, help_heading = "Rerank", default_value_t = rerank::DEFAULT_TOP, value_parser = at_least_one)]
    pub rerank_top: usize,
    /// Characters of each candidate's text (name, description, body) given to the
    /// cross-encoder.
    #[arg(long, help_heading = "Rerank", default_value_t = rerank::DEFAULT_MAX_CHARS, value_parser = at_least_one)]
    pub rerank_max_chars: usize,
    /// Weight of the cross-encoder probability in the final score, in [0, 1]; the rest is the
    /// normalized graph and field-evidence score (1 = cross-encoder alone).
    #[arg(long, help_heading = "Rerank", alias = "ce-weight", default_value_t = rerank::DEFAULT_WEIGHT, value_parser = unit_interval)]
    pub rerank_weight: f64,
    /// Share of the bundle's positions kept for graph-added prerequisites that were in the
    /// bundle before the cross-encoder, in [0, 1].
    #[arg(long, help_heading = "Rerank", alias = "ce-reserved-share", default_value_t = rerank::DEFAULT_RESERVED_SHARE, value_parser = unit_interval)]
    pub rerank_reserved_share: f64,
    /// Device of the neural models (query encoder and cross-encoder): cpu, cuda or cuda:N
    /// (cuda needs a build with `--features cuda`).
    #[arg(long, help_heading = "Models", default_value = "cpu", value_parser = device)]
    pub device: String,
}

/// Endpoint flags (any OpenAI-compatible chat completions server; see docs/llm.md).
#[derive(Debug, Clone, clap::Args)]
#[command(next_help_heading = "LLM")]
pub struct LlmArgs {
    /// Base URL of an OpenAI-compatible API, ending before /chat/completions
    /// (e.g. https://api.openai.com/v1, http://127.0.0.1:8000/v1). Key: GOS_LLM_API_KEY.
    #[arg(long, env = "GOS_LLM_BASE_URL")]
    pub llm_base_url: Option<String>,
    /// Model id sent to the endpoint; part of every cache key.
    #[arg(long, env = "GOS_LLM_MODEL")]
    pub llm_model: Option<String>,
    /// Response cache file shared between workspaces (default: WORKSPACE/llm-cache.jsonl).
    #[arg(long, value_name = "PATH")]
    pub llm_cache: Option<PathBuf>,
    /// Seconds before one HTTP attempt times out.
    #[arg(long, alias = "llm-timeout-s", default_value_t = gos_llm::config::DEFAULT_TIMEOUT_S, value_parser = finite)]
    pub llm_timeout_secs: f64,
    /// Extra attempts on 429, 5xx, timeouts and connection errors (exponential backoff).
    #[arg(long, default_value_t = gos_llm::config::DEFAULT_RETRIES)]
    pub llm_retries: u32,
}

/// Build-only LLM flags.
#[derive(Debug, Clone, clap::Args)]
pub struct LlmBuildArgs {
    /// Use only the response cache: no HTTP; uncached prompts are skipped and reported.
    #[arg(long)]
    pub offline: bool,
    /// Most LLM requests in flight.
    #[arg(long, default_value_t = gos_build::llm::DEFAULT_CONCURRENCY, value_parser = at_least_one)]
    pub llm_concurrency: usize,
    /// Most HTTP requests this build may send (cache hits are free); the rest are skipped.
    #[arg(long)]
    pub llm_max_requests: Option<u64>,
    /// Also fill empty retrieval fields of nodes (semantic completion, provenance inferred).
    #[arg(long)]
    pub llm_complete: bool,
    /// Candidate pool size k per focus skill for relation validation.
    #[arg(long, default_value_t = gos_build::llm::DEFAULT_POOL_K, value_parser = at_least_one)]
    pub llm_pool_k: usize,
    /// Least confidence of an accepted relation, in [0, 1].
    #[arg(long, default_value_t = gos_build::llm::gates::GateOptions::default().min_confidence, value_parser = unit_interval)]
    pub llm_min_confidence: f64,
}

mod agents;
mod library;
mod models;
mod pipeline;
mod query;
mod registry;
mod serve;

pub use agents::{HookArgs, HookHarness, InstallArgs, InstallHarness, InstallScope, UninstallArgs};
pub use library::{CompletionsArgs, ExportArgs, ExportFormat, LibraryArgs, LintArgs, ShowArgs};
pub use models::{ModelsArgs, ModelsCacheArgs, ModelsCommand, ModelsListArgs, ModelsPullArgs};
pub use pipeline::StageModelArgs;
pub use serve::{McpArgs, ServeArgs, ServedWorkspaceArgs};

#[cfg(test)]
mod tests;
