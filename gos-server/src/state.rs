//! The served state: one open workspace and a ready [`Retriever`] over it (with the query
//! encoder), behind an atomically swappable [`Arc`].
//!
//! A request takes the current [`Loaded`] with [`ServerState::current`] (one atomic load and a
//! reference count) and keeps it until it is done, so a reload that swaps in a new workspace
//! never disturbs a request in flight: the old state is dropped when its last request ends.

use crate::error::ServerError;
use crate::skill_paths::SkillPaths;
use arc_swap::ArcSwap;
use gos_core::Retriever;
use gos_core::Workspace;
use gos_core::index::dense::TextEmbedder;
use gos_models::dense::Precision;
use gos_models::device::Device;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// What to serve and how to load it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServeConfig {
    /// The workspace directory, re-opened by path on every reload (a rebuild renames a new
    /// directory into place).
    pub workspace: PathBuf,
    /// The sentence encoder directory; `None` uses the one the workspace recorded at build
    /// time (`workspace.json` `dense.model_dir`).
    pub model_dir: Option<PathBuf>,
    /// Serve lexical seeds only: never load an encoder, even when the workspace has vectors.
    pub lexical_only: bool,
    /// Precision of the query encoder (`gos serve --query-precision`; f32 by default).
    pub precision: Precision,
}

/// One loaded generation of the served state.
pub struct Loaded {
    /// The open workspace (the retriever holds the same one).
    ws: Arc<Workspace>,
    /// The retriever over it, with the workspace's query encoder when one is loaded.
    retriever: Retriever,
    /// 1 for the state opened at start, then one more per successful reload.
    pub generation: u64,
    /// When it was loaded, in seconds since the Unix epoch.
    pub loaded_at_unix: u64,
    /// Milliseconds it took to open the workspace and load the encoder.
    pub open_ms: f64,
    /// Identity of the `workspace.json` it was opened from, to skip reloads of the same one.
    stamp: Option<FileStamp>,
    /// The Skills extension's path of each skill ([`SkillPaths`]).
    skill_paths: SkillPaths,
}

/// Inode, length and modification time of a file: a rebuild (a new folder) or an edit changes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FileStamp {
    inode: u64,
    len: u64,
    modified: Option<SystemTime>,
}

impl FileStamp {
    fn of(path: &Path) -> Option<Self> {
        let m = std::fs::metadata(path).ok()?;
        #[cfg(unix)]
        let inode = std::os::unix::fs::MetadataExt::ino(&m);
        #[cfg(not(unix))]
        let inode = 0;
        Some(FileStamp {
            inode,
            len: m.len(),
            modified: m.modified().ok(),
        })
    }
}

impl Loaded {
    /// The open workspace.
    pub fn workspace(&self) -> &Workspace {
        &self.ws
    }

    /// The retriever over it (with the query encoder when the workspace has vectors and
    /// lexical-only serving was not asked for).
    pub fn retriever(&self) -> &Retriever {
        &self.retriever
    }

    /// The path under which the Skills extension publishes each skill
    /// ([`crate::skill_paths`]).
    pub fn skill_paths(&self) -> &SkillPaths {
        &self.skill_paths
    }

    /// The encoder's model identity, when one is loaded.
    pub fn encoder_model(&self) -> Option<&str> {
        self.retriever.embedder().map(|e| e.model_id())
    }

    /// Open `config.workspace` and its encoder. `previous` is the encoder of the state being
    /// replaced: it is reused when the new workspace's vectors come from the same model and no
    /// model directory was given, which saves loading it again.
    fn open(
        config: &ServeConfig,
        generation: u64,
        previous: Option<Arc<dyn TextEmbedder>>,
    ) -> Result<Self, ServerError> {
        let start = Instant::now();
        let path = &config.workspace;
        let stamp = FileStamp::of(&path.join("workspace.json"));
        let ws = Arc::new(Workspace::open(path).map_err(|source| ServerError::Open {
            path: path.clone(),
            source,
        })?);
        let encoder = match ws.dense() {
            Some(dense) if !config.lexical_only => {
                let reusable = previous.filter(|e| {
                    config.model_dir.is_none()
                        && gos_core::index::dense::same_model(e.model_id(), &dense.info.model)
                });
                match reusable {
                    Some(e) => Some(e),
                    None => gos_models::query_encoder_with(
                        &ws,
                        config.model_dir.as_deref(),
                        &Device::Cpu,
                        config.precision,
                    )
                    .map_err(|source| ServerError::Encoder {
                        path: path.clone(),
                        source,
                    })?,
                }
            }
            _ => None,
        };
        let retriever = Retriever::new(Arc::clone(&ws));
        let retriever = match encoder {
            Some(e) => retriever
                .with_embedder(e)
                .map_err(|source| ServerError::Encoder {
                    path: path.clone(),
                    source,
                })?,
            None => retriever,
        };
        let loaded_at_unix = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let skill_paths = SkillPaths::new(&ws);
        Ok(Loaded {
            skill_paths,
            ws,
            retriever,
            generation,
            loaded_at_unix,
            open_ms: start.elapsed().as_secs_f64() * 1e3,
            stamp,
        })
    }
}

/// The outcome of the last reload attempt that failed, kept for `workspace_status` and
/// `/readyz`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReloadFailure {
    /// When it failed, in seconds since the Unix epoch.
    pub at_unix: u64,
    /// Why.
    pub reason: String,
}

/// The state shared by every request of a server process.
pub struct ServerState {
    config: ServeConfig,
    current: ArcSwap<Loaded>,
    generations: AtomicU64,
    reload_lock: Mutex<()>,
    last_failure: Mutex<Option<ReloadFailure>>,
}

impl ServerState {
    /// Open the workspace of `config` (blocking: a few hundred milliseconds at 5,000 skills,
    /// plus the encoder).
    ///
    /// # Errors
    /// [`ServerError::Open`] when the workspace does not open, [`ServerError::Encoder`] when
    /// its encoder does not load.
    pub fn open(config: ServeConfig) -> Result<Self, ServerError> {
        let loaded = Loaded::open(&config, 1, None)?;
        Ok(ServerState {
            config,
            current: ArcSwap::from_pointee(loaded),
            generations: AtomicU64::new(1),
            reload_lock: Mutex::new(()),
            last_failure: Mutex::new(None),
        })
    }

    /// The state to serve one request with; keep it for the whole request.
    pub fn current(&self) -> Arc<Loaded> {
        self.current.load_full()
    }

    /// The configuration it serves.
    pub fn config(&self) -> &ServeConfig {
        &self.config
    }

    /// The workspace directory.
    pub fn workspace_path(&self) -> &Path {
        &self.config.workspace
    }

    /// Re-open the workspace by path and swap it in (blocking; run it off the async
    /// threads). Requests in flight finish on the state they took. Concurrent reloads run
    /// one after another.
    ///
    /// # Errors
    /// As [`ServerState::open`]; the previous state keeps serving, and the failure is kept
    /// for [`ServerState::last_failure`].
    pub fn reload(&self) -> Result<u64, ServerError> {
        let _one_at_a_time = self
            .reload_lock
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let previous = self.current();
        let generation = self.generations.load(Ordering::SeqCst) + 1;
        let encoder = previous.retriever.embedder().cloned();
        match Loaded::open(&self.config, generation, encoder) {
            Ok(loaded) => {
                self.current.store(Arc::new(loaded));
                self.generations.store(generation, Ordering::SeqCst);
                *self.lock_failure() = None;
                Ok(generation)
            }
            Err(e) => {
                *self.lock_failure() = Some(ReloadFailure {
                    at_unix: SystemTime::now()
                        .duration_since(UNIX_EPOCH)
                        .map_or(0, |d| d.as_secs()),
                    reason: e.to_string(),
                });
                Err(e)
            }
        }
    }

    /// Whether `workspace.json` on disk is another file than the one the served state was
    /// opened from (a rebuild or an edit happened since), or cannot be read.
    pub fn changed_on_disk(&self) -> bool {
        let on_disk = FileStamp::of(&self.config.workspace.join("workspace.json"));
        on_disk.is_none() || on_disk != self.current().stamp
    }

    /// The last reload failure, unless a later reload succeeded.
    pub fn last_failure(&self) -> Option<ReloadFailure> {
        self.lock_failure().clone()
    }

    fn lock_failure(&self) -> std::sync::MutexGuard<'_, Option<ReloadFailure>> {
        self.last_failure
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gos_testkit::model_dir;

    /// A reload of a workspace whose vectors come from the same model keeps the loaded encoder
    /// (the same `Arc`), and the new retriever seeds hybrid with it.
    #[test]
    fn a_reload_reuses_the_query_encoder() {
        let Some(model) = model_dir() else { return };
        let tmp = tempfile::tempdir().unwrap();
        let ws = tmp.path().join("ws");
        gos_build::build_workspace(
            &gos_build::BuildOptions {
                library: Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/library"),
                workspace: ws.clone(),
                relate: Default::default(),
                embed: Some(gos_build::embed::EmbedOptions::new(
                    model,
                    gos_models::dense::load_workspace_encoder,
                )),
                force: false,
            },
            &gos_build::build::NoProgress,
        )
        .unwrap();
        let state = ServerState::open(ServeConfig {
            workspace: ws,
            model_dir: None,
            lexical_only: false,
            precision: Default::default(),
        })
        .unwrap();
        let before = state.current();
        let encoder = before.retriever().embedder().cloned().expect("an encoder");
        assert_eq!(state.reload().unwrap(), 2);
        let after = state.current();
        let again = after.retriever().embedder().expect("an encoder");
        assert!(Arc::ptr_eq(&encoder, again), "the encoder was loaded again");
        assert_eq!(after.encoder_model(), Some(encoder.model_id()));
        let asked = gos_core::seed::SeedSource::Auto;
        assert_eq!(
            after.retriever().seed_source(asked),
            gos_core::seed::SeedSource::Hybrid
        );
    }
}
