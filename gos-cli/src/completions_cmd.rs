//! `gos completions SHELL`: the completion script of every subcommand and flag, on stdout.

use crate::args::{Cli, CompletionsArgs};
use anyhow::Result;
use clap::CommandFactory;

pub fn run(args: CompletionsArgs) -> Result<()> {
    clap_complete::generate(
        args.shell,
        &mut Cli::command(),
        "gos",
        &mut std::io::stdout(),
    );
    Ok(())
}
