//! `gos completions SHELL`: the completion script of every subcommand and flag, on stdout.

use crate::args::{self, CompletionsArgs};
use anyhow::Result;

pub fn run(args: CompletionsArgs) -> Result<()> {
    clap_complete::generate(
        args.shell,
        &mut args::command(),
        "gos",
        &mut std::io::stdout(),
    );
    Ok(())
}
