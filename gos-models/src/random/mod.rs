//! Random-weight models in Hugging Face layout (BERT and XLM-R sequence classifiers, whose
//! encoder is also a BERT sentence encoder; Qwen3 decoders in [`qwen3`]), for tests, benchmarks
//! and the numpy reference scripts (scripts/cross_encoder_reference.py,
//! scripts/model_reference.py).
//!
//! Test support, not part of the model library: compiled only with the non-default
//! `test-support` feature of gos-models (which the tests of gos-cli and gos-pipeline and the
//! benches enable as a dev-dependency feature) and in gos-models' own unit tests.
//!
//! [`write_random_classifier`] writes `config.json`, `tokenizer.json` and `model.safetensors`
//! of a BERT or XLM-R sequence classifier whose weights come from a [`SplitMix64`] stream
//! with a fixed seed, so the same spec gives the same bytes on every machine. Speed does not
//! depend on weight values, so a random 6-layer 384-wide model times like
//! ms-marco-MiniLM-L-6-v2.
//! [`tiny_bert_tokenizer_json`] and [`tiny_xlm_roberta_tokenizer_json`] are small tokenizers
//! (WordPiece with the BERT template; Unigram with the XLM-R template) so that tests need no
//! downloaded file.

pub mod qwen3;

use crate::cross_encoder::Architecture;
use candle_core::{Device, Tensor};
use gos_core::rng::SplitMix64;
use gos_core::{Error, Result};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::Path;

/// Shape and seed of a random classifier.
#[derive(Debug, Clone, PartialEq)]
pub struct RandomModelSpec {
    /// BERT or XLM-R layout.
    pub architecture: Architecture,
    /// Vocabulary size; must cover every id of the tokenizer written with the model.
    pub vocab_size: usize,
    /// Hidden width (384 for MiniLM-L6).
    pub hidden: usize,
    /// Transformer layers.
    pub layers: usize,
    /// Attention heads; must divide `hidden`.
    pub heads: usize,
    /// Feed-forward width (1,536 for MiniLM-L6).
    pub intermediate: usize,
    /// Position table size (512 for BERT, 514 for XLM-R whose positions start at 2).
    pub max_positions: usize,
    /// Output labels (1 or 2).
    pub num_labels: usize,
    /// SplitMix64 seed of the weights.
    pub seed: u64,
}

impl RandomModelSpec {
    /// A tiny model for tests: 2 layers, width 32, 4 heads, feed-forward 64, 64 positions,
    /// one label, over `vocab_size` tokens.
    pub fn tiny(architecture: Architecture, vocab_size: usize, seed: u64) -> Self {
        RandomModelSpec {
            architecture,
            vocab_size,
            hidden: 32,
            layers: 2,
            heads: 4,
            intermediate: 64,
            max_positions: 64,
            num_labels: 1,
            seed,
        }
    }

    /// The shape of ms-marco-MiniLM-L-6-v2 (6 layers, width 384, 12 heads, feed-forward 1,536,
    /// 512 positions, one label) over `vocab_size` tokens (30,522 for its uncased vocabulary).
    pub fn minilm_l6(vocab_size: usize, seed: u64) -> Self {
        RandomModelSpec {
            architecture: Architecture::Bert,
            vocab_size,
            hidden: 384,
            layers: 6,
            heads: 12,
            intermediate: 1536,
            max_positions: 512,
            num_labels: 1,
            seed,
        }
    }

    /// Padding token id: 0 for BERT, 1 for XLM-R (their conventions).
    pub fn pad_id(&self) -> usize {
        match self.architecture {
            Architecture::Bert => 0,
            Architecture::XlmRoberta => 1,
        }
    }

    /// The `config.json` document of this spec, as Hugging Face transformers writes it for
    /// the architecture (the fields candle's configs require included).
    pub fn config_json(&self) -> Value {
        let labels: serde_json::Map<String, Value> = (0..self.num_labels)
            .map(|i| (i.to_string(), json!(format!("LABEL_{i}"))))
            .collect();
        let (arch, model_type, type_vocab, eps) = match self.architecture {
            Architecture::Bert => ("BertForSequenceClassification", "bert", 2, 1e-12),
            Architecture::XlmRoberta => (
                "XLMRobertaForSequenceClassification",
                "xlm-roberta",
                1,
                1e-5,
            ),
        };
        json!({
            "architectures": [arch],
            "model_type": model_type,
            "vocab_size": self.vocab_size,
            "hidden_size": self.hidden,
            "num_hidden_layers": self.layers,
            "num_attention_heads": self.heads,
            "intermediate_size": self.intermediate,
            "hidden_act": "gelu",
            "hidden_dropout_prob": 0.1,
            "attention_probs_dropout_prob": 0.1,
            "max_position_embeddings": self.max_positions,
            "type_vocab_size": type_vocab,
            "initializer_range": 0.02,
            "layer_norm_eps": eps,
            "pad_token_id": self.pad_id(),
            "position_embedding_type": "absolute",
            "classifier_dropout": null,
            "id2label": labels,
        })
    }
}

fn tensor_err(dir: &Path, e: candle_core::Error) -> Error {
    Error::Model {
        path: dir.to_path_buf(),
        reason: e.to_string(),
    }
}

/// Write a random classifier of `spec` into `dir` (created if needed): `config.json`,
/// `tokenizer.json` (the given text, written as is) and `model.safetensors`. Linear weights
/// are uniform in ±1/sqrt(fan_in), biases in ±0.1, embeddings in ±0.5, LayerNorm gains in
/// 1 ± 0.1 and offsets in ±0.1: values that keep activations O(1) so logits differ visibly
/// between pairs.
///
/// # Errors
/// [`Error::Io`] when a file cannot be written; [`Error::Model`] on tensor failures.
pub fn write_random_classifier(
    dir: &Path,
    spec: &RandomModelSpec,
    tokenizer_json: &str,
) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let mut rng = SplitMix64::new(spec.seed);
    let mut tensors: Vec<(String, Tensor)> = Vec::new();
    let mut put = |name: String, shape: &[usize], scale: f32, offset: f32| -> Result<()> {
        let n: usize = shape.iter().product();
        let values: Vec<f32> = (0..n).map(|_| offset + scale * rng.signed_f32()).collect();
        let t = Tensor::from_vec(values, shape, &Device::Cpu).map_err(|e| tensor_err(dir, e))?;
        tensors.push((name, t));
        Ok(())
    };
    let (h, f) = (spec.hidden, spec.intermediate);
    let lin = |fan_in: usize| 1.0 / (fan_in as f32).sqrt();
    let root = match spec.architecture {
        Architecture::Bert => "bert",
        Architecture::XlmRoberta => "roberta",
    };
    let type_vocab = match spec.architecture {
        Architecture::Bert => 2,
        Architecture::XlmRoberta => 1,
    };
    let e = format!("{root}.embeddings");
    put(
        format!("{e}.word_embeddings.weight"),
        &[spec.vocab_size, h],
        0.5,
        0.0,
    )?;
    put(
        format!("{e}.position_embeddings.weight"),
        &[spec.max_positions, h],
        0.5,
        0.0,
    )?;
    put(
        format!("{e}.token_type_embeddings.weight"),
        &[type_vocab, h],
        0.5,
        0.0,
    )?;
    put(format!("{e}.LayerNorm.weight"), &[h], 0.1, 1.0)?;
    put(format!("{e}.LayerNorm.bias"), &[h], 0.1, 0.0)?;
    for l in 0..spec.layers {
        let p = format!("{root}.encoder.layer.{l}");
        for m in ["query", "key", "value"] {
            put(
                format!("{p}.attention.self.{m}.weight"),
                &[h, h],
                lin(h),
                0.0,
            )?;
            put(format!("{p}.attention.self.{m}.bias"), &[h], 0.1, 0.0)?;
        }
        put(
            format!("{p}.attention.output.dense.weight"),
            &[h, h],
            lin(h),
            0.0,
        )?;
        put(format!("{p}.attention.output.dense.bias"), &[h], 0.1, 0.0)?;
        put(
            format!("{p}.attention.output.LayerNorm.weight"),
            &[h],
            0.1,
            1.0,
        )?;
        put(
            format!("{p}.attention.output.LayerNorm.bias"),
            &[h],
            0.1,
            0.0,
        )?;
        put(
            format!("{p}.intermediate.dense.weight"),
            &[f, h],
            lin(h),
            0.0,
        )?;
        put(format!("{p}.intermediate.dense.bias"), &[f], 0.1, 0.0)?;
        put(format!("{p}.output.dense.weight"), &[h, f], lin(f), 0.0)?;
        put(format!("{p}.output.dense.bias"), &[h], 0.1, 0.0)?;
        put(format!("{p}.output.LayerNorm.weight"), &[h], 0.1, 1.0)?;
        put(format!("{p}.output.LayerNorm.bias"), &[h], 0.1, 0.0)?;
    }
    let k = spec.num_labels;
    match spec.architecture {
        Architecture::Bert => {
            put("bert.pooler.dense.weight".into(), &[h, h], lin(h), 0.0)?;
            put("bert.pooler.dense.bias".into(), &[h], 0.1, 0.0)?;
            put("classifier.weight".into(), &[k, h], lin(h), 0.0)?;
            put("classifier.bias".into(), &[k], 0.1, 0.0)?;
        }
        Architecture::XlmRoberta => {
            put("classifier.dense.weight".into(), &[h, h], lin(h), 0.0)?;
            put("classifier.dense.bias".into(), &[h], 0.1, 0.0)?;
            put("classifier.out_proj.weight".into(), &[k, h], lin(h), 0.0)?;
            put("classifier.out_proj.bias".into(), &[k], 0.1, 0.0)?;
        }
    }
    let map: HashMap<String, Tensor> = tensors.into_iter().collect();
    let weights = dir.join("model.safetensors");
    candle_core::safetensors::save(&map, &weights).map_err(|e| tensor_err(&weights, e))?;
    let write = |name: &str, text: String| -> Result<()> {
        let p = dir.join(name);
        std::fs::write(&p, text).map_err(|e| Error::io(&p, e))
    };
    write(
        "config.json",
        serde_json::to_string_pretty(&spec.config_json()).expect("JSON value serializes"),
    )?;
    write("tokenizer.json", tokenizer_json.to_string())
}

/// Words of the tiny tokenizers' vocabularies (after the special tokens).
pub const WORDS: [&str; 32] = [
    "the", "a", "to", "of", "and", "in", "for", "with", "csv", "json", "pdf", "file", "files",
    "parse", "parser", "convert", "table", "data", "read", "write", "chart", "plot", "image",
    "extract", "text", "skill", "task", "report", "sales", "into", "from", "excel",
];

/// A WordPiece tokenizer.json in the layout of the ms-marco MiniLM cross-encoders: BERT
/// normalizer (lower case), BERT pre-tokenizer, template `\[CLS\] $A \[SEP\] $B:1 \[SEP\]:1`.
/// Vocabulary: `[PAD]`=0, `[UNK]`=1, `\[CLS\]`=2, `\[SEP\]`=3, `[MASK]`=4, then [`WORDS`], the
/// letters `a`-`z`, `##a`-`##z`, `.` and `,` (so every lower-case ASCII word tokenizes).
/// Returns the JSON text and the vocabulary size.
pub fn tiny_bert_tokenizer_json() -> (String, usize) {
    let mut vocab: Vec<String> = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    vocab.extend(WORDS.iter().map(|s| s.to_string()));
    for c in 'a'..='z' {
        if !vocab.contains(&c.to_string()) {
            vocab.push(c.to_string());
        }
    }
    vocab.extend(('a'..='z').map(|c| format!("##{c}")));
    vocab.extend([".".to_string(), ",".to_string()]);
    let ids: serde_json::Map<String, Value> = vocab
        .iter()
        .enumerate()
        .map(|(i, t)| (t.clone(), json!(i)))
        .collect();
    let special = |id: usize, content: &str| {
        json!({"id": id, "content": content, "single_word": false, "lstrip": false,
               "rstrip": false, "normalized": false, "special": true})
    };
    let tok = |id: &str, type_id: u32| json!({"SpecialToken": {"id": id, "type_id": type_id}});
    let seq = |id: &str, type_id: u32| json!({"Sequence": {"id": id, "type_id": type_id}});
    let doc = json!({
        "version": "1.0",
        "truncation": null,
        "padding": null,
        "added_tokens": [special(0, "[PAD]"), special(1, "[UNK]"), special(2, "[CLS]"),
                         special(3, "[SEP]"), special(4, "[MASK]")],
        "normalizer": {"type": "BertNormalizer", "clean_text": true,
                       "handle_chinese_chars": true, "strip_accents": null, "lowercase": true},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [tok("[CLS]", 0), seq("A", 0), tok("[SEP]", 0)],
            "pair": [tok("[CLS]", 0), seq("A", 0), tok("[SEP]", 0), seq("B", 1), tok("[SEP]", 1)],
            "special_tokens": {
                "[CLS]": {"id": "[CLS]", "ids": [2], "tokens": ["[CLS]"]},
                "[SEP]": {"id": "[SEP]", "ids": [3], "tokens": ["[SEP]"]}
            }
        },
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": true},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": ids}
    });
    (
        serde_json::to_string_pretty(&doc).expect("JSON value serializes"),
        vocab.len(),
    )
}

/// A Unigram (SentencePiece) tokenizer.json in the layout of the bge-reranker models: Metaspace
/// pre-tokenizer (`▁` word prefix), template `<s> $A </s> </s> $B </s>` with every type id 0.
/// Vocabulary: `<s>`=0, `<pad>`=1, `</s>`=2, `<unk>`=3, `<mask>`=4, then `▁` + each of
/// [`WORDS`] (score -3), `▁` (score -5), the letters `a`-`z`, `.` and `,` (score -6). No
/// normalizer, so upper-case letters become `<unk>`. Returns the JSON text and the vocabulary
/// size.
pub fn tiny_xlm_roberta_tokenizer_json() -> (String, usize) {
    let mut vocab: Vec<(String, f64)> = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
        .iter()
        .map(|s| (s.to_string(), 0.0))
        .collect();
    vocab.extend(WORDS.iter().map(|w| (format!("\u{2581}{w}"), -3.0)));
    vocab.push(("\u{2581}".to_string(), -5.0));
    vocab.extend(('a'..='z').map(|c| (c.to_string(), -6.0)));
    vocab.extend([(".".to_string(), -6.0), (",".to_string(), -6.0)]);
    let special = |id: usize, content: &str| {
        json!({"id": id, "content": content, "single_word": false, "lstrip": false,
               "rstrip": false, "normalized": false, "special": true})
    };
    let tok = |id: &str| json!({"SpecialToken": {"id": id, "type_id": 0}});
    let seq = |id: &str| json!({"Sequence": {"id": id, "type_id": 0}});
    let metaspace = json!({"type": "Metaspace", "replacement": "\u{2581}",
                           "prepend_scheme": "always", "split": true});
    let doc = json!({
        "version": "1.0",
        "truncation": null,
        "padding": null,
        "added_tokens": [special(0, "<s>"), special(1, "<pad>"), special(2, "</s>"),
                         special(3, "<unk>"), special(4, "<mask>")],
        "normalizer": null,
        "pre_tokenizer": metaspace,
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [tok("<s>"), seq("A"), tok("</s>")],
            "pair": [tok("<s>"), seq("A"), tok("</s>"), tok("</s>"), seq("B"), tok("</s>")],
            "special_tokens": {
                "<s>": {"id": "<s>", "ids": [0], "tokens": ["<s>"]},
                "</s>": {"id": "</s>", "ids": [2], "tokens": ["</s>"]}
            }
        },
        "decoder": metaspace,
        "model": {"type": "Unigram", "unk_id": 3, "vocab": vocab, "byte_fallback": false}
    });
    (
        serde_json::to_string_pretty(&doc).expect("JSON value serializes"),
        vocab.len(),
    )
}
