//! Arguments of the servers: `gos mcp` and `gos serve`.

use super::at_least_one;
use std::path::PathBuf;

/// How `gos mcp` and `gos serve` load the workspace they serve.
#[derive(Debug, clap::Args)]
pub struct ServedWorkspaceArgs {
    /// Workspace directory built by `gos build`; re-opened by path after a rebuild.
    #[arg(short = 'w', long, env = "GOS_WORKSPACE")]
    pub workspace: PathBuf,
    /// Sentence encoder directory for the query embeddings; default: the one the workspace
    /// recorded at build time (workspace.json `dense.model_dir`).
    #[arg(long, env = "GOS_MODEL_DIR")]
    pub model_dir: Option<PathBuf>,
    /// Precision of the query encoder: f32, or int8 (quantized linear layers; query vectors at
    /// cosine >= 0.999 to f32; docs/performance.md).
    #[arg(long, env = "GOS_QUERY_PRECISION", default_value_t = gos_models::dense::Precision::F32, value_parser = super::precision)]
    pub query_precision: gos_models::dense::Precision,
    /// Seed lexically only: never load a sentence encoder, even when the workspace has
    /// vectors.
    #[arg(long)]
    pub lexical: bool,
    /// Do not reload the workspace when it is rebuilt (SIGHUP still reloads).
    #[arg(long)]
    pub no_watch: bool,
    /// Most characters of a query.
    #[arg(long, default_value_t = gos_server::Limits::default().max_query_chars, value_parser = at_least_one)]
    pub max_query_chars: usize,
    /// Most skills a request may ask for (max_skills, limit).
    #[arg(long, default_value_t = gos_server::Limits::default().max_skills, value_parser = at_least_one)]
    pub max_skills: usize,
}

/// Arguments of `gos mcp`.
#[derive(Debug, clap::Args)]
pub struct McpArgs {
    /// The workspace and its limits.
    #[command(flatten)]
    pub served: ServedWorkspaceArgs,
}

/// Arguments of `gos serve`.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// The workspace and its limits.
    #[command(flatten)]
    pub served: ServedWorkspaceArgs,
    /// Address to listen on; loopback by default. Port 0 picks a free port (printed on
    /// stderr).
    #[arg(long, default_value = "127.0.0.1:8765")]
    pub addr: std::net::SocketAddr,
    /// Largest request body in bytes.
    #[arg(long, default_value_t = 64 * 1024, value_parser = at_least_one)]
    pub max_body_bytes: usize,
    /// Seconds a request may run before it gets a 503.
    #[arg(long, default_value_t = 30, value_parser = at_least_one)]
    pub timeout_secs: usize,
    /// Host name every route accepts in Host and Origin besides the loopback names and the
    /// bound address (repeatable; needed when clients reach the server by another name).
    #[arg(long)]
    pub allow_host: Vec<String>,
    /// File holding the bearer token every request must send as `Authorization: Bearer
    /// TOKEN` (the environment variable GOS_TOKEN is the other source). Required when
    /// --addr is not a loopback address.
    #[arg(long, value_name = "PATH")]
    pub token_file: Option<std::path::PathBuf>,
}
