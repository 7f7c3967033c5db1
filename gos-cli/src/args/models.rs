//! Arguments of `gos models`: fetching the checkpoints the presets name, and listing them.

use std::path::PathBuf;

/// `gos models`: the neural checkpoints in the local Hugging Face cache.
#[derive(Debug, clap::Args)]
pub struct ModelsArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: ModelsCommand,
}

/// The `gos models` subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum ModelsCommand {
    /// Fetch a checkpoint from the model hub (HF_ENDPOINT, default https://huggingface.co) into
    /// the cache, pin its commit, and record every file's size and sha256 in models.lock. The
    /// only gos command that uses the network; build and retrieve never fetch anything.
    Pull(ModelsPullArgs),
    /// Show the checkpoints of models.lock and of the cache, and whether their files are there.
    List(ModelsListArgs),
}

/// Where the cache and the lock file are.
#[derive(Debug, clap::Args)]
pub struct ModelsCacheArgs {
    /// Hugging Face hub cache directory (the folder holding `models--OWNER--NAME`); default
    /// `$HF_HOME/hub`, else `~/.cache/huggingface/hub`.
    #[arg(long)]
    pub cache: Option<PathBuf>,
    /// Lock file with each pulled model's repo, commit, and every file's size and sha256;
    /// default `models.lock` in the cache directory.
    #[arg(long)]
    pub lock: Option<PathBuf>,
}

/// `gos models pull`.
#[derive(Debug, clap::Args)]
pub struct ModelsPullArgs {
    /// A preset's checkpoint (bge-base-en-v1.5, ms-marco-MiniLM-L-6-v2, bge-reranker-v2-m3,
    /// Qwen3-Embedding-0.6B, Qwen3-Reranker-0.6B) or a hub repo id OWNER/NAME (then
    /// config.json, tokenizer.json and model.safetensors are fetched).
    pub name: String,
    /// Branch, tag or 40-hex commit to fetch; default: the commit models.lock pins for NAME
    /// (read from the cache without a request), else `main`. A branch or tag given here is
    /// resolved by the hub again, so `--revision main` updates a pulled model. The files always
    /// come from one commit, which the lock records.
    #[arg(long)]
    pub revision: Option<String>,
    /// Cache and lock file.
    #[command(flatten)]
    pub cache: ModelsCacheArgs,
    /// Print the result as one JSON object on stdout.
    #[arg(long)]
    pub json: bool,
    /// No progress bars.
    #[arg(short, long)]
    pub quiet: bool,
}

/// `gos models list`.
#[derive(Debug, clap::Args)]
pub struct ModelsListArgs {
    /// Cache and lock file.
    #[command(flatten)]
    pub cache: ModelsCacheArgs,
    /// Print the list as one JSON object on stdout.
    #[arg(long)]
    pub json: bool,
}
