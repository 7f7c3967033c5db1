//! Pooling of a sentence-transformers model, read from its own files.
//!
//! A sentence-transformers model directory lists its modules in `modules.json`
//! (`Transformer -> Pooling -> Normalize` for all-MiniLM-L6-v2 and bge-base-en-v1.5); the
//! Pooling module's folder (`1_Pooling/`) has a `config.json` with one `pooling_mode_*` flag
//! set: `pooling_mode_mean_tokens` (MiniLM), `pooling_mode_cls_token` (bge) or
//! `pooling_mode_lasttoken` (Qwen3-Embedding). A directory without `modules.json` gets mean
//! pooling and normalization, what gos did before it read these files.

use crate::model_dir::model_err;
use gos_core::{Error, Result};
use serde_json::Value;
use std::path::Path;

/// How token states become one vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PoolingMode {
    /// Mean over the real (unpadded) tokens.
    Mean,
    /// The first token's state (\[CLS\]).
    Cls,
    /// The last real token's state.
    LastToken,
}

/// Pooling and normalization of an encoder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pooling {
    /// Token-to-vector rule.
    pub mode: PoolingMode,
    /// Whether the model ends with a Normalize module (L2 normalization).
    pub normalize: bool,
}

impl Default for Pooling {
    /// Mean pooling with normalization (all-MiniLM-L6-v2).
    fn default() -> Self {
        Pooling {
            mode: PoolingMode::Mean,
            normalize: true,
        }
    }
}

impl Pooling {
    /// Read the pooling of the model in `dir` from `modules.json` and the Pooling module's
    /// `config.json`; [`Pooling::default`] when `modules.json` is absent, and the mean when the
    /// Pooling module has no config file.
    ///
    /// # Errors
    /// [`Error::Model`] naming the file when a file is not valid JSON, lists no Pooling module
    /// (a Transformer alone has no sentence vector), or asks for a pooling gos does not
    /// implement (max, mean-sqrt-len, weighted mean, or several at once).
    pub fn read(dir: &Path) -> Result<Self> {
        let modules_path = dir.join("modules.json");
        let text = match std::fs::read_to_string(&modules_path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Pooling::default()),
            Err(e) => return Err(Error::io(&modules_path, e)),
        };
        let modules: Value = serde_json::from_str(&text)
            .map_err(|e| model_err(&modules_path, format!("invalid JSON: {e}")))?;
        let modules = modules.as_array().cloned().unwrap_or_default();
        let of_type = |suffix: &str| {
            modules.iter().find(|m| {
                m.get("type")
                    .and_then(Value::as_str)
                    .is_some_and(|t| t.ends_with(suffix))
            })
        };
        let normalize = of_type(".Normalize").is_some();
        let Some(pooling) = of_type(".Pooling") else {
            return Err(model_err(
                &modules_path,
                "no sentence_transformers.models.Pooling module",
            ));
        };
        let folder = pooling.get("path").and_then(Value::as_str).unwrap_or("");
        let config_path = dir.join(folder).join("config.json");
        let text = match std::fs::read_to_string(&config_path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Pooling {
                    mode: PoolingMode::Mean,
                    normalize,
                });
            }
            Err(e) => return Err(Error::io(&config_path, e)),
        };
        let config: Value = serde_json::from_str(&text)
            .map_err(|e| model_err(&config_path, format!("invalid JSON: {e}")))?;
        let mode = mode_of(&config).map_err(|r| model_err(&config_path, r))?;
        Ok(Pooling { mode, normalize })
    }
}

/// The single pooling mode a Pooling config sets.
fn mode_of(config: &Value) -> std::result::Result<PoolingMode, String> {
    let on = |key: &str| config.get(key).and_then(Value::as_bool).unwrap_or(false);
    let supported = [
        ("pooling_mode_mean_tokens", PoolingMode::Mean),
        ("pooling_mode_cls_token", PoolingMode::Cls),
        ("pooling_mode_lasttoken", PoolingMode::LastToken),
    ];
    let unsupported = [
        "pooling_mode_max_tokens",
        "pooling_mode_mean_sqrt_len_tokens",
        "pooling_mode_weightedmean_tokens",
    ];
    if let Some(k) = unsupported.iter().find(|k| on(k)) {
        return Err(format!(
            "{k} is not supported (mean, cls token, last token)"
        ));
    }
    let set: Vec<PoolingMode> = supported
        .iter()
        .filter(|(k, _)| on(k))
        .map(|(_, m)| *m)
        .collect();
    match set.as_slice() {
        [m] => Ok(*m),
        [] => Err("no pooling_mode_* flag is set".to_string()),
        _ => Err(format!(
            "several pooling modes at once ({set:?}) are not supported"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, modules: &str, pooling: Option<&str>) {
        std::fs::write(dir.join("modules.json"), modules).unwrap();
        if let Some(p) = pooling {
            std::fs::create_dir_all(dir.join("1_Pooling")).unwrap();
            std::fs::write(dir.join("1_Pooling/config.json"), p).unwrap();
        }
    }

    const WITH_NORMALIZE: &str = r#"[
      {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
      {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
      {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}
    ]"#;

    #[test]
    fn pooling_is_read_from_the_sentence_transformers_files() {
        let tmp = tempfile::tempdir().unwrap();
        assert_eq!(Pooling::read(tmp.path()).unwrap(), Pooling::default());
        write(
            tmp.path(),
            WITH_NORMALIZE,
            Some(r#"{"pooling_mode_cls_token": true, "pooling_mode_mean_tokens": false}"#),
        );
        let p = Pooling::read(tmp.path()).unwrap();
        assert_eq!((p.mode, p.normalize), (PoolingMode::Cls, true));
        write(
            tmp.path(),
            &WITH_NORMALIZE.replace("sentence_transformers.models.Normalize", "Dense"),
            Some(r#"{"pooling_mode_lasttoken": true}"#),
        );
        let p = Pooling::read(tmp.path()).unwrap();
        assert_eq!((p.mode, p.normalize), (PoolingMode::LastToken, false));
        write(
            tmp.path(),
            WITH_NORMALIZE,
            Some(r#"{"pooling_mode_max_tokens": true}"#),
        );
        let err = Pooling::read(tmp.path()).unwrap_err().to_string();
        assert!(err.contains("pooling_mode_max_tokens"), "{err}");
        write(
            tmp.path(),
            WITH_NORMALIZE,
            Some(r#"{"pooling_mode_cls_token": true, "pooling_mode_mean_tokens": true}"#),
        );
        let err = Pooling::read(tmp.path()).unwrap_err().to_string();
        assert!(err.contains("several"), "{err}");
        write(tmp.path(), "[]", None);
        let err = Pooling::read(tmp.path()).unwrap_err().to_string();
        assert!(
            err.contains("no sentence_transformers.models.Pooling"),
            "{err}"
        );
    }
}
