//! The LLM response cache: `llm-cache.jsonl`, one JSON object a line, one line per successful
//! request/response pair.
//!
//! The key is the lower-case hex SHA-256 of the canonical JSON
//! `{"model", "template", "messages", "params"}`: model id, prompt template version, rendered
//! prompt and request parameters. A rebuild that renders the same prompts therefore finds every
//! reply here and sends nothing. Only replies whose content parsed as the expected JSON are
//! stored, so a transient failure is retried by the next build instead of being replayed.
//! Lines that do not parse are ignored (counted in [`LlmCache::bad_lines`]); a later line with
//! the same key replaces an earlier one.

use crate::client::{Message, Usage};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// File name of the default cache in a workspace.
pub const CACHE_FILE: &str = "llm-cache.jsonl";

/// Request parameters that are part of every key (temperature 0, JSON mode).
pub const PARAMS: &str = "temperature=0;response_format=json_object";

/// One cache line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CacheEntry {
    /// Cache key (see the module docs).
    pub key: String,
    /// Model id.
    pub model: String,
    /// Prompt template id and version (e.g. `validate-relations/v1`).
    pub template: String,
    /// SHA-256 of the rendered prompt (system and user text), the `prompt_hash` of inferred
    /// field provenance.
    pub prompt_hash: String,
    /// The rendered messages.
    pub messages: Vec<Message>,
    /// The assistant message text.
    pub content: String,
    /// Token usage reported when the reply was fetched.
    #[serde(default)]
    pub usage: Usage,
}

/// Key of a request at temperature 0 (see the module docs).
pub fn cache_key(model: &str, template: &str, messages: &[Message]) -> String {
    cache_key_at(model, template, messages, 0.0)
}

/// Key of a request at `temperature`: at 0 the same key as [`cache_key`] (so existing caches
/// stay valid); otherwise the temperature is part of the key's parameters.
pub fn cache_key_at(model: &str, template: &str, messages: &[Message], temperature: f64) -> String {
    let params = if temperature == 0.0 {
        PARAMS.to_string()
    } else {
        format!("temperature={temperature};response_format=json_object")
    };
    let canonical = serde_json::json!({
        "model": model,
        "template": template,
        "messages": messages,
        "params": params,
    });
    hex::encode(Sha256::digest(canonical.to_string().as_bytes()))
}

/// SHA-256 of the rendered messages' text (roles and contents).
pub fn prompt_hash(messages: &[Message]) -> String {
    let mut h = Sha256::new();
    for m in messages {
        h.update(m.role.as_bytes());
        h.update([0u8]);
        h.update(m.content.as_bytes());
        h.update([0u8]);
    }
    hex::encode(h.finalize())
}

/// Errors opening or appending to the cache file.
#[derive(Debug, thiserror::Error)]
#[error("LLM cache {path}: {source}")]
pub struct CacheError {
    /// Cache file.
    pub path: PathBuf,
    /// Underlying error.
    pub source: std::io::Error,
}

/// An open cache: entries in memory, new entries appended to the file as they arrive.
pub struct LlmCache {
    path: PathBuf,
    entries: Mutex<HashMap<String, CacheEntry>>,
    file: Mutex<std::fs::File>,
    loaded: usize,
    bad_lines: usize,
}

fn read_entries(path: &Path) -> Result<(Vec<CacheEntry>, usize), CacheError> {
    let err = |source| CacheError {
        path: path.to_path_buf(),
        source,
    };
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((Vec::new(), 0)),
        Err(e) => return Err(err(e)),
    };
    let mut out = Vec::new();
    let mut bad = 0;
    for line in std::io::BufReader::new(file).lines() {
        let line = line.map_err(err)?;
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<CacheEntry>(&line) {
            Ok(e) => out.push(e),
            Err(_) => bad += 1,
        }
    }
    Ok((out, bad))
}

/// The guarded value, also after a panic elsewhere poisoned the lock.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// One JSON line of `entry`.
fn entry_line(entry: &CacheEntry) -> std::io::Result<String> {
    serde_json::to_string(entry).map_err(std::io::Error::other)
}

impl LlmCache {
    /// Open the cache written at `path`, first loading `path` itself and then, when given and
    /// different, `seed` (the previous workspace's cache: its entries are copied into `path`
    /// so the new workspace holds every reply it used).
    ///
    /// # Errors
    /// [`CacheError`] when a file cannot be read or `path` cannot be opened for appending.
    pub fn open(path: &Path, seed: Option<&Path>) -> Result<Self, CacheError> {
        let (mut entries, mut bad_lines) = read_entries(path)?;
        let mut copied = Vec::new();
        if let Some(seed) = seed.filter(|s| *s != path) {
            let (more, bad) = read_entries(seed)?;
            bad_lines += bad;
            copied = more;
        }
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|source| CacheError {
                path: path.to_path_buf(),
                source,
            })?;
        }
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|source| CacheError {
                path: path.to_path_buf(),
                source,
            })?;
        let mut map: HashMap<String, CacheEntry> = HashMap::new();
        for e in entries.drain(..) {
            map.insert(e.key.clone(), e);
        }
        for e in copied {
            if !map.contains_key(&e.key) {
                let line = entry_line(&e).map_err(|source| CacheError {
                    path: path.to_path_buf(),
                    source,
                })?;
                writeln!(file, "{line}").map_err(|source| CacheError {
                    path: path.to_path_buf(),
                    source,
                })?;
                map.insert(e.key.clone(), e);
            }
        }
        Ok(LlmCache {
            path: path.to_path_buf(),
            loaded: map.len(),
            entries: Mutex::new(map),
            file: Mutex::new(file),
            bad_lines,
        })
    }

    /// Path of the cache file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Entries present when the cache was opened.
    pub fn loaded(&self) -> usize {
        self.loaded
    }

    /// Lines that could not be read as entries.
    pub fn bad_lines(&self) -> usize {
        self.bad_lines
    }

    /// Entries now.
    pub fn len(&self) -> usize {
        lock(&self.entries).len()
    }

    /// Whether the cache is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The entry of `key`, if any.
    pub fn get(&self, key: &str) -> Option<CacheEntry> {
        lock(&self.entries).get(key).cloned()
    }

    /// Store `entry` and append it to the file.
    ///
    /// # Errors
    /// [`CacheError`] when the line cannot be written (the entry stays in memory).
    pub fn insert(&self, entry: CacheEntry) -> Result<(), CacheError> {
        let line = entry_line(&entry).map_err(|source| CacheError {
            path: self.path.clone(),
            source,
        })?;
        lock(&self.entries).insert(entry.key.clone(), entry);
        let mut f = lock(&self.file);
        writeln!(f, "{line}")
            .and_then(|_| f.flush())
            .map_err(|source| CacheError {
                path: self.path.clone(),
                source,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(s: &str) -> Vec<Message> {
        vec![Message {
            role: "user".into(),
            content: s.into(),
        }]
    }

    #[test]
    fn keys_depend_on_model_template_and_prompt() {
        let k = cache_key("m", "t/v1", &msg("a"));
        assert_eq!(k.len(), 64);
        assert_eq!(k, cache_key("m", "t/v1", &msg("a")));
        assert_ne!(k, cache_key("m2", "t/v1", &msg("a")));
        assert_ne!(k, cache_key("m", "t/v2", &msg("a")));
        assert_ne!(k, cache_key("m", "t/v1", &msg("b")));
        assert_eq!(k, cache_key_at("m", "t/v1", &msg("a"), 0.0));
        assert_ne!(k, cache_key_at("m", "t/v1", &msg("a"), 0.3));
    }

    #[test]
    fn entries_survive_reopening_and_seed_is_copied() {
        let tmp = tempfile::tempdir().unwrap();
        let a = tmp.path().join("a.jsonl");
        let messages = msg("x");
        let entry = CacheEntry {
            key: cache_key("m", "t", &messages),
            model: "m".into(),
            template: "t".into(),
            prompt_hash: prompt_hash(&messages),
            messages,
            content: "{}".into(),
            usage: Usage::default(),
        };
        {
            let c = LlmCache::open(&a, None).unwrap();
            c.insert(entry.clone()).unwrap();
        }
        std::fs::write(
            tmp.path().join("junk"),
            std::fs::read_to_string(&a).unwrap() + "not json\n",
        )
        .unwrap();
        let b = tmp.path().join("sub/b.jsonl");
        let c = LlmCache::open(&b, Some(&tmp.path().join("junk"))).unwrap();
        assert_eq!(c.get(&entry.key), Some(entry.clone()));
        assert_eq!(c.bad_lines(), 1);
        drop(c);
        let again = LlmCache::open(&b, None).unwrap();
        assert_eq!(again.loaded(), 1);
    }
}
