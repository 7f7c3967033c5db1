//! `gos eval`: map the flags to a [`gos_eval::EvalConfig`], load the models the arms need,
//! run the harness with a progress bar and say where the report is. The method is documented
//! in the `gos_eval` crate.

use crate::EvalArgs;
use anyhow::{Context, Result, ensure};
use gos_core::graph::ppr::PprParams;
use gos_core::{RetrieveOptions, Workspace};
use gos_eval::encoder::load_query_encoder;
use gos_eval::{CrossEncoderInfo, EvalConfig, Models, RunInfo};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::sync::Arc;

fn progress(quiet: bool) -> ProgressBar {
    let bar = ProgressBar::new(0).with_style(
        ProgressStyle::with_template("{prefix:>9} [{bar:40}] {pos}/{len} {msg} eta {eta}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    bar.set_draw_target(if quiet {
        ProgressDrawTarget::hidden()
    } else {
        ProgressDrawTarget::stderr()
    });
    bar.set_prefix("eval");
    bar
}

/// `gos eval`.
pub fn run(args: EvalArgs) -> Result<()> {
    let arms = gos_eval::parse_arms(&args.arms)?;
    ensure!(args.resamples > 0, "--resamples must be at least 1");
    let ce_arm = arms.iter().find(|a| a.cross_encoder);
    if let Some(arm) = ce_arm {
        args.cross_encoder.dir(&format!("arm `{}`", arm.name))?;
    }
    let tasks = gos_eval::load_tasks(&args.tasks)?;
    let ws = Arc::new(crate::workspace_arg::open(&args.workspace)?);
    let cross_encoder = match ce_arm {
        Some(arm) => Some(args.cross_encoder.load(&format!("arm `{}`", arm.name))?),
        None => None,
    };
    let mut options = RetrieveOptions {
        ppr: PprParams {
            method: args.ppr,
            ..PprParams::default()
        },
        ..RetrieveOptions::default()
    };
    args.dense.apply(&mut options);
    gos_core::param::set_all(&mut options, args.set.iter().map(String::as_str))
        .map_err(|e| anyhow::anyhow!("--set: {e}"))?;
    let needs_vectors = arms.iter().any(|a| a.source.needs_vectors());
    let encoder = load_query_encoder(
        &ws,
        needs_vectors,
        args.dense.model_dir.as_deref(),
        &args.cross_encoder.device,
        args.dense.query_precision,
    )?;
    let ce = &args.cross_encoder;
    let peer = args
        .peer
        .as_ref()
        .map(|program| gos_eval::peer::PeerCommand {
            program: program.clone(),
            library: args
                .peer_library
                .clone()
                .unwrap_or_else(|| ws.info().library_root.clone().into()),
            tasks: args.tasks.clone(),
            top: gos_eval::RANKED_DEPTH,
        });
    let config = EvalConfig {
        arms,
        options,
        run: RunInfo {
            workspace: args.workspace.clone(),
            task_file: args.tasks.clone(),
            seed: args.seed,
            resamples: args.resamples,
            cross_encoder: Some(CrossEncoderInfo {
                reranker_dir: ce.reranker_dir.clone(),
                top: ce.rerank_top,
                max_chars: ce.rerank_max_chars,
                weight: ce.rerank_weight,
                reserved_share: ce.rerank_reserved_share,
                device: ce.device.clone(),
            }),
        },
        peer,
    };
    let pipelines = crate::pipeline_args::eval_pipelines(&args, &config.arms)?;
    let models = Models {
        encoder,
        cross_encoder,
        pipelines: Some(&pipelines),
    };
    let bar = progress(args.quiet);
    if let Some(k) = args.cv {
        return cross_validate(&args, &ws, &tasks, &config, models, k, &bar);
    }
    let report = gos_eval::evaluate(&ws, &tasks, &config, models, &mut |p| {
        bar.set_length(p.total as u64);
        bar.set_position(p.done as u64);
        bar.set_message(p.task.to_string());
    })?;
    bar.finish_and_clear();
    let json = gos_eval::write_report(&report, &args.out)?;
    if args.json {
        let summary = serde_json::json!({ "arms": json["arms"], "ci": json["ci"] });
        println!("{summary}");
    } else {
        eprintln!(
            "evaluated {} arms on {} tasks ({} oracle skills missing from the workspace); \
             report in {}",
            report.arms.len(),
            report.records.len(),
            report.missing_oracles().len(),
            args.out.display()
        );
    }
    Ok(())
}

/// `gos eval --cv K --sweep ...`: the first arm at every point of the grid, cross-validated.
fn cross_validate(
    args: &EvalArgs,
    ws: &Arc<Workspace>,
    tasks: &[gos_eval::TaskLine],
    config: &EvalConfig,
    models: Models<'_>,
    k: usize,
    bar: &ProgressBar,
) -> Result<()> {
    ensure!(
        config.peer.is_none(),
        "--peer compares arms; it does not combine with --cv"
    );
    let sweeps = args
        .sweep
        .iter()
        .map(|s| gos_eval::cv::parse_sweep(s))
        .collect::<Result<Vec<_>, _>>()?;
    let report = gos_eval::cv::cross_validate(
        ws,
        tasks,
        &config.arms[0],
        &config.options,
        &sweeps,
        k,
        args.cv_metric,
        models,
        &mut |p| {
            bar.set_length(p.total as u64);
            bar.set_position(p.done as u64);
            bar.set_message(p.task.to_string());
        },
    )?;
    bar.finish_and_clear();
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("creating {}", args.out.display()))?;
    let json = report.to_json();
    let json_path = args.out.join("cv.json");
    std::fs::write(&json_path, serde_json::to_string_pretty(&json)? + "\n")
        .with_context(|| format!("writing {}", json_path.display()))?;
    let md_path = args.out.join("cv.md");
    std::fs::write(&md_path, report.to_markdown())
        .with_context(|| format!("writing {}", md_path.display()))?;
    if args.json {
        println!("{json}");
    } else {
        eprintln!(
            "swept {} points with {k}-fold cross-validation on {}; out-of-fold {} {:.3}; \
             report in {}",
            report.grid.len(),
            report.metric,
            report.metric,
            report
                .out_of_fold
                .iter()
                .find(|(m, _)| *m == report.metric)
                .and_then(|(_, v)| *v)
                .unwrap_or(f64::NAN),
            args.out.display()
        );
    }
    Ok(())
}
