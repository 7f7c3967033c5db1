//! `gos build`.

use crate::BuildArgs;
use crate::progress::Bars;
use anyhow::{Context, Result};
use gos_build::embed::EmbedOptions;
use gos_build::relate::RelateOptions;
use gos_build::{BuildOptions, BuildReport, build_workspace_locked};
use std::io::IsTerminal;
use std::process::ExitCode;

/// Exit status of a build whose workspace was written but whose LLM layer is incomplete.
const INCOMPLETE: u8 = 3;

pub fn run(args: BuildArgs) -> Result<ExitCode> {
    let llm = crate::llm_args::build_options(&args.llm, &args.llm_build)?;
    let embed = match (&args.model_dir, args.no_embed) {
        (Some(dir), false) => Some(EmbedOptions {
            device: args.device.clone(),
            view: args.view,
            batch_size: args.embed_batch,
            hnsw_threshold: args.hnsw_threshold,
            ..EmbedOptions::new(dir.clone())
        }),
        _ => None,
    };
    let opts = BuildOptions {
        force: args.force,
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
    let on_wait = |holder: &gos_core::workspace_lock::LockHolder| {
        eprintln!(
            "waiting for {holder}, which is building {}",
            args.workspace.display()
        );
    };
    let report = build_workspace_locked(&opts, llm.as_ref(), &bars, !args.no_wait, &on_wait)
        .with_context(|| {
            format!(
                "building {} from {}",
                args.workspace.display(),
                args.library.display()
            )
        })?;
    let code = if report.llm.complete {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(INCOMPLETE)
    };
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
        return Ok(code);
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
    print_llm(&report);
    Ok(code)
}

fn counts<T: std::fmt::Display>(m: &std::collections::BTreeMap<String, T>) -> String {
    let v: Vec<String> = m.iter().map(|(k, n)| format!("{k} {n}")).collect();
    v.join(", ")
}

/// The LLM part of the text summary.
fn print_llm(report: &BuildReport) {
    let llm = &report.llm;
    eprintln!("llm: {}", llm.note);
    if let Some(r) = &llm.requests {
        eprintln!(
            "  requests: {} HTTP calls ({} ok, {} retries), {} cache hits, {} prompt + {} completion tokens{}",
            r.calls,
            r.calls_ok,
            r.retries,
            r.cache_hits,
            r.prompt_tokens,
            r.completion_tokens,
            r.budget
                .map(|b| format!(", budget {b}"))
                .unwrap_or_default(),
        );
        if !r.failures.is_empty() {
            eprintln!("  failed: {}", counts(&r.failures));
        }
    }
    if let Some(c) = &llm.completion {
        eprintln!(
            "  completion: {} eligible, {} completed ({}), {} failed",
            c.eligible,
            c.completed_nodes,
            counts(&c.fields_filled),
            c.failed
        );
    }
    if let Some(v) = &llm.validation {
        let rejected: std::collections::BTreeMap<String, u64> = v
            .rejected
            .iter()
            .filter(|(_, n)| **n > 0)
            .map(|(k, n)| (k.clone(), *n))
            .collect();
        eprintln!(
            "  validation: {} prompts ({} pairs), {} proposals, {} accepted ({}), rejected: {}",
            v.prompts,
            v.pairs_submitted,
            v.proposals,
            v.accepted,
            counts(&v.accepted_by_type),
            counts(&rejected),
        );
        let i = &v.incremental;
        eprintln!(
            "  incremental: {} pools reused, {} revalidated ({} new or changed, {} pools entered, {} with a changed member)",
            i.reused, i.revalidated, i.new_or_changed, i.entered_pools, i.member_changed
        );
    }
    if llm.skipped_total > 0 {
        eprintln!(
            "  incomplete: {} nodes kept deterministic edges only (first: {} - {}); see {}/build-report.json",
            llm.skipped_total, llm.skipped[0].id, llm.skipped[0].reason, report.workspace
        );
    }
}
