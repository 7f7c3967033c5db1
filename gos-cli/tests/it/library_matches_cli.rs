//! One seed policy: `gos_models::retriever` with `RetrieveOptions::default()` returns
//! exactly the bundle `gos retrieve --json` prints for the same workspace and query, on a
//! lexical workspace and on one with vectors (where both seed hybrid).
//!
//! The vectors case needs all-MiniLM-L6-v2 (`scripts/setup-model.sh` or `GOS_MODEL_DIR`); it
//! skips with a message without it, unless `GOS_REQUIRE_MODEL=1` (set by `.ci/run`).

use gos_core::{RetrieveOptions, Workspace};
use gos_models::device::Device;
use serde_json::Value;

use crate::util::{gos, model_dir, repo};
use std::path::Path;

const QUERIES: [&str; 3] = [
    "Make a choropleth PNG of population density per county from /root/data/counties.shp",
    "Transcribe the speech in interview.mp4 and translate the subtitles into German",
    "Find exoplanet transits in a noisy TESS light curve",
];

fn build(ws: &Path, model: Option<&Path>) {
    let mut cmd = gos();
    cmd.args(["build", "-q", "-w"]).arg(ws);
    if let Some(m) = model {
        cmd.arg("--model-dir").arg(m);
    }
    let out = cmd.arg(repo().join("fixtures/library")).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The CLI's bundle and the library's for every query, compared field by field.
fn assert_same_bundles(ws_dir: &Path, expected_source: &str) {
    let retriever =
        gos_models::retriever(Workspace::open(ws_dir).unwrap(), None, &Device::Cpu).unwrap();
    for query in QUERIES {
        let out = gos()
            .args(["retrieve", "--json", "-w"])
            .arg(ws_dir)
            .arg(query)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let cli: Value = serde_json::from_slice(&out.stdout).unwrap();
        let lib = retriever
            .retrieve(query, &RetrieveOptions::default())
            .unwrap();
        assert_eq!(cli["seed_source"], expected_source);
        assert_eq!(lib.source.as_str(), expected_source);
        assert_eq!(cli["status"], lib.bundle.status.as_str());
        assert_eq!(
            cli["rendered_context"],
            lib.bundle.rendered_context.as_str()
        );
        let cli_skills = cli["skills"].as_array().unwrap();
        assert_eq!(cli_skills.len(), lib.bundle.skills.len(), "{query}");
        assert!(!cli_skills.is_empty(), "{query}: empty bundle");
        for (c, l) in cli_skills.iter().zip(&lib.bundle.skills) {
            assert_eq!(c["id"], l.id.as_str());
            assert_eq!(c["reason"], l.reason.as_str());
            // JSON text round-trips a float to within one unit in the last place.
            let cli_score = c["score"].as_f64().unwrap();
            assert!(
                (cli_score - l.score).abs() <= 1e-15 * l.score.abs().max(1.0),
                "{query}: {}: {cli_score} vs {}",
                l.id,
                l.score
            );
        }
    }
}

#[test]
fn library_and_cli_agree_on_a_lexical_workspace() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    build(&ws, None);
    assert_same_bundles(&ws, "lexical");
}

#[test]
fn library_and_cli_agree_on_a_workspace_with_vectors() {
    let Some(model) = model_dir() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    build(&ws, Some(&model));
    assert_same_bundles(&ws, "hybrid");
}
