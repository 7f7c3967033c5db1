//! Random-weight Qwen3 models in Hugging Face layout and a tiny byte-level BPE tokenizer, for
//! the Qwen3 embedding and reranker tests and the numpy reference script
//! (scripts/model_reference.py).
//!
//! Test support like [`super`]: compiled only with the `test-support` feature and in
//! gos-models' own unit tests. Weights come from a [`SplitMix64`] stream with a fixed seed, so
//! the same spec gives the same bytes everywhere.

use candle_core::{Device, Tensor};
use gos_core::rng::SplitMix64;
use gos_core::{Error, Result};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::Path;

/// Shape and seed of a random Qwen3 decoder.
#[derive(Debug, Clone, PartialEq)]
pub struct RandomQwen3Spec {
    /// Vocabulary size; must cover every id of the tokenizer written with the model.
    pub vocab_size: usize,
    /// Hidden width (1,024 for the 0.6B models).
    pub hidden: usize,
    /// Decoder layers.
    pub layers: usize,
    /// Query heads.
    pub heads: usize,
    /// Key/value heads (grouped-query attention); must divide `heads`.
    pub kv_heads: usize,
    /// Width of one head; `heads * head_dim` need not equal `hidden` (it does not in Qwen3).
    pub head_dim: usize,
    /// Feed-forward width.
    pub intermediate: usize,
    /// Position table size (RoPE cache length).
    pub max_positions: usize,
    /// Whether the output head reuses the token embeddings (true for the 0.6B models).
    pub tie_word_embeddings: bool,
    /// SplitMix64 seed of the weights.
    pub seed: u64,
}

impl RandomQwen3Spec {
    /// A tiny model for tests: 2 layers, width 32, 4 query heads and 2 key/value heads of
    /// width 16 (so attention is 64 wide, unlike the hidden state), feed-forward 64, 256
    /// positions, tied embeddings, over `vocab_size` tokens.
    pub fn tiny(vocab_size: usize, seed: u64) -> Self {
        RandomQwen3Spec {
            vocab_size,
            hidden: 32,
            layers: 2,
            heads: 4,
            kv_heads: 2,
            head_dim: 16,
            intermediate: 64,
            max_positions: 256,
            tie_word_embeddings: true,
            seed,
        }
    }

    /// The `config.json` of this spec as transformers writes it for `Qwen3ForCausalLM`
    /// (RoPE base 1,000,000, RMSNorm epsilon 1e-6, SiLU: the Qwen3 values).
    pub fn config_json(&self) -> Value {
        json!({
            "architectures": ["Qwen3ForCausalLM"],
            "model_type": "qwen3",
            "vocab_size": self.vocab_size,
            "hidden_size": self.hidden,
            "intermediate_size": self.intermediate,
            "num_hidden_layers": self.layers,
            "num_attention_heads": self.heads,
            "num_key_value_heads": self.kv_heads,
            "head_dim": self.head_dim,
            "attention_bias": false,
            "max_position_embeddings": self.max_positions,
            "sliding_window": null,
            "max_window_layers": self.layers,
            "use_sliding_window": false,
            "tie_word_embeddings": self.tie_word_embeddings,
            "rope_theta": 1_000_000.0,
            "rms_norm_eps": 1e-6,
            "hidden_act": "silu",
            "torch_dtype": "float32",
        })
    }
}

/// Write a random Qwen3 decoder of `spec` into `dir` (created if needed): `config.json`,
/// `tokenizer.json` (the given text) and `model.safetensors` with the tensor names of
/// `Qwen3ForCausalLM` (`model.*`, plus `lm_head.weight` when embeddings are not tied).
/// Linear weights are uniform in ±1/sqrt(fan_in), embeddings in ±0.5, RMSNorm gains in 1 ± 0.1.
///
/// # Errors
/// [`Error::Io`] when a file cannot be written; [`Error::Model`] on tensor failures.
pub fn write_random_qwen3(dir: &Path, spec: &RandomQwen3Spec, tokenizer_json: &str) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let terr = |e: candle_core::Error| Error::Model {
        path: dir.to_path_buf(),
        reason: e.to_string(),
    };
    let mut rng = SplitMix64::new(spec.seed);
    let mut tensors: Vec<(String, Tensor)> = Vec::new();
    let mut put = |name: String, shape: &[usize], scale: f32, offset: f32| -> Result<()> {
        let n: usize = shape.iter().product();
        let values: Vec<f32> = (0..n).map(|_| offset + scale * rng.signed_f32()).collect();
        tensors.push((
            name,
            Tensor::from_vec(values, shape, &Device::Cpu).map_err(terr)?,
        ));
        Ok(())
    };
    let (h, f, d) = (spec.hidden, spec.intermediate, spec.head_dim);
    let (q_out, kv_out) = (spec.heads * d, spec.kv_heads * d);
    let lin = |fan_in: usize| 1.0 / (fan_in as f32).sqrt();
    put(
        "model.embed_tokens.weight".into(),
        &[spec.vocab_size, h],
        0.5,
        0.0,
    )?;
    for l in 0..spec.layers {
        let p = format!("model.layers.{l}");
        put(
            format!("{p}.self_attn.q_proj.weight"),
            &[q_out, h],
            lin(h),
            0.0,
        )?;
        put(
            format!("{p}.self_attn.k_proj.weight"),
            &[kv_out, h],
            lin(h),
            0.0,
        )?;
        put(
            format!("{p}.self_attn.v_proj.weight"),
            &[kv_out, h],
            lin(h),
            0.0,
        )?;
        put(
            format!("{p}.self_attn.o_proj.weight"),
            &[h, q_out],
            lin(q_out),
            0.0,
        )?;
        put(format!("{p}.self_attn.q_norm.weight"), &[d], 0.1, 1.0)?;
        put(format!("{p}.self_attn.k_norm.weight"), &[d], 0.1, 1.0)?;
        put(format!("{p}.mlp.gate_proj.weight"), &[f, h], lin(h), 0.0)?;
        put(format!("{p}.mlp.up_proj.weight"), &[f, h], lin(h), 0.0)?;
        put(format!("{p}.mlp.down_proj.weight"), &[h, f], lin(f), 0.0)?;
        put(format!("{p}.input_layernorm.weight"), &[h], 0.1, 1.0)?;
        put(
            format!("{p}.post_attention_layernorm.weight"),
            &[h],
            0.1,
            1.0,
        )?;
    }
    put("model.norm.weight".into(), &[h], 0.1, 1.0)?;
    if !spec.tie_word_embeddings {
        put("lm_head.weight".into(), &[spec.vocab_size, h], lin(h), 0.0)?;
    }
    let map: HashMap<String, Tensor> = tensors.into_iter().collect();
    let weights = dir.join("model.safetensors");
    candle_core::safetensors::save(&map, &weights).map_err(terr)?;
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

/// The byte-to-character table of byte-level BPE (GPT-2, Qwen): printable Latin-1 bytes stand
/// for themselves, the others for code points from 256 up, in byte order.
fn byte_chars() -> Vec<char> {
    let printable = |b: u32| {
        (u32::from(b'!')..=u32::from(b'~')).contains(&b)
            || (0xA1..=0xAC).contains(&b)
            || (0xAE..=0xFF).contains(&b)
    };
    let mut next = 256u32;
    (0u32..256)
        .map(|b| {
            if printable(b) {
                char::from_u32(b).expect("Latin-1 code point")
            } else {
                let c = char::from_u32(next).expect("code point below 512");
                next += 1;
                c
            }
        })
        .collect()
}

/// Words merged into single tokens by the tiny tokenizer (each also with a leading space),
/// `yes` and `no` first: the reranker reads their ids.
pub const QWEN_WORDS: [&str; 30] = [
    "yes",
    "no",
    "the",
    "to",
    "and",
    "of",
    "for",
    "csv",
    "json",
    "file",
    "files",
    "parse",
    "convert",
    "table",
    "data",
    "write",
    "chart",
    "plot",
    "skill",
    "task",
    "report",
    "sales",
    "Query",
    "Document",
    "Instruct",
    "Judge",
    "user",
    "system",
    "assistant",
    "relevant",
];

/// Special and added tokens of the tiny tokenizer, in id order after the BPE vocabulary (the
/// Qwen3 chat and thinking markers).
pub const QWEN_SPECIAL_TOKENS: [&str; 5] = [
    "<|endoftext|>",
    "<|im_start|>",
    "<|im_end|>",
    "<think>",
    "</think>",
];

/// A byte-level BPE tokenizer.json in the layout of the Qwen3 models: ByteLevel pre-tokenizer
/// and decoder, the 256 byte characters as ids 0-255, merges that make each of [`QWEN_WORDS`]
/// (with and without a leading `Ġ` space) one token, then [`QWEN_SPECIAL_TOKENS`] as added
/// tokens. With `append_eos`, the post-processor appends `<|endoftext|>` to every single
/// sequence, as the Qwen3-Embedding tokenizer does. Returns the JSON text and the vocabulary
/// size.
pub fn tiny_qwen3_tokenizer_json(append_eos: bool) -> (String, usize) {
    let chars = byte_chars();
    let mut vocab: Vec<String> = chars.iter().map(|c| c.to_string()).collect();
    let mut merges: Vec<String> = Vec::new();
    let space = chars[usize::from(b' ')];
    for word in QWEN_WORDS {
        for spaced in [false, true] {
            let mut pieces: Vec<String> = word
                .bytes()
                .map(|b| chars[usize::from(b)].to_string())
                .collect();
            if spaced {
                pieces.insert(0, space.to_string());
            }
            let mut left = pieces[0].clone();
            for right in &pieces[1..] {
                let merge = format!("{left} {right}");
                left.push_str(right);
                if !merges.contains(&merge) {
                    merges.push(merge);
                }
                if !vocab.contains(&left) {
                    vocab.push(left.clone());
                }
            }
        }
    }
    let first_special = vocab.len();
    let added: Vec<Value> = QWEN_SPECIAL_TOKENS
        .iter()
        .enumerate()
        .map(|(i, t)| {
            json!({"id": first_special + i, "content": t, "single_word": false,
                   "lstrip": false, "rstrip": false, "normalized": false,
                   "special": !t.contains("think")})
        })
        .collect();
    vocab.extend(QWEN_SPECIAL_TOKENS.iter().map(|s| s.to_string()));
    let ids: serde_json::Map<String, Value> = vocab
        .iter()
        .enumerate()
        .map(|(i, t)| (t.clone(), json!(i)))
        .collect();
    let byte_level = json!({"type": "ByteLevel", "add_prefix_space": false,
                            "trim_offsets": false, "use_regex": true});
    let eos = QWEN_SPECIAL_TOKENS[0];
    let post = if append_eos {
        json!({
            "type": "TemplateProcessing",
            "single": [{"Sequence": {"id": "A", "type_id": 0}},
                       {"SpecialToken": {"id": eos, "type_id": 0}}],
            "pair": [{"Sequence": {"id": "A", "type_id": 0}},
                     {"Sequence": {"id": "B", "type_id": 1}},
                     {"SpecialToken": {"id": eos, "type_id": 1}}],
            "special_tokens": {eos: {"id": eos, "ids": [first_special], "tokens": [eos]}}
        })
    } else {
        byte_level.clone()
    };
    let doc = json!({
        "version": "1.0",
        "truncation": null,
        "padding": null,
        "added_tokens": added,
        "normalizer": {"type": "NFC"},
        "pre_tokenizer": byte_level,
        "post_processor": post,
        "decoder": byte_level,
        "model": {"type": "BPE", "dropout": null, "unk_token": null,
                  "continuing_subword_prefix": "", "end_of_word_suffix": "",
                  "fuse_unk": false, "byte_fallback": false, "ignore_merges": false,
                  "vocab": ids, "merges": merges}
    });
    (
        serde_json::to_string_pretty(&doc).expect("JSON value serializes"),
        vocab.len(),
    )
}
