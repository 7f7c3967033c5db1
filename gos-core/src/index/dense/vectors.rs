//! The `vectors` file of a workspace: one L2-normalized embedding per skill, in node order.
//!
//! Layout (all integers little-endian):
//!
//! | bytes | content |
//! | --- | --- |
//! | 8 | magic `GOSVEC01` |
//! | 8 | `u64` length H of the header |
//! | H | JSON [`VectorsHeader`]: model id, text view, dimension, count, per-row content hashes |
//! | 4 x count x dim | `f32` values, row-major, row i = node i of the manifest |
//!
//! The content hashes let a rebuild reuse the rows of unchanged packages (same hash, same model
//! id, same view) instead of re-embedding them.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::io::{BufWriter, Write};
use std::path::Path;

/// First eight bytes of a vectors file.
pub const VECTORS_MAGIC: &[u8; 8] = b"GOSVEC01";

/// What a vectors file holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VectorsHeader {
    /// Encoder identity ([`crate::index::dense::TextEmbedder::model_id`]).
    pub model: String,
    /// Text view embedded ([`crate::index::dense::TextView::as_str`]).
    pub view: String,
    /// Embedding dimension.
    pub dim: usize,
    /// Number of rows.
    pub count: usize,
    /// Content hash of the text each row was computed from ([`text_hash`]), in manifest order:
    /// a rebuild reuses a row whose text, model and view are unchanged.
    pub text_hashes: Vec<String>,
}

/// First 16 hex digits of the SHA-256 of an embedded text (the reuse key of a row).
pub fn text_hash(text: &str) -> String {
    use sha2::{Digest, Sha256};
    hex::encode(&Sha256::digest(text.as_bytes())[..8])
}

/// Embeddings of one text view, row i for node i.
#[derive(Debug, Clone, PartialEq)]
pub struct Vectors {
    /// Header.
    pub header: VectorsHeader,
    /// `count * dim` values, row-major.
    pub data: Vec<f32>,
}

impl Vectors {
    /// Vectors from rows; every row must have `dim` values.
    ///
    /// # Errors
    /// [`Error::InvalidOption`] when a row has the wrong length or the hashes do not match the
    /// rows in number.
    pub fn from_rows(
        model: String,
        view: String,
        dim: usize,
        rows: Vec<Vec<f32>>,
        text_hashes: Vec<String>,
    ) -> Result<Self> {
        if rows.len() != text_hashes.len() || rows.iter().any(|r| r.len() != dim) {
            return Err(Error::InvalidOption {
                name: "vectors",
                reason: format!(
                    "{} rows and {} hashes for dimension {dim}",
                    rows.len(),
                    text_hashes.len()
                ),
            });
        }
        Ok(Vectors {
            header: VectorsHeader {
                model,
                view,
                dim,
                count: rows.len(),
                text_hashes,
            },
            data: rows.into_iter().flatten().collect(),
        })
    }

    /// Row `i` (`dim` values).
    pub fn row(&self, i: usize) -> &[f32] {
        &self.data[i * self.header.dim..(i + 1) * self.header.dim]
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.header.count
    }

    /// True when there are no rows.
    pub fn is_empty(&self) -> bool {
        self.header.count == 0
    }

    /// Rows of a previous file keyed by text hash, for reuse when `model` (compared by content,
    /// [`crate::index::dense::same_model`]) and `view` match; empty otherwise.
    pub fn reusable_rows(&self, model: &str, view: &str) -> HashMap<&str, &[f32]> {
        if !crate::index::dense::same_model(&self.header.model, model) || self.header.view != view {
            return HashMap::new();
        }
        self.header
            .text_hashes
            .iter()
            .enumerate()
            .map(|(i, h)| (h.as_str(), self.row(i)))
            .collect()
    }

    /// Write the file.
    ///
    /// # Errors
    /// [`Error::Io`] naming `path`.
    pub fn write(&self, path: &Path) -> Result<()> {
        let io = |e| Error::io(path, e);
        let header = serde_json::to_vec(&self.header).map_err(|e| Error::Json {
            path: path.to_path_buf(),
            source: e,
        })?;
        let mut w = BufWriter::new(std::fs::File::create(path).map_err(io)?);
        w.write_all(VECTORS_MAGIC).map_err(io)?;
        w.write_all(&(header.len() as u64).to_le_bytes())
            .map_err(io)?;
        w.write_all(&header).map_err(io)?;
        for v in &self.data {
            w.write_all(&v.to_le_bytes()).map_err(io)?;
        }
        w.flush().map_err(io)
    }

    /// Read a file written by [`Vectors::write`].
    ///
    /// # Errors
    /// [`Error::Io`] when unreadable ([`Error::Inconsistent`] when missing); [`Error::Json`]
    /// when the header is not valid JSON;
    /// [`Error::Inconsistent`] (naming `path`, asking for a rebuild) when the magic, header or
    /// length is wrong (a truncated or foreign file), including a header whose
    /// `count * dim * 4` overflows, and when a value is NaN or infinite.
    pub fn read(path: &Path) -> Result<Self> {
        let bytes = std::fs::read(path).map_err(|e| Error::read(path, e))?;
        let bad = |reason: String| Error::Inconsistent {
            path: path.to_path_buf(),
            reason,
        };
        if bytes.len() < 16 || &bytes[..8] != VECTORS_MAGIC {
            return Err(bad("not a gos vectors file (bad magic)".into()));
        }
        let mut word = [0u8; 8];
        word.copy_from_slice(&bytes[8..16]);
        let hlen = u64::from_le_bytes(word);
        let body = usize::try_from(hlen)
            .ok()
            .and_then(|h| h.checked_add(16))
            .filter(|&e| e <= bytes.len())
            .ok_or_else(|| bad(format!("header length {hlen} runs past the end")))?;
        let header: VectorsHeader =
            serde_json::from_slice(&bytes[16..body]).map_err(|e| Error::Json {
                path: path.to_path_buf(),
                source: e,
            })?;
        // The header is file data: its product may not fit in memory sizes at all.
        let expected = header
            .count
            .checked_mul(header.dim)
            .and_then(|values| values.checked_mul(4))
            .ok_or_else(|| {
                bad(format!(
                    "the header declares {} rows of {} values, more bytes than this machine \
                     can address",
                    header.count, header.dim
                ))
            })?;
        if bytes.len() - body != expected || header.text_hashes.len() != header.count {
            return Err(bad(format!(
                "{} bytes of values for {} x {} (expected {expected}); the file is truncated",
                bytes.len() - body,
                header.count,
                header.dim
            )));
        }
        let data: Vec<f32> = bytes[body..]
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        // One NaN makes every cosine NaN and every dense query silently empty: refuse it here.
        if let Some(i) = data.iter().position(|v| !v.is_finite()) {
            let dim = header.dim.max(1);
            return Err(bad(format!(
                "row {} holds a non-finite value ({}) at position {}; the file is damaged",
                i / dim,
                data[i],
                i % dim
            )));
        }
        Ok(Vectors { header, data })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_truncation_is_detected() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("vectors");
        let v = Vectors::from_rows(
            "m@1".into(),
            "card".into(),
            2,
            vec![vec![0.6, 0.8], vec![1.0, 0.0]],
            vec!["h1".into(), "h2".into()],
        )
        .unwrap();
        v.write(&p).unwrap();
        let back = Vectors::read(&p).unwrap();
        assert_eq!(back, v);
        assert_eq!(back.row(1), &[1.0, 0.0]);
        assert_eq!(back.reusable_rows("m@1", "card")["h1"], &[0.6, 0.8]);
        assert!(back.reusable_rows("m@2", "card").is_empty());
        // A renamed model folder keeps its content hash: the rows are still reusable.
        assert_eq!(back.reusable_rows("renamed@1", "card").len(), 2);
        assert!(back.reusable_rows("m@1", "body").is_empty());
        let bytes = std::fs::read(&p).unwrap();
        std::fs::write(&p, &bytes[..bytes.len() - 3]).unwrap();
        let err = Vectors::read(&p).unwrap_err().to_string();
        assert!(err.contains("truncated"), "{err}");
    }

    /// One NaN or infinity among the values is an error that names the file, the row and says
    /// rebuild (before, every cosine became NaN and every dense query found nothing).
    #[test]
    fn non_finite_values_are_refused_on_read() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("vectors");
        for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
            let v = Vectors::from_rows(
                "m@1".into(),
                "card".into(),
                2,
                vec![vec![0.6, 0.8], vec![bad, 0.0]],
                vec!["h1".into(), "h2".into()],
            )
            .unwrap();
            v.write(&p).unwrap();
            let err = Vectors::read(&p).unwrap_err();
            assert!(matches!(err, Error::Inconsistent { .. }), "{err:?}");
            let msg = err.to_string();
            assert!(msg.contains("row 1 holds a non-finite value"), "{msg}");
            assert!(
                msg.contains(&p.display().to_string()) && msg.contains("rebuild it"),
                "{msg}"
            );
        }
    }

    /// A header whose `count * dim * 4` does not fit in `usize` is a typed error naming the
    /// file, not an arithmetic overflow.
    #[test]
    fn overflowing_header_is_an_error_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("vectors");
        let header = serde_json::json!({
            "model": "m@1",
            "view": "card",
            "dim": 384,
            "count": usize::MAX / 64,
            "text_hashes": [],
        });
        let header = serde_json::to_vec(&header).unwrap();
        let mut bytes = VECTORS_MAGIC.to_vec();
        bytes.extend_from_slice(&(header.len() as u64).to_le_bytes());
        bytes.extend_from_slice(&header);
        bytes.extend_from_slice(&[0u8; 8]);
        std::fs::write(&p, &bytes).unwrap();
        let err = Vectors::read(&p).unwrap_err();
        assert!(matches!(err, Error::Inconsistent { .. }), "{err:?}");
        let msg = err.to_string();
        assert!(msg.contains(&p.display().to_string()), "{msg}");
        assert!(msg.contains("rebuild"), "{msg}");
        assert!(msg.contains("384"), "{msg}");
        // A header length past the end of the file is refused the same way.
        bytes[8..16].copy_from_slice(&u64::MAX.to_le_bytes());
        std::fs::write(&p, &bytes).unwrap();
        let msg = Vectors::read(&p).unwrap_err().to_string();
        assert!(
            msg.contains("runs past the end") && msg.contains("rebuild"),
            "{msg}"
        );
    }
}
