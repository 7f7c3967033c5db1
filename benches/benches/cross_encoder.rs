//! Cross-encoder latency on the CPU: scoring 32 candidates of 2,048 characters (the stage's
//! defaults) with a 6-layer, 384-wide BERT classifier, the shape of ms-marco-MiniLM-L-6-v2,
//! built with random weights (speed does not depend on weight values).
//!
//! The tokenizer is the uncased WordPiece vocabulary of all-MiniLM-L6-v2 (the same as the
//! ms-marco MiniLM cross-encoders) when `models/all-MiniLM-L6-v2/tokenizer.json` exists
//! (scripts/setup-model.sh), else the tiny test tokenizer, which splits unknown words into
//! letters and so gives longer, still realistic-length sequences. Documents are 2,048-character
//! windows of the fixture library's SKILL.md files; the query is a 400-character task.
//!
//! Run: `cargo bench -p gos-benches --bench cross_encoder`

mod ce_common;

use ce_common::{QUERY, fixture_chars, minilm_cross_encoder};
use criterion::{Criterion, criterion_group, criterion_main};
use gos_core::text::truncate_chars;
use gos_models::cross_encoder::DEFAULT_BATCH_SIZE;
use std::hint::black_box;
use std::time::Duration;

/// 32 windows of 2,048 characters over the fixture library's SKILL.md texts.
fn documents() -> Vec<String> {
    let chars = fixture_chars();
    (0..32)
        .map(|i| {
            let start = (i * 997) % (chars.len() - 2048);
            chars[start..start + 2048].iter().collect()
        })
        .collect()
}

fn bench_cross_encoder(c: &mut Criterion) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (ce, which) = minilm_cross_encoder(tmp.path());
    let docs = documents();
    let docs: Vec<&str> = docs.iter().map(|d| truncate_chars(d, 2048)).collect();
    let enc = ce.encode_pairs(QUERY, &docs).expect("encode");
    eprintln!(
        "cross_encoder bench: {which}, {} pairs padded to {} tokens",
        enc.len(),
        enc[0].len()
    );

    let mut g = c.benchmark_group("cross_encoder");
    g.sample_size(10).measurement_time(Duration::from_secs(60));
    g.bench_function(format!("tokenize_32x2048_{which}"), |b| {
        b.iter(|| {
            ce.encode_pairs(black_box(QUERY), black_box(&docs))
                .expect("encode")
        })
    });
    g.bench_function(format!("score_32x2048_minilm_l6_cpu_{which}"), |b| {
        b.iter(|| {
            ce.score(black_box(QUERY), black_box(&docs), DEFAULT_BATCH_SIZE)
                .expect("score")
        })
    });
    g.finish();
}

criterion_group!(benches, bench_cross_encoder);
criterion_main!(benches);
