//! Arguments of the agent-harness commands: `gos hook`, `gos install`, `gos uninstall`.

use super::at_least_one;
use std::path::PathBuf;

/// An agent harness whose prompt hook gos answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum HookHarness {
    /// Claude Code (`UserPromptSubmit`).
    Claude,
    /// Codex (`UserPromptSubmit` in hooks.json).
    Codex,
    /// Gemini CLI (`BeforeAgent`).
    Gemini,
}

/// Arguments of `gos hook`.
#[derive(Debug, clap::Args)]
pub struct HookArgs {
    /// The harness whose hook JSON comes on stdin and is answered on stdout.
    #[arg(value_enum)]
    pub harness: HookHarness,
    /// Workspace to open when no server is given (lexical seeds, no encoder).
    #[arg(short = 'w', long, env = "GOS_WORKSPACE")]
    pub workspace: Option<PathBuf>,
    /// A running `gos serve` to ask instead (`http://127.0.0.1:8765`); the bearer token comes
    /// from GOS_TOKEN.
    #[arg(long, env = "GOS_SERVER", value_name = "URL")]
    pub server: Option<String>,
    /// Most characters of the injected context (listing plus the top of the bundle).
    #[arg(long, default_value_t = 4_000, value_parser = at_least_one)]
    pub budget: usize,
    /// Most skills listed.
    #[arg(long, default_value_t = 5, value_parser = at_least_one)]
    pub top: usize,
    /// Hard time limit in milliseconds; past it the hook prints nothing and exits 0.
    #[arg(long, default_value_t = 1_500)]
    pub timeout_ms: u64,
}

/// A harness `gos install` writes configuration for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum InstallHarness {
    /// Claude Code: `.mcp.json` or `~/.claude.json`, hooks in `.claude/settings.json`.
    Claude,
    /// Codex: `config.toml` `[mcp_servers.gos]`, hooks in `hooks.json` (under CODEX_HOME).
    Codex,
    /// Gemini CLI: `.gemini/settings.json` `mcpServers` and `hooks`.
    Gemini,
}

/// Where `gos install` and `gos uninstall` write.
#[derive(Debug, Clone, clap::Args)]
pub struct InstallScope {
    /// The harness to configure.
    #[arg(value_enum)]
    pub harness: InstallHarness,
    /// Write the project's configuration (the current directory).
    #[arg(long, conflicts_with = "user")]
    pub project: bool,
    /// Write the user's configuration under HOME (the default).
    #[arg(long)]
    pub user: bool,
    /// Print the changes as a diff and write nothing.
    #[arg(long)]
    pub dry_run: bool,
}

/// Arguments of `gos install`.
#[derive(Debug, clap::Args)]
pub struct InstallArgs {
    /// Harness and scope.
    #[command(flatten)]
    pub scope: InstallScope,
    /// Workspace the MCP server and the hook serve (stored as an absolute path).
    #[arg(short = 'w', long, env = "GOS_WORKSPACE")]
    pub workspace: PathBuf,
    /// Register the MCP server only, without the prompt hook.
    #[arg(long)]
    pub no_hook: bool,
}

/// Arguments of `gos uninstall`.
#[derive(Debug, clap::Args)]
pub struct UninstallArgs {
    /// Harness and scope.
    #[command(flatten)]
    pub scope: InstallScope,
}
