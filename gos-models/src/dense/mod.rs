//! Embedding models: texts in, unit vectors out, behind gos-core's [`TextEmbedder`].
//!
//! - [`encoder`]: a BERT-family sentence encoder ([`SentenceEncoder`]; pooling from the
//!   model's files, L2 normalization), the encoder of gos's workspaces;
//! - [`pooling`]: the pooling rule read from a sentence-transformers model's files;
//! - [`qwen3`]: a Qwen3 embedding model (last-token pooling, instruction-prefixed queries);
//! - [`embedder`]: the [`TextEmbedder`] implementations and the loaders that pick a family.

pub mod embedder;
pub mod encoder;
pub mod pooling;
pub mod qwen3;

pub use embedder::{load_embedder, load_sentence_encoder, load_workspace_encoder};
pub use encoder::{PRECISION_ENV, Precision, SentenceEncoder};
pub use gos_core::index::dense::TextEmbedder;
pub use pooling::{Pooling, PoolingMode};
pub use qwen3::Qwen3Embedder;
