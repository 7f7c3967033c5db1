//! Pipeline options of `gos retrieve --pipeline` and of `gos eval` arms named
//! `pipeline:NAME` (flags in [`crate::args::StageModelArgs`]) mapped onto loaded pipelines:
//! the stage models (`--stage-model STAGE=DIR`), the device, and the LLM service of the LLM
//! stages (docs/pipelines.md).

use anyhow::{Context, Result, bail};
use gos_pipeline::{Pipeline, PipelineSpec};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Refuse `--stage-model` names that no stage of `specs` has, so a typo does not silently
/// leave a stage on its TOML model.
///
/// # Errors
/// Naming the unknown stage and the stages there are.
pub fn check_stage_names(
    models: &BTreeMap<String, PathBuf>,
    specs: &[&PipelineSpec],
) -> Result<()> {
    let mut known = Vec::new();
    for p in specs {
        for s in &p.stages {
            known.push(s.name().to_string());
            known.push(format!("{}.{}", p.name, s.name()));
        }
    }
    for name in models.keys() {
        if !known.contains(name) {
            known.sort();
            known.dedup();
            bail!(
                "--stage-model {name}=...: no such stage; the pipeline stages are {}",
                known.join(", ")
            );
        }
    }
    Ok(())
}

/// Load a pipeline (preset or TOML file) with its models on `device` and the LLM service of
/// `llm` (cache: `--llm-cache` or the workspace's `llm-cache.jsonl`).
///
/// # Errors
/// Unknown pipeline, invalid file, missing or unloadable model, bad LLM flags.
pub fn load(
    spec: PipelineSpec,
    models: &BTreeMap<String, PathBuf>,
    device: &str,
    llm: &crate::llm_args::LlmArgs,
    workspace: &Path,
) -> Result<Pipeline> {
    let device = gos_models::device::parse_device(device)?;
    let service = crate::llm_args::rewrite_service(llm, workspace)?;
    let name = spec.name.clone();
    Pipeline::load(spec, models, &device, service)
        .with_context(|| format!("loading pipeline `{name}`"))
}

/// The pipeline `gos retrieve --pipeline` names, checked (stage names of `--stage-model`
/// included) before anything is opened; `None` without `--pipeline`.
///
/// # Errors
/// Unknown pipeline, invalid file, unknown stage name, or `--stage-model` without
/// `--pipeline`.
pub fn spec(args: &crate::RetrieveArgs) -> Result<Option<PipelineSpec>> {
    let models = args.stage_models.models()?;
    let Some(name) = &args.pipeline else {
        if !models.is_empty() {
            bail!("--stage-model needs --pipeline");
        }
        return Ok(None);
    };
    let spec = PipelineSpec::resolve(name)?;
    check_stage_names(&models, &[&spec])?;
    Ok(Some(spec))
}

/// The pipelines of `gos eval`'s `pipeline:NAME` arms, loaded, by arm name (empty without
/// such arms).
///
/// # Errors
/// As [`load`] and [`check_stage_names`]; `--stage-model` without a pipeline arm.
pub fn eval_pipelines(
    args: &crate::EvalArgs,
    arms: &[gos_eval::arm::Arm],
) -> Result<BTreeMap<String, Pipeline>> {
    let models = args.stage_models.models()?;
    let specs = arms
        .iter()
        .filter_map(|a| a.pipeline().map(|p| (a.name.clone(), p)))
        .map(|(arm, p)| Ok((arm, PipelineSpec::resolve(p)?)))
        .collect::<Result<Vec<(String, PipelineSpec)>>>()?;
    if specs.is_empty() && !models.is_empty() {
        bail!("--stage-model needs a pipeline:NAME arm");
    }
    check_stage_names(&models, &specs.iter().map(|(_, s)| s).collect::<Vec<_>>())?;
    specs
        .into_iter()
        .map(|(arm, spec)| {
            let p = load(
                spec,
                &models,
                &args.cross_encoder.device,
                &args.llm,
                &args.workspace,
            )?;
            Ok((arm, p))
        })
        .collect()
}
