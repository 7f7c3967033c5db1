//! The Qwen3 decoder shared by the Qwen3 embedder ([`crate::dense::Qwen3Embedder`]) and the
//! Qwen3 reranker ([`crate::cross_encoder::Qwen3Reranker`]): recognizing a Qwen3 model, loading
//! its parts, and the final hidden state of each row's last token.

use crate::model_dir::{model_err, require_file};
use candle_core::{DType, Device, IndexOp, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::qwen3::{Config, Model};
use gos_core::{Error, Result};
use serde_json::Value;
use std::path::{Path, PathBuf};
use tokenizers::Tokenizer;

/// Whether the parsed `config.json` describes a Qwen3 model (`model_type` `qwen3`, or a
/// `Qwen3*` architecture).
pub fn is_qwen3(config: &Value) -> bool {
    config.get("model_type").and_then(Value::as_str) == Some("qwen3")
        || config
            .get("architectures")
            .and_then(Value::as_array)
            .is_some_and(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .any(|s| s.starts_with("Qwen3"))
            })
}

/// A Qwen3 decoder read from `dir`: its config, the base model (weights under `model.`, or
/// at the root as a bare `Qwen3Model` checkpoint stores them) and the weights' builder.
pub(crate) struct Qwen3Parts {
    pub(crate) config: Config,
    pub(crate) model: Model,
    pub(crate) vb: VarBuilder<'static>,
    pub(crate) weights_path: PathBuf,
    pub(crate) tokenizer: Tokenizer,
    pub(crate) tokenizer_path: PathBuf,
}

/// Load config.json, tokenizer.json (padding and truncation removed) and model.safetensors
/// of a Qwen3 model in `dir` onto `device`, as f32. `hint` ends the missing-file message.
pub(crate) fn load_parts(dir: &Path, device: &Device, hint: &str) -> Result<Qwen3Parts> {
    let need = |f: &str| require_file(dir, f, "model", hint);
    let config_path = need("config.json")?;
    let tokenizer_path = need("tokenizer.json")?;
    let weights_path = need("model.safetensors")?;
    let text = std::fs::read_to_string(&config_path).map_err(|e| Error::io(&config_path, e))?;
    let config: Config = serde_json::from_str(&text)
        .map_err(|e| model_err(&config_path, format!("not a Qwen3 config: {e}")))?;
    let mut tokenizer =
        Tokenizer::from_file(&tokenizer_path).map_err(|e| model_err(&tokenizer_path, e))?;
    tokenizer.with_padding(None);
    tokenizer
        .with_truncation(None)
        .map_err(|e| model_err(&tokenizer_path, e))?;
    // SAFETY: the weights file is memory-mapped read-only; gos never writes model files and
    // the mapping lives as long as the model.
    let mut vb = unsafe {
        VarBuilder::from_mmaped_safetensors(&[&weights_path], DType::F32, device)
            .map_err(|e| model_err(&weights_path, e))?
    };
    if !vb.contains_tensor("model.embed_tokens.weight") && vb.contains_tensor("embed_tokens.weight")
    {
        vb = vb.rename_f(|n: &str| n.strip_prefix("model.").unwrap_or(n).to_string());
    }
    let model = Model::new(&config, vb.clone()).map_err(|e| model_err(&weights_path, e))?;
    Ok(Qwen3Parts {
        config,
        model,
        vb,
        weights_path,
        tokenizer,
        tokenizer_path,
    })
}

/// Run `model` over `rows` of token ids (each non-empty, at most the position table), padded
/// on the right with `pad_id`, and return the final hidden state of each row's last token:
/// `(rows.len(), hidden)`. The model is cloned (its weights are shared) so that its key/value
/// cache starts empty.
pub(crate) fn last_token_states(
    model: &Model,
    rows: &[Vec<u32>],
    pad_id: u32,
    device: &Device,
) -> candle_core::Result<Tensor> {
    let len = rows.iter().map(Vec::len).max().unwrap_or(0);
    let n = rows.len();
    let mut ids = Vec::with_capacity(n * len);
    for r in rows {
        ids.extend_from_slice(r);
        ids.extend(std::iter::repeat_n(pad_id, len - r.len()));
    }
    let ids = Tensor::from_vec(ids, (n, len), device)?;
    let hidden = model.clone().forward(&ids, 0)?; // (n, len, hidden)
    let last: Vec<Tensor> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| hidden.i((i, r.len().saturating_sub(1))))
        .collect::<candle_core::Result<_>>()?;
    Tensor::stack(&last, 0)
}
