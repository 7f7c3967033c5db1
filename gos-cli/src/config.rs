//! The config file `gos.toml`: the options people repeat (roots, globs, model directory, LLM
//! endpoint). Read from `--config FILE`, else from `gos.toml` in the workspace's parent
//! directory when there is one. Flags and environment variables win over the file. API keys are
//! never read from it: a `key`-like entry is refused, so a key stays in the environment
//! (`GOS_LLM_API_KEY`).

use anyhow::{Context, Result, bail};
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// File name looked up next to the workspace.
pub const CONFIG_FILE: &str = "gos.toml";

/// Contents of `gos.toml`. Unknown keys are refused, so a typo does not pass silently.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Roots: `PATH` or `LABEL=PATH`; relative paths are relative to the file's directory.
    #[serde(default)]
    pub roots: Vec<String>,
    /// Add the standard agent skill folders that exist.
    #[serde(default)]
    pub agent_roots: bool,
    /// Id globs to keep.
    #[serde(default)]
    pub include: Vec<String>,
    /// Id globs to leave out.
    #[serde(default)]
    pub exclude: Vec<String>,
    /// Sentence encoder directory (relative to the file's directory).
    pub model_dir: Option<PathBuf>,
    /// LLM endpoint.
    #[serde(default)]
    pub llm: LlmConfig,
    /// Directory of the file (set after reading).
    #[serde(skip)]
    pub dir: PathBuf,
}

/// The `[llm]` table: endpoint and model, never a key.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LlmConfig {
    /// Base URL of an OpenAI-compatible API.
    pub base_url: Option<String>,
    /// Model id.
    pub model: Option<String>,
}

impl Config {
    /// The config for a command: `explicit` when given (it must exist), else `gos.toml` in
    /// the parent of `workspace` when that file exists, else the empty config.
    ///
    /// # Errors
    /// An unreadable or invalid file, or one that holds an API key.
    pub fn load(explicit: Option<&Path>, workspace: Option<&Path>) -> Result<Config> {
        let path = match explicit {
            Some(p) => p.to_path_buf(),
            None => {
                let parent = workspace.and_then(|w| w.parent()).map(|p| {
                    if p.as_os_str().is_empty() {
                        Path::new(".")
                    } else {
                        p
                    }
                });
                match parent.map(|p| p.join(CONFIG_FILE)) {
                    Some(p) if p.is_file() => p,
                    _ => return Ok(Config::default()),
                }
            }
        };
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading config {}", path.display()))?;
        Self::parse(&text, &path)
    }

    /// Parse the text of the config file at `path`.
    ///
    /// # Errors
    /// Invalid TOML, unknown keys, or a key-like entry.
    pub fn parse(text: &str, path: &Path) -> Result<Config> {
        let raw: toml::Table =
            toml::from_str(text).with_context(|| format!("config {}", path.display()))?;
        if let Some(k) = secret_key(&raw) {
            bail!(
                "config {}: `{k}` looks like a secret; API keys are read only from the environment (GOS_LLM_API_KEY), never from a file",
                path.display()
            );
        }
        let mut c: Config =
            toml::from_str(text).with_context(|| format!("config {}", path.display()))?;
        c.dir = path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("."));
        Ok(c)
    }

    /// `p` relative to the file's directory when relative.
    pub fn resolve(&self, p: &Path) -> PathBuf {
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.dir.join(p)
        }
    }
}

/// The first key, at any depth, whose name says it holds a secret.
fn secret_key(t: &toml::Table) -> Option<String> {
    for (k, v) in t {
        let l = k.to_ascii_lowercase();
        if l.contains("key") || l.contains("token") || l.contains("secret") || l == "password" {
            return Some(k.clone());
        }
        if let Some(inner) = v.as_table().and_then(secret_key) {
            return Some(format!("{k}.{inner}"));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_roots_and_endpoint_and_refuses_keys() {
        let c = Config::parse(
            "roots = [\"lib\", \"team=/srv/skills\"]\nexclude = [\"drafts/**\"]\nmodel_dir = \"models/m\"\n[llm]\nbase_url = \"http://127.0.0.1:8000/v1\"\nmodel = \"m\"\n",
            Path::new("/etc/gos/gos.toml"),
        )
        .unwrap();
        assert_eq!(c.roots, ["lib", "team=/srv/skills"]);
        assert_eq!(c.exclude, ["drafts/**"]);
        assert_eq!(c.llm.model.as_deref(), Some("m"));
        assert_eq!(c.resolve(Path::new("lib")), PathBuf::from("/etc/gos/lib"));
        let e = Config::parse("[llm]\napi_key = \"sk-x\"\n", Path::new("g.toml")).unwrap_err();
        assert!(e.to_string().contains("llm.api_key"), "{e}");
        assert!(Config::parse("rots = []\n", Path::new("g.toml")).is_err());
    }
}
