//! The semantic pass of `gos build` at library scale: neighbour search plus edge rule over N
//! synthetic skills with 384-dim unit vectors (embedding 100,000 texts would take hours on a
//! CPU; the pass reads only the vectors and each skill's name and description).
//!
//! Vectors: `N / 50` random centres, each skill a centre plus uniform noise (±0.08 per
//! coordinate, so a skill's cosine to another of its cluster is about 0.55 and to a stranger
//! about 0), L2-normalized: clustered like real skill families rather than uniform, which is
//! the HNSW worst case. Text: a cluster word and a tool word shared within the cluster, filler
//! words shared by all, so the shared-specific-term rule has something to find.
//!
//! Environment: `GOS_SEMANTIC_N` (default 100000), `GOS_SEMANTIC_DIM` (384),
//! `GOS_SEMANTIC_EXACT_LIMIT` (default [`gos_build::semantic::EXACT_LIMIT`]; set it below N to
//! time the HNSW path), `RAYON_NUM_THREADS`. Prints one markdown row: N, dim, threads, method,
//! neighbour-search and edge-rule seconds, wall and CPU (user + system:
//! on a shared machine the CPU seconds are the comparable figure), edges, load average before the run.
//!
//! Run: `cargo build --workspace --release && target/release/semantic-scale`

use gos_build::semantic::{EXACT_LIMIT, SemanticOptions, SemanticStats, semantic_edges};
use gos_core::index::dense::knn::all_top_k;
use gos_core::index::dense::{HnswParams, Vectors};
use gos_core::rng::SplitMix64;
use gos_core::{EdgeProvenance, Field, SkillNode};
use std::time::Instant;

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// User + system CPU seconds of this process so far (`/proc/self/stat`, 100 ticks a second);
/// 0 where that file does not exist.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name (which may hold spaces) start at the last ')'.
    let rest = stat.rsplit(')').next().unwrap_or("");
    let f: Vec<f64> = rest
        .split_whitespace()
        .skip(11)
        .take(2)
        .filter_map(|x| x.parse().ok())
        .collect();
    f.iter().sum::<f64>() / 100.0
}

fn node(i: usize, cluster: usize) -> SkillNode {
    SkillNode {
        id: format!("synth/skill-{i}"),
        name: format!("skill-{i}"),
        description: Field::parsed(format!(
            "Work with topic{cluster} data using tool{} and the usual files.",
            cluster % 997
        )),
        capability: Field::default(),
        inputs: Field::default(),
        outputs: Field::default(),
        domain_tags: Field::default(),
        tooling: Field::default(),
        example_tasks: Field::default(),
        entrypoints: Field::default(),
        headings: vec![],
        source_path: format!("synth/skill-{i}/SKILL.md"),
        content_hash: String::new(),
        warnings: Vec::new(),
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let n = env("GOS_SEMANTIC_N", 100_000);
    let dim = env("GOS_SEMANTIC_DIM", 384);
    let limit = env("GOS_SEMANTIC_EXACT_LIMIT", EXACT_LIMIT);
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let centres = (n / 50).max(1);
    let mut rng = SplitMix64::new(2026);
    let unit = |v: Vec<f32>| {
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.into_iter().map(|x| x / norm).collect::<Vec<f32>>()
    };
    let cs: Vec<Vec<f32>> = (0..centres)
        .map(|_| unit((0..dim).map(|_| rng.signed_f32()).collect()))
        .collect();
    let mut rows = Vec::with_capacity(n);
    let mut nodes = Vec::with_capacity(n);
    for i in 0..n {
        let c = rng.below(centres);
        rows.push(unit(
            cs[c].iter().map(|x| x + 0.08 * rng.signed_f32()).collect(),
        ));
        nodes.push(node(i, c));
    }
    let hashes = (0..n).map(|i| i.to_string()).collect();
    let vectors = Vectors::from_rows("synthetic".into(), "card".into(), dim, rows, hashes)?;
    let opts = SemanticOptions::default();
    let (t, c) = (Instant::now(), cpu_seconds());
    let nb = all_top_k(&vectors, opts.k, limit, &HnswParams::default());
    let (search_s, search_cpu) = (t.elapsed().as_secs_f64(), cpu_seconds() - c);
    let (t, c) = (Instant::now(), cpu_seconds());
    let mut stats = SemanticStats::default();
    let edges = semantic_edges(
        &nodes,
        &nb,
        opts.cosine_floor,
        EdgeProvenance::Vector,
        &opts,
        &mut stats,
    );
    let (rule_s, rule_cpu) = (t.elapsed().as_secs_f64(), cpu_seconds() - c);
    println!(
        "| N | dim | threads | method | search wall (s) | search CPU (s) | edge rule wall (s) | edge rule CPU (s) | edges | mutual pairs | load before |"
    );
    println!("| ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |");
    println!(
        "| {n} | {dim} | {} | {} | {search_s:.1} | {search_cpu:.1} | {rule_s:.1} | {rule_cpu:.1} | {} | {} | {} |",
        rayon::current_num_threads(),
        if n <= limit { "exact blocked" } else { "hnsw" },
        edges.len(),
        stats.mutual_pairs,
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    Ok(())
}
