//! Reloading the served workspace after a rebuild.
//!
//! `gos build` writes a new workspace into a staging folder next to the old one and renames
//! it into place, so the workspace directory itself is replaced, not edited. The watcher
//! therefore watches the *parent* folder (where the renames happen) and the workspace folder
//! (for an edited `workspace.json`), and reacts to events naming the workspace path or its
//! `workspace.json`. Events are debounced: the reload runs once they have been quiet for the
//! debounce time, then re-opens the workspace by path ([`ServerState::reload`]). A reload
//! that fails (the folder is mid-rename, or the new build is broken) logs why and keeps the
//! old workspace serving; the next event tries again. On Unix, SIGHUP forces a reload.

use crate::error::ServerError;
use crate::state::ServerState;
use notify::{RecursiveMode, Watcher};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

/// Default quiet time before a reload (a build's two renames land within microseconds).
pub const DEFAULT_DEBOUNCE: Duration = Duration::from_millis(300);

/// A running reloader: the task that owns the watcher. Dropping it stops both.
pub struct Reloader {
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Reloader {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Why a reload was asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Trigger {
    File,
    Signal,
}

/// Whether `path` is the workspace folder or its `workspace.json`.
fn concerns(path: &Path, workspace: &Path) -> bool {
    path == workspace || path == workspace.join("workspace.json")
}

/// Reload `state` in the blocking pool and log the outcome.
async fn reload_now(state: &Arc<ServerState>, why: Trigger) {
    let s = state.clone();
    match tokio::task::spawn_blocking(move || s.reload()).await {
        Ok(Ok(generation)) => tracing::info!(
            generation,
            trigger = ?why,
            workspace = %state.workspace_path().display(),
            "reloaded the workspace"
        ),
        Ok(Err(e)) => tracing::warn!("reload failed, still serving the previous workspace: {e}"),
        Err(e) => tracing::warn!("reload task failed, still serving the previous workspace: {e}"),
    }
}

/// Start watching the workspace of `state` (and SIGHUP on Unix); reloads run on the current
/// tokio runtime.
///
/// # Errors
/// [`ServerError::Watch`] when the watcher cannot start or the parent folder cannot be
/// watched.
pub fn spawn(state: Arc<ServerState>, debounce: Duration) -> Result<Reloader, ServerError> {
    let workspace: PathBuf =
        std::path::absolute(state.workspace_path()).map_err(|e| ServerError::Io {
            what: format!("resolving {}", state.workspace_path().display()),
            source: e,
        })?;
    let parent = workspace
        .parent()
        .map_or_else(|| PathBuf::from("/"), Path::to_path_buf);
    let (tx, mut rx) = mpsc::unbounded_channel::<Trigger>();
    let ws_for_events = workspace.clone();
    let file_tx = tx.clone();
    let mut watcher =
        notify::recommended_watcher(move |event: notify::Result<notify::Event>| match event {
            Ok(e) if e.paths.iter().any(|p| concerns(p, &ws_for_events)) => {
                let _ = file_tx.send(Trigger::File);
            }
            Ok(_) => {}
            Err(e) => tracing::warn!("file watch error: {e}"),
        })
        .map_err(|source| ServerError::Watch {
            path: parent.clone(),
            source,
        })?;
    watcher
        .watch(&parent, RecursiveMode::NonRecursive)
        .map_err(|source| ServerError::Watch {
            path: parent.clone(),
            source,
        })?;
    // Best effort: an in-place edit of workspace.json shows only on the folder itself.
    let _ = watcher.watch(&workspace, RecursiveMode::NonRecursive);
    #[cfg(unix)]
    {
        let signal_tx = tx.clone();
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup()) {
            Ok(mut hup) => {
                tokio::spawn(async move {
                    while hup.recv().await.is_some() {
                        if signal_tx.send(Trigger::Signal).is_err() {
                            break;
                        }
                    }
                });
            }
            Err(e) => tracing::warn!("SIGHUP reloads are off: {e}"),
        }
    }
    drop(tx);
    let task = tokio::spawn(async move {
        while let Some(first) = rx.recv().await {
            let mut why = first;
            // Debounce: wait until the events have been quiet for `debounce`.
            loop {
                match tokio::time::timeout(debounce, rx.recv()).await {
                    Ok(Some(next)) => {
                        if next == Trigger::Signal {
                            why = Trigger::Signal;
                        }
                    }
                    Ok(None) => return,
                    Err(_) => break,
                }
            }
            // File events also come from the old folder being removed after a rebuild's
            // swap; reload only when workspace.json is another file than the served one.
            if why == Trigger::Signal || state.changed_on_disk() {
                reload_now(&state, why).await;
            }
            // The new folder is another inode: watch it again (the parent watch stays).
            let _ = watcher.unwatch(&workspace);
            let _ = watcher.watch(&workspace, RecursiveMode::NonRecursive);
        }
    });
    Ok(Reloader { task })
}
