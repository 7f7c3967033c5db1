//! Several library roots in one workspace: labels, skill ids, the standard agent locations,
//! `--include`/`--exclude` globs over ids and `.gosignore` files.
//!
//! **Ids.** A library given as one unlabelled root keeps the ids gos always gave: the package
//! directory relative to the root (`geo/shp`). As soon as a root carries a label (several roots,
//! or a root named explicitly with `label=path`), every id of that root is
//! `label/relative/path`, so two roots never collide; a SKILL.md at the root itself gets the
//! label as its id.
//!
//! **Filters.** A `.gosignore` file at a root is read like a `.gitignore` (the `ignore`
//! crate's matcher): a package whose directory, or any parent of it, matches is left out.
//! `--include` globs keep only ids that match one of them; `--exclude` globs drop ids that
//! match one of them (globset syntax, where `*` also crosses `/`). Every package left out this
//! way is reported with the reason.

use crate::discover::{discover, slash_path};
use crate::error::{BuildError, ParseError};
use crate::package::{SkillPackage, parse_package};
use globset::{Glob, GlobSet, GlobSetBuilder};
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use std::path::{Path, PathBuf};

/// Name of the ignore file read at each root.
pub const IGNORE_FILE: &str = ".gosignore";

/// One library root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Root {
    /// Label prefixed to the ids of this root's packages; `None` keeps ids relative to the
    /// root (only possible for a library of one root).
    pub label: Option<String>,
    /// The root directory.
    pub path: PathBuf,
}

impl Root {
    /// A root without label: ids relative to it, exactly as a one-root build always gave.
    pub fn unlabelled(path: impl Into<PathBuf>) -> Self {
        Root {
            label: None,
            path: path.into(),
        }
    }

    /// A root with an explicit label.
    pub fn labelled(label: impl Into<String>, path: impl Into<PathBuf>) -> Self {
        Root {
            label: Some(label.into()),
            path: path.into(),
        }
    }

    /// Parse `label=path` (explicit label) or `path` (label from the folder name).
    ///
    /// # Errors
    /// A message when the label is empty or not a valid label ([`check_label`]).
    pub fn parse_spec(spec: &str) -> Result<Self, String> {
        match spec.split_once('=') {
            Some((label, path)) if !path.is_empty() => {
                check_label(label)?;
                Ok(Root::labelled(label, path))
            }
            _ => Ok(Root::labelled(default_label(Path::new(spec)), spec)),
        }
    }
}

/// Whether `label` can prefix ids: non-empty, no `/`, `\`, `=` or whitespace, not `.` or `..`.
///
/// # Errors
/// A message saying what is wrong.
pub fn check_label(label: &str) -> Result<(), String> {
    if label.is_empty() || label == "." || label == ".." {
        return Err(format!("`{label}` is not a usable root label"));
    }
    if label
        .chars()
        .any(|c| c == '/' || c == '\\' || c == '=' || c.is_whitespace())
    {
        return Err(format!(
            "root label `{label}` may not hold `/`, `\\`, `=` or spaces"
        ));
    }
    Ok(())
}

/// Default label of a root: its folder name (after resolving `.` and `..` when the path
/// exists), or `root` when it has none.
pub fn default_label(path: &Path) -> String {
    let resolved = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    resolved
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| check_label(n).is_ok())
        .unwrap_or_else(|| "root".to_owned())
}

/// The standard skill locations of agent clients, `(label, path)`: user-level folders under
/// `home`, then project-level folders under `project` (the current directory), then the
/// system-wide folder of Codex. Sources: each harness's documentation of where it reads
/// skills (Claude Code, Codex, the Agent Skills `.agents` convention, GitHub Copilot, Gemini
/// CLI, opencode, goose, Cursor, Kimi Code); the list is in docs/agents.md.
pub fn standard_locations(home: &Path, project: &Path) -> Vec<(String, PathBuf)> {
    let user = [
        ("claude-user", ".claude/skills"),
        ("codex-user", ".codex/skills"),
        ("agents-user", ".agents/skills"),
        ("copilot-user", ".copilot/skills"),
        ("opencode-user", ".config/opencode/skills"),
        ("goose-user", ".config/goose/skills"),
        ("agents-config-user", ".config/agents/skills"),
        ("kimi-user", ".kimi-code/skills"),
    ];
    let proj = [
        ("claude-project", ".claude/skills"),
        ("codex-project", ".codex/skills"),
        ("agents-project", ".agents/skills"),
        ("github-project", ".github/skills"),
        ("gemini-project", ".gemini/skills"),
        ("opencode-project", ".opencode/skills"),
        ("cursor-project", ".cursor/skills"),
    ];
    let system = [("codex-system", "/etc/codex/skills")];
    let mut out: Vec<(String, PathBuf)> = user
        .iter()
        .map(|(l, p)| (l.to_string(), home.join(p)))
        .collect();
    out.extend(proj.iter().map(|(l, p)| (l.to_string(), project.join(p))));
    out.extend(
        system
            .iter()
            .map(|(l, p)| (l.to_string(), PathBuf::from(p))),
    );
    out
}

/// The [`standard_locations`] that exist as directories, as labelled roots. A project folder
/// that is the same directory as a user folder (the project is the home directory) is listed
/// once.
pub fn agent_roots(home: &Path, project: &Path) -> Vec<Root> {
    let mut seen: Vec<PathBuf> = Vec::new();
    let mut out = Vec::new();
    for (label, path) in standard_locations(home, project) {
        let Ok(canon) = path.canonicalize() else {
            continue;
        };
        if !canon.is_dir() || seen.contains(&canon) {
            continue;
        }
        seen.push(canon);
        out.push(Root::labelled(label, path));
    }
    out
}

/// What to read: roots and id filters.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LibrarySpec {
    /// Roots in order; labels must be unique (see [`LibrarySpec::new`]).
    pub roots: Vec<Root>,
    /// Globs over ids; when non-empty, only matching ids are kept.
    pub include: Vec<String>,
    /// Globs over ids; matching ids are left out.
    pub exclude: Vec<String>,
}

impl LibrarySpec {
    /// One unlabelled root, no filters: the library of a classic `gos build LIB`.
    pub fn single(path: impl Into<PathBuf>) -> Self {
        LibrarySpec {
            roots: vec![Root::unlabelled(path)],
            include: Vec::new(),
            exclude: Vec::new(),
        }
    }

    /// The roots, labelled as ids need: one root keeps the label it has (none for a plain
    /// path); with several, a root without label gets [`default_label`], and a label used
    /// twice gets `-2`, `-3`, ... appended in order.
    pub fn new(roots: Vec<Root>, include: Vec<String>, exclude: Vec<String>) -> Self {
        let several = roots.len() > 1;
        let mut used: Vec<String> = Vec::new();
        let roots = roots
            .into_iter()
            .map(|r| {
                let label = match (r.label, several) {
                    (None, false) => return Root { label: None, ..r },
                    (Some(l), _) => l,
                    (None, true) => default_label(&r.path),
                };
                let mut unique = label.clone();
                let mut n = 2;
                while used.contains(&unique) {
                    unique = format!("{label}-{n}");
                    n += 1;
                }
                used.push(unique.clone());
                Root {
                    label: Some(unique),
                    path: r.path,
                }
            })
            .collect();
        LibrarySpec {
            roots,
            include,
            exclude,
        }
    }
}

/// A package found under one of the roots.
#[derive(Debug, Clone, PartialEq)]
pub struct FoundPackage {
    /// Index of its root in [`LibrarySpec::roots`].
    pub root: usize,
    /// Package directory relative to the root.
    pub rel: PathBuf,
    /// Its skill id (see the module docs).
    pub id: String,
}

/// A package (or a SKILL.md) found but left out, with the reason.
#[derive(Debug, Clone, PartialEq)]
pub struct LeftOut {
    /// Where: the package's id for a package left out on purpose, the SKILL.md path (id-style:
    /// `label/` prefixed for a labelled root) for one discovery refused.
    pub path: String,
    /// Absolute path of the SKILL.md (or directory) concerned.
    pub file: PathBuf,
    /// Why, in words.
    pub reason: String,
    /// Left out on purpose (`.gosignore`, globs), not for a defect.
    pub filtered: bool,
}

/// A resolved root: canonical path, label, and how many packages it gave.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedRoot {
    /// Label, `None` for the one unlabelled root.
    pub label: Option<String>,
    /// Canonical path.
    pub path: PathBuf,
    /// Packages kept from this root.
    pub packages: usize,
}

/// The packages of every root, with what was left out.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RootDiscovery {
    /// The roots, canonical, in order.
    pub roots: Vec<ResolvedRoot>,
    /// Packages kept, in root order then path order.
    pub packages: Vec<FoundPackage>,
    /// SKILL.md files refused by discovery, packages ignored by `.gosignore` and packages
    /// filtered by the globs.
    pub left_out: Vec<LeftOut>,
    /// How many of `left_out` were left out on purpose (`.gosignore`, globs).
    pub filtered: usize,
}

/// `label/rel`, `label` (for the root package) or `rel` without label; the root package of an
/// unlabelled root is named after the root folder, as [`crate::package::parse_package`] does.
pub fn package_id(label: Option<&str>, rel: &str, root: &Path) -> String {
    match (label, rel.is_empty()) {
        (Some(l), true) => l.to_owned(),
        (Some(l), false) => format!("{l}/{rel}"),
        (None, false) => rel.to_owned(),
        (None, true) => root
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "skill".to_owned()),
    }
}

fn globs(patterns: &[String], flag: &str) -> Result<GlobSet, BuildError> {
    let mut b = GlobSetBuilder::new();
    for p in patterns {
        b.add(Glob::new(p).map_err(|e| BuildError::Library {
            path: PathBuf::from(p),
            reason: format!("bad {flag} glob: {e}"),
        })?);
    }
    b.build().map_err(|e| BuildError::Library {
        path: PathBuf::from(flag),
        reason: e.to_string(),
    })
}

fn ignore_file(root: &Path) -> Result<Option<Gitignore>, BuildError> {
    let file = root.join(IGNORE_FILE);
    if !file.is_file() {
        return Ok(None);
    }
    let mut b = GitignoreBuilder::new(root);
    if let Some(e) = b.add(&file) {
        return Err(BuildError::Library {
            path: file,
            reason: e.to_string(),
        });
    }
    b.build().map(Some).map_err(|e| BuildError::Library {
        path: file,
        reason: e.to_string(),
    })
}

/// Walk every root of `spec` (see [`crate::package::discover`] for what one walk finds),
/// apply `.gosignore` and the globs, and give each package its id.
///
/// # Errors
/// [`BuildError::Library`] when a root cannot be read or is not a directory, when two roots
/// are the same directory, or when a glob or `.gosignore` does not parse.
pub fn discover_roots(spec: &LibrarySpec) -> Result<RootDiscovery, BuildError> {
    let include = globs(&spec.include, "--include")?;
    let exclude = globs(&spec.exclude, "--exclude")?;
    let mut out = RootDiscovery::default();
    for (ri, root) in spec.roots.iter().enumerate() {
        let lib_err = |reason: String| BuildError::Library {
            path: root.path.clone(),
            reason,
        };
        let canon = root
            .path
            .canonicalize()
            .map_err(|e| lib_err(e.to_string()))?;
        if !canon.is_dir() {
            return Err(lib_err("not a directory".into()));
        }
        if let Some(other) = out.roots.iter().find(|r| r.path == canon) {
            return Err(lib_err(format!(
                "given twice (also as root {})",
                other.label.as_deref().unwrap_or("without label")
            )));
        }
        let label = root.label.as_deref();
        let at = |rel: &str| match label {
            Some(l) if rel.is_empty() => l.to_owned(),
            Some(l) => format!("{l}/{rel}"),
            None => rel.to_owned(),
        };
        let found = discover(&canon).map_err(|e| lib_err(e.to_string()))?;
        let ignored = ignore_file(&canon)?;
        let mut kept = 0;
        for (path, reason) in found.refused {
            out.left_out.push(LeftOut {
                file: canon.join(&path),
                path: at(&path),
                reason,
                filtered: false,
            });
        }
        for rel in found.packages {
            let rel_s = slash_path(&rel);
            let id = package_id(label, &rel_s, &canon);
            let reason = if let Some(m) = ignored
                .as_ref()
                .filter(|_| !rel_s.is_empty())
                .map(|g| g.matched_path_or_any_parents(&rel, true))
                .filter(|m| m.is_ignore())
            {
                let pattern = m.inner().map(|g| g.original().to_owned());
                Some(format!(
                    "ignored by {IGNORE_FILE} (pattern `{}`)",
                    pattern.unwrap_or_default()
                ))
            } else if !spec.include.is_empty() && !include.is_match(&id) {
                Some(format!("id `{id}` matches no --include glob"))
            } else if exclude.is_match(&id) {
                let hits: Vec<&str> = exclude
                    .matches(&id)
                    .into_iter()
                    .map(|i| spec.exclude[i].as_str())
                    .collect();
                Some(format!(
                    "id `{id}` matches --exclude `{}`",
                    hits.join("`, `")
                ))
            } else {
                None
            };
            match reason {
                Some(reason) => {
                    out.filtered += 1;
                    out.left_out.push(LeftOut {
                        file: canon.join(&rel).join("SKILL.md"),
                        path: id,
                        reason,
                        filtered: true,
                    });
                }
                None => {
                    kept += 1;
                    out.packages.push(FoundPackage { root: ri, rel, id });
                }
            }
        }
        out.roots.push(ResolvedRoot {
            label: root.label.clone(),
            path: canon,
            packages: kept,
        });
    }
    Ok(out)
}

/// Parse one found package ([`crate::package::parse_package`]) and give it its id: for a
/// labelled root, the id and the source path are prefixed with the label.
///
/// # Errors
/// As [`crate::package::parse_package`].
pub fn parse_found(
    found: &RootDiscovery,
    package: &FoundPackage,
) -> Result<SkillPackage, ParseError> {
    let root = &found.roots[package.root];
    let mut pkg = parse_package(&root.path, &package.rel)?;
    if let Some(label) = &root.label {
        pkg.id = package.id.clone();
        pkg.source_path = format!("{label}/{}", pkg.source_path);
    }
    Ok(pkg)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(p: &Path) {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, "---\nname: x\ndescription: y\n---\nbody\n").unwrap();
    }

    #[test]
    fn one_plain_root_keeps_relative_ids_and_several_get_labels() {
        let one = LibrarySpec::new(vec![Root::unlabelled("/a/lib")], vec![], vec![]);
        assert_eq!(one.roots[0].label, None);
        let two = LibrarySpec::new(
            vec![Root::unlabelled("/a/skills"), Root::unlabelled("/b/skills")],
            vec![],
            vec![],
        );
        let labels: Vec<_> = two.roots.iter().map(|r| r.label.clone().unwrap()).collect();
        assert_eq!(labels, ["skills", "skills-2"]);
        assert_eq!(
            Root::parse_spec("team=/x/y").unwrap(),
            Root::labelled("team", "/x/y")
        );
        assert!(Root::parse_spec("a/b=/x").is_err());
    }

    #[test]
    fn gosignore_and_globs_leave_packages_out_with_reasons() {
        let t = tempfile::tempdir().unwrap();
        let r = t.path();
        for p in ["keep/a", "keep/b", "drafts/c", "vendor/x/d"] {
            write(&r.join(p).join("SKILL.md"));
        }
        std::fs::write(r.join(IGNORE_FILE), "drafts/\n").unwrap();
        let spec = LibrarySpec::new(vec![Root::unlabelled(r)], vec![], vec!["vendor/**".into()]);
        let d = discover_roots(&spec).unwrap();
        let ids: Vec<&str> = d.packages.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(ids, ["keep/a", "keep/b"]);
        let out: Vec<(&str, &str)> = d
            .left_out
            .iter()
            .map(|l| (l.path.as_str(), l.reason.as_str()))
            .collect();
        assert_eq!(out.len(), 2);
        assert_eq!(out[0].0, "drafts/c");
        assert!(
            out[0].1.contains(".gosignore (pattern `drafts/`)"),
            "{out:?}"
        );
        assert_eq!(out[1].0, "vendor/x/d");
        assert!(out[1].1.contains("--exclude `vendor/**`"), "{out:?}");
        let only = LibrarySpec::new(vec![Root::unlabelled(r)], vec!["keep/a".into()], vec![]);
        let d = discover_roots(&only).unwrap();
        assert_eq!(d.packages.len(), 1);
        assert!(d.left_out.iter().any(|l| l.reason.contains("no --include")));
    }

    #[test]
    fn agent_roots_finds_the_standard_folders_that_exist() {
        let t = tempfile::tempdir().unwrap();
        let home = t.path().join("home");
        let proj = t.path().join("proj");
        std::fs::create_dir_all(home.join(".claude/skills")).unwrap();
        std::fs::create_dir_all(proj.join(".agents/skills")).unwrap();
        std::fs::create_dir_all(home.join(".codex")).unwrap();
        let roots = agent_roots(&home, &proj);
        let got: Vec<(String, PathBuf)> = roots
            .into_iter()
            .map(|r| (r.label.unwrap(), r.path))
            .collect();
        assert_eq!(
            got,
            [
                ("claude-user".to_owned(), home.join(".claude/skills")),
                ("agents-project".to_owned(), proj.join(".agents/skills")),
            ]
        );
    }

    #[test]
    fn agent_roots_cover_the_other_harnesses_with_unique_labels() {
        let t = tempfile::tempdir().unwrap();
        let home = t.path().join("home");
        let proj = t.path().join("proj");
        for d in [
            ".copilot/skills",
            ".config/goose/skills",
            ".kimi-code/skills",
        ] {
            std::fs::create_dir_all(home.join(d)).unwrap();
        }
        for d in [".github/skills", ".gemini/skills", ".cursor/skills"] {
            std::fs::create_dir_all(proj.join(d)).unwrap();
        }
        let labels: Vec<String> = agent_roots(&home, &proj)
            .into_iter()
            .filter(|r| r.path.starts_with(t.path()))
            .map(|r| r.label.unwrap())
            .collect();
        assert_eq!(
            labels,
            [
                "copilot-user",
                "goose-user",
                "kimi-user",
                "github-project",
                "gemini-project",
                "cursor-project"
            ]
        );
        let all = standard_locations(&home, &proj);
        assert_eq!(all.len(), 16);
        let mut unique: Vec<&String> = all.iter().map(|(l, _)| l).collect();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), all.len(), "labels are unique");
        let find = |label: &str| all.iter().find(|(l, _)| l == label).unwrap().1.clone();
        assert_eq!(find("codex-system"), PathBuf::from("/etc/codex/skills"));
        assert_eq!(find("opencode-user"), home.join(".config/opencode/skills"));
        assert_eq!(
            find("agents-config-user"),
            home.join(".config/agents/skills")
        );
        assert_eq!(find("opencode-project"), proj.join(".opencode/skills"));
    }
}
