//! The embedding models behind gos-core's [`TextEmbedder`], and the loader that picks the
//! family of a model directory.
//!
//! Retrieval stages hold an `Arc<dyn TextEmbedder>` and never name a model family. Families
//! differ in pooling (mean for all-MiniLM-L6-v2, the \[CLS\] token for bge-base-en-v1.5, the
//! last token for Qwen3-Embedding) and in how queries are written (Qwen3-Embedding prefixes an
//! instruction to queries, not to documents); each implementation applies its own rules.

use crate::dense::SentenceEncoder;
use crate::dense::qwen3::Qwen3Embedder;
use crate::model_dir::read_config;
use crate::qwen3::is_qwen3;
use gos_core::Result;
use gos_core::index::dense::TextEmbedder;
use std::sync::Arc;

/// Scale each vector to unit length (a zero vector stays zero).
fn unit(mut rows: Vec<Vec<f32>>) -> Vec<Vec<f32>> {
    for r in &mut rows {
        let norm = r.iter().map(|x| x * x).sum::<f32>().sqrt();
        if norm > 1e-12 {
            r.iter_mut().for_each(|x| *x /= norm);
        }
    }
    rows
}

/// A sentence-transformers BERT encoder embeds queries and documents alike, with
/// [`SentenceEncoder::encode`]. A model with a Normalize module (all-MiniLM-L6-v2,
/// bge-base-en-v1.5) already gives unit vectors, which are returned bit for bit; a model
/// without one is normalized here, since retrieval compares by dot product.
impl TextEmbedder for SentenceEncoder {
    fn model_id(&self) -> &str {
        SentenceEncoder::model_id(self)
    }

    fn dim(&self) -> usize {
        SentenceEncoder::dim(self)
    }

    fn embed_queries(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        self.embed_documents(texts)
    }

    fn embed_documents(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        // A Normalize module already made them unit vectors: leave them bit for bit.
        if self.pooling().normalize {
            self.encode(texts)
        } else {
            self.encode(texts).map(unit)
        }
    }
}

/// Load the embedding model in `dir` (Hugging Face layout) onto `device`, choosing the
/// implementation from `config.json`: a Qwen3 model (`model_type` `qwen3`) is a
/// [`Qwen3Embedder`] with its defaults (2,048-token limit, the shipped or default query
/// instruction); anything else is read as a BERT-family sentence-transformers encoder
/// ([`SentenceEncoder`], pooling from its modules.json).
///
/// # Errors
/// [`gos_core::Error::Model`] naming the file when a file is missing or unreadable, or the
/// model family is not supported.
pub fn load_embedder(
    dir: &std::path::Path,
    device: &candle_core::Device,
) -> Result<Box<dyn TextEmbedder>> {
    let config = read_config(dir)?;
    if is_qwen3(&config) {
        Ok(Box::new(Qwen3Embedder::load(dir, device, None)?))
    } else {
        Ok(Box::new(SentenceEncoder::load(dir, device)?))
    }
}

/// The sentence encoder of gos's workspaces: [`SentenceEncoder::load`] of `dir` on `device`,
/// behind an [`Arc`]. `gos build` embeds skills and `gos retrieve` embeds queries with it;
/// unlike [`load_embedder`] it reads BERT-family models only (a Qwen3 directory is refused as
/// "not a BERT config"), as workspaces always have.
///
/// # Errors
/// As [`SentenceEncoder::load`].
pub fn load_sentence_encoder(
    dir: &std::path::Path,
    device: &candle_core::Device,
) -> Result<Arc<dyn TextEmbedder>> {
    Ok(Arc::new(SentenceEncoder::load(dir, device)?))
}

/// [`load_sentence_encoder`] on the device named `device` (`cpu`, `cuda`, `cuda:N`;
/// [`crate::device::parse_device`]): the encoder loader of `gos build`
/// (`gos_build::embed::EmbedOptions::load`).
///
/// # Errors
/// [`gos_core::Error::InvalidOption`] for an unknown or unavailable device; as
/// [`SentenceEncoder::load`].
pub fn load_workspace_encoder(
    dir: &std::path::Path,
    device: &str,
) -> Result<Arc<dyn TextEmbedder>> {
    load_sentence_encoder(dir, &crate::device::parse_device(device)?)
}
