//! [`TextEmbedder`]: what a dense retriever needs from an embedding model, whatever its family.
//!
//! Retrieval stages (gos's hybrid seeds, SkillFlow's multi-query retriever, SkillRouter's
//! bi-encoder) hold a `Box<dyn TextEmbedder>` and never name a model family. Families differ in
//! pooling (mean for all-MiniLM-L6-v2, the \[CLS\] token for bge-base-en-v1.5, the last token for
//! Qwen3-Embedding) and in how queries are written (Qwen3-Embedding prefixes an instruction to
//! queries, not to documents); each implementation applies its own rules.

use crate::dense::SentenceEncoder;
use crate::dense::qwen3::{Qwen3Embedder, is_qwen3};
use crate::error::Result;
use crate::model_dir::read_config;

/// An embedding model: texts in, unit vectors out.
///
/// Both methods return `texts.len()` vectors of [`TextEmbedder::dim`] f32 each, in input order,
/// L2-normalized, so a dot product is the cosine similarity.
pub trait TextEmbedder: Send + Sync + std::fmt::Debug {
    /// Identity of the model files, stored with every vector file built from this model so that
    /// query vectors and document vectors come from the same model.
    fn model_id(&self) -> &str;

    /// Embedding dimension.
    fn dim(&self) -> usize;

    /// Embed search queries (a model with a query instruction applies it here).
    ///
    /// # Errors
    /// [`crate::Error::Model`] on tokenizer or tensor failures.
    fn embed_queries(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>>;

    /// Embed documents (skill texts) as they are.
    ///
    /// # Errors
    /// [`crate::Error::Model`] on tokenizer or tensor failures.
    fn embed_documents(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>>;
}

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

/// A sentence-transformers BERT encoder embeds queries and documents alike; a model without a
/// Normalize module is normalized here, since retrieval compares by dot product.
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
/// [`crate::Error::Model`] naming the file when a file is missing or unreadable, or the model
/// family is not supported.
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
