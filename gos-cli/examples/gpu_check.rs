//! The GPU check of `scripts/gpu-check.sh` (issue 24 item 3): the sentence encoder and the
//! cross-encoder on the CPU and on `cuda:0`, same inputs, random weights (speed does not depend
//! on their values), per-query latency and the largest absolute difference between the two.
//!
//! Shapes: the encoder is MiniLM-L6 (all-MiniLM-L6-v2: 6 layers, width 384); the cross-encoder
//! is MiniLM-L6 (ms-marco-MiniLM-L-6-v2) and XLM-R-large (bge-reranker-v2-m3: 24 layers, width
//! 1,024, 16 heads, feed-forward 4,096). `GPU_CHECK_SHAPES=tiny` swaps in 2-layer width-32
//! models (a quick run of the harness itself, on any machine).
//!
//! Output: one JSON object per line on stdout (`{"model", "device", "p50_ms", "p90_ms",
//! "runs", "max_abs_diff"}`); progress on stderr. Without a `--features cuda` build, or without
//! a GPU, the CUDA rows say why (`"cuda": "..."`) and the CPU rows are still measured.
//!
//! Build: `cargo build --release -p gos-cli --features cuda --example gpu_check` (CPU only:
//! without `--features cuda`). Run: `gpu_check [DIR]` (DIR: where the random models are
//! written, default a temporary folder; `GPU_CHECK_RUNS`: timed runs per device, default 20,
//! after 3 warm-up runs that include the GPU's kernel JIT; XLM-R-large on the CPU: one run, no
//! warm-up). Cross-encoder pairs are cut at [`PAIR_TOKENS`].

use gos_models::cross_encoder::{Architecture, CrossEncoder, DEFAULT_BATCH_SIZE};
use gos_models::dense::encoder::SentenceEncoder;
use gos_models::device::{Device, parse_device};
use gos_models::random::{
    RandomModelSpec, tiny_bert_tokenizer_json, tiny_xlm_roberta_tokenizer_json,
    write_random_classifier,
};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// SkillFlow's shallow rerank input (reference notes §6.1): 20 candidates.
const CANDIDATES: usize = 20;

/// Tokens per query-document pair of the cross-encoders (special tokens included): the
/// shallow stage's 512 characters are about 128-256 tokens with a real vocabulary; the random
/// models' tiny vocabulary spells unknown words letter by letter, so without a cap every pair
/// would be 512 tokens long and XLM-R-large on the CPU would take minutes per call.
const PAIR_TOKENS: usize = 256;

/// The task every model reads (~100 tokens).
const QUERY: &str = "The county boundaries for the state are in counties.shp, and the attribute \
    table has a POP2020 column and an ALAND column with land area in square metres. Make a \
    choropleth map of population density in an equal-area projection, with a legend and a title, \
    and save it as density.png. Also write the density per county to density.csv, sorted.";

fn documents() -> Vec<String> {
    (0..CANDIDATES)
        .map(|i| {
            let words = 40 + (i * 37) % 80;
            (0..words)
                .map(|w| {
                    ["skill", "map", "csv", "plot", "county", "density", "legend"][(w + i) % 7]
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

/// Median and 90th percentile of `ms`, milliseconds.
fn percentiles(mut ms: Vec<f64>) -> (f64, f64) {
    ms.sort_by(f64::total_cmp);
    let at = |q: f64| ms[((ms.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.9))
}

/// `f` timed `runs` times after `warmup` untimed calls; its last output.
fn time<T>(warmup: usize, runs: usize, mut f: impl FnMut() -> T) -> (f64, f64, T) {
    for _ in 0..warmup {
        f();
    }
    let mut ms = Vec::with_capacity(runs);
    let mut last = None;
    for _ in 0..runs {
        let t = Instant::now();
        last = Some(f());
        ms.push(t.elapsed().as_secs_f64() * 1e3);
    }
    let (p50, p90) = percentiles(ms);
    (p50, p90, last.expect("runs >= 1"))
}

fn max_abs_diff(a: &[f32], b: &[f32]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| f64::from((x - y).abs()))
        .fold(0.0, f64::max)
}

fn spec(name: &str, tiny: bool) -> (RandomModelSpec, String) {
    let xlmr = name.starts_with("xlmr");
    let (tok, vocab) = if xlmr {
        tiny_xlm_roberta_tokenizer_json()
    } else {
        tiny_bert_tokenizer_json()
    };
    let arch = if xlmr {
        Architecture::XlmRoberta
    } else {
        Architecture::Bert
    };
    let mut s = if tiny {
        RandomModelSpec::tiny(arch, vocab, 1)
    } else {
        RandomModelSpec::minilm_l6(vocab, 1)
    };
    if xlmr && !tiny {
        (s.hidden, s.layers, s.heads, s.intermediate) = (1024, 24, 16, 4096);
    }
    if xlmr {
        s.max_positions = if tiny { 66 } else { 514 };
    } else {
        s.max_positions = if tiny { 512 } else { s.max_positions };
    }
    (s, tok)
}

fn row(model: &str, device: &str, p50: f64, p90: f64, runs: usize, diff: Option<f64>) {
    println!(
        "{}",
        json!({"model": model, "device": device, "p50_ms": (p50 * 1e3).round() / 1e3,
               "p90_ms": (p90 * 1e3).round() / 1e3, "runs": runs, "max_abs_diff": diff})
    );
}

fn main() {
    let tiny = std::env::var("GPU_CHECK_SHAPES").is_ok_and(|s| s == "tiny");
    let runs: usize = std::env::var("GPU_CHECK_RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .filter(|&r| r >= 1)
        .unwrap_or(20);
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let root: PathBuf = std::env::args_os()
        .nth(1)
        .map_or_else(|| tmp.path().to_path_buf(), PathBuf::from);
    let cuda = parse_device("cuda:0");
    if let Err(e) = &cuda {
        eprintln!("no CUDA device: {e}");
        println!("{}", json!({"cuda": e.to_string()}));
    }
    let docs = documents();
    let doc_refs: Vec<&str> = docs.iter().map(String::as_str).collect();

    // The sentence encoder: one query per call (what `gos retrieve` encodes).
    let name = if tiny {
        "encoder-bert-tiny"
    } else {
        "encoder-minilm-l6"
    };
    let dir = write(&root, name, tiny);
    let cpu = SentenceEncoder::load(&dir, &Device::Cpu).expect("encoder on the CPU");
    let (p50, p90, reference) = time(3, runs, || cpu.encode(&[QUERY]).expect("encode"));
    row(name, "cpu", p50, p90, runs, None);
    if let Ok(dev) = &cuda {
        let gpu = SentenceEncoder::load(&dir, dev).expect("encoder on cuda:0");
        let (p50, p90, v) = time(3, runs, || gpu.encode(&[QUERY]).expect("encode"));
        row(
            name,
            "cuda:0",
            p50,
            p90,
            runs,
            Some(max_abs_diff(&reference[0], &v[0])),
        );
    }

    // The cross-encoder: the task against SkillFlow's 20 shallow-stage candidates per call.
    let names: &[&str] = if tiny {
        &["ce-bert-tiny", "xlmr-ce-tiny"]
    } else {
        &["ce-minilm-l6", "xlmr-ce-large"]
    };
    for &name in names {
        let dir = write(&root, name, tiny);
        let cpu = CrossEncoder::load_with_max_length(&dir, &Device::Cpu, Some(PAIR_TOKENS))
            .expect("cross-encoder on the CPU");
        // XLM-R-large on the CPU takes seconds per call: no warm-up and one run (the reference
        // for the difference) keep the check under its 5 minutes.
        let (warmup, cpu_runs) = if name == "xlmr-ce-large" {
            (0, 1)
        } else {
            (3, runs)
        };
        let (p50, p90, reference) = time(warmup, cpu_runs, || {
            cpu.score(QUERY, &doc_refs, DEFAULT_BATCH_SIZE)
                .expect("score")
        });
        row(name, "cpu", p50, p90, cpu_runs, None);
        if let Ok(dev) = &cuda {
            let gpu = CrossEncoder::load_with_max_length(&dir, dev, Some(PAIR_TOKENS))
                .expect("cross-encoder on cuda:0");
            let (p50, p90, s) = time(3, runs, || {
                gpu.score(QUERY, &doc_refs, DEFAULT_BATCH_SIZE)
                    .expect("score")
            });
            row(
                name,
                "cuda:0",
                p50,
                p90,
                runs,
                Some(max_abs_diff(&reference, &s)),
            );
        }
    }
}

/// The random model `name` under `root` (written once; reused when its config is there).
fn write(root: &Path, name: &str, tiny: bool) -> PathBuf {
    let dir = root.join(name);
    if !dir.join("config.json").is_file() {
        eprintln!("writing the random model {name} to {}", dir.display());
        let (s, tok) = spec(name, tiny);
        write_random_classifier(&dir, &s, &tok).expect("write the random model");
    }
    dir
}
