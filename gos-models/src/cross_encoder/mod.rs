//! Cross-encoder reranking: a sequence classifier that reads the query and a skill's text
//! together and gives one relevance logit per pair.
//!
//! A cross-encoder is the strongest known reranker for the top of a candidate list (SkillFlow
//! and SkillRouter gain most of their top-1 accuracy there, reference notes), and the most
//! expensive: one transformer pass per candidate. gos runs it over the top R candidates after
//! diffusion and field-evidence reranking (`gos_core::rerank::CrossEncoderReranker`, through
//! [`PairScorer`]).
//!
//! Models are read from a directory in Hugging Face layout (`config.json`, `tokenizer.json`,
//! `model.safetensors`; `tokenizer_config.json` optional). Two architectures are detected from
//! `config.json` ([`Architecture::detect`]):
//!
//! - BERT-family sequence classifiers (`BertForSequenceClassification`, e.g. the
//!   `cross-encoder/ms-marco-MiniLM-L-6-v2` family): `bert`;
//! - XLM-RoBERTa sequence classifiers (`XLMRobertaForSequenceClassification`, e.g.
//!   `BAAI/bge-reranker-base`): `xlm_roberta`.
//!
//! A Qwen3 causal language model (`model_type` `qwen3`, e.g. Qwen3-Reranker-0.6B) is not a
//! sequence classifier: [`Qwen3Reranker`] scores it from its yes/no next-token logits, and
//! [`load_pair_scorer`] picks it from `config.json`.
//!
//! The pair is tokenized by the model's own tokenizer.json (`pair`): its special-token
//! template, padding to the longest pair of a batch, truncation that keeps the query.
//! Numerical agreement with an independent numpy forward pass is checked by the
//! `cross_encoder` tests (scripts/cross_encoder_reference.py).
//!
//! On the CPU a BERT cross-encoder runs pairs packed without padding, on hand-written
//! vectorized kernels (`crate::bert`; docs/performance.md has the measurements); on a GPU it
//! runs candle's tensors in length-sorted padded batches.

mod bert;
mod pair;
pub mod qwen3;
pub mod scorer;
mod xlm_roberta;

pub use gos_core::rerank::PairScorer;
pub use qwen3::Qwen3Reranker;
pub use scorer::load_pair_scorer;

use crate::batch::length_groups;
use crate::bert::{CpuBert, Packed};
use crate::model_dir::{model_err, require_file};
use crate::tokenizer::pad_and_truncate;
use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use gos_core::{Error, Result};
use rayon::prelude::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use tokenizers::{Encoding, Tokenizer, TruncationStrategy};

/// Sequence limit in tokens (special tokens included) when neither the caller nor
/// `tokenizer_config.json` gives one: 512, what the ms-marco MiniLM and bge-reranker models
/// were trained with.
pub const DEFAULT_MAX_LENGTH: usize = 512;

/// Pairs per forward pass in [`CrossEncoder::score`] through [`PairScorer::score_pairs`]: the
/// cross-encoder stage's default, [`gos_core::rerank::DEFAULT_BATCH_SIZE`] (16 pairs of ~512
/// tokens keep peak memory under ~200 MiB for a 6-layer 384-wide model on the CPU).
pub const DEFAULT_BATCH_SIZE: usize = gos_core::rerank::DEFAULT_BATCH_SIZE;

/// Model families gos can run as a cross-encoder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Architecture {
    /// `BertForSequenceClassification` (model_type `bert`): encoder, pooler, linear head.
    Bert,
    /// `XLMRobertaForSequenceClassification` (model_type `xlm-roberta` or `roberta`): encoder
    /// with padding-aware positions, `dense -> tanh -> out_proj` head.
    XlmRoberta,
}

impl Architecture {
    /// Detect the architecture from a parsed `config.json`: its `architectures` list first
    /// (`BertForSequenceClassification`, `XLMRobertaForSequenceClassification`,
    /// `RobertaForSequenceClassification`), else its `model_type` (`bert`, `xlm-roberta`,
    /// `roberta`).
    ///
    /// # Errors
    /// A message naming what was found when it is neither family or not a sequence classifier
    /// (e.g. a plain `BertModel` sentence encoder).
    pub fn detect(config: &Value) -> std::result::Result<Self, String> {
        let archs: Vec<&str> = config
            .get("architectures")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        for a in &archs {
            match *a {
                "BertForSequenceClassification" => return Ok(Architecture::Bert),
                "XLMRobertaForSequenceClassification" | "RobertaForSequenceClassification" => {
                    return Ok(Architecture::XlmRoberta);
                }
                _ => {}
            }
        }
        if !archs.is_empty() {
            return Err(format!(
                "architectures {archs:?} are not a supported sequence classifier \
                 (BertForSequenceClassification, XLMRobertaForSequenceClassification)"
            ));
        }
        match config.get("model_type").and_then(Value::as_str) {
            Some("bert") => Ok(Architecture::Bert),
            Some("xlm-roberta" | "roberta") => Ok(Architecture::XlmRoberta),
            Some(other) => Err(format!(
                "model_type `{other}` is not supported (bert, xlm-roberta)"
            )),
            None => Err("config.json has neither `architectures` nor `model_type`".to_string()),
        }
    }

    /// Name used in messages and reports (`bert`, `xlm-roberta`).
    pub fn as_str(self) -> &'static str {
        match self {
            Architecture::Bert => "bert",
            Architecture::XlmRoberta => "xlm-roberta",
        }
    }
}

enum Model {
    /// Candle's BERT (a GPU device).
    Bert(bert::BertClassifier),
    /// BERT on the CPU over packed, unpadded pairs.
    BertCpu(CpuBert),
    XlmRoberta(xlm_roberta::XlmRobertaClassifier),
}

/// A loaded cross-encoder.
pub struct CrossEncoder {
    model: Model,
    /// The model's tokenizer without truncation or padding (query capping).
    plain: Tokenizer,
    /// The same, configured for pairs by [`pad_and_truncate`] (`OnlySecond`).
    tokenizer: Tokenizer,
    device: Device,
    dir: PathBuf,
    architecture: Architecture,
    max_length: usize,
    num_labels: usize,
    zero_types: bool,
    pad_id: u32,
}

impl std::fmt::Debug for CrossEncoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CrossEncoder")
            .field("dir", &self.dir)
            .field("architecture", &self.architecture)
            .field("max_length", &self.max_length)
            .field("num_labels", &self.num_labels)
            .finish()
    }
}

fn need(dir: &Path, file: &str) -> Result<PathBuf> {
    require_file(dir, file, "cross-encoder", "see docs/cross-encoder.md")
}

/// Number of output labels: the length of `id2label`, else `num_labels`, else 1.
fn num_labels(config: &Value) -> usize {
    config
        .get("id2label")
        .and_then(Value::as_object)
        .map(|m| m.len())
        .or_else(|| {
            config
                .get("num_labels")
                .and_then(Value::as_u64)
                .map(|n| n as usize)
        })
        .unwrap_or(1)
}

/// `model_max_length` of tokenizer_config.json when it is a real limit (Hugging Face writes a
/// huge sentinel when there is none).
fn tokenizer_max_length(dir: &Path) -> Option<usize> {
    let text = std::fs::read_to_string(dir.join("tokenizer_config.json")).ok()?;
    let v: Value = serde_json::from_str(&text).ok()?;
    let m = v.get("model_max_length")?.as_f64()?;
    (16.0..=100_000.0).contains(&m).then_some(m as usize)
}

impl CrossEncoder {
    /// Load the cross-encoder in `dir` onto `device` (see [`crate::device::parse_device`]),
    /// with the sequence limit from tokenizer_config.json or [`DEFAULT_MAX_LENGTH`].
    ///
    /// # Errors
    /// See [`CrossEncoder::load_with_max_length`].
    pub fn load(dir: &Path, device: &Device) -> Result<Self> {
        Self::load_with_max_length(dir, device, None)
    }

    /// Load with an explicit sequence limit in tokens (special tokens included). Whatever the
    /// source, the limit is capped by the model's position table (`max_position_embeddings`,
    /// less `pad_token_id + 1` for XLM-R, whose positions start after the padding index).
    /// Weights are memory-mapped as f32.
    ///
    /// # Errors
    /// [`Error::Model`] naming the file when a file is missing or unreadable, the config is
    /// not a supported sequence classifier or lacks a field, the model has more than two
    /// labels, the limit is under 16 tokens, or the weights do not match the config.
    pub fn load_with_max_length(
        dir: &Path,
        device: &Device,
        max_length: Option<usize>,
    ) -> Result<Self> {
        let config_path = need(dir, "config.json")?;
        let tokenizer_path = need(dir, "tokenizer.json")?;
        let weights_path = need(dir, "model.safetensors")?;
        let config_text =
            std::fs::read_to_string(&config_path).map_err(|e| Error::io(&config_path, e))?;
        let config: Value = serde_json::from_str(&config_text)
            .map_err(|e| model_err(&config_path, format!("invalid JSON: {e}")))?;
        let architecture = Architecture::detect(&config).map_err(|r| model_err(&config_path, r))?;
        let num_labels = num_labels(&config);
        if !(1..=2).contains(&num_labels) {
            return Err(model_err(
                &config_path,
                format!(
                    "{num_labels} labels; a cross-encoder has 1 (a logit) or 2 (not relevant, relevant)"
                ),
            ));
        }
        let int = |key: &str| config.get(key).and_then(Value::as_u64).map(|v| v as usize);
        let pad_id = int("pad_token_id").unwrap_or(match architecture {
            Architecture::Bert => 0,
            Architecture::XlmRoberta => 1,
        });
        let positions = int("max_position_embeddings").unwrap_or(DEFAULT_MAX_LENGTH);
        let position_cap = match architecture {
            Architecture::Bert => positions,
            Architecture::XlmRoberta => positions.saturating_sub(pad_id.saturating_add(1)),
        };
        let max_length = max_length
            .or_else(|| tokenizer_max_length(dir))
            .unwrap_or(DEFAULT_MAX_LENGTH)
            .min(position_cap);
        if max_length < 16 {
            return Err(model_err(
                &config_path,
                format!("sequence limit {max_length} tokens is under 16"),
            ));
        }
        let zero_types = int("type_vocab_size").unwrap_or(1) <= 1;
        let mut plain =
            Tokenizer::from_file(&tokenizer_path).map_err(|e| model_err(&tokenizer_path, e))?;
        plain.with_padding(None);
        plain
            .with_truncation(None)
            .map_err(|e| model_err(&tokenizer_path, e))?;
        let mut tokenizer = plain.clone();
        pad_and_truncate(
            &mut tokenizer,
            pad_id as u32,
            max_length,
            TruncationStrategy::OnlySecond,
        )
        .map_err(|e| model_err(&tokenizer_path, e))?;
        // SAFETY: the weights file is memory-mapped read-only; gos never writes model files
        // and the mapping lives as long as the model.
        let vb = unsafe {
            VarBuilder::from_mmaped_safetensors(&[&weights_path], DType::F32, device)
                .map_err(|e| model_err(&weights_path, e))?
        };
        let model = match architecture {
            Architecture::Bert => {
                let cfg: candle_transformers::models::bert::Config =
                    serde_json::from_value(config.clone())
                        .map_err(|e| model_err(&config_path, format!("not a BERT config: {e}")))?;
                let m = bert::BertClassifier::load(vb, &cfg, num_labels)
                    .map_err(|e| model_err(&weights_path, e))?;
                if device.is_cpu() {
                    Model::BertCpu(m.to_cpu().map_err(|e| model_err(&weights_path, e))?)
                } else {
                    Model::Bert(m)
                }
            }
            Architecture::XlmRoberta => {
                let cfg: candle_transformers::models::xlm_roberta::Config =
                    serde_json::from_value(config.clone()).map_err(|e| {
                        model_err(&config_path, format!("not an XLM-RoBERTa config: {e}"))
                    })?;
                Model::XlmRoberta(
                    xlm_roberta::XlmRobertaClassifier::load(vb, &cfg, num_labels)
                        .map_err(|e| model_err(&weights_path, e))?,
                )
            }
        };
        Ok(CrossEncoder {
            model,
            plain,
            tokenizer,
            device: device.clone(),
            dir: dir.to_path_buf(),
            architecture,
            max_length,
            num_labels,
            zero_types,
            pad_id: pad_id as u32,
        })
    }

    /// Detected architecture.
    pub fn architecture(&self) -> Architecture {
        self.architecture
    }

    /// Sequence limit in tokens, special tokens included.
    pub fn max_length(&self) -> usize {
        self.max_length
    }

    /// Model directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Number of output labels (1 or 2).
    pub fn num_labels(&self) -> usize {
        self.num_labels
    }

    /// Token encodings of `(query, doc)` for each document, as the model sees them: special
    /// tokens, query kept (capped at half the limit), document truncated, padded to the
    /// longest pair.
    ///
    /// # Errors
    /// [`Error::Model`] on tokenizer failures.
    pub fn encode_pairs(&self, query: &str, docs: &[&str]) -> Result<Vec<Encoding>> {
        pair::encode_pairs(&self.plain, &self.tokenizer, query, docs, self.max_length)
            .map_err(|e| model_err(&self.dir, e))
    }

    /// Raw logits of one batch: `docs.len()` rows of [`Self::num_labels`] values, in input
    /// order, all pairs in one forward pass (padding does not change a pair's logits).
    ///
    /// # Errors
    /// [`Error::Model`] on tokenizer or tensor failures, and when the model's output is not
    /// `docs.len()` rows of [`Self::num_labels`] values.
    pub fn logits(&self, query: &str, docs: &[&str]) -> Result<Vec<Vec<f32>>> {
        if docs.is_empty() {
            return Ok(Vec::new());
        }
        let enc = self.encode_pairs(query, docs)?;
        let all: Vec<usize> = (0..enc.len()).collect();
        self.forward_rows(&enc, &all)
    }

    /// Logits of the pairs `enc[rows]` in one forward pass, padded to the longest of them
    /// (`enc` is right-padded, so a row's real tokens come first).
    fn forward_rows(&self, enc: &[Encoding], rows: &[usize]) -> Result<Vec<Vec<f32>>> {
        if let Model::BertCpu(m) = &self.model {
            return self.forward_packed(m, enc, rows);
        }
        let n = rows.len();
        let len = rows.iter().map(|&i| real_len(&enc[i])).max().unwrap_or(0);
        let mut ids = Vec::with_capacity(n * len);
        let mut types = Vec::with_capacity(n * len);
        let mut mask = Vec::with_capacity(n * len);
        for &i in rows {
            let e = &enc[i];
            let real = real_len(e);
            ids.extend_from_slice(&e.get_ids()[..real]);
            ids.extend(std::iter::repeat_n(self.pad_id, len - real));
            if self.zero_types {
                types.extend(std::iter::repeat_n(0u32, len));
            } else {
                types.extend_from_slice(&e.get_type_ids()[..real]);
                types.extend(std::iter::repeat_n(0u32, len - real));
            }
            mask.extend(std::iter::repeat_n(1u32, real));
            mask.extend(std::iter::repeat_n(0u32, len - real));
        }
        let err = |e: candle_core::Error| model_err(&self.dir, e);
        let t = |v: Vec<u32>| Tensor::from_vec(v, (n, len), &self.device).map_err(err);
        let (ids, types, mask) = (t(ids)?, t(types)?, t(mask)?);
        let padded = rows.iter().any(|&i| real_len(&enc[i]) < len);
        let logits = match &self.model {
            Model::Bert(m) => m.forward(&ids, &types, padded.then_some(&mask)),
            Model::XlmRoberta(m) => m.forward(&ids, &types, &mask),
            Model::BertCpu(m) => return self.forward_packed(m, enc, rows),
        }
        .map_err(err)?;
        let rows = logits
            .to_device(&Device::Cpu)
            .and_then(|t| t.to_dtype(DType::F32))
            .and_then(|t| t.to_vec2::<f32>())
            .map_err(err)?;
        self.check_rows(&rows, n)?;
        Ok(rows)
    }

    /// An error unless `rows` is `n` rows of [`Self::num_labels`] logits.
    fn check_rows(&self, rows: &[Vec<f32>], n: usize) -> Result<()> {
        if rows.len() != n || rows.iter().any(|r| r.len() != self.num_labels) {
            return Err(model_err(
                &self.dir,
                format!(
                    "the model returned {} rows of {:?} logits for {n} pairs, expected {} each",
                    rows.len(),
                    rows.first().map(Vec::len),
                    self.num_labels
                ),
            ));
        }
        Ok(())
    }

    /// Logits of the pairs `enc[rows]`, packed one after another without padding (the CPU
    /// BERT path).
    fn forward_packed(
        &self,
        m: &CpuBert,
        enc: &[Encoding],
        rows: &[usize],
    ) -> Result<Vec<Vec<f32>>> {
        let mut ids = Vec::new();
        let mut types = Vec::new();
        let mut offsets = Vec::with_capacity(rows.len() + 1);
        offsets.push(0);
        for &i in rows {
            let e = &enc[i];
            let real = real_len(e);
            ids.extend_from_slice(&e.get_ids()[..real]);
            if self.zero_types {
                types.extend(std::iter::repeat_n(0u32, real));
            } else {
                types.extend_from_slice(&e.get_type_ids()[..real]);
            }
            offsets.push(ids.len());
        }
        let packed = Packed {
            ids: &ids,
            types: &types,
            offsets: &offsets,
        };
        let rows_out = m.logits(&packed).map_err(|e| model_err(&self.dir, e))?;
        self.check_rows(&rows_out, rows.len())?;
        Ok(rows_out)
    }

    /// One relevance score per document, in input order, computed in batches of at most
    /// `batch_size` pairs of similar token length (pairs sorted by length, so a batch pads
    /// little; padding changes no score); a BERT model on the CPU packs pairs without padding
    /// and batches them by tokens instead, about `batch_size x max_length` per batch (the same
    /// memory bound): the logit for one-label models (ms-marco, bge-reranker), the
    /// log-odds `logit[1] - logit[0]` for two-label models. Higher is more relevant; the scale
    /// is the model's (ms-marco MiniLM logits lie roughly in -11..11).
    ///
    /// # Errors
    /// [`Error::Model`] on tokenizer or tensor failures; [`Error::InvalidOption`] for a zero
    /// `batch_size`.
    pub fn score(&self, query: &str, docs: &[&str], batch_size: usize) -> Result<Vec<f32>> {
        if batch_size == 0 {
            return Err(Error::InvalidOption {
                name: "batch_size",
                reason: "must be at least 1".to_string(),
            });
        }
        if docs.is_empty() {
            return Ok(Vec::new());
        }
        let enc = self.encode_pairs(query, docs)?;
        let lens: Vec<usize> = enc.iter().map(real_len).collect();
        let mut out = vec![0.0f32; docs.len()];
        let (groups, results): (Vec<Vec<usize>>, Vec<Result<Logits>>) =
            if let Model::BertCpu(m) = &self.model {
                let groups = token_batches(&lens, batch_size.saturating_mul(self.max_length));
                let results = groups
                    .iter()
                    .map(|g| self.forward_packed(m, &enc, g))
                    .collect();
                (groups, results)
            } else {
                let groups = length_groups(&lens, batch_size);
                // Groups run in parallel on rayon's pool (candle's matrix products use the
                // same pool), so the element-wise work of one group overlaps the products of
                // another.
                let results = groups
                    .par_iter()
                    .map(|group| self.forward_rows(&enc, group))
                    .collect();
                (groups, results)
            };
        for (group, logits) in groups.iter().zip(results) {
            for (&i, row) in group.iter().zip(logits?) {
                out[i] = match row.as_slice() {
                    [l] => *l,
                    [l0, l1] => l1 - l0,
                    other => {
                        return Err(model_err(
                            &self.dir,
                            format!("{} logits per pair; expected 1 or 2", other.len()),
                        ));
                    }
                };
            }
        }
        Ok(out)
    }
}

/// Rows of logits, one row per pair.
type Logits = Vec<Vec<f32>>;

/// Contiguous batches of pair indices for the packed CPU path, which pads nothing, so a batch
/// only bounds memory: as few batches as keep each near `budget` tokens (a batch closes once it
/// reaches its share, so it may pass that share by one pair), of about equal token counts. The
/// shallow stage's 20 pairs of ~250 tokens are one batch under 16 x 512.
fn token_batches(lens: &[usize], budget: usize) -> Vec<Vec<usize>> {
    let total: usize = lens.iter().sum();
    let batches = total.div_ceil(budget.max(1)).max(1);
    let share = total.div_ceil(batches);
    let mut groups = Vec::new();
    let mut current = Vec::new();
    let mut tokens = 0;
    for (i, &n) in lens.iter().enumerate() {
        if tokens >= share {
            groups.push(std::mem::take(&mut current));
            tokens = 0;
        }
        current.push(i);
        tokens += n;
    }
    if !current.is_empty() {
        groups.push(current);
    }
    groups
}

/// Number of real (unpadded) tokens of an encoding: the padding is on the right.
fn real_len(e: &Encoding) -> usize {
    e.get_attention_mask()
        .iter()
        .take_while(|m| **m == 1)
        .count()
}

#[cfg(test)]
mod tests;

#[cfg(test)]
pub(crate) mod qwen3_tests;

#[cfg(test)]
mod cpu_bert_tests;
