//! `gos build`.

use crate::BuildArgs;
use crate::progress::Bars;
use anyhow::{Context, Result};
use gos_build::relate::RelateOptions;
use gos_build::{BuildOptions, build_workspace};
use std::io::IsTerminal;

pub fn run(args: BuildArgs) -> Result<()> {
    anyhow::ensure!(
        args.dependency_threshold > 0.0 && args.dependency_threshold <= 1.0,
        "--dependency-threshold must be in (0, 1], got {}",
        args.dependency_threshold
    );
    let opts = BuildOptions {
        library: args.library.clone(),
        workspace: args.workspace.clone(),
        relate: RelateOptions {
            threshold: args.dependency_threshold,
            max_producers: args.max_producers,
            ..RelateOptions::default()
        },
    };
    let bars = Bars::new(args.quiet || !std::io::stderr().is_terminal());
    let report = build_workspace(&opts, &bars).with_context(|| {
        format!(
            "building {} from {}",
            args.workspace.display(),
            args.library.display()
        )
    })?;
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
        return Ok(());
    }
    let edges: Vec<String> = report
        .edges
        .iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect();
    let prov: Vec<String> = report
        .edges_by_provenance
        .iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect();
    eprintln!(
        "built {} in {:.1} s: {} skills ({} skipped, {} repaired), {} edges [{}] [{}], {} isolated",
        report.workspace,
        report.wall_ms as f64 / 1e3,
        report.nodes,
        report.skipped.len(),
        report.recovered.len(),
        report.edges.values().sum::<usize>(),
        edges.join(", "),
        prov.join(", "),
        report.isolated,
    );
    for s in report.skipped.iter().take(20) {
        eprintln!("  skipped {}: {}", s.path, s.reason);
    }
    if report.skipped.len() > 20 {
        eprintln!(
            "  ... {} more in {}/build-report.json",
            report.skipped.len() - 20,
            report.workspace
        );
    }
    Ok(())
}
