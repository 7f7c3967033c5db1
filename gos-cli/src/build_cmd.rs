//! `gos build`.

use crate::BuildArgs;
use crate::config::Config;
use crate::progress::Bars;
use anyhow::{Context, Result};
use gos_build::build::build_library_cached;
use gos_build::embed::EmbedOptions;
use gos_build::relate::RelateOptions;
use gos_build::{BuildOptions, BuildReport};
use std::process::ExitCode;

/// Exit status of a build whose workspace was written but whose LLM layer is incomplete.
const INCOMPLETE: u8 = 3;

pub fn run(mut args: BuildArgs) -> Result<ExitCode> {
    let config = Config::load(
        args.library.config.as_deref(),
        Some(args.workspace.as_path()),
    )?;
    let (library, agents) = crate::library_args::spec(&args.library, &config)?;
    if args.model_dir.is_none() {
        args.model_dir = config.model_dir.as_deref().map(|p| config.resolve(p));
    }
    if args.llm.llm_base_url.is_none() {
        args.llm.llm_base_url = config.llm.base_url.clone();
    }
    if args.llm.llm_model.is_none() {
        args.llm.llm_model = config.llm.model.clone();
    }
    for a in &agents {
        eprintln!(
            "agent root {}: {}",
            a.label.as_deref().unwrap_or(""),
            a.path.display()
        );
    }
    let llm = crate::llm_args::build_options(&args.llm, &args.llm_build)?;
    let embed = match (&args.model_dir, args.no_embed) {
        (Some(dir), false) => Some(EmbedOptions {
            device: args.device.clone(),
            view: args.view,
            batch_size: args.embed_batch,
            hnsw_threshold: args.hnsw_threshold,
            ..EmbedOptions::new(dir.clone(), gos_models::dense::load_workspace_encoder)
        }),
        _ => None,
    };
    let opts = BuildOptions {
        force: args.force,
        library: library.roots[0].path.clone(),
        workspace: args.workspace.clone(),
        relate: RelateOptions {
            threshold: args.dependency_threshold,
            max_producers: args.max_producers,
            ..RelateOptions::default()
        },
        embed,
    };
    let bars = Bars::for_stderr(args.quiet);
    if args.watch {
        let debounce = std::time::Duration::from_millis(args.debounce_ms);
        return crate::watch_cmd::run(&opts, &library, llm.as_ref(), debounce, args.json);
    }
    // The roots as `gos lint` takes them, for the pointer in the summary.
    let roots: Vec<String> = library
        .roots
        .iter()
        .map(|r| match &r.label {
            None => r.path.display().to_string(),
            Some(l) => format!("--root {l}={}", r.path.display()),
        })
        .collect();
    let on_wait = |holder: &gos_core::workspace::lock::LockHolder| {
        eprintln!(
            "waiting for {holder}, which is building {}",
            args.workspace.display()
        );
    };
    let wait = !args.no_wait;
    let report = build_library_cached(&opts, &library, llm.as_ref(), &bars, None, wait, &on_wait)
        .with_context(|| {
        format!(
            "building {} from {}",
            args.workspace.display(),
            roots.join(", ")
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
    let total = report.edges.values().sum::<usize>();
    let breakdown = if total == 0 {
        String::new()
    } else {
        format!(
            " (by type: {}; by provenance: {})",
            edges.join(", "),
            prov.join(", ")
        )
    };
    eprintln!(
        "built {} in {:.1} s: {} skills ({} skipped, {} repaired), {total} {}{breakdown}, {} \
         isolated (no edge of any type)",
        report.workspace,
        report.wall_ms as f64 / 1e3,
        report.nodes,
        report.skipped.len(),
        report.recovered.len(),
        if total == 1 { "edge" } else { "edges" },
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
    if report.roots.len() > 1 || report.roots.iter().any(|r| r.label.is_some()) {
        for r in &report.roots {
            eprintln!(
                "  root {}: {} ({} packages)",
                r.label.as_deref().unwrap_or("-"),
                r.path,
                r.packages
            );
        }
    }
    for s in report.skipped.iter().take(20) {
        eprintln!(
            "  skipped {}: {}",
            gos_core::hydrate::sanitize::inline(&s.path),
            gos_core::hydrate::sanitize::inline(&s.reason)
        );
    }
    if !report.warnings.is_empty() {
        let flagged: Vec<String> = report
            .warnings
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        eprintln!(
            "  content warnings (docs/security.md): {}",
            flagged.join(", ")
        );
    }
    if report.skipped.len() > 20 {
        eprintln!(
            "  ... {} more in {}/build-report.json",
            report.skipped.len() - 20,
            report.workspace
        );
    }
    if let Some(line) = skip_summary(&report, &roots) {
        eprintln!("{line}");
    }
    print_llm(&report);
    Ok(code)
}

/// One line on what the build left out or repaired, with the pointer to `gos lint`; `None`
/// when nothing was.
pub(crate) fn skip_summary(report: &BuildReport, roots: &[String]) -> Option<String> {
    let d = &report.declared;
    let unlinked = d.unresolved.len() + d.ambiguous.len();
    if report.skipped.is_empty() && report.recovered.is_empty() && unlinked == 0 {
        return None;
    }
    let mut why: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for s in &report.skipped {
        let kind = if s.reason.starts_with("ignored by") {
            "ignored"
        } else if s.reason.contains("--include") || s.reason.contains("--exclude") {
            "filtered"
        } else {
            "unusable"
        };
        *why.entry(kind).or_insert(0) += 1;
    }
    let why: Vec<String> = why.iter().map(|(k, n)| format!("{n} {k}")).collect();
    Some(format!(
        "note: {} skipped{}, {} repaired, {} declared {} not linked; details: gos lint {}",
        report.skipped.len(),
        if why.is_empty() {
            String::new()
        } else {
            format!(" ({})", why.join(", "))
        },
        report.recovered.len(),
        unlinked,
        if unlinked == 1 {
            "dependency"
        } else {
            "dependencies"
        },
        roots.join(" ")
    ))
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
