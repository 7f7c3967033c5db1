//! Reading one package: bytes → repaired text → frontmatter, sections, code blocks, files.

use std::ffi::{OsStr, OsString};
use std::fs::{self, File};
use std::io::Read;
use std::path::{Component, Path};

use sha2::{Digest, Sha256};

use crate::discover::{self, MAX_DEPTH};
use crate::error::ParseError;
use crate::parsed::SkillPackage;
use crate::{frontmatter, markdown};

/// SKILL.md files are read up to this many bytes.
const MAX_BYTES: u64 = 1 << 20;
/// At most this many bundled files are listed per package.
const MAX_FILES: usize = 500;
/// Extensions (lower case) of script entrypoints under `scripts/`.
const SCRIPT_EXTS: [&str; 10] = ["py", "sh", "bash", "js", "mjs", "ts", "rb", "pl", "r", "jl"];

/// Read and parse the package at `root/rel_dir`.
///
/// # Errors
/// [`ParseError`] when the package cannot become a node; every other defect is repaired and
/// noted in [`SkillPackage::recoveries`].
pub fn parse_package(root: &Path, rel_dir: &Path) -> Result<SkillPackage, ParseError> {
    let dir = root.join(rel_dir);
    let io_at = |path: &Path| {
        let path = path.to_path_buf();
        move |source| ParseError::Io { path, source }
    };
    let unusable = |path: &Path, reason: &str| ParseError::Unusable {
        path: path.to_path_buf(),
        reason: reason.to_owned(),
    };
    let Some((name, ft)) = discover::skill_file(&dir).map_err(io_at(&dir))? else {
        return Err(unusable(
            &dir.join("SKILL.md"),
            "no SKILL.md in the package directory",
        ));
    };
    let path = dir.join(&name);
    let canon_root = fs::canonicalize(root).map_err(io_at(root))?;
    if ft.is_symlink() {
        discover::check_symlink(&path, &canon_root).map_err(|r| unusable(&path, &r))?;
    }

    let mut recoveries = Vec::new();
    let bytes = read_capped(&path, &mut recoveries).map_err(io_at(&path))?;
    let mut parsed = parse_bytes(&bytes).map_err(|r| unusable(&path, &r))?;
    recoveries.append(&mut parsed.recoveries);

    let mut files = Vec::new();
    if walk_files(&canon_root, &dir, "", &name, 0, &mut files) {
        recoveries.push(format!("listed only the first {MAX_FILES} bundled files"));
    }
    files.sort();
    let entrypoints = files
        .iter()
        .filter(|f| f.starts_with("scripts/") && is_script(f))
        .cloned()
        .collect();
    let references = files
        .iter()
        .filter(|f| f.starts_with("references/"))
        .cloned()
        .collect();

    let rel_id = slash_id(rel_dir);
    let name = name.to_string_lossy();
    let source_path = if rel_id.is_empty() {
        name.into_owned()
    } else {
        format!("{rel_id}/{name}")
    };
    let id = if rel_id.is_empty() {
        root_name(&canon_root)
    } else {
        rel_id
    };
    Ok(SkillPackage {
        id,
        source_path,
        files,
        entrypoints,
        references,
        recoveries,
        ..parsed
    })
}

/// Parse the bytes of one SKILL.md (as read from disk, at most 1 MiB of them) into a
/// package without a location: `id`, `source_path` and the file lists are empty, and
/// `recoveries` holds only the repairs of the text. [`parse_package`] fills the rest; the fuzz
/// target of `fuzz/` calls this directly.
///
/// # Errors
/// The reason, in words, when the bytes cannot become a skill: empty, binary, or without any
/// text.
pub fn parse_bytes(bytes: &[u8]) -> Result<SkillPackage, String> {
    if bytes.is_empty() {
        return Err("empty SKILL.md".into());
    }
    let mut recoveries = Vec::new();
    let content_hash = hex::encode(Sha256::digest(bytes));
    let text = decode(bytes, &mut recoveries)?;
    let split = frontmatter::split(&text);
    recoveries.extend(split.recoveries);
    if split.frontmatter.fields.is_empty() && split.body.trim().is_empty() {
        let reason = if split.text.trim().is_empty() {
            "SKILL.md has no text (only whitespace or NUL bytes)"
        } else {
            "SKILL.md has neither frontmatter fields nor body text"
        };
        return Err(reason.into());
    }
    let (sections, code_blocks) = markdown::parse_markdown(&split.body);
    Ok(SkillPackage {
        id: String::new(),
        source_path: String::new(),
        frontmatter: split.frontmatter,
        body: split.body,
        raw: split.text,
        sections,
        code_blocks,
        files: Vec::new(),
        entrypoints: Vec::new(),
        references: Vec::new(),
        content_hash,
        recoveries,
    })
}

/// Read at most [`MAX_BYTES`]; a longer file is cut (at a character boundary) and noted.
fn read_capped(path: &Path, recoveries: &mut Vec<String>) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    File::open(path)?
        .take(MAX_BYTES + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_BYTES {
        let total = fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        bytes.truncate(MAX_BYTES as usize);
        cut_partial_char(&mut bytes);
        recoveries.push(format!(
            "truncated huge file: read the first {} of {total} bytes",
            bytes.len()
        ));
    }
    Ok(bytes)
}

/// Drop an incomplete UTF-8 sequence at the very end.
fn cut_partial_char(b: &mut Vec<u8>) {
    let n = b.len();
    let cont = b
        .iter()
        .rev()
        .take(3)
        .take_while(|&&x| x & 0xC0 == 0x80)
        .count();
    if cont == n {
        return;
    }
    let lead = b[n - cont - 1];
    let need = match lead {
        0xF0.. => 4,
        0xE0.. => 3,
        0xC0.. => 2,
        _ => 1,
    };
    if cont + 1 < need {
        b.truncate(n - cont - 1);
    }
}

/// Bytes → text: UTF-16 with a BOM is decoded; otherwise NUL bytes are stripped and invalid
/// UTF-8 replaced, each noted. Mostly-undecodable content is refused as binary.
fn decode(bytes: &[u8], recoveries: &mut Vec<String>) -> Result<String, String> {
    let utf16 = match bytes {
        [0xFF, 0xFE, rest @ ..] => Some((rest, true)),
        [0xFE, 0xFF, rest @ ..] => Some((rest, false)),
        _ => None,
    };
    if let Some((rest, le)) = utf16 {
        let units = rest.chunks_exact(2).map(|p| {
            let pair = [p[0], p[1]];
            if le {
                u16::from_le_bytes(pair)
            } else {
                u16::from_be_bytes(pair)
            }
        });
        let text = char::decode_utf16(units)
            .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
            .collect();
        recoveries.push(format!("decoded UTF-16 {}", if le { "LE" } else { "BE" }));
        return Ok(text);
    }
    let nul = bytes.iter().filter(|&&b| b == 0).count();
    let clean: Vec<u8>;
    let bytes = if nul > 0 {
        recoveries.push(format!("stripped {nul} NUL byte(s)"));
        clean = bytes.iter().copied().filter(|&b| b != 0).collect();
        &clean[..]
    } else {
        bytes
    };
    if let Ok(s) = std::str::from_utf8(bytes) {
        return Ok(s.to_owned());
    }
    let bad: usize = bytes.utf8_chunks().map(|c| c.invalid().len()).sum();
    if bytes.len() >= 64 && bad * 10 > bytes.len() * 3 {
        return Err(format!(
            "binary content ({bad} of {} bytes are not UTF-8)",
            bytes.len()
        ));
    }
    recoveries.push(format!("replaced {bad} invalid UTF-8 byte(s)"));
    Ok(String::from_utf8_lossy(bytes).into_owned())
}

/// List regular files under `dir` into `out` (paths relative to the package dir), without
/// following symlinked directories, skipping hidden entries and nested packages, and keeping
/// only symlinked files that resolve inside the root. Returns `true` when the cap was hit.
fn walk_files(
    canon_root: &Path,
    dir: &Path,
    prefix: &str,
    skill: &OsStr,
    depth: usize,
    out: &mut Vec<String>,
) -> bool {
    let Ok(entries) = discover::read_sorted(dir) else {
        return false;
    };
    for (name, ft) in entries {
        let rel = match prefix {
            "" => name.to_string_lossy().into_owned(),
            p => format!("{p}/{}", name.to_string_lossy()),
        };
        let path = dir.join(&name);
        if ft.is_dir() {
            if discover::skip_dir(&name)
                || depth >= MAX_DEPTH
                || matches!(discover::skill_file(&path), Ok(Some(_)))
            {
                continue;
            }
            if walk_files(canon_root, &path, &rel, skill, depth + 1, out) {
                return true;
            }
            continue;
        }
        let is_package_file = prefix.is_empty() && name == skill;
        let readable =
            ft.is_file() || (ft.is_symlink() && discover::check_symlink(&path, canon_root).is_ok());
        if readable && !is_package_file && !is_hidden(&name) {
            if out.len() >= MAX_FILES {
                return true;
            }
            out.push(rel);
        }
    }
    false
}

fn is_hidden(name: &OsString) -> bool {
    name.to_string_lossy().starts_with('.')
}

fn is_script(file: &str) -> bool {
    file.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.ends_with('/') && SCRIPT_EXTS.contains(&ext.to_ascii_lowercase().as_str())
    })
}

/// `/`-joined normal components of the package directory (empty for the root itself).
fn slash_id(rel_dir: &Path) -> String {
    rel_dir
        .components()
        .filter_map(|c| match c {
            Component::Normal(s) => Some(s.to_string_lossy()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("/")
}

fn root_name(canon_root: &Path) -> String {
    canon_root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "root".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skill_path(root: &Path, rel: &str) -> std::path::PathBuf {
        root.join(rel).join("SKILL.md")
    }

    fn pkg(files: &[(&str, &[u8])]) -> tempfile::TempDir {
        let t = tempfile::tempdir().unwrap();
        for (p, b) in files {
            let p = t.path().join(p);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, b).unwrap();
        }
        t
    }

    #[cfg(unix)]
    #[test]
    fn skill_symlink_escaping_root_is_refused() {
        let t = tempfile::tempdir().unwrap();
        let outside = t.path().join("outside");
        let lib = t.path().join("lib");
        fs::create_dir_all(&outside).unwrap();
        fs::write(outside.join("SKILL.md"), "---\nname: evil\n---\n").unwrap();
        fs::create_dir_all(lib.join("evil")).unwrap();
        std::os::unix::fs::symlink(outside.join("SKILL.md"), lib.join("evil/SKILL.md")).unwrap();
        let err = parse_package(&lib, Path::new("evil")).unwrap_err();
        assert!(
            err.to_string().contains("outside the library root"),
            "{err}"
        );
    }

    #[test]
    fn parses_package_with_files() {
        let t = pkg(&[
            (
                "lib/p/SKILL.md",
                b"---\nname: p\ndescription: d\n---\n# P\ntext\n",
            ),
            ("lib/p/scripts/run.PY", b""),
            ("lib/p/scripts/notes.txt", b""),
            ("lib/p/references/api.md", b""),
            ("lib/p/.hidden", b""),
            ("lib/p/sub/SKILL.md", b"nested"),
            ("lib/p/sub/x.py", b""),
        ]);
        let root = t.path().join("lib");
        let p = parse_package(&root, Path::new("p")).unwrap();
        assert_eq!(p.id, "p");
        assert_eq!(p.source_path, "p/SKILL.md");
        assert_eq!(
            p.files,
            ["references/api.md", "scripts/notes.txt", "scripts/run.PY"]
        );
        assert_eq!(p.entrypoints, ["scripts/run.PY"]);
        assert_eq!(p.references, ["references/api.md"]);
        assert_eq!(p.content_hash.len(), 64);
        assert!(p.recoveries.is_empty());
        assert_eq!(p.sections[0].title, "P");
        let sub = parse_package(&root, Path::new("p/sub")).unwrap();
        assert_eq!((sub.id.as_str(), sub.body.as_str()), ("p/sub", "nested"));
    }

    #[test]
    fn damaged_bytes_recover_or_fail_with_path() {
        let t = pkg(&[
            ("e/SKILL.md", b""),
            ("w/SKILL.md", b" \n\0\n"),
            (
                "n/SKILL.md",
                b"---\nname: n\0\ndescription: caf\xe9 \x97 ok\n---\nbody",
            ),
        ]);
        let err = parse_package(t.path(), Path::new("e"))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(&skill_path(t.path(), "e").display().to_string()),
            "{err}"
        );
        assert!(err.ends_with("empty SKILL.md"));
        assert!(parse_package(t.path(), Path::new("w")).is_err());
        let p = parse_package(t.path(), Path::new("n")).unwrap();
        assert_eq!(p.frontmatter.get_str("name").as_deref(), Some("n"));
        assert!(
            p.frontmatter
                .get_str("description")
                .unwrap()
                .starts_with("caf")
        );
        assert!(p.recoveries.iter().any(|r| r == "stripped 1 NUL byte(s)"));
        assert!(
            p.recoveries
                .iter()
                .any(|r| r == "replaced 2 invalid UTF-8 byte(s)")
        );
    }

    #[test]
    fn root_package_id_is_root_name_and_huge_file_truncates() {
        let t = pkg(&[]);
        let root = t.path().join("mylib");
        fs::create_dir_all(&root).unwrap();
        let mut big = b"---\nname: big\n---\n".to_vec();
        while big.len() <= MAX_BYTES as usize {
            big.extend_from_slice("word é ".as_bytes());
        }
        fs::write(root.join("SKILL.md"), &big).unwrap();
        let p = parse_package(&root, Path::new("")).unwrap();
        assert_eq!(
            (p.id.as_str(), p.source_path.as_str()),
            ("mylib", "SKILL.md")
        );
        assert!(
            p.recoveries
                .iter()
                .any(|r| r.starts_with("truncated huge file"))
        );
        assert!(!p.recoveries.iter().any(|r| r.contains("invalid UTF-8")));
    }
}
