//! The neural models of gos: sentence encoders and cross-encoders on candle, behind gos-core's
//! model traits.
//!
//! gos-core knows models only through two traits: [`TextEmbedder`] (texts in, unit vectors
//! out: the query side of dense and hybrid seeds, the document side of `gos build`'s vectors)
//! and [`PairScorer`] (a query and documents in, one relevance score each: the cross-encoder
//! stage). This crate implements them:
//!
//! | model | type | trait | loaded from |
//! | --- | --- | --- | --- |
//! | BERT-family sentence-transformers encoder (all-MiniLM-L6-v2, bge-base-en-v1.5) | [`dense::SentenceEncoder`] | [`TextEmbedder`] | [`dense::load_sentence_encoder`], [`dense::load_embedder`] |
//! | Qwen3 embedding model (Qwen3-Embedding, SR-Emb) | [`dense::Qwen3Embedder`] | [`TextEmbedder`] | [`dense::load_embedder`] |
//! | BERT or XLM-RoBERTa sequence classifier (ms-marco MiniLM, bge-reranker) | [`cross_encoder::CrossEncoder`] | [`PairScorer`] | [`cross_encoder::CrossEncoder::load`], [`cross_encoder::load_pair_scorer`] |
//! | Qwen3 reranker (Qwen3-Reranker, SR-Rank) | [`cross_encoder::Qwen3Reranker`] | [`PairScorer`] | [`cross_encoder::load_pair_scorer`] |
//!
//! Models are read from a directory in Hugging Face layout (config.json, tokenizer.json,
//! model.safetensors); nothing is downloaded. They run on the CPU, or on a GPU with the `cuda`
//! feature ([`device`]). A BERT model on the CPU runs on hand-written kernels over texts packed
//! without padding (the `bert` module).
//!
//! [`query_encoder`] and [`retriever`] load the encoder a workspace's skill vectors were built
//! with:
//!
//! ```no_run
//! use gos_core::{RetrieveOptions, Workspace};
//!
//! let ws = Workspace::open("ws".as_ref())?;
//! // Hybrid seeds when the workspace has vectors, lexical ones otherwise.
//! let retriever = gos_models::retriever(ws, None, &gos_models::device::Device::Cpu)?;
//! let r = retriever.retrieve("Convert the sales CSV into a JSON report", &RetrieveOptions::default())?;
//! println!("{}", r.bundle.rendered_context);
//! # Ok::<(), gos_core::Error>(())
//! ```
//!
//! Errors are gos-core's ([`gos_core::Error::Model`] names the file and what is wrong).
//! Random-weight models for tests are behind the `test-support` feature (`random`).

#![warn(missing_docs)]

mod batch;
mod bert;
pub mod cross_encoder;
pub mod dense;
pub mod device;
mod model_dir;
mod qwen3;
#[cfg(any(test, feature = "test-support"))]
pub mod random;
mod tokenizer;
mod workspace;

pub use gos_core::index::dense::TextEmbedder;
pub use gos_core::rerank::PairScorer;
pub use workspace::{query_encoder, query_encoder_with, retriever, retriever_with};
