//! The embedding stage of a build: render each skill's text view, embed what changed, reuse
//! the rest, write the vectors files (and HNSW indexes above a size threshold).
//!
//! Reuse is keyed by the hash of the embedded text together with the encoder identity and the
//! view ([`gos_core::index::dense::vectors::Vectors::reusable_rows`]), so touching one package
//! re-embeds only that package, and changing the model or the view re-embeds everything.
//!
//! The encoder is any [`TextEmbedder`] (documents through [`TextEmbedder::embed_documents`]);
//! [`EmbedOptions::load`] loads it when the build starts. gos's loader is gos-models'
//! `dense::load_workspace_encoder`, so this crate builds no model code itself.

use crate::error::BuildError;
use crate::normalize::Normalized;
use crate::progress::BuildProgress;
use gos_core::index::dense::search::{DEFAULT_HNSW_THRESHOLD, build_hnsw, write_hnsw};
use gos_core::index::dense::vectors::text_hash;
use gos_core::index::dense::{
    DenseInfo, HnswParams, TextEmbedder, TextView, Vectors, hnsw_file, vectors_file,
};
use serde::Serialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// Default texts per forward pass of the build's encoder (`gos build --embed-batch`): 32-64
/// gave the best CPU throughput of all-MiniLM-L6-v2 in the measurements of
/// ../shared/docs/toolchain-notes.md.
pub const DEFAULT_BATCH_SIZE: usize = 32;

/// Loads the encoder of a build from a model directory and a device name (`cpu`, `cuda:0`):
/// gos-models' `dense::load_workspace_encoder` for gos's sentence encoders.
///
/// # Errors
/// [`gos_core::Error::Model`] when the directory is not a usable model,
/// [`gos_core::Error::InvalidOption`] for an unknown or unavailable device.
pub type EncoderLoader = fn(&Path, &str) -> gos_core::Result<Arc<dyn TextEmbedder>>;

/// How to embed the skills of a build.
#[derive(Debug, Clone)]
pub struct EmbedOptions {
    /// Model directory in Hugging Face layout (config.json, tokenizer.json, model.safetensors).
    pub model_dir: PathBuf,
    /// Device name the loader reads (`cpu`, `cuda:0`).
    pub device: String,
    /// Loads the encoder from `model_dir` on `device` when the build starts.
    pub load: EncoderLoader,
    /// Text view embedded.
    pub view: TextView,
    /// Texts per forward pass (default [`DEFAULT_BATCH_SIZE`]).
    pub batch_size: usize,
    /// Collections with at least this many skills also get an HNSW index
    /// (default [`DEFAULT_HNSW_THRESHOLD`]).
    pub hnsw_threshold: usize,
    /// HNSW parameters.
    pub hnsw: HnswParams,
}

impl EmbedOptions {
    /// Defaults for a model directory loaded by `load`: CPU, the default view, batch 32, exact
    /// search below 100,000 skills.
    pub fn new(model_dir: PathBuf, load: EncoderLoader) -> Self {
        EmbedOptions {
            model_dir,
            device: "cpu".into(),
            load,
            view: TextView::default(),
            batch_size: DEFAULT_BATCH_SIZE,
            hnsw_threshold: DEFAULT_HNSW_THRESHOLD,
            hnsw: HnswParams::default(),
        }
    }
}

/// What the embedding stage did (the `embed` entry of the build report).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct EmbedStats {
    /// Encoder identity.
    pub model: String,
    /// View embedded.
    pub view: String,
    /// Embedding dimension.
    pub dim: usize,
    /// Texts embedded in this build.
    pub embedded: usize,
    /// Texts whose vectors were reused from the previous workspace.
    pub reused: usize,
    /// Texts per forward pass.
    pub batch_size: usize,
    /// Embedding throughput of this build, texts per second (0 when nothing was embedded).
    pub texts_per_sec: f64,
    /// Whether HNSW indexes were built.
    pub hnsw: bool,
    /// Milliseconds spent building HNSW indexes.
    pub hnsw_ms: u64,
}

/// A loaded encoder plus the options it was loaded with.
pub struct Embedder {
    encoder: Arc<dyn TextEmbedder>,
    opts: EmbedOptions,
    model_dir: PathBuf,
}

impl Embedder {
    /// Load the encoder named by `opts` (done before any other build work, so a bad model
    /// directory fails fast).
    ///
    /// # Errors
    /// [`BuildError::Workspace`] wrapping the loader's error ([`EncoderLoader`]) or an invalid
    /// batch size.
    pub fn load(opts: &EmbedOptions) -> Result<Self, BuildError> {
        if opts.batch_size == 0 {
            return Err(gos_core::Error::InvalidOption {
                name: "embed-batch",
                reason: "must be at least 1".into(),
            }
            .into());
        }
        let encoder = (opts.load)(&opts.model_dir, &opts.device)?;
        let model_dir = opts
            .model_dir
            .canonicalize()
            .unwrap_or_else(|_| opts.model_dir.clone());
        Ok(Embedder {
            encoder,
            opts: opts.clone(),
            model_dir,
        })
    }

    /// Embed every node of `normalized` (manifest order) into `staging`, reusing rows of the
    /// previous workspace `previous` when their text hash, model and view match.
    ///
    /// # Errors
    /// Encoder failures and I/O errors writing the files.
    pub fn run(
        &self,
        normalized: &[Normalized],
        previous: &Path,
        staging: &Path,
        progress: &dyn BuildProgress,
    ) -> Result<(DenseInfo, EmbedStats), BuildError> {
        let model = self.encoder.model_id().to_string();
        let dim = self.encoder.dim();
        let mut stats = EmbedStats {
            model: model.clone(),
            view: self.opts.view.as_str().into(),
            dim,
            batch_size: self.opts.batch_size,
            ..EmbedStats::default()
        };
        let mut embed_secs = 0.0;
        let mut part_vectors = Vec::new();
        for &part in self.opts.view.parts() {
            let texts: Vec<String> = normalized
                .iter()
                .map(|n| part.render(&n.node, &n.body))
                .collect();
            let hashes: Vec<String> = texts.iter().map(|t| text_hash(t)).collect();
            let old = Vectors::read(&previous.join(vectors_file(part))).ok();
            let reusable: HashMap<&str, &[f32]> = old
                .as_ref()
                .map(|v| v.reusable_rows(&model, part.as_str()))
                .unwrap_or_default();
            let mut rows: Vec<Option<Vec<f32>>> = hashes
                .iter()
                .map(|h| reusable.get(h.as_str()).map(|r| r.to_vec()))
                .collect();
            // Embed the rest, sorted by length so batches pad little.
            let mut todo: Vec<usize> = (0..texts.len()).filter(|&i| rows[i].is_none()).collect();
            todo.sort_by_key(|&i| (texts[i].len(), i));
            stats.reused += texts.len() - todo.len();
            stats.embedded += todo.len();
            progress.stage(&format!("embed {}", part.as_str()), Some(todo.len() as u64));
            let t = Instant::now();
            for chunk in todo.chunks(self.opts.batch_size) {
                let batch: Vec<&str> = chunk.iter().map(|&i| texts[i].as_str()).collect();
                let vecs = self.encoder.embed_documents(&batch)?;
                for (&i, v) in chunk.iter().zip(vecs) {
                    rows[i] = Some(v);
                }
                progress.advance(chunk.len() as u64);
            }
            embed_secs += t.elapsed().as_secs_f64();
            progress.finish_stage();
            // An embedder returns one vector per text (gos's check the model's output count),
            // so every row is filled; a gap is still a typed error, never a panic.
            let rows: Vec<Vec<f32>> =
                rows.into_iter()
                    .collect::<Option<_>>()
                    .ok_or_else(|| gos_core::Error::Model {
                        path: self.model_dir.clone(),
                        reason: "the encoder returned fewer vectors than texts".into(),
                    })?;
            let vectors =
                Vectors::from_rows(model.clone(), part.as_str().into(), dim, rows, hashes)?;
            vectors.write(&staging.join(vectors_file(part)))?;
            part_vectors.push((part, vectors));
        }
        if stats.embedded > 0 && embed_secs > 0.0 {
            stats.texts_per_sec = stats.embedded as f64 / embed_secs;
        }
        let hnsw = normalized.len() >= self.opts.hnsw_threshold;
        if hnsw {
            let t = Instant::now();
            for (part, vectors) in &part_vectors {
                progress.stage(&format!("hnsw {}", part.as_str()), None);
                let index = build_hnsw(vectors, &self.opts.hnsw);
                write_hnsw(&index, &staging.join(hnsw_file(*part)))?;
                progress.finish_stage();
            }
            stats.hnsw_ms = t.elapsed().as_millis() as u64;
        }
        stats.hnsw = hnsw;
        let info = DenseInfo {
            model,
            model_dir: self.model_dir.display().to_string(),
            view: self.opts.view,
            dim,
            hnsw,
        };
        Ok((info, stats))
    }
}
