//! `gos build --watch`: build, then rebuild after each burst of changes, one line per build.

use crate::progress::Bars;
use anyhow::Result;
use gos_build::llm::LlmOptions;
use gos_build::watch::{Rebuild, watch};
use gos_build::{BuildOptions, LibrarySpec};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// Watch until interrupted; each build is one line on stderr (or one JSON object per line on
/// stdout with `json`). A failed rebuild is reported and the previous workspace stays.
pub fn run(
    opts: &BuildOptions,
    library: &LibrarySpec,
    llm: Option<&LlmOptions>,
    debounce: Duration,
    json: bool,
) -> Result<ExitCode> {
    let stop = AtomicBool::new(false);
    let quiet = Bars::new(true);
    eprintln!(
        "watching {} root(s) for {}; Ctrl-C stops",
        library.roots.len(),
        opts.workspace.display()
    );
    watch(opts, library, llm, &quiet, debounce, &stop, |r| {
        print_line(r, json);
        true
    })?;
    Ok(ExitCode::SUCCESS)
}

fn print_line(r: &Rebuild, json: bool) {
    let changed = match r.changed.len() {
        0 if r.compaction => "index compacted to one segment".to_owned(),
        0 => "initial build".to_owned(),
        1 => format!("1 change ({})", r.changed[0].display()),
        n => format!("{n} changes"),
    };
    match &r.result {
        Ok(report) if json => {
            let v = serde_json::json!({
                "changed": r.changed,
                "compaction": r.compaction,
                "parsed": r.cache.parsed,
                "reused": r.cache.reused,
                "report": report,
            });
            println!("{v}");
        }
        Ok(report) => {
            let embedded = report
                .embed
                .as_ref()
                .map(|e| format!(", {} embedded ({} reused)", e.embedded, e.reused))
                .unwrap_or_default();
            let parts = report
                .reused
                .as_ref()
                .filter(|u| u.index_parts + u.index_parts_indexed > 0)
                .map(|u| {
                    format!(
                        ", {} of {} index parts reused",
                        u.index_parts,
                        u.index_parts + u.index_parts_indexed
                    )
                })
                .unwrap_or_default();
            eprintln!(
                "{changed}: {} skills ({} parsed, {} from cache, {} skipped){embedded}{parts}, {} edges, in {:.1} s",
                report.nodes,
                r.cache.parsed,
                r.cache.reused,
                report.skipped.len(),
                report.edges.values().sum::<usize>(),
                report.wall_ms as f64 / 1e3
            );
        }
        Err(e) => eprintln!("{changed}: build failed, previous workspace kept: {e}"),
    }
}
