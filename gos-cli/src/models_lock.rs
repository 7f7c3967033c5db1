//! The checkpoints `gos models pull` knows by name, and `models.lock`: what was pulled, pinned
//! to a commit, with every file's size and sha256.

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// A checkpoint a preset names: the short name users type, its hub repo, and the files gos
/// loads from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Known<'a> {
    /// The name users type (`gos models pull NAME`).
    pub name: &'a str,
    /// Hub repo id, `OWNER/NAME`.
    pub repo: &'a str,
    /// Files fetched, relative to the repo root: what gos-models reads (weights, config,
    /// tokenizer, and the sentence-transformers files that set pooling, length and prompts).
    pub files: &'a [&'a str],
}

/// The files of a plain Hugging Face checkpoint; also what a repo id outside [`KNOWN`] gets.
const PLAIN: &[&str] = &["config.json", "tokenizer.json", "model.safetensors"];

/// The checkpoints the presets name (gos-pipeline's SkillFlow and SkillRouter presets, the
/// cross-encoder of docs/evaluation.md). Repo ids and file lists as the hub's model pages list
/// them in December 2026.
pub const KNOWN: &[Known<'static>] = &[
    Known {
        name: "bge-base-en-v1.5",
        repo: "BAAI/bge-base-en-v1.5",
        files: &[
            "config.json",
            "tokenizer.json",
            "model.safetensors",
            "modules.json",
            "sentence_bert_config.json",
            "1_Pooling/config.json",
        ],
    },
    Known {
        name: "ms-marco-MiniLM-L-6-v2",
        repo: "cross-encoder/ms-marco-MiniLM-L-6-v2",
        files: PLAIN,
    },
    Known {
        name: "bge-reranker-v2-m3",
        repo: "BAAI/bge-reranker-v2-m3",
        files: PLAIN,
    },
    Known {
        name: "Qwen3-Embedding-0.6B",
        repo: "Qwen/Qwen3-Embedding-0.6B",
        files: &[
            "config.json",
            "tokenizer.json",
            "model.safetensors",
            "modules.json",
            "config_sentence_transformers.json",
            "1_Pooling/config.json",
        ],
    },
    Known {
        name: "Qwen3-Reranker-0.6B",
        repo: "Qwen/Qwen3-Reranker-0.6B",
        files: PLAIN,
    },
];

/// What `gos models pull NAME` fetches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The name the lock records ([`Known::name`], or the repo id).
    pub name: String,
    /// Hub repo id, `OWNER/NAME`.
    pub repo: String,
    /// Files to fetch, relative to the repo root.
    pub files: Vec<String>,
}

/// What to fetch for `name`: a [`KNOWN`] name (case-insensitive) or its repo id, else any
/// `OWNER/NAME` repo id with the plain file set (config.json, tokenizer.json,
/// model.safetensors).
///
/// # Errors
/// When `name` is neither, listing the known names.
pub fn resolve(name: &str) -> Result<Target> {
    let target = |k: &Known| Target {
        name: k.name.to_string(),
        repo: k.repo.to_string(),
        files: k.files.iter().map(|f| f.to_string()).collect(),
    };
    if let Some(k) = KNOWN
        .iter()
        .find(|k| k.name.eq_ignore_ascii_case(name) || k.repo.eq_ignore_ascii_case(name))
    {
        return Ok(target(k));
    }
    let valid = name.split('/').count() == 2
        && name.split('/').all(|p| {
            !p.is_empty()
                && p != "."
                && p != ".."
                && p.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
        });
    if !valid {
        let names: Vec<&str> = KNOWN.iter().map(|k| k.name).collect();
        bail!(
            "unknown model `{name}`: use one of {} or a hub repo id OWNER/NAME",
            names.join(", ")
        );
    }
    Ok(target(&Known {
        name,
        repo: name,
        files: PLAIN,
    }))
}

/// `models.lock`: one entry per pulled model, sorted by name.
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
pub struct Lock {
    /// Format version (1).
    pub version: u32,
    /// The pulled models.
    #[serde(default, rename = "model")]
    pub models: Vec<LockedModel>,
}

/// One pulled model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LockedModel {
    /// The name it was pulled by.
    pub name: String,
    /// Hub repo id.
    pub repo: String,
    /// The revision asked for (branch, tag or commit).
    pub revision: String,
    /// The 40-hex commit every file came from.
    pub commit: String,
    /// Every file, in the order fetched.
    #[serde(rename = "file")]
    pub files: Vec<LockedFile>,
}

/// One file of a pulled model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockedFile {
    /// Path in the repo (and in the snapshot folder).
    pub path: String,
    /// Bytes.
    pub size: u64,
    /// SHA-256 of the bytes, lower-case hex (computed by gos, not taken from the hub).
    pub sha256: String,
}

impl Lock {
    /// The lock at `path`, or an empty one when the file does not exist.
    ///
    /// # Errors
    /// When the file cannot be read or is not a models.lock (naming the file and the fix).
    pub fn read(path: &Path) -> Result<Lock> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Lock {
                    version: 1,
                    models: Vec::new(),
                });
            }
            Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
        };
        toml::from_str(&text).with_context(|| {
            format!(
                "{} is not a models.lock; fix or delete it (`gos models pull` writes a new one)",
                path.display()
            )
        })
    }

    /// The entry pulled as `name`.
    pub fn get(&self, name: &str) -> Option<&LockedModel> {
        self.models.iter().find(|m| m.name == name)
    }

    /// Replace (or add) the entry of `model.name`, keeping the entries sorted by name.
    pub fn put(&mut self, model: LockedModel) {
        self.models.retain(|m| m.name != model.name);
        self.models.push(model);
        self.models.sort_by(|a, b| a.name.cmp(&b.name));
    }

    /// Write the lock to `path` atomically (a temporary file renamed over it).
    ///
    /// # Errors
    /// When the folder or the file cannot be written.
    pub fn write(&self, path: &Path) -> Result<()> {
        let text = format!(
            "# Written by `gos models pull`: each model's repo, commit, and every file's size and\n\
             # sha256. Edit only by pulling.\n{}",
            toml::to_string(self).context("serializing models.lock")?
        );
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
        }
        let tmp = path.with_extension("lock.tmp");
        std::fs::write(&tmp, text).with_context(|| format!("cannot write {}", tmp.display()))?;
        std::fs::rename(&tmp, path)
            .with_context(|| format!("cannot replace {}", path.display()))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_resolve_to_repos_and_junk_is_refused() {
        assert_eq!(
            resolve("bge-base-en-v1.5").unwrap().repo,
            "BAAI/bge-base-en-v1.5"
        );
        assert_eq!(
            resolve("qwen3-reranker-0.6b").unwrap().repo,
            "Qwen/Qwen3-Reranker-0.6B"
        );
        assert_eq!(
            resolve("cross-encoder/ms-marco-MiniLM-L-6-v2")
                .unwrap()
                .name,
            "ms-marco-MiniLM-L-6-v2"
        );
        let other = resolve("someone/tiny-bert").unwrap();
        assert_eq!(other.repo, "someone/tiny-bert");
        assert_eq!(other.files, PLAIN);
        for bad in ["nope", "a/../b", "../x", "a/b/c", "a b/c"] {
            let err = resolve(bad).unwrap_err().to_string();
            assert!(err.contains("unknown model"), "{bad}: {err}");
        }
        assert_eq!(KNOWN.len(), 5);
    }

    #[test]
    fn the_lock_round_trips_sorted_by_name() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("sub/models.lock");
        let mut lock = Lock::read(&path).unwrap();
        assert!(lock.models.is_empty());
        let entry = |name: &str| LockedModel {
            name: name.into(),
            repo: format!("o/{name}"),
            revision: "main".into(),
            commit: "c".repeat(40),
            files: vec![LockedFile {
                path: "config.json".into(),
                size: 3,
                sha256: "ab".repeat(32),
            }],
        };
        lock.put(entry("b"));
        lock.put(entry("a"));
        lock.put(entry("b"));
        lock.write(&path).unwrap();
        let back = Lock::read(&path).unwrap();
        assert_eq!(back, lock);
        let names: Vec<&str> = back.models.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
        std::fs::write(&path, "model = 3").unwrap();
        let err = format!("{:#}", Lock::read(&path).unwrap_err());
        assert!(err.contains("is not a models.lock"), "{err}");
    }
}
