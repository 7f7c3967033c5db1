//! SkillFlow's shallow reranking stage on the CPU: a 6-layer MiniLM cross-encoder (the shape of
//! ms-marco-MiniLM-L-6-v2, random weights: speed does not depend on their values) over the top
//! 20 candidates, each document cut at 512 characters (reference notes §6.1).
//!
//! Two paths over the same pairs:
//! - `input_order_batch16`: the stage before issue 15, pairs in candidate order, padded
//!   batches of 16 (`CrossEncoder::logits` per chunk, what `score` did then);
//! - `score`: [`CrossEncoder::score`] now, pairs sorted by token length and grouped so that a
//!   batch pads little.
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
use gos_core::cross_encoder::{DEFAULT_BATCH_SIZE, truncate_chars};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// SkillFlow's shallow stage: 20 candidates (k3 stage input after the deep cut is 100, the
/// issue's target is the top 20), 512 characters each.
const CANDIDATES: usize = 20;
const CAP_CHARS: usize = 512;

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

fn bench_cpu_cross_encoder(c: &mut Criterion) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (ce, which) = minilm_cross_encoder(tmp.path());
    let docs = documents();
    let docs: Vec<&str> = docs.iter().map(|d| truncate_chars(d, CAP_CHARS)).collect();
    let lens: Vec<usize> = ce
        .encode_pairs(QUERY, &docs)
        .expect("encode")
        .iter()
        .map(|e| e.get_attention_mask().iter().sum::<u32>() as usize)
        .collect();
    eprintln!(
        "cpu_cross_encoder bench: {which}, {} pairs of {}..{} tokens ({} in all), \
         RAYON_NUM_THREADS={:?}",
        lens.len(),
        lens.iter().min().unwrap_or(&0),
        lens.iter().max().unwrap_or(&0),
        lens.iter().sum::<usize>(),
        std::env::var("RAYON_NUM_THREADS").ok()
    );
    // The two paths agree (same pairs, same model).
    let before: Vec<f32> = docs
        .chunks(DEFAULT_BATCH_SIZE)
        .flat_map(|c| ce.logits(QUERY, c).expect("logits"))
        .map(|r| r[0])
        .collect();
    let after = ce.score(QUERY, &docs, DEFAULT_BATCH_SIZE).expect("score");
    for (b, a) in before.iter().zip(&after) {
        assert!((b - a).abs() < 1e-4, "{b} vs {a}");
    }

    // Wall and CPU time of 5 runs of each path, printed before criterion's samples: on a
    // shared machine the CPU time (user + system of this process, all threads) says what the
    // work costs whatever the other processes take.
    let old = || {
        for chunk in docs.chunks(DEFAULT_BATCH_SIZE) {
            black_box(ce.logits(QUERY, chunk).expect("logits"));
        }
    };
    let new = || {
        black_box(ce.score(QUERY, &docs, DEFAULT_BATCH_SIZE).expect("score"));
    };
    for (name, f) in [
        ("input_order_batch16", &old as &dyn Fn()),
        ("score", &new as &dyn Fn()),
    ] {
        let (t0, c0) = (Instant::now(), cpu_seconds());
        for _ in 0..5 {
            f();
        }
        eprintln!(
            "cpu_cross_encoder {name}: wall {:.3} s, CPU {:.2} s per query (5 runs)",
            t0.elapsed().as_secs_f64() / 5.0,
            (cpu_seconds() - c0) / 5.0
        );
    }

    let mut g = c.benchmark_group("cpu_cross_encoder");
    g.sample_size(10).measurement_time(Duration::from_secs(20));
    g.bench_function(format!("top20x512_input_order_batch16_{which}"), |b| {
        b.iter(|| {
            for chunk in black_box(&docs).chunks(DEFAULT_BATCH_SIZE) {
                black_box(ce.logits(QUERY, chunk).expect("logits"));
            }
        })
    });
    g.bench_function(format!("top20x512_score_{which}"), |b| {
        b.iter(|| {
            ce.score(black_box(QUERY), black_box(&docs), DEFAULT_BATCH_SIZE)
                .expect("score")
        })
    });
    g.finish();
}

criterion_group!(benches, bench_cpu_cross_encoder);
criterion_main!(benches);
