//! `gos synth`: write a synthetic skill library and its labelled tasks (for scale tests); the
//! generator is the `gos-synth` crate.

use crate::SynthArgs;
use crate::args::SynthBodies;
use crate::progress::Bars;
use anyhow::{Context, Result};
use gos_build::build::BuildProgress;
use gos_synth::{Bodies, SynthConfig, SynthLibrary, write_library};
use serde_json::json;
use std::io::IsTerminal;

pub fn run(args: SynthArgs) -> Result<()> {
    anyhow::ensure!(
        (10..=10_000_000).contains(&args.skills),
        "--skills must be between 10 and 10,000,000, got {}",
        args.skills
    );
    let config = SynthConfig {
        tasks: args.tasks,
        bodies: match args.bodies {
            SynthBodies::Short => Bodies::Short,
            SynthBodies::Real => Bodies::Real,
        },
        ..SynthConfig::new(args.skills, args.seed)
    };
    let lib = SynthLibrary::plan(config);
    let bars = Bars::new(args.quiet || !std::io::stderr().is_terminal());
    bars.stage("synth", Some(args.skills as u64));
    let mut last = 0usize;
    let summary = write_library(&lib, &args.out, |done| {
        bars.advance((done - last) as u64);
        last = done;
    })
    .with_context(|| format!("writing the synthetic library to {}", args.out.display()))?;
    bars.finish_stage();
    let planted = lib.planted_edges().len();
    if args.json {
        println!(
            "{}",
            json!({
                "library": summary.library,
                "tasks": summary.tasks,
                "skills": summary.skills,
                "task_count": summary.task_count,
                "chains": lib.chains.len(),
                "planted_edges": planted,
                "bytes": summary.bytes,
                "seed": args.seed,
                "bodies": format!("{:?}", config.bodies).to_lowercase(),
            })
        );
    } else {
        eprintln!(
            "wrote {} skills ({} chains, {} planted edges, {:.1} MB) to {} and {} tasks to {}",
            summary.skills,
            lib.chains.len(),
            planted,
            summary.bytes as f64 / 1e6,
            summary.library.display(),
            summary.task_count,
            summary.tasks.display()
        );
    }
    Ok(())
}
