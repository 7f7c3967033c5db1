//! `gos retrieve`.

use crate::RetrieveArgs;
use crate::encoder_arg;
use anyhow::{Context, Result};
use gos_core::hydrate::Budgets;
use gos_core::ppr::PprParams;
use gos_core::{RetrievalMode, RetrieveOptions, Retriever, Workspace};
use serde_json::json;
use std::io::Read;
use std::time::Instant;

pub fn run(args: RetrieveArgs) -> Result<()> {
    let start = Instant::now();
    let query = if args.query == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .context("reading the query from stdin")?;
        s
    } else {
        args.query.clone()
    };
    anyhow::ensure!(!query.trim().is_empty(), "the query is empty");
    let mode: RetrievalMode = args.mode.parse()?;
    anyhow::ensure!(args.top_n > 0, "--top-n must be at least 1");
    let mut opts = RetrieveOptions {
        mode,
        ppr: PprParams {
            method: args.ppr.parse()?,
            ..PprParams::default()
        },
        budgets: Budgets {
            top_n: args.top_n,
            max_chars_per_skill: args.max_chars_per_skill,
            max_context_chars: args.max_context_chars,
            ..Budgets::default()
        },
        ..RetrieveOptions::default()
    };
    if let Some(floor) = args.min_score {
        opts.min_seed_score = floor;
    }
    opts.min_dense_score = args.min_dense_score;
    args.dense.apply(&mut opts)?;
    let t_open = Instant::now();
    let ws = Workspace::open(&args.workspace)
        .with_context(|| format!("opening workspace {}", args.workspace.display()))?;
    opts.seeds.source = encoder_arg::seed_source(args.seeds.as_deref(), &ws)?;
    let encoder = encoder_arg::load(
        &ws,
        opts.seeds.source.needs_vectors(),
        args.dense.model_dir.as_deref(),
        &args.cross_encoder.device,
    )?;
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
    let cross_encoder = if args.rerank == "cross-encoder" {
        Some(args.cross_encoder.load("--rerank cross-encoder")?)
    } else {
        None
    };
    let load_ms = t_load.elapsed().as_secs_f64() * 1e3;
    let mut retriever = Retriever::new(&ws);
    if let Some(e) = &encoder {
        retriever = retriever.with_encoder(e)?;
    }
    if let Some((ce, params)) = &cross_encoder {
        retriever = retriever.with_cross_encoder(ce, *params);
    }
    let r = retriever.retrieve(text, &opts)?;
    if !args.json {
        print!("{}", r.bundle.rendered_context);
        return Ok(());
    }
    let skills: Vec<_> = r
        .bundle
        .skills
        .iter()
        .map(|s| {
            json!({
                "id": s.id,
                "name": s.name,
                "source": s.source,
                "score": s.score,
                "reason": s.reason,
                "chars": s.chars,
                "clipped": s.clipped,
            })
        })
        .collect();
    let out = json!({
        "status": r.bundle.status.as_str(),
        "query": query,
        "mode": mode.as_str(),
        "seed_source": r.source.as_str(),
        "rerank": args.rerank,
        "skills": skills,
        "rendered_context": r.bundle.rendered_context,
        "context_chars": r.bundle.rendered_context.chars().count(),
        "seeds": r.seeds.iter().map(|s| json!({
            "id": ws.manifest.nodes[s.node].id,
            "rank": s.rank,
            "score": s.score,
            "weight": s.weight,
        })).collect::<Vec<_>>(),
        "top_seed_score": r.top_seed_score,
        "top_dense_score": r.top_dense_score,
        "rewrite": rewrite,
        "timings_ms": {
            "open": open_ms,
            "encode": r.timings.encode,
            "seed": r.timings.seed,
            "diffuse": r.timings.diffuse,
            "rerank": r.timings.rerank,
            "reranker_load": load_ms,
            "cross_encoder": r.timings.cross_encoder,
            "hydrate": r.timings.hydrate,
            "retrieve": r.timings.total,
            "total": start.elapsed().as_secs_f64() * 1e3,
        },
    });
    println!("{out}");
    Ok(())
}
