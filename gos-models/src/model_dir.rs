//! Shared checks for neural model directories in Hugging Face layout (config.json,
//! tokenizer.json, model.safetensors), used by the sentence encoder and the cross-encoder.

use gos_core::{Error, Result};
use std::path::{Path, PathBuf};

/// An [`Error::Model`] about `path`.
pub(crate) fn model_err(path: &Path, reason: impl std::fmt::Display) -> Error {
    Error::Model {
        path: path.to_path_buf(),
        reason: reason.to_string(),
    }
}

/// `dir/file` when it is a file, else an [`Error::Model`] naming `dir`, the missing file, the
/// expected layout, and `hint` (where to get such a model); a `dir` that does not exist (or is
/// not a directory) is reported as such, not as a missing file.
pub(crate) fn require_file(dir: &Path, file: &str, kind: &str, hint: &str) -> Result<PathBuf> {
    if !dir.is_dir() {
        let what = if dir.exists() {
            "is not a directory"
        } else {
            "does not exist"
        };
        return Err(model_err(
            dir,
            format!(
                "the model directory {what}; pass the folder that holds config.json, \
                 tokenizer.json and model.safetensors (`gos models list` shows pulled models); {hint}"
            ),
        ));
    }
    let p = dir.join(file);
    if p.is_file() {
        Ok(p)
    } else {
        Err(model_err(
            dir,
            format!(
                "missing {file}; expected a Hugging Face {kind} directory (config.json, \
                 tokenizer.json, model.safetensors); {hint}"
            ),
        ))
    }
}

/// `dir/config.json` parsed, or JSON `null` when the file does not exist (the model's own
/// loader then names the missing file and where to get the model). Used to pick a model
/// family before loading.
///
/// # Errors
/// [`Error::Model`] when the file is not valid JSON, [`Error::Io`] when it cannot be read.
pub(crate) fn read_config(dir: &Path) -> Result<serde_json::Value> {
    let path = dir.join("config.json");
    match std::fs::read_to_string(&path) {
        Ok(text) => {
            serde_json::from_str(&text).map_err(|e| model_err(&path, format!("invalid JSON: {e}")))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(serde_json::Value::Null),
        Err(e) => Err(Error::io(&path, e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_model_dir_is_reported_as_missing_not_as_a_missing_file() {
        let tmp = tempfile::tempdir().unwrap();
        let gone = tmp.path().join("no-such-model");
        let err = require_file(&gone, "config.json", "model", "hint")
            .unwrap_err()
            .to_string();
        assert!(err.contains("does not exist"), "{err}");
        assert!(!err.contains("missing config.json"), "{err}");
        let file = tmp.path().join("plain-file");
        std::fs::write(&file, b"x").unwrap();
        let err = require_file(&file, "config.json", "model", "hint")
            .unwrap_err()
            .to_string();
        assert!(err.contains("is not a directory"), "{err}");
        let err = require_file(tmp.path(), "config.json", "model", "hint")
            .unwrap_err()
            .to_string();
        assert!(err.contains("missing config.json"), "{err}");
    }
}
