//! Side by side with the reference behaviour: gos's PPR (exact power iteration and push) and
//! the reference's dense numpy PPR (benches/ppr_dense_reference.py) on the same graphs.
//!
//! For each size (`GOS_DENSE_SIZES`, default `1000,5000,10000`) and graph family (`random4`,
//! `planted`; see benches/src/graphs.rs) it writes the graph to a temporary file, runs the
//! numpy script (interpreter `GOS_PYTHON`, default `python3`), times gos's solvers (median of
//! 15 runs each) and prints a markdown table: times, ratios and the L1 difference of the
//! score vectors (exact vs numpy, push vs numpy next to push's stated residual bound).
//!
//! Run: `cargo run --release -p gos-benches --bin ppr-vs-dense`

use gos_benches::graphs::{self, Entries};
use gos_benches::synth::{SynthConfig, SynthLibrary};
use gos_core::graph::ppr::{
    PprParams, PprResult, TransitionMatrix, personalized_pagerank, push_pagerank,
};
use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// Median milliseconds of `runs` calls of `f`, and the last result.
fn timed(runs: usize, mut f: impl FnMut() -> PprResult) -> (f64, PprResult) {
    let mut times = Vec::with_capacity(runs);
    let mut last = None;
    for _ in 0..runs {
        let t = Instant::now();
        last = Some(std::hint::black_box(f()));
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    (times[runs / 2], last.expect("runs > 0"))
}

fn l1(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).sum()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let sizes: Vec<usize> = std::env::var("GOS_DENSE_SIZES")
        .unwrap_or_else(|_| "1000,5000,10000".into())
        .split(',')
        .filter_map(|x| x.trim().parse().ok())
        .collect();
    let python = std::env::var("GOS_PYTHON").unwrap_or_else(|_| "python3".into());
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("ppr_dense_reference.py");
    let tmp = std::env::temp_dir().join(format!("gos-ppr-vs-dense-{}", std::process::id()));
    std::fs::create_dir_all(&tmp)?;
    println!(
        "| graph | N | nnz | numpy dense (ms) | gos exact (ms) | gos push (ms) | exact speedup | push speedup | L1 exact vs numpy | L1 push vs numpy | push bound (residual) |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for n in sizes {
        let families: [(&str, Entries); 2] = [
            ("random4", graphs::random_entries(n, 42)),
            (
                "planted",
                graphs::planted_entries(&SynthLibrary::plan(SynthConfig::new(n, 42))),
            ),
        ];
        for (family, entries) in families {
            let p = graphs::seed_vector(n, 5, 7);
            let graph_file = tmp.join(format!("{family}-{n}.txt"));
            let scores_file = tmp.join(format!("{family}-{n}.scores"));
            graphs::write_for_reference(&graph_file, n, &entries, &p)?;
            let out = Command::new(&python)
                .arg(&script)
                .arg(&graph_file)
                .arg(&scores_file)
                .arg("3")
                .output()
                .map_err(|e| format!("running {python} {}: {e}", script.display()))?;
            if !out.status.success() {
                return Err(format!(
                    "{} failed:\n{}",
                    script.display(),
                    String::from_utf8_lossy(&out.stderr)
                )
                .into());
            }
            let meta: serde_json::Value = serde_json::from_slice(&out.stdout)?;
            let numpy_ms = meta["ppr_ms"].as_f64().ok_or("ppr_ms missing")?;
            let reference: Vec<f64> = std::fs::read_to_string(&scores_file)?
                .lines()
                .map(|l| l.trim().parse::<f64>())
                .collect::<Result<_, _>>()?;
            let m: TransitionMatrix = graphs::matrix(n, entries);
            let params = PprParams::default();
            let (exact_ms, exact) = timed(15, || personalized_pagerank(&m, &p, &params));
            let (push_ms, push) = timed(15, || push_pagerank(&m, &p, &params));
            println!(
                "| {family} | {n} | {} | {numpy_ms:.2} | {exact_ms:.3} | {push_ms:.3} | {:.0}x | {:.0}x | {:.1e} | {:.1e} | {:.1e} |",
                m.nnz(),
                numpy_ms / exact_ms,
                numpy_ms / push_ms,
                l1(&exact.scores, &reference),
                l1(&push.scores, &reference),
                push.residual,
            );
        }
    }
    std::fs::remove_dir_all(&tmp)?;
    Ok(())
}
