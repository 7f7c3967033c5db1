//! `gos lint`: each package checked against the Agent Skills specification and against what gos
//! itself needs, with the discovery and parser of `gos build` (what lint accepts, build
//! accepts).
//!
//! Specification rules (errors unless noted): `frontmatter-missing`, `name-missing`,
//! `name-type`, `name-length` (1-64 characters), `name-chars` (`a-z`, `0-9`, `-`),
//! `name-hyphens` (no leading, trailing or doubled hyphen), `name-folder` (equal to the folder
//! name), `description-missing`, `description-type`, `description-length` (1-1,024),
//! `compatibility-length` (at most 500), `metadata-type` (a mapping; a value that is not a
//! string is a warning, `metadata-value`), `unknown-field` (warning: a top-level key outside the
//! specification and gos's declaration keys).
//!
//! gos rules: `unusable` (error: build skips the package), `refused` (error: discovery refused
//! the SKILL.md), `repaired` (warning: build repairs the file, once per repair),
//! `description-when` (warning: the description never says when to use the skill),
//! `broken-link` (warning: a relative link to a file that does not exist),
//! `dependency-unresolved` and `dependency-ambiguous` (warnings: a declared dependency that
//! links nothing, see [`crate::declared`]), `mention-unmarked` (warning: the body calls another
//! skill of the library a skill without backticks, "the gcode-parser skill", and neither a
//! sequencing sentence nor a declaration links it; [`crate::normalize::unmarked_skill_mentions`]), `near-duplicate` (warning: a
//! package of another root with the same name and the same or nearly the same description).

mod rules;

use crate::declared::{DeclaredStats, declarations, declared_edges};
use crate::error::BuildError;
use crate::normalize::normalize;
use crate::roots::{LibrarySpec, discover_roots, parse_found};
use rayon::prelude::*;
use serde::Serialize;
use std::collections::BTreeMap;

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Breaks the specification or keeps the package out of a workspace.
    Error,
    /// Worth fixing; counted as an error with `--strict`.
    Warning,
}

impl Severity {
    /// `error` or `warning`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// SKILL.md path as ids name it (`label/` prefixed for a labelled root).
    pub path: String,
    /// Absolute path of the file.
    pub file: String,
    /// 1-based line in the file, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// Rule name (see the module docs).
    pub rule: &'static str,
    /// Severity.
    pub severity: Severity,
    /// What is wrong, in words.
    pub message: String,
}

/// Everything a lint run found.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct LintReport {
    /// SKILL.md files checked (parsed or not).
    pub packages: usize,
    /// Findings, sorted by path, line and rule.
    pub diagnostics: Vec<Diagnostic>,
}

impl LintReport {
    /// Number of findings of `severity`.
    pub fn count(&self, severity: Severity) -> usize {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == severity)
            .count()
    }

    /// Findings per rule.
    pub fn by_rule(&self) -> BTreeMap<&'static str, usize> {
        let mut m = BTreeMap::new();
        for d in &self.diagnostics {
            *m.entry(d.rule).or_insert(0) += 1;
        }
        m
    }

    /// Files with at least one finding.
    pub fn files_with_findings(&self) -> usize {
        let mut paths: Vec<&str> = self.diagnostics.iter().map(|d| d.path.as_str()).collect();
        paths.dedup();
        paths.len()
    }
}

/// Lint every package of `spec`'s roots (`.gosignore` and the globs apply as in a build; a
/// package they leave out is not checked).
///
/// # Errors
/// As [`discover_roots`]: an unreadable root, a root given twice, a bad glob.
pub fn lint(spec: &LibrarySpec) -> Result<LintReport, BuildError> {
    let found = discover_roots(spec)?;
    let mut report = LintReport {
        packages: found.packages.len() + found.left_out.len() - found.filtered,
        diagnostics: Vec::new(),
    };
    let abs = |root: usize, rel: &str| {
        found.roots[root]
            .path
            .join(rel)
            .join("SKILL.md")
            .display()
            .to_string()
    };
    for l in found.left_out.iter().filter(|l| !l.filtered) {
        report.diagnostics.push(Diagnostic {
            path: l.path.clone(),
            file: l.file.display().to_string(),
            line: None,
            rule: "refused",
            severity: Severity::Error,
            message: l.reason.clone(),
        });
    }
    let parsed: Vec<_> = found
        .packages
        .par_iter()
        .map(|p| (p, parse_found(&found, p)))
        .collect();
    let mut packages = Vec::new();
    for (p, r) in parsed {
        let rel = crate::discover::slash_path(&p.rel);
        match r {
            Ok(pkg) => {
                let dir = found.roots[p.root].path.join(&p.rel);
                let folder = dir
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let file = dir.join(skill_file_name(&pkg.source_path));
                let file = file.display().to_string();
                let ctx = rules::Context {
                    path: &pkg.source_path,
                    file: &file,
                    dir: &dir,
                    folder: &folder,
                };
                report.diagnostics.extend(rules::check_package(&ctx, &pkg));
                packages.push((p.root, file, pkg));
            }
            Err(e) => report.diagnostics.push(Diagnostic {
                path: if rel.is_empty() {
                    "SKILL.md".into()
                } else {
                    format!("{}/SKILL.md", p.id)
                },
                file: abs(p.root, &rel),
                line: None,
                rule: "unusable",
                severity: Severity::Error,
                message: format!("build skips this package: {e}"),
            }),
        }
    }
    let normalized: Vec<_> = packages.iter().map(|(_, _, p)| normalize(p)).collect();
    let nodes: Vec<gos_core::SkillNode> = normalized.iter().map(|n| n.node.clone()).collect();
    let decls: Vec<_> = packages
        .iter()
        .map(|(_, _, p)| declarations(&p.frontmatter))
        .collect();
    let mut stats = DeclaredStats::default();
    let declared = declared_edges(&nodes, &decls, &mut stats);
    let at = |id: &str| nodes.iter().position(|n| n.id == id);
    for (list, rule) in [
        (&stats.unresolved, "dependency-unresolved"),
        (&stats.ambiguous, "dependency-ambiguous"),
    ] {
        for u in list {
            let Some(i) = at(&u.id) else { continue };
            let (_, file, pkg) = &packages[i];
            let key = u.declaration.key.split('.').next().unwrap_or("");
            let message = if u.candidates.is_empty() && !u.near.is_empty() {
                format!(
                    "`{}` names no skill of the library; did you mean {}?",
                    u.declaration.evidence(),
                    u.near
                        .iter()
                        .map(|n| format!("`{n}`"))
                        .collect::<Vec<_>>()
                        .join(" or ")
                )
            } else if u.candidates.is_empty() {
                format!(
                    "`{}` names no skill of the library",
                    u.declaration.evidence()
                )
            } else {
                format!(
                    "`{}` names several skills ({}); give the id",
                    u.declaration.evidence(),
                    u.candidates.join(", ")
                )
            };
            report.diagnostics.push(Diagnostic {
                path: pkg.source_path.clone(),
                file: file.clone(),
                line: rules::key_line(&pkg.raw, key),
                rule,
                severity: Severity::Warning,
                message,
            });
        }
    }
    // A sequencing sentence ("first ... the gcode-parser skill, then ...") links an unmarked
    // name through the workflow rule, and a declaration links it too; neither is reported.
    let bodies: Vec<&str> = normalized.iter().map(|n| n.body.as_str()).collect();
    let mut linked = crate::workflow::workflow_edges(
        &nodes,
        &bodies,
        &[],
        &crate::workflow::WorkflowOptions::default(),
        &mut crate::workflow::WorkflowStats::default(),
    );
    linked.extend(declared);
    report.diagnostics.extend(rules::unmarked_mentions(
        &packages,
        &normalized,
        &nodes,
        &linked,
    ));
    report
        .diagnostics
        .extend(rules::near_duplicates(&packages, &nodes));
    report.diagnostics.sort_by(|a, b| {
        (&a.path, a.line, a.rule, &a.message).cmp(&(&b.path, b.line, b.rule, &b.message))
    });
    Ok(report)
}

/// The file name part of a source path (`SKILL.md`, or `skill.md` in another case).
fn skill_file_name(source_path: &str) -> &str {
    source_path.rsplit('/').next().unwrap_or(source_path)
}
