//! Build a workspace of `fixtures/library`, then retrieve a bundle for a task, as a Rust
//! program that uses gos would.
//!
//! ```sh
//! cargo run -p gos-models --example retrieve_fixtures -- "Transcribe the audio track of a video"
//! ```
//!
//! With `GOS_MODEL_DIR` set to a sentence-encoder directory (`scripts/setup-model.sh`), the
//! workspace gets vectors and the retriever seeds hybrid.

use gos_build::embed::EmbedOptions;
use gos_build::{BuildOptions, build::NoProgress, build_workspace};
use gos_core::{RetrieveOptions, Workspace};
use gos_models::dense::load_workspace_encoder;
use gos_models::device::Device;
use std::path::Path;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let query = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "Make a choropleth map of population density per county".into());
    let library = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/library");
    let tmp = tempfile::tempdir()?;
    let dir = tmp.path().join("workspace");
    let embed = std::env::var_os("GOS_MODEL_DIR")
        .map(|d| EmbedOptions::new(d.into(), load_workspace_encoder));
    let report = build_workspace(
        &BuildOptions {
            library,
            workspace: dir.clone(),
            relate: Default::default(),
            embed,
            force: false,
        },
        &NoProgress,
    )?;
    println!(
        "built {} skills, {} edges",
        report.nodes,
        report.edges.values().sum::<usize>()
    );

    // The workspace's own sentence encoder when it has vectors (then seeds are hybrid).
    let retriever = gos_models::retriever(Workspace::open(&dir)?, None, &Device::Cpu)?;
    let r = retriever.retrieve(&query, &RetrieveOptions::default())?;
    println!(
        "{} with {} seeds, {} skills:",
        r.bundle.status.as_str(),
        r.source,
        r.bundle.skills.len()
    );
    for s in &r.bundle.skills {
        println!("  {:<40} {:.3}  {}", s.id, s.score, s.reason);
    }
    Ok(())
}
