//! Qwen3-based embedding model (the layout of Qwen3-Embedding-0.6B and of SkillRouter's
//! SR-Emb-0.6B): a Qwen3 decoder from candle-transformers, last-token pooling, L2
//! normalization, and an instruction prefixed to queries only.
//!
//! Pooling reads the hidden state of each text's last real token. Batches are padded on the
//! right whatever padding side the shipped tokenizer asks for: the decoder's attention is
//! causal, so a real token never sees the padding after it, its rotary positions start at 0,
//! and the last real token sits at `len - 1` of its row. (Left padding, which the reference
//! Python code uses, gives the same vectors there only because it passes an attention mask;
//! candle's Qwen3 takes none.) The text is encoded with the tokenizer's own template, which
//! for Qwen3-Embedding appends `<|endoftext|>`, the token whose state is the embedding.
//!
//! Queries are written `Instruct: {task}\nQuery:{query}` (the Qwen3-Embedding format);
//! documents are embedded as they are.

use crate::batch::length_groups;
use crate::dense::encoder::model_id;
use crate::model_dir::model_err;
use crate::qwen3::{last_token_states, load_parts};
use candle_core::Device;
use candle_transformers::models::qwen3::Model;
use gos_core::Result;
use gos_core::index::dense::TextEmbedder;
use serde_json::Value;
use std::path::Path;
use tokenizers::{Tokenizer, TruncationParams};

/// Task description of the query instruction when the model directory names none: the
/// default of Qwen3-Embedding's model card.
pub const DEFAULT_QWEN3_TASK: &str =
    "Given a web search query, retrieve relevant passages that answer the query";

/// Sequence limit in tokens when the caller gives none: 2,048, SkillRouter's encoder cap
/// (reference notes §6.2); Qwen3-Embedding itself accepts up to 32,768.
pub const DEFAULT_QWEN3_MAX_LENGTH: usize = 2048;

/// Texts per forward pass: 8 texts of 2,048 tokens keep the 0.6B model's activations under
/// ~1 GiB on the CPU.
pub const QWEN3_BATCH_SIZE: usize = 8;

/// The query prefix for `task` in Qwen3-Embedding's format: `Instruct: {task}\nQuery:`.
pub fn qwen3_query_prefix(task: &str) -> String {
    format!("Instruct: {task}\nQuery:")
}

/// A loaded Qwen3 embedding model.
pub struct Qwen3Embedder {
    model: Model,
    tokenizer: Tokenizer,
    device: Device,
    model_id: String,
    dim: usize,
    max_length: usize,
    query_prefix: String,
    pad_id: u32,
}

impl std::fmt::Debug for Qwen3Embedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Qwen3Embedder")
            .field("model_id", &self.model_id)
            .field("dim", &self.dim)
            .field("max_length", &self.max_length)
            .field("query_prefix", &self.query_prefix)
            .finish()
    }
}

/// The query prompt of config_sentence_transformers.json (`prompts.query`), when present.
fn shipped_query_prompt(dir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(dir.join("config_sentence_transformers.json")).ok()?;
    let v: Value = serde_json::from_str(&text).ok()?;
    let p = v.get("prompts")?.get("query")?.as_str()?;
    (!p.is_empty()).then(|| p.to_string())
}

impl Qwen3Embedder {
    /// Load the model in `dir` onto `device` with the sequence limit `max_length` tokens
    /// (default [`DEFAULT_QWEN3_MAX_LENGTH`], capped by `max_position_embeddings`). The query
    /// prefix is `prompts.query` of config_sentence_transformers.json when the directory has
    /// one, else [`qwen3_query_prefix`]`(`[`DEFAULT_QWEN3_TASK`]`)`.
    ///
    /// # Errors
    /// [`gos_core::Error::Model`] naming the file when a file is missing or unreadable, the config is
    /// not a Qwen3 config, or the weights do not match it.
    pub fn load(dir: &Path, device: &Device, max_length: Option<usize>) -> Result<Self> {
        let parts = load_parts(dir, device, "see docs/dense.md")?;
        let mut tokenizer = parts.tokenizer;
        let max_length = max_length
            .unwrap_or(DEFAULT_QWEN3_MAX_LENGTH)
            .min(parts.config.max_position_embeddings);
        if max_length < 2 {
            return Err(model_err(
                dir,
                format!("sequence limit {max_length} tokens is under 2"),
            ));
        }
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length,
                ..TruncationParams::default()
            }))
            .map_err(|e| model_err(&parts.tokenizer_path, e))?;
        // Rows are padded by `last_token_states`; the pad id only has to be a valid token.
        let pad_id = tokenizer.token_to_id("<|endoftext|>").unwrap_or(0);
        Ok(Qwen3Embedder {
            model: parts.model,
            tokenizer,
            device: device.clone(),
            model_id: model_id(dir)?,
            dim: parts.config.hidden_size,
            max_length,
            query_prefix: shipped_query_prompt(dir)
                .unwrap_or_else(|| qwen3_query_prefix(DEFAULT_QWEN3_TASK)),
            pad_id,
        })
    }

    /// Replace the query prefix with the one for `task` ([`qwen3_query_prefix`]); SkillRouter
    /// asks for the most relevant skill document.
    pub fn with_task(mut self, task: &str) -> Self {
        self.query_prefix = qwen3_query_prefix(task);
        self
    }

    /// The text put before every query.
    pub fn query_prefix(&self) -> &str {
        &self.query_prefix
    }

    /// Sequence limit in tokens, the appended end token included.
    pub fn max_length(&self) -> usize {
        self.max_length
    }

    /// Token ids of `texts` as the model sees them (template applied, truncated, unpadded).
    ///
    /// # Errors
    /// [`gos_core::Error::Model`] on tokenizer failures.
    pub fn token_ids(&self, texts: &[&str]) -> Result<Vec<Vec<u32>>> {
        let enc = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(|e| model_err(Path::new("<qwen3 tokenizer>"), e))?;
        Ok(enc
            .iter()
            .map(|e| {
                let mut ids = e.get_ids().to_vec();
                if ids.is_empty() {
                    // An empty text without an end-token template: embed the end token.
                    ids.push(self.pad_id);
                }
                ids
            })
            .collect())
    }

    /// Embed `texts` as they are: unit vectors of [`TextEmbedder::dim`], in input order,
    /// computed in groups of similar length.
    ///
    /// # Errors
    /// [`gos_core::Error::Model`] on tokenizer or tensor failures.
    pub fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let here = Path::new("<qwen3 embedder>");
        let ids = self.token_ids(texts)?;
        let lens: Vec<usize> = ids.iter().map(Vec::len).collect();
        let mut out = vec![Vec::new(); texts.len()];
        for group in length_groups(&lens, QWEN3_BATCH_SIZE) {
            let rows: Vec<Vec<u32>> = group.iter().map(|&i| ids[i].clone()).collect();
            let vecs = (|| -> candle_core::Result<Vec<Vec<f32>>> {
                let last = last_token_states(&self.model, &rows, self.pad_id, &self.device)?;
                let norm = last.sqr()?.sum_keepdim(1)?.sqrt()?.clamp(1e-12, f64::MAX)?;
                last.broadcast_div(&norm)?
                    .to_device(&Device::Cpu)?
                    .to_vec2::<f32>()
            })()
            .map_err(|e| model_err(here, e))?;
            if vecs.len() != group.len() || vecs.iter().any(|v| v.len() != self.dim) {
                return Err(model_err(
                    here,
                    format!(
                        "the model returned {} vectors for {} texts, expected {} values each",
                        vecs.len(),
                        group.len(),
                        self.dim
                    ),
                ));
            }
            for (&i, v) in group.iter().zip(vecs) {
                out[i] = v;
            }
        }
        Ok(out)
    }
}

impl TextEmbedder for Qwen3Embedder {
    fn model_id(&self) -> &str {
        &self.model_id
    }

    fn dim(&self) -> usize {
        self.dim
    }

    fn embed_queries(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let prefixed: Vec<String> = texts
            .iter()
            .map(|q| format!("{}{q}", self.query_prefix))
            .collect();
        let refs: Vec<&str> = prefixed.iter().map(String::as_str).collect();
        self.embed(&refs)
    }

    fn embed_documents(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        self.embed(texts)
    }
}
