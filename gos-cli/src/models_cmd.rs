//! `gos models pull` and `gos models list`: the checkpoints the presets name, fetched from the
//! Hugging Face hub into its cache (hf-hub's layout: `models--OWNER--NAME/snapshots/COMMIT/`),
//! pinned to a commit, with every file's size and sha256 in `models.lock`.
//!
//! This is the only command of gos that uses the network: build, retrieve and the servers load
//! model folders from disk and never fetch anything. hf-hub verifies no content, so gos hashes
//! each file itself and refuses one whose sha256 differs from the hub's content hash (the ETag
//! of a large file is its sha256) or from the lock.

use crate::args::{ModelsArgs, ModelsCacheArgs, ModelsCommand, ModelsListArgs, ModelsPullArgs};
use crate::models_lock::{Lock, LockedFile, LockedModel, resolve};
use anyhow::{Context, Result, bail};
use hf_hub::api::sync::{Api, ApiBuilder};
use hf_hub::{Cache, Repo, RepoType};
use serde_json::json;
use sha2::{Digest, Sha256};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

/// The hub gos talks to when `HF_ENDPOINT` is not set (hf-hub's default).
const DEFAULT_ENDPOINT: &str = "https://huggingface.co";

/// Run `gos models`.
pub fn run(args: ModelsArgs) -> Result<()> {
    match args.command {
        ModelsCommand::Pull(a) => pull(a),
        ModelsCommand::List(a) => list(a),
    }
}

/// The cache directory and the lock file of `args`, with their defaults.
fn locations(args: &ModelsCacheArgs) -> (PathBuf, PathBuf) {
    let cache = args
        .cache
        .clone()
        .unwrap_or_else(|| Cache::from_env().path().clone());
    let lock = args
        .lock
        .clone()
        .unwrap_or_else(|| cache.join("models.lock"));
    (cache, lock)
}

/// `HF_ENDPOINT` without a trailing `/`, else [`DEFAULT_ENDPOINT`].
fn endpoint() -> String {
    std::env::var("HF_ENDPOINT")
        .ok()
        .filter(|e| !e.trim().is_empty())
        .map(|e| e.trim().trim_end_matches('/').to_string())
        .unwrap_or_else(|| DEFAULT_ENDPOINT.to_string())
}

/// The cache folder of model repo `repo` (`models--OWNER--NAME`).
fn repo_dir(cache: &Path, repo: &str) -> PathBuf {
    cache.join(Repo::model(repo.to_string()).folder_name())
}

fn is_hex(s: &str, len: usize) -> bool {
    s.len() == len && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Size and lower-case hex sha256 of the file at `path` (links followed).
fn hash_file(path: &Path) -> Result<(u64, String)> {
    let mut file =
        std::fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut h = Sha256::new();
    let size = std::io::copy(&mut file, &mut h)
        .with_context(|| format!("cannot read {}", path.display()))?;
    Ok((size, hex::encode(h.finalize())))
}

/// One file of `repo` at `repo`'s revision: from the cache when its snapshot has it (no
/// request) unless `refresh`, else downloaded. Returns the snapshot path and whether it was
/// downloaded.
fn fetch(
    api: &Api,
    cache: &Cache,
    (repo, refresh): (&Repo, bool),
    file: &str,
    hub: &str,
) -> Result<(PathBuf, bool)> {
    if !refresh && let Some(path) = cache.repo(repo.clone()).get(file) {
        return Ok((path, false));
    }
    let path = api.repo(repo.clone()).download(file).map_err(|e| {
        anyhow::anyhow!(
            "cannot fetch {file} of {} at revision {} from the model hub at {hub}: {e}; check \
             the network, the name and the revision (HF_ENDPOINT sets the hub), or copy the model \
             folder by hand and pass --model-dir",
            repo.url(),
            repo.revision()
        )
    })?;
    Ok((path, true))
}

/// Remove a corrupt file from the cache: its snapshot link and the blob it points to. The blob
/// is removed only where the hub cache keeps blobs (`.../blobs/<etag>`), so a snapshot entry
/// a user pointed at a file of their own never makes gos delete that file.
fn evict(snapshot_path: &Path) {
    if let Ok(blob) = std::fs::canonicalize(snapshot_path)
        && blob.parent().and_then(Path::file_name) == Some(std::ffi::OsStr::new("blobs"))
    {
        let _ = std::fs::remove_file(blob);
    }
    let _ = std::fs::remove_file(snapshot_path);
}

fn pull(args: ModelsPullArgs) -> Result<()> {
    let target = resolve(&args.name)?;
    let (cache_dir, lock_path) = locations(&args.cache);
    let mut lock = Lock::read(&lock_path)?;
    let locked = lock
        .get(&target.name)
        .filter(|m| m.repo == target.repo)
        .cloned();
    let revision = args
        .revision
        .clone()
        .or_else(|| locked.as_ref().map(|m| m.commit.clone()))
        .unwrap_or_else(|| "main".to_string());
    let hub = endpoint();
    let api = ApiBuilder::from_env()
        .with_cache_dir(cache_dir.clone())
        .with_endpoint(hub.clone())
        .with_progress(!args.quiet && std::io::stderr().is_terminal())
        .with_retries(0)
        .build()
        .context("cannot set up the model hub client")?;
    let cache = Cache::new(cache_dir.clone());

    // The first file resolves the revision to a commit; every file then comes from that commit.
    // A branch or tag given with --revision is asked of the hub again (the first file, a small
    // config, is fetched anew) so that it can move; a commit, or the lock's, is read from the
    // cache without a request.
    let asked = Repo::with_revision(target.repo.clone(), RepoType::Model, revision.clone());
    let refresh = args.revision.as_deref().is_some_and(|r| !is_hex(r, 40));
    let (_, first_downloaded) = fetch(&api, &cache, (&asked, refresh), &target.files[0], &hub)?;
    let ref_path = repo_dir(&cache_dir, &target.repo)
        .join("refs")
        .join(&revision);
    let commit = std::fs::read_to_string(&ref_path)
        .with_context(|| format!("cannot read {}", ref_path.display()))?
        .trim()
        .to_string();
    if !is_hex(&commit, 40) {
        bail!(
            "the model hub at {hub} named commit `{commit}` for {} at {revision}, not a 40-hex \
             commit; is HF_ENDPOINT a Hugging Face hub?",
            target.repo
        );
    }
    let pinned = Repo::with_revision(target.repo.clone(), RepoType::Model, commit.clone());
    cache
        .repo(pinned.clone())
        .create_ref(&commit)
        .with_context(|| format!("cannot write a ref under {}", cache_dir.display()))?;
    let same_commit = locked.as_ref().filter(|m| m.commit == commit);

    let mut files = Vec::with_capacity(target.files.len());
    let mut downloaded = usize::from(first_downloaded);
    for (i, file) in target.files.iter().enumerate() {
        let (path, fresh) = fetch(&api, &cache, (&pinned, false), file, &hub)?;
        if i > 0 && fresh {
            downloaded += 1;
        }
        let (size, sha256) = hash_file(&path)?;
        // On the hub a large (LFS) file's ETag, which names its blob, is its sha256.
        let blob_name = std::fs::read_link(&path)
            .ok()
            .and_then(|l| l.file_name().map(|n| n.to_string_lossy().into_owned()));
        let expected = same_commit
            .and_then(|m| m.files.iter().find(|f| &f.path == file))
            .map(|f| (f.sha256.clone(), lock_path.display().to_string()))
            .or_else(|| {
                blob_name
                    .filter(|b| is_hex(b, 64))
                    .map(|b| (b.to_ascii_lowercase(), format!("the hub at {hub}")))
            });
        if let Some((want, source)) = expected.filter(|(want, _)| *want != sha256) {
            evict(&path);
            bail!(
                "{file} of {} at {commit} has sha256 {sha256}, but {source} says {want}: the \
                 copy is corrupt and was removed from the cache; run `gos models pull {}` again \
                 (if this repeats, the hub or a proxy serves other bytes)",
                target.repo,
                target.name
            );
        }
        files.push(LockedFile {
            path: file.clone(),
            size,
            sha256,
        });
    }

    let model_dir = repo_dir(&cache_dir, &target.repo)
        .join("snapshots")
        .join(&commit);
    let entry = LockedModel {
        name: target.name.clone(),
        repo: target.repo.clone(),
        revision: args.revision.clone().unwrap_or_else(|| {
            locked
                .as_ref()
                .map_or_else(|| "main".to_string(), |m| m.revision.clone())
        }),
        commit: commit.clone(),
        files,
    };
    let bytes: u64 = entry.files.iter().map(|f| f.size).sum();
    let cached = entry.files.len() - downloaded;
    if args.json {
        println!(
            "{}",
            json!({
                "name": entry.name,
                "repo": entry.repo,
                "revision": entry.revision,
                "commit": entry.commit,
                "model_dir": model_dir,
                "lock": lock_path,
                "downloaded": downloaded,
                "cached": cached,
                "bytes": bytes,
                "files": entry.files.iter().map(|f| json!({
                    "path": f.path, "size": f.size, "sha256": f.sha256,
                })).collect::<Vec<_>>(),
            })
        );
    } else {
        println!(
            "pulled {} ({} at {}): {} files, {:.1} MB ({downloaded} downloaded, {cached} from the \
             cache)\nmodel dir: {}\nlock: {}\nuse it with `--model-dir {}`",
            entry.name,
            entry.repo,
            &commit[..12],
            entry.files.len(),
            bytes as f64 / 1e6,
            model_dir.display(),
            lock_path.display(),
            model_dir.display()
        );
    }
    lock.put(entry);
    lock.write(&lock_path)
}

/// A locked model's state in the cache: `ok` when every file is in its snapshot with the
/// locked size (sizes only: hashing gigabytes is `pull`'s job), else what is wrong.
fn status(dir: &Path, m: &LockedModel) -> String {
    let mut missing = 0;
    let mut resized = 0;
    for f in &m.files {
        match std::fs::metadata(dir.join(&f.path)) {
            Ok(meta) if meta.len() == f.size => {}
            Ok(_) => resized += 1,
            Err(_) => missing += 1,
        }
    }
    match (missing, resized) {
        (0, 0) => "ok".to_string(),
        (m, 0) => format!("{m} files missing: pull again"),
        (0, r) => format!("{r} files of another size: pull again"),
        (m, r) => format!("{m} files missing, {r} of another size: pull again"),
    }
}

/// Snapshots in the cache that no lock entry names: `(repo, commit, dir)`.
fn unlocked(cache: &Path, lock: &Lock) -> Vec<(String, String, PathBuf)> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(cache) else {
        return out;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(rest) = name.strip_prefix("models--") else {
            continue;
        };
        let repo = rest.replacen("--", "/", 1);
        let Ok(snaps) = std::fs::read_dir(e.path().join("snapshots")) else {
            continue;
        };
        for s in snaps.flatten() {
            let commit = s.file_name().to_string_lossy().into_owned();
            let known = lock
                .models
                .iter()
                .any(|m| m.repo == repo && m.commit == commit);
            if !known {
                out.push((repo.clone(), commit, s.path()));
            }
        }
    }
    out.sort();
    out
}

fn list(args: ModelsListArgs) -> Result<()> {
    let (cache_dir, lock_path) = locations(&args.cache);
    let lock = Lock::read(&lock_path)?;
    let rows: Vec<(&LockedModel, PathBuf, String)> = lock
        .models
        .iter()
        .map(|m| {
            let dir = repo_dir(&cache_dir, &m.repo)
                .join("snapshots")
                .join(&m.commit);
            let st = status(&dir, m);
            (m, dir, st)
        })
        .collect();
    let extra = unlocked(&cache_dir, &lock);
    if args.json {
        let models: Vec<_> = rows
            .iter()
            .map(|(m, dir, st)| {
                json!({
                    "name": m.name, "repo": m.repo, "revision": m.revision, "commit": m.commit,
                    "model_dir": dir, "files": m.files.len(),
                    "bytes": m.files.iter().map(|f| f.size).sum::<u64>(), "status": st,
                })
            })
            .collect();
        let extra: Vec<_> = extra
            .iter()
            .map(|(repo, commit, dir)| json!({"repo": repo, "commit": commit, "model_dir": dir}))
            .collect();
        println!(
            "{}",
            json!({"cache": cache_dir, "lock": lock_path, "models": models, "unlocked": extra})
        );
        return Ok(());
    }
    println!(
        "cache: {}\nlock: {}",
        cache_dir.display(),
        lock_path.display()
    );
    if rows.is_empty() && extra.is_empty() {
        println!("no models; fetch one with `gos models pull NAME` (e.g. bge-base-en-v1.5)");
        return Ok(());
    }
    for (m, dir, st) in &rows {
        let bytes: u64 = m.files.iter().map(|f| f.size).sum();
        println!(
            "{}  {} @ {}  {} files  {:.1} MB  {st}\n  {}",
            m.name,
            m.repo,
            &m.commit[..m.commit.len().min(12)],
            m.files.len(),
            bytes as f64 / 1e6,
            dir.display()
        );
    }
    for (repo, commit, dir) in &extra {
        println!(
            "(not in the lock)  {repo} @ {}\n  {}",
            &commit[..commit.len().min(12)],
            dir.display()
        );
    }
    Ok(())
}
