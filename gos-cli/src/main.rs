//! `gos`: dependency-aware retrieval of agent skills, from the command line.
//!
//! Every flag is defined in [`args`]; each subcommand's work lives in its own module
//! (`build_cmd`, `retrieve_cmd`, `stats_cmd`, `eval_cmd`, `synth_cmd`, `mcp_cmd`, `serve_cmd`,
//! `lint_cmd`, `show_cmd`, `export_cmd`, `completions_cmd`, `models_cmd`, `hook_cmd`,
//! `install_cmd`), which maps the flags to library options, calls the library, and formats the
//! output.

// Flag doc comments are the --help text, where URLs are written bare.
#![allow(rustdoc::bare_urls)]

mod args;
mod build_cmd;
mod encoder_arg;
mod eval_cmd;
mod llm_args;
mod mcp_cmd;
mod progress;
mod rerank_args;
mod retrieve_cmd;
mod serve_cmd;
mod stats_cmd;
mod synth_cmd;

// Skill libraries as people keep them (issue 13).
mod completions_cmd;
mod config;
mod export_cmd;
mod library_args;
mod lint_cmd;
mod show_cmd;
mod watch_cmd;
mod workspace_arg;

// Agent harnesses: prompt hooks and their configuration (issue 23).
mod hook_cmd;
mod install_cmd;
mod install_json;

// Retrieval pipelines (issue 15).
mod pipeline_args;

// Real checkpoints in one command (issue 24).
mod models_cmd;
mod models_lock;

use args::{Cli, Command};
use clap::FromArgMatches;
use std::io::IsTerminal;
use std::process::ExitCode;

pub use args::{BuildArgs, EvalArgs, RetrieveArgs, StatsArgs, SynthArgs};

/// Log filter when neither `GOS_LOG` nor `RUST_LOG` is set: gos's own warnings, the servers'
/// reloads (`gos_server=info`), and nothing from tantivy (its internal log lines mean nothing to a user; `GOS_LOG=tantivy=info` or
/// `RUST_LOG=...` shows them).
const DEFAULT_LOG_FILTER: &str = "warn,tantivy=off,gos_server=info";

/// Die quietly from SIGPIPE when stdout is closed early (`gos retrieve ... | head`), as other
/// command-line tools do, instead of Rust's default: ignoring the signal, so that the next
/// `println!` panics ("failed printing to stdout: Broken pipe", exit status 101). Sockets are
/// unaffected: Rust's networking sends with `MSG_NOSIGNAL`.
#[cfg(unix)]
fn die_quietly_on_broken_pipe() {
    // SAFETY: called first thing in `main`, before any other thread exists; restoring the
    // default disposition of one signal has no other effect on the process.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

fn main() -> ExitCode {
    #[cfg(unix)]
    die_quietly_on_broken_pipe();
    let filter = tracing_subscriber::EnvFilter::try_from_env("GOS_LOG")
        .or_else(|_| tracing_subscriber::EnvFilter::try_from_default_env())
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(DEFAULT_LOG_FILTER));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(colour(
            std::io::stderr().is_terminal(),
            std::env::var_os("NO_COLOR").as_deref(),
        ))
        .init();
    let cli = args::command()
        .try_get_matches()
        .and_then(|m| Cli::from_arg_matches(&m))
        .unwrap_or_else(|mut e| {
            workspace_arg::explain_missing(&mut e);
            e.exit()
        });
    let result = match cli.command {
        // `gos build` exits with status 3 when the workspace was written but the LLM layer
        // could not serve every node (docs/llm.md).
        Command::Build(args) => build_cmd::run(args),
        Command::Retrieve(args) => retrieve_cmd::run(args).map(|()| ExitCode::SUCCESS),
        Command::Stats(args) => stats_cmd::run(args).map(|()| ExitCode::SUCCESS),
        Command::Eval(args) => eval_cmd::run(args).map(|()| ExitCode::SUCCESS),
        Command::Synth(args) => synth_cmd::run(args).map(|()| ExitCode::SUCCESS),
        Command::Mcp(args) => mcp_cmd::run(args).map(|()| ExitCode::SUCCESS),
        Command::Serve(args) => serve_cmd::run(args).map(|()| ExitCode::SUCCESS),
        Command::Lint(args) => lint_cmd::run(args),
        Command::Show(args) => show_cmd::run(args).map(|()| ExitCode::SUCCESS),
        Command::Export(args) => export_cmd::run(args).map(|()| ExitCode::SUCCESS),
        Command::Completions(args) => completions_cmd::run(args).map(|()| ExitCode::SUCCESS),
        Command::Models(args) => models_cmd::run(args).map(|()| ExitCode::SUCCESS),
        Command::Hook(args) => hook_cmd::run(args).map(|()| ExitCode::SUCCESS),
        Command::Install(args) => install_cmd::install(args).map(|()| ExitCode::SUCCESS),
        Command::Uninstall(args) => install_cmd::uninstall(args).map(|()| ExitCode::SUCCESS),
    };
    match result {
        Ok(code) => code,
        Err(e) if e.downcast_ref::<retrieve_cmd::UsageError>().is_some() => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
        Err(e) => {
            eprintln!("error: {}", error_chain(&e));
            ExitCode::FAILURE
        }
    }
}

/// Whether log lines on stderr carry ANSI colour codes: only on a terminal, and not when
/// `NO_COLOR` is set to anything but the empty string (https://no-color.org), so a log
/// redirected to a file (`gos serve 2>gos.log`) holds plain text.
fn colour(stderr_is_terminal: bool, no_color: Option<&std::ffi::OsStr>) -> bool {
    stderr_is_terminal && no_color.is_none_or(|v| v.is_empty())
}

/// `e` and its causes, outermost first, joined by `: ` (anyhow's `{:#}`), leaving out a cause
/// whose text the message before it already holds: several libraries' errors both quote their
/// source in their message and return it from `source()`, which printed it twice.
fn error_chain(e: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if out.is_empty() {
            out = text;
        } else if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{colour, error_chain};
    use std::ffi::OsStr;

    #[test]
    fn log_colours_only_on_a_terminal_without_no_color() {
        assert!(colour(true, None));
        assert!(colour(true, Some(OsStr::new(""))));
        assert!(!colour(true, Some(OsStr::new("1"))));
        assert!(!colour(false, None));
    }

    #[test]
    fn a_cause_the_message_already_quotes_is_printed_once() {
        /// An error that quotes its source and returns it too.
        #[derive(Debug)]
        struct Quoting(std::io::Error);
        impl std::fmt::Display for Quoting {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "loading the encoder: {}", self.0)
            }
        }
        impl std::error::Error for Quoting {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                Some(&self.0)
            }
        }
        let io = std::io::Error::other("missing config.json");
        let e = anyhow::Error::new(Quoting(io)).context("starting the server");
        assert_eq!(
            error_chain(&e),
            "starting the server: loading the encoder: missing config.json"
        );
        let plain = anyhow::anyhow!("missing config.json").context("loading the encoder");
        assert_eq!(
            error_chain(&plain),
            "loading the encoder: missing config.json"
        );
    }
}
