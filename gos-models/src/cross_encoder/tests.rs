//! Numerical and tokenization tests of the cross-encoder against constants produced once by
//! an independent implementation: scripts/cross_encoder_reference.py tokenizes with the Python
//! `tokenizers` package (separately for query and document, then applies its own truncation
//! and special-token template) and runs a float64 numpy forward pass over the weights these
//! tests write. Regenerate with (see the script's header):
//!
//! ```sh
//! GOS_CE_FIXTURE_DIR=/tmp/ce-fixtures cargo test -p gos-models cross_encoder_write_reference_fixtures -- --ignored
//! /work/main/.venv/bin/python scripts/cross_encoder_reference.py /tmp/ce-fixtures
//! ```

use super::*;
use crate::random::{
    RandomModelSpec, tiny_bert_tokenizer_json, tiny_xlm_roberta_tokenizer_json,
    write_random_classifier,
};
use std::path::Path;

/// Sequence limit of the reference pairs: small enough that [`DOCS`]`[2]` is truncated.
const MAX_LENGTH: usize = 32;
const BERT_SEED: u64 = 7;
const XLMR_SEED: u64 = 11;

const QUERY: &str = "convert the sales csv file into a json report";
const DOCS: [&str; 3] = [
    "parse csv files and write json",
    "plot a chart from an excel table",
    "extract text from pdf files, read the table data, write a report with the chart and \
     the image of the sales data for the task",
];

/// Token ids of the three pairs, from the reference script.
const BERT_IDS: [&[u32]; 3] = [
    &[
        2, 20, 5, 33, 13, 16, 34, 6, 14, 32, 3, 18, 13, 17, 9, 24, 14, 3,
    ],
    &[
        2, 20, 5, 33, 13, 16, 34, 6, 14, 32, 3, 26, 6, 25, 35, 6, 75, 36, 21, 3,
    ],
    &[
        2, 20, 5, 33, 13, 16, 34, 6, 14, 32, 3, 28, 29, 35, 15, 17, 89, 23, 5, 21, 22, 89, 24, 6,
        32, 12, 5, 25, 9, 5, 27, 3,
    ],
];
const XLMR_IDS: [&[u32]; 3] = [
    &[
        0, 20, 5, 33, 13, 16, 34, 6, 14, 32, 2, 2, 18, 13, 17, 9, 24, 14, 2,
    ],
    &[
        0, 20, 5, 33, 13, 16, 34, 6, 14, 32, 2, 2, 26, 6, 25, 35, 6, 51, 36, 21, 2,
    ],
    &[
        0, 20, 5, 33, 13, 16, 34, 6, 14, 32, 2, 2, 28, 29, 35, 15, 17, 65, 23, 5, 21, 22, 65, 24,
        6, 32, 12, 5, 25, 9, 5, 2,
    ],
];

/// Logits of the tiny models on (QUERY, DOCS[i]), float64 numpy reference.
const BERT_LOGITS: [f32; 3] = [-0.0382345, -0.0716815, -0.0646594];
const XLMR_LOGITS: [f32; 3] = [0.154392, 0.123145, 0.115962];

/// SHA-256 of model.safetensors for [`bert_spec`] and [`xlmr_spec`].
const RANDOM_MODEL_SHA256: [&str; 2] = [
    "89ce796a375a2180224940488f10f96ceabdf85a892f1082f00925602fb0d109",
    "ddaf972abc0ca8fbf881672fff75a0ce5d0416dbf23aa82b5187fe6402d505dd",
];

fn bert_spec() -> (RandomModelSpec, String) {
    let (tok, vocab) = tiny_bert_tokenizer_json();
    (
        RandomModelSpec::tiny(Architecture::Bert, vocab, BERT_SEED),
        tok,
    )
}

fn xlmr_spec() -> (RandomModelSpec, String) {
    let (tok, vocab) = tiny_xlm_roberta_tokenizer_json();
    let mut spec = RandomModelSpec::tiny(Architecture::XlmRoberta, vocab, XLMR_SEED);
    spec.max_positions = 66;
    (spec, tok)
}

fn load(dir: &Path, (spec, tok): (RandomModelSpec, String)) -> CrossEncoder {
    write_random_classifier(dir, &spec, &tok).unwrap();
    CrossEncoder::load_with_max_length(dir, &Device::Cpu, Some(MAX_LENGTH)).unwrap()
}

fn assert_close(got: &[f32], want: &[f32], tol: f32) {
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!((g - w).abs() <= tol, "pair {i}: got {g}, reference {w}");
    }
}

fn ids(ce: &CrossEncoder) -> Vec<Vec<u32>> {
    ce.encode_pairs(QUERY, &DOCS)
        .unwrap()
        .iter()
        .map(|e| {
            e.get_ids()
                .iter()
                .zip(e.get_attention_mask())
                .filter(|(_, m)| **m == 1)
                .map(|(i, _)| *i)
                .collect()
        })
        .collect()
}

#[test]
fn cross_encoder_bert_tokens_and_logits_match_reference() {
    let tmp = tempfile::tempdir().unwrap();
    let ce = load(tmp.path(), bert_spec());
    assert_eq!(ce.architecture(), Architecture::Bert);
    assert_eq!(ce.max_length(), MAX_LENGTH);
    let got = ids(&ce);
    for (g, w) in got.iter().zip(BERT_IDS) {
        assert_eq!(g, w);
    }
    let logits: Vec<f32> = ce
        .logits(QUERY, &DOCS)
        .unwrap()
        .into_iter()
        .map(|r| r[0])
        .collect();
    assert_close(&logits, &BERT_LOGITS, 1e-4);
}

#[test]
fn cross_encoder_xlm_roberta_tokens_and_logits_match_reference() {
    let tmp = tempfile::tempdir().unwrap();
    let ce = load(tmp.path(), xlmr_spec());
    assert_eq!(ce.architecture(), Architecture::XlmRoberta);
    let got = ids(&ce);
    for (g, w) in got.iter().zip(XLMR_IDS) {
        assert_eq!(g, w);
    }
    let logits: Vec<f32> = ce
        .logits(QUERY, &DOCS)
        .unwrap()
        .into_iter()
        .map(|r| r[0])
        .collect();
    assert_close(&logits, &XLMR_LOGITS, 1e-4);
}

#[test]
fn cross_encoder_batching_and_padding_do_not_change_scores() {
    for spec in [bert_spec(), xlmr_spec()] {
        let tmp = tempfile::tempdir().unwrap();
        let ce = load(tmp.path(), spec);
        let together = ce.score(QUERY, &DOCS, 3).unwrap();
        let alone = ce.score(QUERY, &DOCS, 1).unwrap();
        assert_close(&together, &alone, 1e-5);
        // The pairs really differ in length, so the batch of three was padded.
        let lens: Vec<usize> = ce
            .encode_pairs(QUERY, &DOCS)
            .unwrap()
            .iter()
            .map(|e| e.get_attention_mask().iter().sum::<u32>() as usize)
            .collect();
        assert!(lens[0] < lens[2] && lens[2] == MAX_LENGTH, "{lens:?}");
    }
}

#[test]
fn cross_encoder_truncation_keeps_the_query_and_caps_a_long_one() {
    let tmp = tempfile::tempdir().unwrap();
    let ce = load(tmp.path(), bert_spec());
    // Short query, long document: the query survives whole, the document is cut.
    let got = ids(&ce);
    assert_eq!(got[2].len(), MAX_LENGTH);
    assert_eq!(got[2][..11], got[0][..11]);
    // A query longer than half the limit is capped at MAX_LENGTH / 2 tokens.
    let long_query = "parse the csv file and write the json data ".repeat(6);
    let enc = ce.encode_pairs(&long_query, &[DOCS[0]]).unwrap();
    let e = &enc[0];
    let sep = e.get_ids().iter().position(|&i| i == 3).unwrap();
    assert_eq!(sep, 1 + MAX_LENGTH / 2, "query tokens kept: {}", sep - 1);
    // ... and the short document after it is whole: [SEP] + 6 tokens + [SEP].
    assert_eq!(e.len(), sep + 1 + 6 + 1);
    // An empty document still scores.
    assert_eq!(ce.score(QUERY, &[""], 1).unwrap().len(), 1);
}

#[test]
fn cross_encoder_two_label_models_score_log_odds() {
    let tmp = tempfile::tempdir().unwrap();
    let (mut spec, tok) = bert_spec();
    spec.num_labels = 2;
    let ce = load(tmp.path(), (spec, tok));
    assert_eq!(ce.num_labels(), 2);
    let logits = ce.logits(QUERY, &DOCS).unwrap();
    let scores = ce.score(QUERY, &DOCS, 2).unwrap();
    for (l, s) in logits.iter().zip(&scores) {
        assert!((l[1] - l[0] - s).abs() < 1e-6);
    }
}

#[test]
fn cross_encoder_detects_architecture_from_config() {
    let detect = |v: serde_json::Value| Architecture::detect(&v);
    assert_eq!(
        detect(serde_json::json!({"architectures": ["BertForSequenceClassification"]})),
        Ok(Architecture::Bert)
    );
    assert_eq!(
        detect(serde_json::json!({"architectures": ["XLMRobertaForSequenceClassification"]})),
        Ok(Architecture::XlmRoberta)
    );
    assert_eq!(
        detect(serde_json::json!({"model_type": "xlm-roberta"})),
        Ok(Architecture::XlmRoberta)
    );
    let err = detect(serde_json::json!({"architectures": ["BertModel"], "model_type": "bert"}))
        .unwrap_err();
    assert!(err.contains("BertModel"), "{err}");
    assert!(
        detect(serde_json::json!({"model_type": "t5"}))
            .unwrap_err()
            .contains("t5")
    );
}

#[test]
fn cross_encoder_load_errors_name_the_file_and_problem() {
    let tmp = tempfile::tempdir().unwrap();
    let err = CrossEncoder::load(tmp.path(), &Device::Cpu)
        .unwrap_err()
        .to_string();
    assert!(err.contains("missing config.json"), "{err}");
    let (spec, tok) = bert_spec();
    write_random_classifier(tmp.path(), &spec, &tok).unwrap();
    let mut config = spec.config_json();
    config["architectures"] = serde_json::json!(["BertModel"]);
    std::fs::write(tmp.path().join("config.json"), config.to_string()).unwrap();
    let err = CrossEncoder::load(tmp.path(), &Device::Cpu)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("config.json") && err.contains("not a supported"),
        "{err}"
    );
    // Weights of another shape than the config says.
    let mut config = spec.config_json();
    config["hidden_size"] = serde_json::json!(64);
    std::fs::write(tmp.path().join("config.json"), config.to_string()).unwrap();
    let err = CrossEncoder::load(tmp.path(), &Device::Cpu)
        .unwrap_err()
        .to_string();
    assert!(err.contains("model.safetensors"), "{err}");
}

/// Writes the two tiny models and the pairs for scripts/cross_encoder_reference.py into
/// `$GOS_CE_FIXTURE_DIR` (bert/, xlm-roberta/, pairs.json).
#[test]
#[ignore = "writes reference fixtures; run by hand with GOS_CE_FIXTURE_DIR set"]
fn cross_encoder_write_reference_fixtures() {
    let out = std::path::PathBuf::from(
        std::env::var("GOS_CE_FIXTURE_DIR").expect("set GOS_CE_FIXTURE_DIR"),
    );
    for (name, (spec, tok)) in [("bert", bert_spec()), ("xlm-roberta", xlmr_spec())] {
        write_random_classifier(&out.join(name), &spec, &tok).unwrap();
    }
    let pairs = serde_json::json!({"query": QUERY, "docs": DOCS, "max_length": MAX_LENGTH});
    std::fs::write(out.join("pairs.json"), pairs.to_string()).unwrap();
}

/// The random models are byte-stable: the weights files of the two test specs hash to the
/// values they had when the generator had its own SplitMix64 copy (before `crate::rng`), so
/// the numpy reference constants above stay valid.
#[test]
fn random_model_weights_are_byte_stable() {
    use sha2::{Digest, Sha256};
    let tmp = tempfile::tempdir().unwrap();
    let mut got = Vec::new();
    for (name, spec) in [("bert", bert_spec()), ("xlm-roberta", xlmr_spec())] {
        let dir = tmp.path().join(name);
        write_random_classifier(&dir, &spec.0, &spec.1).unwrap();
        let bytes = std::fs::read(dir.join("model.safetensors")).unwrap();
        got.push(hex::encode(Sha256::digest(&bytes)));
    }
    assert_eq!(got, RANDOM_MODEL_SHA256);
}
