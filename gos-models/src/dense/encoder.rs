//! Sentence encoder: a BERT-family model in Hugging Face layout, with the pooling and
//! normalization its sentence-transformers files ask for ([`Pooling::read`]).
//!
//! This is the sentence-transformers pipeline of all-MiniLM-L6-v2 (modules.json: Transformer ->
//! Pooling(mean) -> Normalize) and of bge-base-en-v1.5 (Pooling(cls) -> Normalize): the tokenizer pads to the longest text of the batch and truncates
//! at `max_seq_length` (256 for this model, from sentence_bert_config.json), whatever padding and
//! truncation the shipped tokenizer.json asks for (it says Fixed(128) and 128; see
//! ../shared/docs/toolchain-notes.md).

use crate::bert::{BertEncoder, CpuBert, Packed};
use crate::dense::pooling::{Pooling, PoolingMode};
use crate::model_dir::{model_err, require_file};
use crate::tokenizer::pad_and_truncate;
use candle_core::{DType, Device, IndexOp, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::Config;
use gos_core::{Error, Result};
use sha2::{Digest, Sha256};
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use tokenizers::{Tokenizer, TruncationStrategy};

/// Default maximum sequence length in tokens when the model directory has no
/// sentence_bert_config.json (the value all-MiniLM-L6-v2 ships with).
pub const DEFAULT_MAX_SEQ_LENGTH: usize = 256;

/// Arithmetic of the encoder's linear layers on the CPU.
///
/// The default is [`Precision::F32`]. [`Precision::Int8`] is opt-in for the query encoder
/// (`gos retrieve --query-precision int8`, or `GOS_QUERY_PRECISION=int8` for
/// [`crate::query_encoder`] and the flag's default): per-channel int8 weights and
/// per-token int8 activations summed exactly in i32 (`bert::int8`); on all-MiniLM-L6-v2 its
/// query vectors agree with f32 at cosine >= 0.999 on the DEV task texts (docs/performance.md).
/// Skill vectors are always embedded in f32.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Precision {
    /// f32 weights and products (the reference).
    #[default]
    F32,
    /// int8 weights and activations for the four linear layers of each encoder layer.
    Int8,
}

/// The environment variable that chooses the query encoder's [`Precision`] (`f32` or `int8`).
pub const PRECISION_ENV: &str = "GOS_QUERY_PRECISION";

impl Precision {
    /// Parse `f32` or `int8` (case-insensitive).
    ///
    /// # Errors
    /// [`Error::InvalidOption`] (named [`PRECISION_ENV`]) listing the accepted values.
    pub fn parse(value: &str) -> Result<Self> {
        match value.trim().to_ascii_lowercase().as_str() {
            "f32" => Ok(Precision::F32),
            "int8" => Ok(Precision::Int8),
            other => Err(Error::InvalidOption {
                name: PRECISION_ENV,
                reason: format!("`{other}` is not a precision: use f32 or int8"),
            }),
        }
    }

    /// The precision [`PRECISION_ENV`] names, [`Precision::F32`] when it is unset or empty.
    ///
    /// # Errors
    /// [`Error::InvalidOption`] when it names something else.
    pub fn from_env() -> Result<Self> {
        match std::env::var(PRECISION_ENV) {
            Ok(v) if !v.trim().is_empty() => Self::parse(&v),
            _ => Ok(Precision::F32),
        }
    }

    /// `f32` or `int8`, as [`Precision::parse`] reads it.
    pub fn as_str(self) -> &'static str {
        match self {
            Precision::F32 => "f32",
            Precision::Int8 => "int8",
        }
    }
}

impl std::fmt::Display for Precision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Precision {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        Precision::parse(s)
    }
}

/// How the encoder runs.
enum Backend {
    /// On the CPU: the model as plain buffers ([`CpuBert`]), texts packed without padding.
    /// The candle weights are dropped once converted.
    Packed(Box<CpuBert>),
    /// On other devices: candle tensors, texts padded to the longest of the batch.
    Candle(BertEncoder),
}

/// A loaded sentence encoder.
pub struct SentenceEncoder {
    backend: Backend,
    tokenizer: Tokenizer,
    device: Device,
    model_id: String,
    dim: usize,
    max_seq_length: usize,
    pooling: Pooling,
    precision: Precision,
}

impl std::fmt::Debug for SentenceEncoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SentenceEncoder")
            .field("model_id", &self.model_id)
            .field("dim", &self.dim)
            .field("max_seq_length", &self.max_seq_length)
            .field("pooling", &self.pooling)
            .field("precision", &self.precision)
            .finish()
    }
}

fn need(dir: &Path, file: &str) -> Result<PathBuf> {
    require_file(
        dir,
        file,
        "model",
        "run scripts/setup-model.sh for all-MiniLM-L6-v2",
    )
}

/// A short identity of the model files: the directory name plus the first 16 hex digits of a
/// SHA-256 over config.json, tokenizer.json, the weights' length, and the first and last MiB of
/// model.safetensors (its header names every tensor and shape; the tail holds the last
/// tensor's values). Cheap enough to compute at every query (no full 90 MB hash).
///
/// # Errors
/// [`Error::Io`] when a file cannot be read.
pub fn model_id(dir: &Path) -> Result<String> {
    const SPAN: u64 = 1 << 20;
    let mut h = Sha256::new();
    for f in ["config.json", "tokenizer.json"] {
        let p = dir.join(f);
        h.update(std::fs::read(&p).map_err(|e| Error::io(&p, e))?);
    }
    let p = dir.join("model.safetensors");
    let mut file = std::fs::File::open(&p).map_err(|e| Error::io(&p, e))?;
    let len = file.metadata().map_err(|e| Error::io(&p, e))?.len();
    h.update(len.to_le_bytes());
    let mut buf = Vec::new();
    (&mut file)
        .take(SPAN)
        .read_to_end(&mut buf)
        .map_err(|e| Error::io(&p, e))?;
    if len > SPAN {
        file.seek(SeekFrom::Start(len.saturating_sub(SPAN).max(SPAN)))
            .map_err(|e| Error::io(&p, e))?;
        file.read_to_end(&mut buf).map_err(|e| Error::io(&p, e))?;
    }
    h.update(&buf);
    let name = dir
        .canonicalize()
        .ok()
        .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "model".to_string());
    Ok(format!("{name}@{}", &hex::encode(h.finalize())[..16]))
}

/// `max_seq_length` from sentence_bert_config.json, else [`DEFAULT_MAX_SEQ_LENGTH`], capped by
/// the model's `max_position_embeddings`.
fn max_seq_length(dir: &Path, config: &Config) -> usize {
    let from_st = std::fs::read_to_string(dir.join("sentence_bert_config.json"))
        .ok()
        .and_then(|s| serde_json::from_str::<serde_json::Value>(&s).ok())
        .and_then(|v| v.get("max_seq_length").and_then(|m| m.as_u64()))
        .map(|m| m as usize)
        .unwrap_or(DEFAULT_MAX_SEQ_LENGTH);
    from_st.min(config.max_position_embeddings)
}

impl SentenceEncoder {
    /// Load the encoder from `dir` (config.json, tokenizer.json, model.safetensors, and the
    /// sentence-transformers files modules.json and the Pooling folder when present) onto
    /// `device` (see [`crate::device::parse_device`]). Weights are memory-mapped.
    ///
    /// # Errors
    /// [`Error::Model`] naming the directory when a file is missing or unreadable, the config
    /// is not a BERT config, the pooling is not supported ([`Pooling::read`]), or the weights
    /// do not match the config.
    pub fn load(dir: &Path, device: &Device) -> Result<Self> {
        Self::load_with(dir, device, Precision::F32)
    }

    /// [`SentenceEncoder::load`] with the linear layers in `precision`. The model identity
    /// ([`Self::model_id`]) is the same in both precisions: int8 query vectors are compared
    /// with f32 skill vectors.
    ///
    /// # Errors
    /// As [`SentenceEncoder::load`]; [`Error::InvalidOption`] for [`Precision::Int8`] on a
    /// device other than the CPU.
    pub fn load_with(dir: &Path, device: &Device, precision: Precision) -> Result<Self> {
        if precision == Precision::Int8 && !matches!(device, Device::Cpu) {
            return Err(Error::InvalidOption {
                name: PRECISION_ENV,
                reason: "the int8 query encoder runs on the CPU only: use --device cpu, or \
                         unset GOS_QUERY_PRECISION"
                    .into(),
            });
        }
        let config_path = need(dir, "config.json")?;
        let tokenizer_path = need(dir, "tokenizer.json")?;
        let weights_path = need(dir, "model.safetensors")?;
        let config_text =
            std::fs::read_to_string(&config_path).map_err(|e| Error::io(&config_path, e))?;
        let config: Config = serde_json::from_str(&config_text)
            .map_err(|e| model_err(&config_path, format!("not a BERT config: {e}")))?;
        let max_seq_length = max_seq_length(dir, &config);
        let pooling = Pooling::read(dir)?;
        let mut tokenizer =
            Tokenizer::from_file(&tokenizer_path).map_err(|e| model_err(&tokenizer_path, e))?;
        pad_and_truncate(
            &mut tokenizer,
            config.pad_token_id as u32,
            max_seq_length,
            TruncationStrategy::default(),
        )
        .map_err(|e| model_err(&tokenizer_path, e))?;
        // SAFETY: the weights file is memory-mapped read-only; gos never writes model files
        // and the mapping lives as long as the model.
        let vb = unsafe {
            VarBuilder::from_mmaped_safetensors(&[&weights_path], DType::F32, device)
                .map_err(|e| model_err(&weights_path, e))?
        };
        // sentence-transformers checkpoints keep the encoder at the root; a `BertModel`
        // checkpoint exported from transformers has it under `bert.`.
        let vb = if vb.contains_tensor("bert.embeddings.word_embeddings.weight") {
            vb.pp("bert")
        } else {
            vb
        };
        let model = BertEncoder::load(vb, &config).map_err(|e| model_err(&weights_path, e))?;
        let backend = match device {
            Device::Cpu => {
                let mut cpu = model
                    .to_cpu(None)
                    .map_err(|e| model_err(&weights_path, e))?;
                if precision == Precision::Int8 {
                    cpu.quantize_int8();
                }
                Backend::Packed(Box::new(cpu))
            }
            _ => Backend::Candle(model),
        };
        Ok(SentenceEncoder {
            backend,
            tokenizer,
            device: device.clone(),
            model_id: model_id(dir)?,
            dim: config.hidden_size,
            max_seq_length,
            pooling,
            precision,
        })
    }

    /// Arithmetic of the linear layers ([`SentenceEncoder::load_with`]).
    pub fn precision(&self) -> Precision {
        self.precision
    }

    /// Identity of the model files ([`model_id`]); stored with every vector file.
    pub fn model_id(&self) -> &str {
        &self.model_id
    }

    /// Embedding dimension (hidden size; 384 for all-MiniLM-L6-v2).
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Pooling and normalization read from the model's files.
    pub fn pooling(&self) -> Pooling {
        self.pooling
    }

    /// Truncation length in tokens, \[CLS\] and \[SEP\] included.
    pub fn max_seq_length(&self) -> usize {
        self.max_seq_length
    }

    /// Token ids of `texts` as the model sees them (special tokens, truncation), unpadded.
    ///
    /// # Errors
    /// [`Error::Model`] on tokenizer failures.
    pub fn token_ids(&self, texts: &[&str]) -> Result<Vec<Vec<u32>>> {
        let enc = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(|e| model_err(Path::new("<encoder>"), e))?;
        Ok(enc
            .iter()
            .map(|e| {
                e.get_ids()
                    .iter()
                    .zip(e.get_attention_mask())
                    .filter(|(_, m)| **m == 1)
                    .map(|(i, _)| *i)
                    .collect()
            })
            .collect())
    }

    /// Embed one batch of texts: `texts.len()` vectors of [`Self::dim`] f32 each, in input
    /// order, pooled by [`Self::pooling`] and L2-normalized when the model has a Normalize
    /// module (or no modules.json). On the CPU the texts are packed without padding; on other
    /// devices the batch is padded to its longest text, and padding does not change a text's
    /// vector (mean and last-token pooling read the attention mask, \[CLS\] is first). An
    /// empty text embeds \[CLS\]\[SEP\].
    ///
    /// # Errors
    /// [`Error::Model`] on tokenizer or tensor failures, and when the model returns another
    /// number of vectors than texts or vectors of another length than [`Self::dim`].
    pub fn encode(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let here = Path::new("<encoder>");
        let enc = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(|e| model_err(here, e))?;
        let model = match &self.backend {
            Backend::Packed(cpu) => return self.encode_packed(cpu, &enc, texts.len()),
            Backend::Candle(model) => model,
        };
        let len = enc.first().map(|e| e.get_ids().len()).unwrap_or(0);
        let n = enc.len();
        let mut ids = Vec::with_capacity(n * len);
        let mut types = Vec::with_capacity(n * len);
        let mut mask = Vec::with_capacity(n * len);
        for e in &enc {
            ids.extend_from_slice(e.get_ids());
            types.extend_from_slice(e.get_type_ids());
            mask.extend_from_slice(e.get_attention_mask());
        }
        let t = |v: Vec<u32>| {
            Tensor::from_vec(v, (n, len), &self.device).map_err(|e| model_err(here, e))
        };
        let (ids, types, mask) = (t(ids)?, t(types)?, t(mask)?);
        let pooled = (|| -> candle_core::Result<Tensor> {
            let padded = enc.iter().any(|e| e.get_attention_mask().contains(&0));
            // (n, len, dim); the mask matters only when some text was padded.
            let hidden = model.forward(&ids, &types, padded.then_some(&mask))?;
            let pooled = match self.pooling.mode {
                PoolingMode::Mean => {
                    let m = mask.to_dtype(DType::F32)?.unsqueeze(2)?; // (n, len, 1)
                    let summed = hidden.broadcast_mul(&m)?.sum(1)?; // (n, dim)
                    let counts = m.sum(1)?.clamp(1e-9, f64::MAX)?; // (n, 1)
                    summed.broadcast_div(&counts)?
                }
                PoolingMode::Cls => hidden.i((.., 0))?.contiguous()?,
                PoolingMode::LastToken => {
                    let rows = enc
                        .iter()
                        .enumerate()
                        .map(|(i, e)| {
                            let real = e.get_attention_mask().iter().filter(|m| **m == 1).count();
                            hidden.i((i, real.saturating_sub(1)))
                        })
                        .collect::<candle_core::Result<Vec<_>>>()?;
                    Tensor::stack(&rows, 0)?
                }
            };
            if !self.pooling.normalize {
                return Ok(pooled);
            }
            let norm = pooled
                .sqr()?
                .sum_keepdim(1)?
                .sqrt()?
                .clamp(1e-12, f64::MAX)?;
            pooled.broadcast_div(&norm)
        })()
        .map_err(|e| model_err(here, e))?;
        let rows = pooled
            .to_device(&Device::Cpu)
            .and_then(|t| t.to_vec2::<f32>())
            .map_err(|e| model_err(here, e))?;
        check_rows(&rows, texts.len(), self.dim).map_err(|reason| model_err(here, reason))?;
        Ok(rows)
    }
}

impl SentenceEncoder {
    /// [`SentenceEncoder::encode`] on the CPU: the texts' tokens (padding dropped) packed one
    /// after another through [`CpuBert`], then pooled and normalized per text in f32, the
    /// same arithmetic as the padded candle path.
    fn encode_packed(
        &self,
        cpu: &CpuBert,
        enc: &[tokenizers::Encoding],
        texts: usize,
    ) -> Result<Vec<Vec<f32>>> {
        let here = Path::new("<encoder>");
        let (mut ids, mut types, mut offsets) = (Vec::new(), Vec::new(), vec![0usize]);
        for e in enc {
            for ((id, ty), m) in e
                .get_ids()
                .iter()
                .zip(e.get_type_ids())
                .zip(e.get_attention_mask())
            {
                if *m == 1 {
                    ids.push(*id);
                    types.push(*ty);
                }
            }
            if ids.len() == *offsets.last().unwrap_or(&0) {
                return Err(model_err(here, "a text tokenized to no token"));
            }
            offsets.push(ids.len());
        }
        let hidden = cpu
            .hidden_states(&Packed {
                ids: &ids,
                types: &types,
                offsets: &offsets,
            })
            .map_err(|e| model_err(here, e))?;
        let dim = self.dim;
        let rows: Vec<Vec<f32>> = offsets
            .windows(2)
            .map(|w| {
                let tokens = &hidden[w[0] * dim..w[1] * dim];
                let mut v = match self.pooling.mode {
                    PoolingMode::Mean => {
                        let mut sum = vec![0.0f32; dim];
                        for row in tokens.chunks_exact(dim) {
                            for (s, x) in sum.iter_mut().zip(row) {
                                *s += x;
                            }
                        }
                        let count = (w[1] - w[0]) as f32;
                        sum.iter().map(|s| s / count).collect::<Vec<f32>>()
                    }
                    PoolingMode::Cls => tokens[..dim].to_vec(),
                    PoolingMode::LastToken => tokens[tokens.len() - dim..].to_vec(),
                };
                if self.pooling.normalize {
                    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12);
                    v.iter_mut().for_each(|x| *x /= norm);
                }
                v
            })
            .collect();
        check_rows(&rows, texts, dim).map_err(|reason| model_err(here, reason))?;
        Ok(rows)
    }
}

/// Check a model output of `rows` against `texts` inputs of dimension `dim`: callers index the
/// vectors by input position, so a short or ragged output must be an error, not a panic later.
fn check_rows(rows: &[Vec<f32>], texts: usize, dim: usize) -> std::result::Result<(), String> {
    if rows.len() != texts {
        return Err(format!(
            "the model returned {} vectors for {texts} texts",
            rows.len()
        ));
    }
    match rows.iter().find(|r| r.len() != dim) {
        Some(r) => Err(format!(
            "the model returned a vector of {} values, expected {dim} (hidden_size)",
            r.len()
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
#[path = "model_tests.rs"]
mod model_tests;

#[cfg(test)]
mod tests {
    use super::check_rows;

    #[test]
    fn output_count_and_dimension_are_checked() {
        assert!(check_rows(&[vec![0.0; 3], vec![1.0; 3]], 2, 3).is_ok());
        let short = check_rows(&[vec![0.0; 3]], 2, 3).unwrap_err();
        assert!(short.contains("1 vectors for 2 texts"), "{short}");
        let ragged = check_rows(&[vec![0.0; 3], vec![0.0; 2]], 2, 3).unwrap_err();
        assert!(ragged.contains("2 values, expected 3"), "{ragged}");
    }
}
