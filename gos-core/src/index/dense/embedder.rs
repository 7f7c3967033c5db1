//! [`TextEmbedder`]: what a dense retriever needs from an embedding model, whatever its family.
//!
//! Retrieval stages (gos's hybrid seeds, SkillFlow's multi-query retriever, SkillRouter's
//! bi-encoder) hold an `Arc<dyn TextEmbedder>` and never name a model family. Families differ
//! in pooling (mean for all-MiniLM-L6-v2, the \[CLS\] token for bge-base-en-v1.5, the last token
//! for Qwen3-Embedding) and in how queries are written (Qwen3-Embedding prefixes an instruction
//! to queries, not to documents); each implementation applies its own rules. The models
//! themselves live in the `gos-models` crate; this crate only calls them through this trait.

use crate::error::Result;

/// An embedding model: texts in, unit vectors out.
///
/// # Contract
///
/// - Both embedding methods return `texts.len()` vectors of [`TextEmbedder::dim`] f32 each, in
///   input order, L2-normalized, so a dot product is the cosine similarity. An empty input
///   gives an empty output.
/// - The same text gives the same vector on every call (no sampling, no state between calls);
///   the other texts of a call change it by floating-point rounding at most.
/// - [`TextEmbedder::model_id`] changes whenever the vectors would: the workspace stores it
///   with its skill vectors, and a retriever refuses a query embedder whose id differs.
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
