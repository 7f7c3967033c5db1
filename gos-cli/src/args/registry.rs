//! `gos retrieve`'s knob flags as the parameter registry describes them.
//!
//! The flags are declared once as clap fields (their types and parsers); what a user reads
//! about a knob flag (its help text, its allowed values, its `--help` heading) comes from
//! [`gos_core::param::KNOBS`], so the registry is the one place that says it. The agreement
//! test in `args/tests.rs` checks names, defaults and ranges against the registry.

use clap::{Arg, Command};
use gos_core::param::{KNOBS, Knob, Range, Status};

/// `cmd` (the whole `gos` command) with every stable knob flag of `gos retrieve` taking its
/// help text, allowed values and heading from the registry.
pub fn apply(cmd: Command) -> Command {
    cmd.mut_subcommand("retrieve", |mut retrieve| {
        let ids: Vec<(String, &'static Knob)> = retrieve
            .get_arguments()
            .filter_map(|arg| {
                let long = arg.get_long()?;
                let knob = KNOBS
                    .iter()
                    .find(|k| k.status == Status::Stable && k.flag() == long)?;
                Some((arg.get_id().to_string(), knob))
            })
            .collect();
        for (id, knob) in ids {
            retrieve = retrieve.mut_arg(id, |arg| described(arg, knob));
        }
        retrieve
    })
}

/// `arg` with `knob`'s doc (plus its numeric range, which clap cannot show by itself) and
/// category heading.
fn described(arg: Arg, knob: &Knob) -> Arg {
    // clap's own help texts end without a full stop; so do these.
    let doc = knob.doc.trim_end_matches('.');
    let help = match knob.range {
        Range::Whole { .. } | Range::Real { .. } => {
            format!("{doc} (allowed: {})", knob.range.describe())
        }
        _ => doc.to_string(),
    };
    arg.help(help).help_heading(knob.category.heading())
}
