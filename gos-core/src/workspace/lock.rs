//! The build lock of a workspace: one build at a time per workspace path.
//!
//! A build holds an exclusive advisory lock (`flock` on Unix, `LockFileEx` on Windows, through
//! `fs4`) on a small file beside the workspace, `.NAME.lock` in the workspace's parent
//! directory, from before its staging directory is created until the new workspace is renamed
//! into place. The operating system releases the lock when the process ends, however it ends
//! (`kill -9` included), so a stale lock never blocks the next build. The file holds the
//! holder's process id, so a second build can say whom it waits for. The file itself is left
//! in place (removing a lock file races with the next holder); it is a few bytes.
//!
//! Readers never take the lock: a workspace never changes in place (builds replace it whole
//! with two renames; see [`crate::workspace::commit_dir`]), so reading needs no write access.

use crate::error::{Error, Result};
use fs4::fs_std::FileExt;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// An exclusive build lock on one workspace path, released when dropped (or when the process
/// ends).
#[derive(Debug)]
pub struct BuildLock {
    file: File,
    path: PathBuf,
}

/// Who holds a build lock, as far as its lock file says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LockHolder {
    /// The lock file.
    pub lock_file: PathBuf,
    /// Process id written by the holder; `None` when the file does not hold one (yet).
    pub pid: Option<u32>,
}

impl std::fmt::Display for LockHolder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.pid {
            Some(pid) => write!(f, "process {pid} (lock file {})", self.lock_file.display()),
            None => write!(
                f,
                "another process (lock file {})",
                self.lock_file.display()
            ),
        }
    }
}

/// The lock file of the workspace at `target`: `.NAME.lock` in its parent directory.
pub fn lock_path(target: &Path) -> PathBuf {
    let parent = target
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "workspace".into());
    parent.join(format!(".{name}.lock"))
}

impl BuildLock {
    /// Take the build lock of the workspace at `target`, creating its parent directory and
    /// lock file when needed. When another process holds it: with `wait`, call `on_wait` once
    /// with the holder and block until the lock is free; without, fail.
    ///
    /// # Errors
    /// [`Error::Locked`] when the lock is held and `wait` is false; I/O errors creating,
    /// locking or writing the lock file, naming it.
    pub fn acquire(target: &Path, wait: bool, on_wait: &dyn Fn(&LockHolder)) -> Result<Self> {
        let path = lock_path(target);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
        }
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| Error::io(&path, e))?;
        let got = FileExt::try_lock_exclusive(&file).map_err(|e| Error::io(&path, e))?;
        if !got {
            let holder = LockHolder {
                lock_file: path.clone(),
                pid: read_pid(&path),
            };
            if !wait {
                return Err(Error::Locked {
                    path: target.to_path_buf(),
                    holder: holder.to_string(),
                });
            }
            on_wait(&holder);
            FileExt::lock_exclusive(&file).map_err(|e| Error::io(&path, e))?;
        }
        let mut lock = BuildLock { file, path };
        lock.write_pid()?;
        Ok(lock)
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn write_pid(&mut self) -> Result<()> {
        let io = |e| Error::io(&self.path, e);
        self.file.set_len(0).map_err(io)?;
        self.file.seek(SeekFrom::Start(0)).map_err(io)?;
        writeln!(self.file, "{}", std::process::id()).map_err(io)?;
        self.file.flush().map_err(io)
    }
}

impl Drop for BuildLock {
    fn drop(&mut self) {
        // Closing the file releases the lock as well; unlocking first makes the release
        // immediate even if the descriptor were shared.
        let _ = FileExt::unlock(&self.file);
    }
}

/// The process id written in a lock file, when it holds one.
fn read_pid(path: &Path) -> Option<u32> {
    let mut text = String::new();
    File::open(path).ok()?.read_to_string(&mut text).ok()?;
    text.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    #[test]
    fn a_second_lock_on_the_same_workspace_waits_or_fails_naming_the_holder() {
        let tmp = tempfile::tempdir().unwrap();
        let ws = tmp.path().join("ws");
        let first = BuildLock::acquire(&ws, false, &|_| panic!("nobody holds it")).unwrap();
        assert_eq!(first.path(), tmp.path().join(".ws.lock"));
        let pid = std::process::id().to_string();
        assert_eq!(std::fs::read_to_string(first.path()).unwrap().trim(), pid);
        // Another open file description conflicts with the first, even in this process.
        match BuildLock::acquire(&ws, false, &|_| panic!("must not wait")) {
            Err(Error::Locked { holder, .. }) => {
                assert!(holder.contains(&format!("process {pid}")), "{holder}")
            }
            other => panic!("second lock granted: {other:?}"),
        }
        // Another workspace in the same folder is not blocked.
        drop(BuildLock::acquire(&tmp.path().join("other"), false, &|_| {}).unwrap());
        let waited = Cell::new(None);
        let handle = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(200));
            drop(first);
        });
        let second = BuildLock::acquire(&ws, true, &|h| waited.set(h.pid)).unwrap();
        handle.join().unwrap();
        assert_eq!(waited.get(), Some(std::process::id()));
        assert_eq!(std::fs::read_to_string(second.path()).unwrap().trim(), pid);
    }
}
