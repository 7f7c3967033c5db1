//! `gos build`.

use crate::BuildArgs;
use crate::progress::Bars;
use anyhow::{Context, Result};
use gos_build::embed::EmbedOptions;
use gos_build::relate::RelateOptions;
use gos_build::{BuildOptions, build_workspace};
use std::io::IsTerminal;

pub fn run(args: BuildArgs) -> Result<()> {
    anyhow::ensure!(
        args.dependency_threshold > 0.0 && args.dependency_threshold <= 1.0,
        "--dependency-threshold must be in (0, 1], got {}",
        args.dependency_threshold
    );
    let embed = match (&args.model_dir, args.no_embed) {
        (Some(dir), false) => Some(EmbedOptions {
            device: args.device.clone(),
            view: args.view.parse()?,
            batch_size: args.embed_batch,
            hnsw_threshold: args.hnsw_threshold,
            ..EmbedOptions::new(dir.clone())
        }),
        _ => None,
    };
    let opts = BuildOptions {
        library: args.library.clone(),
        workspace: args.workspace.clone(),
        relate: RelateOptions {
            threshold: args.dependency_threshold,
            max_producers: args.max_producers,
            ..RelateOptions::default()
        },
        embed,
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
    match &report.embed {
        Some(e) => eprintln!(
            "  vectors: {} view, {} ({} dims): {} embedded ({:.0} texts/s, batch {}), {} reused, {}",
            e.view,
            e.model,
            e.dim,
            e.embedded,
            e.texts_per_sec,
            e.batch_size,
            e.reused,
            if e.hnsw { "HNSW index" } else { "exact search" }
        ),
        None => eprintln!(
            "  no vectors (no --model-dir or GOS_MODEL_DIR): lexical seeds only; \
             run scripts/setup-model.sh and pass --model-dir models/all-MiniLM-L6-v2 for hybrid seeds"
        ),
    }
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
