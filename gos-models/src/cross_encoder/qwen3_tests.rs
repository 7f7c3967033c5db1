//! The Qwen3 reranker against constants from scripts/model_reference.py (Python `tokenizers`
//! for the prompt's three parts, its own truncation, a float64 numpy forward pass of the Qwen3
//! decoder and the yes/no head). Regeneration: see the header of dense/model_tests.rs, whose
//! fixture writer also writes this model.

use super::{PairScorer, Qwen3Reranker, load_pair_scorer};
use crate::random::qwen3::{RandomQwen3Spec, tiny_qwen3_tokenizer_json, write_random_qwen3};
use candle_core::Device;
use std::path::Path;

const SEED: u64 = 29;
/// Small enough that the long document is cut.
const MAX_LENGTH: usize = 256;
const QUERY: &str = "convert the sales csv file to a json report";
const DOCS: [&str; 3] = [
    "parse csv files and write json",
    "plot a chart",
    "convert the sales data table into a json report for the task, with the chart, and write \
     the files of the report to the data folder; then plot the sales chart from the table and \
     parse the json data for the report of the task",
];

/// Write the tiny reranker (untied output head, no end token appended) and return the inputs
/// of the reference script.
pub(crate) fn write_qwen3_reranker(dir: &Path) -> serde_json::Value {
    let (tok, vocab) = tiny_qwen3_tokenizer_json(false);
    let mut spec = RandomQwen3Spec::tiny(vocab, SEED);
    spec.tie_word_embeddings = false;
    write_random_qwen3(dir, &spec, &tok).unwrap();
    serde_json::json!({
        "query": QUERY,
        "docs": DOCS,
        "max_length": MAX_LENGTH,
        "instruction": super::qwen3::DEFAULT_RERANK_INSTRUCTION,
        "prefix": super::qwen3::QWEN3_RERANK_PREFIX,
        "suffix": super::qwen3::QWEN3_RERANK_SUFFIX,
    })
}

/// Prompt lengths in tokens and the last 20 ids of each prompt, from the reference script.
const PROMPT_LENS: [usize; 3] = [210, 202, 256];
const PROMPT_TAILS: [[u32; 20]; 3] = [
    [
        303, 32, 272, 32, 343, 32, 291, 490, 10, 489, 464, 271, 116, 10, 491, 10, 10, 492, 10, 10,
    ],
    [
        60, 410, 62, 58, 362, 273, 356, 490, 10, 489, 464, 271, 116, 10, 491, 10, 10, 492, 10, 10,
    ],
    [
        32, 279, 108, 100, 101, 114, 59, 490, 10, 489, 464, 271, 116, 10, 491, 10, 10, 492, 10, 10,
    ],
];
/// P(yes) per document.
const P_YES: [f32; 3] = [0.518735, 0.529352, 0.546911];

#[test]
fn qwen3_reranker_prompt_and_scores_match_the_numpy_reference() {
    let tmp = tempfile::tempdir().unwrap();
    write_qwen3_reranker(tmp.path());
    let r = Qwen3Reranker::load(tmp.path(), &Device::Cpu, Some(MAX_LENGTH)).unwrap();
    for (i, doc) in DOCS.iter().enumerate() {
        let ids = r.pair_ids(QUERY, doc).unwrap();
        assert_eq!(ids.len(), PROMPT_LENS[i], "doc {i}");
        assert_eq!(ids[ids.len() - 20..], PROMPT_TAILS[i], "doc {i}");
    }
    // The long document is cut to the limit; the suffix survives whole.
    assert_eq!(PROMPT_LENS[2], MAX_LENGTH);
    let scorer = load_pair_scorer(tmp.path(), &Device::Cpu, Some(MAX_LENGTH)).unwrap();
    assert!(format!("{scorer:?}").contains("Qwen3Reranker"));
    let got = scorer.score_pairs(QUERY, &DOCS).unwrap();
    for (i, (g, w)) in got.iter().zip(P_YES).enumerate() {
        assert!((g - w).abs() < 1e-4, "doc {i}: P(yes) {g} vs reference {w}");
    }
    // Alone or batched with padding: the same scores.
    for (i, d) in DOCS.iter().enumerate() {
        let alone = r.score(QUERY, &[d]).unwrap()[0];
        assert!(
            (alone - got[i]).abs() < 1e-5,
            "doc {i}: {alone} vs {}",
            got[i]
        );
    }
}

#[test]
fn qwen3_reranker_rejects_a_limit_smaller_than_its_prompt() {
    let tmp = tempfile::tempdir().unwrap();
    write_qwen3_reranker(tmp.path());
    let err = Qwen3Reranker::load(tmp.path(), &Device::Cpu, Some(20))
        .unwrap_err()
        .to_string();
    assert!(err.contains("leaves under 16 tokens"), "{err}");
    let r = Qwen3Reranker::load(tmp.path(), &Device::Cpu, None)
        .unwrap()
        .with_instruction("pick the skill");
    assert_eq!(r.instruction(), "pick the skill");
    assert_eq!(r.max_length(), 256, "capped by the position table");
    assert_eq!(
        r.model_name(),
        tmp.path().file_name().unwrap().to_string_lossy()
    );
}
