//! `gos retrieve`: the flags mapped to [`RetrieveOptions`], the seed-source policy of
//! [`gos_models::retriever`], and the bundle printed as text or JSON.

use crate::RetrieveArgs;
use anyhow::{Context, Result};
use gos_core::graph::ppr::PprParams;
use gos_core::hydrate::Budgets;
use gos_core::hydrate::sanitize;
use gos_core::rerank::RerankerKind;
use gos_core::{RetrieveOptions, Retriever};
use gos_models::device::parse_device;
use serde_json::json;
use std::io::Read;
use std::sync::Arc;
use std::time::Instant;

/// The retrieval options the flags ask for.
fn options(args: &RetrieveArgs) -> Result<RetrieveOptions> {
    let mut opts = RetrieveOptions {
        mode: args.mode,
        ppr: PprParams {
            method: args.ppr,
            ..PprParams::default()
        },
        budgets: Budgets {
            top_n: args.top_n,
            max_chars_per_skill: args.max_chars_per_skill,
            max_context_chars: args.max_context_chars,
            ..Budgets::default()
        },
        min_seed_score: args.min_seed_score,
        min_dense_score: args.min_dense_score,
        exclude_flagged: args.exclude_flagged,
        absolute_paths: args.absolute_paths,
        ..RetrieveOptions::default()
    };
    opts.collapse_duplicates = args.collapse_duplicates;
    opts.bundle_cut = gos_core::retrieve::BundleCut {
        min_top_ratio: args.bundle_floor,
        min_step_ratio: args.bundle_gap,
        min_cosine: args.bundle_min_cosine,
    };
    opts.seeds.source = args.seeds;
    args.dense.apply(&mut opts);
    args.query_handling.apply(&mut opts);
    gos_core::param::set_all(&mut opts, args.set.iter().map(String::as_str))
        .map_err(|e| anyhow::anyhow!("--set: {e}"))?;
    Ok(opts)
}

/// A command-line flag the chosen pipeline ignores: exits with status 2, as clap's usage
/// errors do.
#[derive(Debug)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// The graph and seed flags given with a value other than their default, as `--flag`.
fn graph_and_seed_flags(args: &RetrieveArgs) -> Vec<&'static str> {
    let d = RetrieveOptions::default();
    let mut given = Vec::new();
    let mut note = |changed: bool, flag| {
        if changed {
            given.push(flag)
        }
    };
    note(args.mode != d.mode, "--mode");
    note(args.ppr != d.ppr.method, "--ppr");
    note(args.seeds != d.seeds.source, "--seeds");
    note(args.dense.fusion != d.seeds.fusion, "--fusion");
    note(args.dense.query_chunks, "--query-chunks");
    note(args.dense.dense_weight != d.rerank.dense, "--dense-weight");
    note(args.min_seed_score != d.min_seed_score, "--min-seed-score");
    note(
        args.min_dense_score != d.min_dense_score,
        "--min-dense-score",
    );
    note(args.rerank != RerankerKind::default(), "--rerank");
    note(!args.set.is_empty(), "--set");
    given
}

/// Refuse graph and seed flags under a pipeline without a gos stage (`skillflow`,
/// `skillrouter`, a TOML file of dense and rerank stages): they would silently do nothing.
///
/// # Errors
/// [`UsageError`] naming the first such flag and the pipeline.
fn refuse_ignored_flags(args: &RetrieveArgs, pipeline: &str) -> Result<()> {
    match graph_and_seed_flags(args).first() {
        Some(flag) => Err(UsageError(format!(
            "{flag} does nothing under --pipeline {pipeline}: the pipeline has no gos stage, \
             so graph, seed and rerank flags are ignored (drop {flag}, or use --pipeline gos)"
        ))
        .into()),
        None => Ok(()),
    }
}

/// `text` without the line ends it finishes with (`\n` or `\r\n`, any number of them), as
/// `echo TASK | gos retrieve -w WS -` sends one; everything before them is kept as is.
fn without_final_newlines(text: &str) -> &str {
    let mut t = text;
    while let Some(rest) = t.strip_suffix('\n') {
        t = rest.strip_suffix('\r').unwrap_or(rest);
    }
    t
}

/// Run `gos retrieve`.
pub fn run(args: RetrieveArgs) -> Result<()> {
    let start = Instant::now();
    let query = if args.query == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .context("reading the query from stdin")?;
        s.truncate(without_final_newlines(&s).len());
        s
    } else {
        args.query.clone()
    };
    anyhow::ensure!(!query.trim().is_empty(), "the query is empty");
    let opts = options(&args)?;
    let pipeline_spec = crate::pipeline_args::spec(&args)?;
    if let Some(p) = &pipeline_spec
        && !p
            .stages
            .iter()
            .any(|s| matches!(s, gos_pipeline::StageSpec::Gos(_)))
    {
        refuse_ignored_flags(&args, args.pipeline.as_deref().unwrap_or(&p.name))?;
    }
    let t_open = Instant::now();
    let ws = Arc::new(crate::workspace_arg::open(&args.workspace)?);
    // A pipeline without a gos stage never asks the retriever for more than the workspace.
    let gos_stage = pipeline_spec.as_ref().is_none_or(|p| {
        p.stages
            .iter()
            .any(|s| matches!(s, gos_pipeline::StageSpec::Gos(_)))
    });
    // The library's seed policy: explicit lexical seeds need no encoder; otherwise the
    // retriever loads the workspace's encoder when it has vectors.
    let mut retriever = if args.seeds == gos_core::seed::SeedSource::Lexical || !gos_stage {
        Retriever::new(Arc::clone(&ws))
    } else {
        let device = parse_device(&args.cross_encoder.device)?;
        gos_models::retriever_with(
            Arc::clone(&ws),
            args.dense.model_dir.as_deref(),
            &device,
            args.dense.query_precision,
        )
        .with_context(
            || "loading the query encoder (set --model-dir or GOS_MODEL_DIR, or use --seeds lexical)",
        )?
    };
    let open_ms = t_open.elapsed().as_secs_f64() * 1e3;
    let rewrite = if args.rewrite {
        let service = crate::llm_args::rewrite_service(&args.llm, &args.workspace)?;
        let rw = gos_llm::rewrite::rewrite_query(service.as_ref(), &query);
        if let gos_llm::rewrite::RewriteSource::Fallback { reason } = &rw.source {
            eprintln!("rewrite: using the task text as is ({reason})");
        }
        Some(rw)
    } else {
        None
    };
    let text = rewrite.as_ref().map_or(query.as_str(), |r| r.text.as_str());
    let t_load = Instant::now();
    if args.rerank == RerankerKind::CrossEncoder {
        let (ce, params) = args.cross_encoder.load("--rerank cross-encoder")?;
        retriever = retriever.with_pair_scorer(ce, params);
    }
    let pipeline = match pipeline_spec {
        Some(spec) => Some(crate::pipeline_args::load(
            spec,
            &args.stage_models.models()?,
            &args.cross_encoder.device,
            &args.llm,
            &args.workspace,
        )?),
        None => None,
    };
    let load_ms = t_load.elapsed().as_secs_f64() * 1e3;
    let (r, trace) = match &pipeline {
        Some(p) => {
            let run = p.run(&retriever, text, &opts)?;
            for s in &run.trace.stages {
                for f in &s.fallbacks {
                    eprintln!("pipeline stage `{}`: {f}", s.name);
                }
            }
            (run.retrieval, Some(run.trace))
        }
        None => (retriever.retrieve(text, &opts)?, None),
    };
    for note in &r.limits_applied {
        eprintln!("note: {note}");
    }
    if !args.json {
        print!("{}", r.bundle.rendered_context);
        return Ok(());
    }
    // The gos stage reports its reranker as `gos retrieve` does; other pipelines name themselves.
    let rerank_name = match (&pipeline, gos_stage) {
        (Some(p), false) => format!("pipeline:{}", p.spec().name),
        _ => args.rerank.as_str().to_string(),
    };
    let mut out = gos_server::bundle::bundle_json(
        &ws,
        &query,
        r.mode,
        &r,
        &rerank_name,
        json!(rewrite),
        gos_server::bundle::CallTimings {
            open: open_ms,
            reranker_load: load_ms,
            total: start.elapsed().as_secs_f64() * 1e3,
        },
    );
    if let (Some(trace), Some(obj)) = (trace, out.as_object_mut()) {
        obj.insert("pipeline".into(), json!(trace));
    }
    // serde_json escapes C0 controls; DEL and C1 pass through and could drive a terminal.
    println!("{}", sanitize::json_ascii_controls(&out.to_string()));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::without_final_newlines;

    #[test]
    fn only_the_final_line_ends_of_a_stdin_query_go() {
        assert_eq!(without_final_newlines("task\n"), "task");
        assert_eq!(without_final_newlines("task\r\n\n\r\n"), "task");
        assert_eq!(without_final_newlines("a\n\nb  \n"), "a\n\nb  ");
        assert_eq!(without_final_newlines("  task \t"), "  task \t");
        assert_eq!(without_final_newlines("task\r"), "task\r");
        assert_eq!(without_final_newlines("\n"), "");
    }
}
