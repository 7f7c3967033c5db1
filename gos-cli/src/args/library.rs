//! Arguments over skill libraries and workspaces: the roots of `gos build` and `gos lint`,
//! `gos show`, `gos export` and `gos completions`.

use std::path::PathBuf;

/// Where the skill packages are: roots, labels, the standard agent folders, id globs.
#[derive(Debug, Clone, clap::Args)]
pub struct LibraryArgs {
    /// Library roots: folders whose subfolders hold SKILL.md packages. One root keeps ids
    /// relative to it; with several, each id is prefixed with its root's label (the folder
    /// name) so roots never collide (docs/workspace.md).
    #[arg(value_name = "ROOT")]
    pub roots: Vec<PathBuf>,
    /// A root with an explicit label: `LABEL=PATH` (ids become `LABEL/relative/path`).
    #[arg(long = "root", value_name = "LABEL=PATH")]
    pub labelled: Vec<String>,
    /// Add the standard agent skill folders that exist (~/.claude/skills, ~/.codex/skills,
    /// ~/.agents/skills, and ./.claude/skills, ./.codex/skills, ./.agents/skills).
    #[arg(long)]
    pub agent_roots: bool,
    /// Keep only skills whose id matches one of these globs (`*` crosses `/`).
    #[arg(long, value_name = "GLOB")]
    pub include: Vec<String>,
    /// Leave out skills whose id matches one of these globs.
    #[arg(long, value_name = "GLOB")]
    pub exclude: Vec<String>,
    /// Config file (default: gos.toml next to the workspace, i.e. in its parent directory).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
}

/// Arguments of `gos lint`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Exit status: 0 clean, 1 errors (or warnings with --strict), 2 usage or I/O error. Rules: docs/libraries.md."
)]
pub struct LintArgs {
    /// Library roots, `--root`, `--agent-roots`, globs, config file.
    #[command(flatten)]
    pub library: LibraryArgs,
    /// Print the findings as one JSON object on stdout.
    #[arg(long)]
    pub json: bool,
    /// Count warnings as errors for the exit status.
    #[arg(long)]
    pub strict: bool,
}

/// Arguments of `gos show`.
#[derive(Debug, clap::Args)]
pub struct ShowArgs {
    /// Skill id.
    pub id: String,
    /// Workspace directory.
    #[arg(short = 'w', long, env = "GOS_WORKSPACE")]
    pub workspace: PathBuf,
    /// Print as one JSON object on stdout.
    #[arg(long)]
    pub json: bool,
}

/// Graph export formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    /// Graphviz DOT.
    Dot,
    /// GraphML (XML).
    Graphml,
    /// JSON: `{"nodes": [...], "edges": [...]}` as in graph.json.
    Json,
}

/// Arguments of `gos export`.
#[derive(Debug, clap::Args)]
pub struct ExportArgs {
    /// Workspace directory.
    #[arg(short = 'w', long, env = "GOS_WORKSPACE")]
    pub workspace: PathBuf,
    /// Output format.
    #[arg(long, value_enum)]
    pub format: ExportFormat,
    /// Export only the neighbourhood of these skill ids (comma-separated or repeated).
    #[arg(long, value_delimiter = ',')]
    pub ids: Vec<String>,
    /// Hops from `--ids` kept, following edges in both directions.
    #[arg(long, default_value_t = 1)]
    pub depth: usize,
    /// Write to this file instead of stdout.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
}

/// Arguments of `gos completions`.
#[derive(Debug, clap::Args)]
pub struct CompletionsArgs {
    /// Shell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}
