//! SkillFlow's shallow reranking stage on the CPU: a 6-layer MiniLM cross-encoder (the shape of
//! ms-marco-MiniLM-L-6-v2, random weights: speed does not depend on their values) over the top
//! 20 candidates, each document cut at 512 characters (reference notes §6.1).
//!
//! Two queries over the same documents, both through [`CrossEncoder::score`] (on the CPU: pairs
//! packed without padding, gos-models' `bert::cpu`):
//! - `score`: the 400-character task (~100 tokens), the whole task as the query;
//! - `score_short_query`: a one-line query of ~25 tokens, the kind SkillFlow's rerankers take
//!   (one LLM-written query per task, reference notes §6.1).
//!
//! Documents are windows of the fixture library's SKILL.md texts at staggered lengths (150 to
//! 4,000 characters before the cap, so some are shorter than the cap), the query a
//! 400-character task. The tokenizer is the uncased WordPiece vocabulary of all-MiniLM-L6-v2
//! (the same as the ms-marco MiniLM models) when `models/all-MiniLM-L6-v2/tokenizer.json` or
//! `$GOS_MODEL_DIR/tokenizer.json` exists, else the tiny test tokenizer.
//!
//! Run: `cargo bench -p gos-benches --bench cpu_cross_encoder` (threads: `RAYON_NUM_THREADS`).

mod ce_common;

use ce_common::{QUERY, fixture_chars, minilm_cross_encoder};
use criterion::{Criterion, criterion_group, criterion_main};
use gos_core::text::truncate_chars;
use gos_models::cross_encoder::{CrossEncoder, DEFAULT_BATCH_SIZE};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// SkillFlow's shallow stage: 20 candidates (k3 stage input after the deep cut is 100, the
/// issue's target is the top 20), 512 characters each.
const CANDIDATES: usize = 20;
const CAP_CHARS: usize = 512;

/// A short query for the same task, of the length an LLM-written retrieval query has.
const SHORT_QUERY: &str = "county population density choropleth map in an equal-area \
    projection with a legend, and a csv of density per county sorted descending";

/// Windows of the fixture library at staggered lengths, 150 to 4,000 characters.
fn documents() -> Vec<String> {
    let chars = fixture_chars();
    (0..CANDIDATES)
        .map(|i| {
            let len = 150 + (i * 1_009) % 3_850;
            let start = (i * 997) % (chars.len() - len);
            chars[start..start + len].iter().collect()
        })
        .collect()
}

/// User + system CPU seconds of this process so far (all threads), from /proc/self/stat at
/// 100 ticks per second (Linux); 0 elsewhere.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the parenthesised command name: utime and stime are the 12th and 13th.
    let after = stat.rsplit(')').next().unwrap_or("");
    let f: Vec<&str> = after.split_whitespace().collect();
    let tick = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    (tick(11) + tick(12)) / 100.0
}

/// The 1-minute load average, from /proc/loadavg (Linux); `None` elsewhere.
fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// Real token counts of the pairs of `query` with each document.
fn pair_lengths(ce: &CrossEncoder, query: &str, docs: &[&str]) -> Vec<usize> {
    ce.encode_pairs(query, docs)
        .expect("encode")
        .iter()
        .map(|e| e.get_attention_mask().iter().sum::<u32>() as usize)
        .collect()
}

fn bench_cpu_cross_encoder(c: &mut Criterion) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (ce, which) = minilm_cross_encoder(tmp.path());
    let docs = documents();
    let docs: Vec<&str> = docs.iter().map(|d| truncate_chars(d, CAP_CHARS)).collect();
    let queries = [("score", QUERY), ("score_short_query", SHORT_QUERY)];
    for (name, query) in queries {
        let lens = pair_lengths(&ce, query, &docs);
        eprintln!(
            "cpu_cross_encoder {name}: {which}, {} pairs of {}..{} tokens ({} in all), \
             RAYON_NUM_THREADS={:?}",
            lens.len(),
            lens.iter().min().unwrap_or(&0),
            lens.iter().max().unwrap_or(&0),
            lens.iter().sum::<usize>(),
            std::env::var("RAYON_NUM_THREADS").ok()
        );
        // Batching does not change scores: the whole stage in one batch, in batches of 16 and
        // pair by pair agree.
        let all = ce.score(query, &docs, docs.len()).expect("score");
        for batch in [DEFAULT_BATCH_SIZE, 1] {
            let other = ce.score(query, &docs, batch).expect("score");
            for (a, b) in all.iter().zip(&other) {
                assert!((a - b).abs() < 1e-4, "batch {batch}: {a} vs {b}");
            }
        }
    }

    // Wall and CPU time of 5 runs of each query, printed before criterion's samples: on a
    // shared machine the CPU time (user + system of this process, all threads) says what the
    // work costs whatever the other processes take; the load average says how shared it was.
    for (name, query) in queries {
        ce.score(query, &docs, DEFAULT_BATCH_SIZE).expect("warm-up");
        let (t0, c0, load) = (Instant::now(), cpu_seconds(), load_average());
        for _ in 0..5 {
            black_box(ce.score(query, &docs, DEFAULT_BATCH_SIZE).expect("score"));
        }
        eprintln!(
            "cpu_cross_encoder {name}: wall {:.3} s, CPU {:.2} s per query (5 runs, \
             load average {:.2} before)",
            t0.elapsed().as_secs_f64() / 5.0,
            (cpu_seconds() - c0) / 5.0,
            load.unwrap_or(f64::NAN)
        );
    }

    let mut g = c.benchmark_group("cpu_cross_encoder");
    g.sample_size(10).measurement_time(Duration::from_secs(10));
    for (name, query) in queries {
        g.bench_function(format!("top20x512_{name}_{which}"), |b| {
            b.iter(|| {
                ce.score(black_box(query), black_box(&docs), DEFAULT_BATCH_SIZE)
                    .expect("score")
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench_cpu_cross_encoder);
criterion_main!(benches);
