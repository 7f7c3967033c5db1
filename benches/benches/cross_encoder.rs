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

use criterion::{Criterion, criterion_group, criterion_main};
use gos_core::cross_encoder::random::{
    RandomModelSpec, tiny_bert_tokenizer_json, write_random_classifier,
};
use gos_core::cross_encoder::{CrossEncoder, DEFAULT_BATCH_SIZE, truncate_chars};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

const QUERY: &str = "The county boundaries for the state are in /root/data/counties.shp, and the \
    attribute table has a POP2020 column and an ALAND column with land area in square metres. \
    Make a choropleth map of population density (people per square kilometre) in an equal-area \
    projection, with a legend and a title, and save it as /root/output/density.png. Also write \
    the density per county to /root/output/density.csv sorted from the densest county down.";

/// Size of the uncased BERT vocabulary of the MiniLM models.
const MINILM_VOCAB: usize = 30_522;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// 32 windows of 2,048 characters over the fixture library's SKILL.md texts.
fn documents() -> Vec<String> {
    let mut files = Vec::new();
    let mut stack = vec![root().join("fixtures/library")];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).expect("fixture library").flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.file_name().is_some_and(|n| n == "SKILL.md") {
                files.push(p);
            }
        }
    }
    files.sort();
    let text: String = files
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n\n");
    let chars: Vec<char> = text.chars().collect();
    assert!(chars.len() > 4096, "fixture library too small");
    (0..32)
        .map(|i| {
            let start = (i * 997) % (chars.len() - 2048);
            chars[start..start + 2048].iter().collect()
        })
        .collect()
}

fn bench_cross_encoder(c: &mut Criterion) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let real = root().join("models/all-MiniLM-L6-v2/tokenizer.json");
    let (tokenizer, vocab, which) = match std::fs::read_to_string(&real) {
        Ok(t) => (t, MINILM_VOCAB, "minilm-vocab"),
        Err(_) => {
            let (t, v) = tiny_bert_tokenizer_json();
            (t, v, "tiny-vocab")
        }
    };
    let spec = RandomModelSpec::minilm_l6(vocab, 1);
    write_random_classifier(tmp.path(), &spec, &tokenizer).expect("write model");
    let device = gos_core::device::parse_device("cpu").expect("cpu");
    let ce = CrossEncoder::load(tmp.path(), &device).expect("load");
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
