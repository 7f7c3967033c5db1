//! Numerical and tokenization tests of the encoder families against constants produced once by
//! an independent implementation: scripts/model_reference.py tokenizes with the Python
//! `tokenizers` package and runs float64 numpy forward passes (BERT with CLS and mean pooling,
//! Qwen3 with last-token pooling) over the random weights these tests write. Regenerate with:
//!
//! ```sh
//! GOS_MODEL_FIXTURE_DIR=/tmp/model-fixtures cargo test -p gos-models --lib \
//!     write_model_reference_fixtures -- --ignored
//! python scripts/model_reference.py /tmp/model-fixtures
//! ```
//!
//! (the script needs numpy, safetensors and tokenizers; the reranker's constants, in
//! cross_encoder/qwen3_tests.rs, come from the same run).

use crate::cross_encoder::Architecture;
use crate::dense::{PoolingMode, Qwen3Embedder, SentenceEncoder, load_embedder};
use crate::random::qwen3::{RandomQwen3Spec, tiny_qwen3_tokenizer_json, write_random_qwen3};
use crate::random::{RandomModelSpec, tiny_bert_tokenizer_json, write_random_classifier};
use candle_core::Device;
use std::path::Path;

const BERT_SEED: u64 = 21;
const QWEN3_SEED: u64 = 23;

/// Texts of different token lengths, so that every batch is padded.
pub(crate) const TEXTS: [&str; 3] = [
    "parse csv files and write json",
    "plot a chart",
    "convert the sales data table into a json report for the task, with the chart",
];

/// Queries of the Qwen3 embedding test (prefixed with the default instruction).
pub(crate) const QUERIES: [&str; 2] = ["convert a csv file to json", "plot the sales chart"];

/// Write a tiny BERT sentence encoder with `pooling` (`cls` or `mean`) and a Normalize module.
pub(crate) fn write_bert_encoder(dir: &Path, pooling: &str) {
    let (tok, vocab) = tiny_bert_tokenizer_json();
    let spec = RandomModelSpec::tiny(Architecture::Bert, vocab, BERT_SEED);
    write_random_classifier(dir, &spec, &tok).unwrap();
    let modules = serde_json::json!([
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
        {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}
    ]);
    std::fs::write(dir.join("modules.json"), modules.to_string()).unwrap();
    std::fs::create_dir_all(dir.join("1_Pooling")).unwrap();
    let config = serde_json::json!({
        "word_embedding_dimension": spec.hidden,
        "pooling_mode_cls_token": pooling == "cls",
        "pooling_mode_mean_tokens": pooling == "mean",
        "pooling_mode_max_tokens": false,
        "pooling_mode_mean_sqrt_len_tokens": false
    });
    std::fs::write(dir.join("1_Pooling/config.json"), config.to_string()).unwrap();
}

/// Write a tiny Qwen3 embedding model (tied embeddings, `<|endoftext|>` appended).
pub(crate) fn write_qwen3_embedder(dir: &Path) {
    let (tok, vocab) = tiny_qwen3_tokenizer_json(true);
    write_random_qwen3(dir, &RandomQwen3Spec::tiny(vocab, QWEN3_SEED), &tok).unwrap();
}

/// Token ids (the pooled positions included) from the reference script.
const BERT_IDS: [&[u32]; 3] = [
    &[2, 18, 13, 17, 9, 24, 14, 3],
    &[2, 26, 6, 25, 3],
    &[
        2, 20, 5, 33, 22, 21, 34, 6, 14, 32, 11, 5, 31, 89, 12, 5, 25, 3,
    ],
];
/// First 8 dimensions and checksum (sum of v_i * (i mod 7 + 1)) of the CLS-pooled vectors.
const BERT_CLS: [([f32; 8], f32); 3] = [
    (
        [
            -0.149457, 0.016809, -0.110597, -0.115322, 0.011841, 0.109143, 0.045115, 0.240534,
        ],
        -0.841303,
    ),
    (
        [
            -0.145019, 0.037759, -0.132764, -0.089172, -0.008864, 0.081175, 0.033111, 0.269271,
        ],
        -0.799308,
    ),
    (
        [
            -0.164219, 0.005767, -0.128473, -0.064714, 0.031357, 0.139025, 0.020694, 0.216741,
        ],
        -0.554170,
    ),
];
/// The same for the mean-pooled vectors of the same weights.
const BERT_MEAN: [([f32; 8], f32); 3] = [
    (
        [
            -0.059035, 0.121988, -0.204298, -0.000237, 0.117104, 0.029368, 0.349555, 0.216577,
        ],
        -0.788648,
    ),
    (
        [
            -0.059199, 0.051293, -0.255356, 0.057944, 0.196631, 0.056566, 0.203188, 0.200365,
        ],
        -1.184875,
    ),
    (
        [
            -0.076370, 0.100456, -0.196340, 0.065202, 0.154948, 0.240392, 0.266698, 0.098031,
        ],
        1.345691,
    ),
];
/// Token ids of the Qwen3 documents, then of the two prefixed queries.
const QWEN3_IDS: [&[u32]; 5] = [
    &[307, 32, 285, 303, 32, 272, 32, 343, 32, 291, 488],
    &[359, 273, 356, 488],
    &[
        318, 32, 265, 394, 32, 333, 325, 332, 32, 105, 110, 269, 273, 32, 291, 32, 380, 32, 280,
        32, 265, 329, 363, 44, 344, 105, 264, 32, 265, 356, 488,
    ],
    &[
        425, 58, 32, 71, 105, 118, 101, 110, 273, 344, 101, 98, 367, 101, 97, 114, 349, 32, 113,
        117, 101, 114, 121, 44, 32, 376, 116, 114, 105, 101, 118, 101, 32, 478, 271, 116, 32, 304,
        115, 387, 103, 101, 115, 32, 264, 97, 116, 32, 271, 115, 119, 101, 114, 32, 265, 32, 113,
        117, 101, 114, 121, 10, 398, 58, 318, 273, 32, 285, 301, 270, 32, 291, 488,
    ],
    &[
        425, 58, 32, 71, 105, 118, 101, 110, 273, 344, 101, 98, 367, 101, 97, 114, 349, 32, 113,
        117, 101, 114, 121, 44, 32, 376, 116, 114, 105, 101, 118, 101, 32, 478, 271, 116, 32, 304,
        115, 387, 103, 101, 115, 32, 264, 97, 116, 32, 271, 115, 119, 101, 114, 32, 265, 32, 113,
        117, 101, 114, 121, 10, 398, 58, 359, 32, 265, 394, 356, 488,
    ],
];
/// First 8 dimensions and checksum of the Qwen3 vectors: documents, then queries.
const QWEN3_VECS: [([f32; 8], f32); 5] = [
    (
        [
            -0.234128, 0.158946, 0.109272, -0.080917, 0.131582, 0.032812, -0.291253, -0.053626,
        ],
        1.318715,
    ),
    (
        [
            -0.269057, 0.199205, 0.124901, -0.136595, -0.010261, -0.205742, -0.344028, 0.107349,
        ],
        -3.515165,
    ),
    (
        [
            -0.302871, 0.132599, 0.079904, -0.111442, 0.123445, -0.070084, -0.348588, -0.068384,
        ],
        1.97509,
    ),
    (
        [
            -0.294578, 0.009140, 0.026266, -0.187515, 0.097379, -0.059986, -0.196997, -0.149166,
        ],
        1.478669,
    ),
    (
        [
            -0.255790, -0.004772, -0.001815, -0.181253, 0.101278, -0.084082, -0.165127, -0.182533,
        ],
        1.50213,
    ),
];

fn assert_matches(got: &[Vec<f32>], want: &[([f32; 8], f32)], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (i, (v, (first8, checksum))) in got.iter().zip(want).enumerate() {
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-5, "{what} {i}: norm {norm}");
        for d in 0..8 {
            assert!(
                (v[d] - first8[d]).abs() < 1e-4,
                "{what} {i} dim {d}: {} vs reference {}",
                v[d],
                first8[d]
            );
        }
        let sum: f32 = v
            .iter()
            .enumerate()
            .map(|(d, x)| x * ((d % 7) + 1) as f32)
            .sum();
        assert!(
            (sum - checksum).abs() < 1e-4,
            "{what} {i}: checksum {sum} vs {checksum}"
        );
    }
}

#[test]
fn cls_and_mean_pooled_bert_encoders_match_the_numpy_reference() {
    for (pooling, mode, want) in [
        ("cls", PoolingMode::Cls, &BERT_CLS),
        ("mean", PoolingMode::Mean, &BERT_MEAN),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        write_bert_encoder(tmp.path(), pooling);
        let enc = SentenceEncoder::load(tmp.path(), &Device::Cpu).unwrap();
        assert_eq!(enc.pooling().mode, mode);
        let ids = enc.token_ids(&TEXTS).unwrap();
        for (g, w) in ids.iter().zip(BERT_IDS) {
            assert_eq!(g, w);
        }
        // One padded batch, as the retriever calls it.
        let v = enc.encode(&TEXTS).unwrap();
        assert_matches(&v, want, pooling);
        // Through the family-independent loader: the same vectors.
        let boxed = load_embedder(tmp.path(), &Device::Cpu).unwrap();
        let again = boxed.embed_documents(&TEXTS).unwrap();
        for (a, b) in again.iter().flatten().zip(v.iter().flatten()) {
            assert!((a - b).abs() < 1e-6, "{a} vs {b}");
        }
    }
}

#[test]
fn qwen3_embeddings_match_the_numpy_reference() {
    let tmp = tempfile::tempdir().unwrap();
    write_qwen3_embedder(tmp.path());
    let e = Qwen3Embedder::load(tmp.path(), &Device::Cpu, None).unwrap();
    assert_eq!(
        e.query_prefix(),
        "Instruct: Given a web search query, retrieve relevant passages that answer the \
         query\nQuery:"
    );
    let prefixed: Vec<String> = QUERIES
        .iter()
        .map(|q| format!("{}{q}", e.query_prefix()))
        .collect();
    let mut all: Vec<&str> = TEXTS.to_vec();
    all.extend(prefixed.iter().map(String::as_str));
    let ids = e.token_ids(&all).unwrap();
    for (g, w) in ids.iter().zip(QWEN3_IDS) {
        assert_eq!(g, w);
    }
    let boxed = load_embedder(tmp.path(), &Device::Cpu).unwrap();
    assert_eq!(boxed.dim(), 32);
    let mut v = boxed.embed_documents(&TEXTS).unwrap();
    v.extend(boxed.embed_queries(&QUERIES).unwrap());
    assert_matches(&v, &QWEN3_VECS, "qwen3");
    // Batching and padding do not change a vector: each text alone gives the same.
    for (i, t) in TEXTS.iter().enumerate() {
        let alone = e.embed(&[t]).unwrap();
        let diff = alone[0]
            .iter()
            .zip(&v[i])
            .map(|(a, b)| (a - b).abs())
            .fold(0.0f32, f32::max);
        assert!(
            diff < 1e-5,
            "text {i}: padding changed the vector by {diff}"
        );
    }
}

#[test]
fn qwen3_embedder_truncates_and_takes_the_shipped_prompt() {
    let tmp = tempfile::tempdir().unwrap();
    write_qwen3_embedder(tmp.path());
    let prompts = serde_json::json!({"prompts": {"query": "Instruct: find a skill\nQuery:",
                                                 "document": ""}});
    std::fs::write(
        tmp.path().join("config_sentence_transformers.json"),
        prompts.to_string(),
    )
    .unwrap();
    let e = Qwen3Embedder::load(tmp.path(), &Device::Cpu, Some(8)).unwrap();
    assert_eq!(e.query_prefix(), "Instruct: find a skill\nQuery:");
    assert_eq!(e.max_length(), 8);
    let ids = e.token_ids(&[TEXTS[2]]).unwrap();
    assert_eq!(ids[0].len(), 8);
    let e = e.with_task("pick the skill");
    assert_eq!(e.query_prefix(), "Instruct: pick the skill\nQuery:");
    // The limit is capped by the position table (256 for the tiny model).
    let e = Qwen3Embedder::load(tmp.path(), &Device::Cpu, Some(100_000)).unwrap();
    assert_eq!(e.max_length(), 256);
}

/// Writes the tiny models and their inputs for scripts/model_reference.py into
/// `$GOS_MODEL_FIXTURE_DIR`: bert/ (CLS pooling; the script runs both poolings), qwen3-embed/,
/// qwen3-rerank/ and inputs.json.
#[test]
#[ignore = "writes reference fixtures; run by hand with GOS_MODEL_FIXTURE_DIR set"]
fn write_model_reference_fixtures() {
    let out = std::path::PathBuf::from(
        std::env::var("GOS_MODEL_FIXTURE_DIR").expect("set GOS_MODEL_FIXTURE_DIR"),
    );
    write_bert_encoder(&out.join("bert"), "cls");
    write_qwen3_embedder(&out.join("qwen3-embed"));
    let rerank = crate::cross_encoder::qwen3_tests::write_qwen3_reranker(&out.join("qwen3-rerank"));
    let e = Qwen3Embedder::load(&out.join("qwen3-embed"), &Device::Cpu, None).unwrap();
    let inputs = serde_json::json!({
        "texts": TEXTS,
        "queries": QUERIES,
        "query_prefix": e.query_prefix(),
        "rerank": rerank,
    });
    std::fs::write(out.join("inputs.json"), inputs.to_string()).unwrap();
}

#[test]
fn an_encoder_without_a_normalize_module_still_gives_unit_vectors_to_retrieval() {
    let tmp = tempfile::tempdir().unwrap();
    write_bert_encoder(tmp.path(), "cls");
    let modules = std::fs::read_to_string(tmp.path().join("modules.json")).unwrap();
    let modules = modules.replace("sentence_transformers.models.Normalize", "Identity");
    std::fs::write(tmp.path().join("modules.json"), modules).unwrap();
    let enc = SentenceEncoder::load(tmp.path(), &Device::Cpu).unwrap();
    assert!(!enc.pooling().normalize);
    let raw = enc.encode(&TEXTS).unwrap();
    let norm = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
    assert!((norm(&raw[0]) - 1.0).abs() > 1e-3, "{}", norm(&raw[0]));
    let boxed = load_embedder(tmp.path(), &Device::Cpu).unwrap();
    let unit = boxed.embed_queries(&TEXTS).unwrap();
    for (u, r) in unit.iter().zip(&raw) {
        assert!((norm(u) - 1.0).abs() < 1e-5);
        // Same direction: the CLS-pooled vector, scaled.
        let cos: f32 = u.iter().zip(r).map(|(a, b)| a * b).sum::<f32>() / norm(r);
        assert!((cos - 1.0).abs() < 1e-5, "{cos}");
    }
    // ... and that direction is the reference's (BERT_CLS is normalized).
    assert!((unit[0][0] - BERT_CLS[0].0[0]).abs() < 1e-4);
}
