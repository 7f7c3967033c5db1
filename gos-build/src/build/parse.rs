//! The parse stage of the build: every discovered package read and normalized in parallel
//! (through the parse cache when the caller keeps one), broken packages reported as skipped,
//! the rest sorted by id.

use crate::declared::{Declaration, declarations};
use crate::error::ParseError;
use crate::normalize::{Normalized, normalize};
use crate::parse_cache::{ParseCache, ParseResult};
use crate::progress::BuildProgress;
use crate::report::{BuildReport, Recovered, Skipped};
use crate::roots::{RootDiscovery, parse_found};
use rayon::prelude::*;
use std::path::Path;

/// Parse and normalize the packages of `found`: the normalized skills sorted by id, and the
/// declared dependencies of those that declare any (by id). A package that fails to parse is
/// added to `report.skipped` with its reason, a repair to `report.recovered`; one progress
/// step per package. Cost: one parse per package not in `cache`, in parallel.
pub(super) fn parse_packages(
    found: &RootDiscovery,
    cache: Option<&ParseCache>,
    progress: &dyn BuildProgress,
    report: &mut BuildReport,
) -> (Vec<Normalized>, Vec<(String, Vec<Declaration>)>) {
    let parsed: Vec<(String, ParseResult)> = found
        .packages
        .par_iter()
        .map(|p| {
            let dir = found.roots[p.root].path.join(&p.rel);
            if p.rel.to_str().is_none() {
                // A path that is not UTF-8 cannot be stored or shown exactly: report it
                // escaped instead of keeping a mangled `Source:` path that does not exist.
                progress.advance(1);
                let root = &found.roots[p.root].path;
                return (
                    escaped_path(&p.rel),
                    Err(non_utf8_error(root, &p.rel).to_string()),
                );
            }
            let r = match cache.and_then(|c| c.get(&dir)) {
                Some(hit) => hit,
                None => {
                    let r = parse_found(found, p)
                        .map(|pkg| {
                            let decls = declarations(&pkg.frontmatter);
                            (normalize(&pkg), pkg.recoveries, decls)
                        })
                        .map_err(|e| e.to_string());
                    if let Some(c) = cache {
                        c.put(dir, r.clone());
                    }
                    r
                }
            };
            progress.advance(1);
            (p.id.clone(), r)
        })
        .collect();
    let mut normalized: Vec<Normalized> = Vec::with_capacity(parsed.len());
    let mut declared: Vec<(String, Vec<Declaration>)> = Vec::new();
    for (id, item) in parsed {
        match item {
            Ok((n, recoveries, decls)) => {
                if !decls.is_empty() {
                    declared.push((n.node.id.clone(), decls));
                }
                for what in recoveries {
                    report.recovered.push(Recovered {
                        path: n.node.source_path.clone(),
                        what,
                    });
                }
                normalized.push(n);
            }
            Err(reason) => report.skipped.push(Skipped { path: id, reason }),
        }
    }
    normalized.sort_by(|a, b| a.node.id.cmp(&b.node.id));
    (normalized, declared)
}

/// `dir` with every byte sequence that is not UTF-8 written as `\xHH` escapes and control
/// characters escaped ([`gos_core::hydrate::sanitize::inline`]).
fn escaped_path(dir: &Path) -> String {
    let bytes = dir.as_os_str().as_encoded_bytes();
    let mut out = String::new();
    for chunk in bytes.utf8_chunks() {
        out.push_str(&gos_core::hydrate::sanitize::inline(chunk.valid()));
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out
}

/// The error of a package whose path relative to the library root is not UTF-8.
fn non_utf8_error(root: &Path, dir: &Path) -> ParseError {
    ParseError::Unusable {
        path: root.join(dir).join("SKILL.md"),
        reason: format!(
            "the package path {} is not valid UTF-8, so gos cannot name it exactly in a \
             Source line; rename the folder",
            escaped_path(dir)
        ),
    }
}
