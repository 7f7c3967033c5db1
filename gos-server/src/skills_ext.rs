//! The MCP Skills extension (SEP-2640, `io.modelcontextprotocol/skills`) over the served
//! library: every file of a skill package is a resource `skill://<id>/<file>`, listed with
//! its SHA-256 digest and size in the skill's entry.
//!
//! | method | answer |
//! | --- | --- |
//! | `skills/list` | one page of entries, manifest order; cursor = offset. gos extension: `_meta` `"io.github.gos/task"` ranks the skills for a task (the retrieval's ranked list) and `"io.github.gos/max_chars"` caps a page's serialized size |
//! | `skills/get` | the entry of `skill://<id>/SKILL.md`; `-32602` for anything else |
//! | `resources/list` | every file of every published skill, [`RESOURCE_PAGE_SKILLS`] skills a page |
//! | `resources/read` | the file's bytes (text when UTF-8, else base64) |
//! | `resources/directory/read` | the direct children of `skill://<id>` or a folder below it |
//!
//! Files are read from the library folder at request time under the rules of
//! [`package_path`]: a relative path without `.`/`..` segments, a regular file (a symbolic
//! link is refused, even one that points inside the package) whose canonical path lies inside
//! the package's canonical folder. Each skill is published under its skill path
//! ([`crate::skill_paths`]: the id, or the folder's parent with the frontmatter `name` last
//! when the folder is named otherwise) when its entry passes the SEP's structural rules
//! ([`Skill::validate`]: the path's last segment equals the frontmatter `name`, a valid name,
//! at most [`MAX_RESOURCES`] files and [`MAX_SKILL_BYTES`] bytes); the others stay reachable
//! through the tools.
//! Entries are a point-in-time view: they are rebuilt on each request, so a rebuild or an
//! edit shows at once.

use crate::state::Loaded;
use base64::Engine;
use gos_core::RetrieveOptions;
use rmcp::ErrorData;
use rmcp::model::{
    CacheScope, ListResourcesResult, ListSkillsResult, MetaObject, Resource, ResourceContents,
    Skill, SkillFrontmatter, SkillResource, SkillResources, sha256_digest,
};
use serde_json::Value;
use std::fs;
use std::path::{Component, Path, PathBuf};

/// Entries per `skills/list` page (the SEP leaves the size to the server).
pub const SKILLS_PAGE: usize = 50;

/// Skills whose files one `resources/list` page lists.
pub const RESOURCE_PAGE_SKILLS: usize = 100;

/// Most files of a skill entry: the SEP's per-skill limit (512 entries, SKILL.md included).
pub const MAX_RESOURCES: usize = 512;

/// Most bytes of all files of a skill entry: the SEP's per-skill limit (16 MiB).
pub const MAX_SKILL_BYTES: u64 = 16 * 1024 * 1024;

/// Default of the gos `_meta` key `io.github.gos/max_chars`: most characters of the entries of
/// one ranked `skills/list` page, each counted as compact JSON. 8,000 is Codex's
/// skill-listing budget (issue 23).
pub const DEFAULT_LISTING_CHARS: usize = 8_000;

/// `_meta` key of `skills/list` that asks for the skills ranked for a task (gos extension).
pub const META_TASK: &str = "io.github.gos/task";

/// `_meta` key of `skills/list` with the page's character budget (gos extension).
pub const META_MAX_CHARS: &str = "io.github.gos/max_chars";

/// Seconds-scale freshness hint of the listings (`ttlMs`): one minute, since a rebuild swaps
/// the workspace without notice to the client.
pub const TTL_MS: u64 = 60_000;

/// The URI of `file` (relative, `/`-separated) in the skill published at `skill_path`.
pub fn file_uri(skill_path: &str, file: &str) -> String {
    format!("skill://{skill_path}/{file}")
}

/// The package folder of node `i`: the folder of its SKILL.md under the library root.
fn package_dir(loaded: &Loaded, i: usize) -> PathBuf {
    let ws = loaded.workspace();
    let root = Path::new(&ws.info().library_root);
    let source = root.join(&ws.manifest().nodes[i].source_path);
    source
        .parent()
        .map_or_else(|| root.to_path_buf(), Path::to_path_buf)
}

/// The path of `rel` in the package folder `dir`, when it names a regular file inside it.
///
/// # Errors
/// As [`package_path`], and when `rel` is not a regular file.
pub fn package_file(dir: &Path, rel: &str) -> Result<PathBuf, String> {
    let path = package_path(dir, rel)?;
    if path.is_file() {
        Ok(path)
    } else {
        Err(format!("`{rel}` is not a file"))
    }
}

/// The path of `rel` in the package folder `dir` under the serving rules: a plain relative
/// path (no absolute, empty, `.` or `..` segment, no backslash), not a symbolic link, whose
/// canonical path lies inside the package's canonical folder.
///
/// # Errors
/// A message naming `rel` and the rule it breaks, or the I/O error (a missing file).
pub fn package_path(dir: &Path, rel: &str) -> Result<PathBuf, String> {
    let plain = !rel.is_empty()
        && !rel.contains('\\')
        && Path::new(rel)
            .components()
            .all(|c| matches!(c, Component::Normal(_)))
        && !rel
            .split('/')
            .any(|s| s.is_empty() || s == "." || s == "..");
    if !plain {
        return Err(format!(
            "`{rel}` is not a plain relative path in the package"
        ));
    }
    let path = dir.join(rel);
    let meta = fs::symlink_metadata(&path).map_err(|e| format!("`{rel}`: {e}"))?;
    if meta.file_type().is_symlink() {
        return Err(format!("`{rel}` is a symbolic link; gos serves no links"));
    }
    inside(dir, &path, rel)?;
    Ok(path)
}

/// Whether `path`'s canonical form lies under `dir`'s (a folder on the way may be a link).
fn inside(dir: &Path, path: &Path, rel: &str) -> Result<(), String> {
    let base = fs::canonicalize(dir).map_err(|e| format!("package folder: {e}"))?;
    let real = fs::canonicalize(path).map_err(|e| format!("`{rel}`: {e}"))?;
    if real.starts_with(&base) {
        Ok(())
    } else {
        Err(format!("`{rel}` lies outside the package folder"))
    }
}

/// Relative paths of the regular files of a package, sorted, at most `MAX_RESOURCES + 1`
/// (one more than an entry may list, so an oversized skill is seen). Links are skipped.
fn files(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let Ok(t) = entry.file_type() else { continue };
            let path = entry.path();
            if t.is_dir() {
                stack.push(path);
            } else if t.is_file()
                && let Ok(rel) = path.strip_prefix(dir)
            {
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
        if out.len() > MAX_RESOURCES {
            break;
        }
    }
    out.sort();
    out.truncate(MAX_RESOURCES + 1);
    out
}

/// The MIME type of a file by its extension (`text/markdown` for SKILL.md, as the SEP asks).
pub fn mime_type(file: &str) -> &'static str {
    let ext = file.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
    match ext.as_deref() {
        Some("md" | "markdown") => "text/markdown",
        Some("txt") => "text/plain",
        Some("py") => "text/x-python",
        Some("sh") => "text/x-shellscript",
        Some("js" | "mjs") => "text/javascript",
        Some("ts") => "text/x-typescript",
        Some("json") => "application/json",
        Some("yaml" | "yml") => "application/yaml",
        Some("toml") => "application/toml",
        Some("html") => "text/html",
        Some("csv") => "text/csv",
        Some("xml") => "application/xml",
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("svg") => "image/svg+xml",
        Some("pdf") => "application/pdf",
        _ => "application/octet-stream",
    }
}

/// The SEP-2640 entry of node `i`, read from the library now.
///
/// # Errors
/// Why the skill is not published: its SKILL.md is unreadable, it has more than
/// [`MAX_RESOURCES`] files or [`MAX_SKILL_BYTES`] bytes, or the entry breaks a rule of [`Skill::validate`].
pub fn entry(loaded: &Loaded, i: usize) -> Result<Skill, String> {
    let node = &loaded.workspace().manifest().nodes[i];
    let skill_path = loaded.skill_paths().path(i).ok_or_else(|| {
        format!(
            "its folder name differs from its name `{}`, and the path `{}` that would publish \
             it names another skill; rename the folder or the skill",
            node.name,
            crate::skill_paths::renamed_path(&node.id, &node.name)
        )
    })?;
    let dir = package_dir(loaded, i);
    let md_path = package_file(&dir, "SKILL.md")?;
    let md = fs::read(&md_path).map_err(|e| format!("{}: {e}", md_path.display()))?;
    let split = gos_build::frontmatter::split(&String::from_utf8_lossy(&md));
    let mut extra = serde_json::Map::new();
    let mut name = node.name.clone();
    let mut description = node.description.value.clone();
    for (k, v) in split.frontmatter.fields {
        match (k.as_str(), &v) {
            ("name", Value::String(s)) => name = s.clone(),
            ("description", Value::String(s)) => description = s.clone(),
            _ => {
                extra.insert(k, v);
            }
        }
    }
    let listed = files(&dir);
    if listed.len() > MAX_RESOURCES {
        return Err(format!(
            "more than {MAX_RESOURCES} files (the SEP's per-skill limit)"
        ));
    }
    let mut resources = Vec::with_capacity(listed.len());
    for rel in &listed {
        let Ok(path) = package_file(&dir, rel) else {
            continue;
        };
        let bytes = if rel == "SKILL.md" {
            md.clone()
        } else {
            fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?
        };
        resources.push(SkillResource::new(
            file_uri(skill_path, rel),
            sha256_digest(&bytes),
            bytes.len() as u64,
        ));
    }
    let total: u64 = resources.iter().map(|r| r.size).sum();
    if total > MAX_SKILL_BYTES {
        return Err(format!(
            "its files hold {total} bytes, more than the SEP's per-skill limit of {MAX_SKILL_BYTES}"
        ));
    }
    let mut frontmatter = SkillFrontmatter::new(name, description);
    frontmatter.extra = extra;
    let skill = Skill::new(
        file_uri(skill_path, "SKILL.md"),
        frontmatter,
        SkillResources::Files(resources),
    );
    skill.validate().map_err(|e| e.to_string())?;
    Ok(skill)
}

/// The node and file a `skill://` URI names: the longest published skill path
/// ([`crate::skill_paths`]) the URI's path starts with, and the rest (empty for the skill's
/// root folder).
pub fn resolve_uri<'a>(loaded: &Loaded, uri: &'a str) -> Option<(usize, &'a str)> {
    let path = uri.strip_prefix("skill://")?;
    let paths = loaded.skill_paths();
    let mut cut = path.len();
    loop {
        let (id, rest) = path.split_at(cut);
        if let Some(i) = paths.node(id) {
            return Some((i, rest.trim_start_matches('/')));
        }
        cut = path[..cut].rfind('/')?;
    }
}

fn invalid(message: String) -> ErrorData {
    ErrorData::invalid_params(message, None)
}

fn offset(cursor: Option<&str>) -> Result<usize, ErrorData> {
    cursor.map_or(Ok(0), |c| {
        c.parse()
            .map_err(|_| invalid(format!("cursor `{c}` is not one gos handed out")))
    })
}

/// What a `skills/list` request asks for, from its `_meta` (gos extension).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ListingRequest {
    /// Rank the skills for this task (`io.github.gos/task`); `None`: every skill.
    pub task: Option<String>,
    /// Most characters of a ranked page (`io.github.gos/max_chars`, default
    /// [`DEFAULT_LISTING_CHARS`]; at least one entry is always given).
    pub max_chars: usize,
}

impl ListingRequest {
    /// Read the gos keys of a request's `_meta`.
    ///
    /// # Errors
    /// `-32602` when a key has the wrong type or the budget is 0.
    pub fn from_meta(meta: Option<&MetaObject>) -> Result<Self, ErrorData> {
        let get = |k: &str| meta.and_then(|m| m.get(k));
        let task = match get(META_TASK) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if !s.trim().is_empty() => Some(s.clone()),
            Some(other) => {
                return Err(invalid(format!(
                    "_meta {META_TASK} must be a non-empty string, not {other}"
                )));
            }
        };
        let max_chars = match get(META_MAX_CHARS) {
            None | Some(Value::Null) => DEFAULT_LISTING_CHARS,
            Some(v) => match v.as_u64() {
                Some(n) if n >= 1 => n as usize,
                _ => {
                    return Err(invalid(format!(
                        "_meta {META_MAX_CHARS} must be a positive integer, not {v}"
                    )));
                }
            },
        };
        Ok(ListingRequest { task, max_chars })
    }
}

/// One page of `skills/list` from `start`: the order is the manifest's, or the retrieval's
/// ranked list for `req.task`. Skills that are not published are skipped.
///
/// # Errors
/// `-32603` when retrieval fails.
pub fn list_skills(
    loaded: &Loaded,
    req: &ListingRequest,
    start: usize,
) -> Result<ListSkillsResult, ErrorData> {
    let (order, status) = match &req.task {
        None => ((0..loaded.workspace().len()).collect::<Vec<_>>(), None),
        Some(task) => {
            let r = loaded
                .retriever()
                .retrieve(task, &RetrieveOptions::default())
                .map_err(|e| ErrorData::internal_error(format!("retrieval failed: {e}"), None))?;
            let order = r.ranked.iter().map(|s| s.node).collect();
            (order, Some(r.bundle.status.as_str().to_string()))
        }
    };
    let mut skills = Vec::new();
    let mut chars = 0;
    let mut next = start;
    while next < order.len() && skills.len() < SKILLS_PAGE {
        let Ok(skill) = entry(loaded, order[next]) else {
            next += 1;
            continue;
        };
        if req.task.is_some() {
            let size = serde_json::to_string(&skill).map_or(0, |s| s.chars().count());
            if !skills.is_empty() && chars + size > req.max_chars {
                break;
            }
            chars += size;
        }
        skills.push(skill);
        next += 1;
    }
    let mut result = ListSkillsResult::with_all_items(skills);
    result.next_cursor = (next < order.len()).then(|| next.to_string());
    result.ttl_ms = Some(TTL_MS);
    result.cache_scope = Some(CacheScope::Public);
    if let Some(status) = status {
        let mut meta = MetaObject::new();
        meta.insert("io.github.gos/status".into(), Value::String(status));
        result.meta = Some(meta);
    }
    Ok(result)
}

/// The entry of the skill whose SKILL.md is at `uri`.
///
/// # Errors
/// `-32602` when no published skill has that SKILL.md, with the reason.
pub fn get_skill(loaded: &Loaded, uri: &str) -> Result<Skill, ErrorData> {
    match resolve_uri(loaded, uri) {
        Some((i, "SKILL.md")) => {
            entry(loaded, i).map_err(|why| invalid(format!("no skill is served at {uri}: {why}")))
        }
        _ => Err(invalid(format!(
            "no skill is served at {uri}; skills/list gives the SKILL.md URIs"
        ))),
    }
}

/// One page of `resources/list`: every file of the published skills, skill by skill.
pub fn list_resources(
    loaded: &Loaded,
    cursor: Option<&str>,
) -> Result<ListResourcesResult, ErrorData> {
    let start = offset(cursor)?;
    let n = loaded.workspace().len();
    let end = (start + RESOURCE_PAGE_SKILLS).min(n);
    let mut resources = Vec::new();
    for i in start..end {
        let Ok(skill) = entry(loaded, i) else {
            continue;
        };
        let SkillResources::Files(list) = &skill.resources else {
            continue;
        };
        for f in list {
            let rel = f.uri.rsplit_once('/').map_or("", |(_, name)| name);
            let resource = if f.uri == skill.uri {
                Resource::new(f.uri.clone(), skill.frontmatter.name.clone())
                    .with_description(skill.frontmatter.description.clone())
            } else {
                Resource::new(f.uri.clone(), rel.to_string())
            };
            resources.push(resource.with_mime_type(mime_type(&f.uri)).with_size(f.size));
        }
    }
    let mut result = ListResourcesResult::with_all_items(resources);
    result.next_cursor = (end < n).then(|| end.to_string());
    Ok(result)
}

/// The contents of the file at `uri`: text when it is UTF-8, base64 otherwise.
///
/// # Errors
/// `-32602` when the URI names no file of a published skill, with the reason.
pub fn read_file(loaded: &Loaded, uri: &str) -> Result<ResourceContents, ErrorData> {
    let not_served = |why: String| invalid(format!("{uri} is not a file gos serves: {why}"));
    let Some((i, rel)) = resolve_uri(loaded, uri) else {
        return Err(not_served("no published skill path matches it".into()));
    };
    entry(loaded, i).map_err(|why| not_served(format!("the skill is not published: {why}")))?;
    let path = package_file(&package_dir(loaded, i), rel).map_err(not_served)?;
    let bytes = fs::read(&path).map_err(|e| not_served(e.to_string()))?;
    let mime = mime_type(rel);
    Ok(match String::from_utf8(bytes) {
        Ok(text) => ResourceContents::text(text, uri).with_mime_type(mime),
        Err(e) => ResourceContents::blob(
            base64::engine::general_purpose::STANDARD.encode(e.as_bytes()),
            uri,
        )
        .with_mime_type(mime),
    })
}

/// The direct children of the directory resource `uri` (a skill root or a folder in it).
///
/// # Errors
/// `-32602` when `uri` is not a directory of a published skill.
pub fn read_directory(
    loaded: &Loaded,
    uri: &str,
    cursor: Option<&str>,
) -> Result<ListResourcesResult, ErrorData> {
    let not_dir = |why: &str| invalid(format!("{uri} is not a directory resource: {why}"));
    let uri = uri.trim_end_matches('/');
    let (i, rel) =
        resolve_uri(loaded, uri).ok_or_else(|| not_dir("no published skill path matches it"))?;
    entry(loaded, i).map_err(|why| not_dir(&why))?;
    let dir = package_dir(loaded, i);
    let folder = if rel.is_empty() {
        dir.clone()
    } else {
        match package_path(&dir, rel) {
            Ok(p) if p.is_dir() => p,
            Ok(_) => return Err(not_dir("not a folder of the skill")),
            Err(why) => return Err(not_dir(&why)),
        }
    };
    let mut children = Vec::new();
    for entry in fs::read_dir(&folder)
        .map_err(|e| not_dir(&e.to_string()))?
        .flatten()
    {
        let Ok(t) = entry.file_type() else { continue };
        let name = entry.file_name().to_string_lossy().into_owned();
        let child = format!("{uri}/{name}");
        if t.is_dir() {
            children.push(Resource::new(child, name).with_mime_type("inode/directory"));
        } else if t.is_file() {
            let size = entry.metadata().map_or(0, |m| m.len());
            let mime = mime_type(&name);
            children.push(
                Resource::new(child, name)
                    .with_mime_type(mime)
                    .with_size(size),
            );
        }
    }
    children.sort_by(|a, b| a.uri.cmp(&b.uri));
    let start = offset(cursor)?;
    let page: Vec<Resource> = children.iter().skip(start).take(500).cloned().collect();
    let end = start + page.len();
    let mut result = ListResourcesResult::with_all_items(page);
    result.next_cursor = (end < children.len()).then(|| end.to_string());
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn package_files_must_be_plain_regular_files_inside() {
        let tmp = tempfile::tempdir().unwrap();
        let pkg = tmp.path().join("pkg");
        fs::create_dir_all(pkg.join("refs")).unwrap();
        fs::write(pkg.join("SKILL.md"), "x").unwrap();
        fs::write(pkg.join("refs/a.md"), "a").unwrap();
        fs::write(tmp.path().join("secret"), "s").unwrap();
        assert!(package_file(&pkg, "refs/a.md").is_ok());
        assert!(
            package_file(&pkg, "refs").is_err(),
            "a folder is not a file"
        );
        assert!(package_path(&pkg, "refs").is_ok());
        for bad in [
            "../secret",
            "/etc/passwd",
            "refs/../SKILL.md",
            "",
            "refs//a.md",
            "./SKILL.md",
        ] {
            assert!(package_file(&pkg, bad).is_err(), "{bad}");
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(tmp.path().join("secret"), pkg.join("link")).unwrap();
            let err = package_file(&pkg, "link").unwrap_err();
            assert!(err.contains("symbolic link"), "{err}");
            assert_eq!(files(&pkg), ["SKILL.md", "refs/a.md"]);
        }
    }

    #[test]
    fn mime_types_follow_extensions() {
        assert_eq!(mime_type("skill://a/SKILL.md"), "text/markdown");
        assert_eq!(mime_type("scripts/x.PY"), "text/x-python");
        assert_eq!(mime_type("blob"), "application/octet-stream");
    }

    #[test]
    fn listing_meta_is_read_and_checked() {
        let mut meta = MetaObject::new();
        assert_eq!(
            ListingRequest::from_meta(Some(&meta)).unwrap(),
            ListingRequest {
                task: None,
                max_chars: DEFAULT_LISTING_CHARS
            }
        );
        meta.insert(META_TASK.into(), "draw a map".into());
        meta.insert(META_MAX_CHARS.into(), 500.into());
        let req = ListingRequest::from_meta(Some(&meta)).unwrap();
        assert_eq!(
            (req.task.as_deref(), req.max_chars),
            (Some("draw a map"), 500)
        );
        meta.insert(META_MAX_CHARS.into(), 0.into());
        assert!(ListingRequest::from_meta(Some(&meta)).is_err());
        meta.insert(META_TASK.into(), 3.into());
        assert!(ListingRequest::from_meta(Some(&meta)).is_err());
    }
}
