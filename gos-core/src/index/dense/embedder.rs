//! [`TextEmbedder`]: what a dense retriever needs from an embedding model, whatever its family.
//!
//! Retrieval stages (gos's hybrid seeds, SkillFlow's multi-query retriever, SkillRouter's
//! bi-encoder) hold an `Arc<dyn TextEmbedder>` and never name a model family. Families differ
//! in pooling (mean for all-MiniLM-L6-v2, the \[CLS\] token for bge-base-en-v1.5, the last token
//! for Qwen3-Embedding) and in how queries are written (Qwen3-Embedding prefixes an instruction
//! to queries, not to documents); each implementation applies its own rules. The models
//! themselves live in the `gos-models` crate; this crate only calls them through this trait.

use crate::error::Result;

/// The content part of a model id: the text after the last `@` of `name@hash` (the form
/// gos-models writes: the folder name, then a hash of the model files), or the whole id when it
/// has no `@`.
pub fn model_content_id(id: &str) -> &str {
    id.rsplit_once('@').map_or(id, |(_, hash)| hash)
}

/// True when model ids `a` and `b` name the same model files: their content parts
/// ([`model_content_id`]) are equal; the folder name before the `@` does not count, so vectors
/// built with `models/mcopy` are accepted with the same files moved to `models/mcopy2`.
pub fn same_model(a: &str, b: &str) -> bool {
    model_content_id(a) == model_content_id(b)
}

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
///   with its skill vectors, and a retriever refuses a query embedder whose id differs
///   ([`same_model`]: only the content part after the last `@` counts, so a renamed model
///   folder is the same model).
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_ids_compare_by_content_not_folder_name() {
        assert_eq!(
            model_content_id("mcopy@307dfeea12345678"),
            "307dfeea12345678"
        );
        assert_eq!(model_content_id("307dfeea12345678"), "307dfeea12345678");
        assert_eq!(model_content_id("a@b@c"), "c");
        assert!(same_model("mcopy@307dfeea", "mcopy2@307dfeea"));
        assert!(same_model("mcopy@307dfeea", "307dfeea"));
        assert!(!same_model("mcopy@307dfeea", "mcopy@307dfeeb"));
    }
}
