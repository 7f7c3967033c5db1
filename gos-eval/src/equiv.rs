//! Near-copies of oracle skills, for the *equivalent* metrics (issue 22 item 0).
//!
//! A library holds many copies of one skill (five `pdf` skills from different collections).
//! The strict metrics credit only the labelled package; the equivalent metrics also credit a
//! returned skill that is a near-copy of an oracle by SkillRouter's false-negative rule
//! (reference-notes.md, \[SR\]): **the same normalized frontmatter name and a word-trigram
//! Jaccard similarity of the two SKILL.md texts above [`JACCARD_THRESHOLD`]**.
//!
//! The harness computes the rule itself from the library's files, independently of gos's own
//! near-duplicate detection (the workspace's `duplicates.json` is never read), so the detector
//! cannot grade itself. Names come from the manifest (the parsed frontmatter `name`, else the
//! folder name) and are normalized by [`normalize_name`]; texts are read from
//! `library_root/source_path` (or the labelled root of a multi-root build). Only skills with
//! the same normalized name as an oracle are read and compared, so the cost is a few file
//! reads per oracle.

use crate::error::{Error, Result};
use gos_core::Workspace;
use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeSet, HashMap};
use std::hash::{Hash, Hasher};
use std::path::PathBuf;

/// Jaccard similarity of the word-trigram sets above which two same-name skills are copies
/// (strictly greater; SkillRouter's rule).
pub const JACCARD_THRESHOLD: f64 = 0.6;

/// A skill name for comparison: lower case, every run of separators (`-`, `_`, white space)
/// one `-`, no separator at either end. `PDF_Processing ` and `pdf-processing` agree.
pub fn normalize_name(name: &str) -> String {
    let lower = name.to_lowercase();
    lower
        .split(|c: char| c == '-' || c == '_' || c.is_whitespace())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join("-")
}

/// The word trigrams of `text` as sorted distinct 64-bit hashes: words are maximal runs of
/// alphanumeric characters and `_`, lower-cased, over the whole text (frontmatter included).
/// A text of fewer than three words has none.
pub fn word_trigrams(text: &str) -> Vec<u64> {
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    let set: BTreeSet<u64> = words
        .windows(3)
        .map(|w| {
            let mut h = DefaultHasher::new();
            w.hash(&mut h);
            h.finish()
        })
        .collect();
    set.into_iter().collect()
}

/// Jaccard similarity `|a ∩ b| / |a ∪ b|` of two sorted distinct lists; 0 when both are empty.
pub fn jaccard(a: &[u64], b: &[u64]) -> f64 {
    let (mut i, mut j, mut common) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
        }
    }
    let union = a.len() + b.len() - common;
    if union == 0 {
        0.0
    } else {
        common as f64 / union as f64
    }
}

/// Finds the near-copies of oracle skills in one workspace, reading each SKILL.md once.
pub struct Copies<'w> {
    ws: &'w Workspace,
    /// Nodes by normalized name.
    by_name: HashMap<String, Vec<usize>>,
    /// Word trigrams of the nodes read so far.
    trigrams: HashMap<usize, Vec<u64>>,
    /// Answers of [`Copies::of`] so far.
    copies: HashMap<usize, Vec<usize>>,
}

impl<'w> Copies<'w> {
    /// Group the nodes of `ws` by [`normalize_name`]; reads no file yet.
    pub fn new(ws: &'w Workspace) -> Self {
        let mut by_name: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, n) in ws.manifest().nodes.iter().enumerate() {
            by_name.entry(normalize_name(&n.name)).or_default().push(i);
        }
        Copies {
            ws,
            by_name,
            trigrams: HashMap::new(),
            copies: HashMap::new(),
        }
    }

    /// The SKILL.md path of `node`: under the labelled root its source path starts with, else
    /// under the library root.
    pub fn skill_file(&self, node: usize) -> PathBuf {
        let info = self.ws.info();
        let source = &self.ws.manifest().nodes[node].source_path;
        for root in &info.roots {
            if let Some(rest) = source.strip_prefix(&format!("{}/", root.label)) {
                return PathBuf::from(&root.path).join(rest);
            }
        }
        PathBuf::from(&info.library_root).join(source)
    }

    fn trigrams_of(&mut self, node: usize) -> Result<&[u64]> {
        if !self.trigrams.contains_key(&node) {
            let path = self.skill_file(node);
            let text = std::fs::read(&path).map_err(|source| Error::Io {
                action: "reading a SKILL.md for the equivalent metrics (they compare the \
                         library's files; rebuild the workspace if the library moved):",
                path: path.clone(),
                source,
            })?;
            let t = word_trigrams(&String::from_utf8_lossy(&text));
            self.trigrams.insert(node, t);
        }
        Ok(&self.trigrams[&node])
    }

    /// The other nodes that are near-copies of `node` (same normalized name, trigram Jaccard
    /// above [`JACCARD_THRESHOLD`]), in node order; empty when no other node shares its name.
    ///
    /// # Errors
    /// [`Error::Io`] naming a SKILL.md that cannot be read.
    pub fn of(&mut self, node: usize) -> Result<Vec<usize>> {
        if let Some(c) = self.copies.get(&node) {
            return Ok(c.clone());
        }
        let name = normalize_name(&self.ws.manifest().nodes[node].name);
        let candidates: Vec<usize> = self.by_name[&name]
            .iter()
            .copied()
            .filter(|&n| n != node)
            .collect();
        let mut found = Vec::new();
        if !candidates.is_empty() {
            let own = self.trigrams_of(node)?.to_vec();
            for c in candidates {
                if jaccard(&own, self.trigrams_of(c)?) > JACCARD_THRESHOLD {
                    found.push(c);
                }
            }
        }
        self.copies.insert(node, found.clone());
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_agree_across_case_and_separators() {
        assert_eq!(normalize_name(" PDF_Processing "), "pdf-processing");
        assert_eq!(normalize_name("pdf  processing"), "pdf-processing");
        assert_eq!(normalize_name("pdf--processing_"), "pdf-processing");
        assert_ne!(normalize_name("pdf.processing"), "pdf-processing");
    }

    #[test]
    fn trigram_jaccard_counts_shared_word_triples() {
        // "a b c d": {abc, bcd}; "A b, c e": {abc, bce}; shared 1 of 3.
        let x = word_trigrams("a b c d");
        let y = word_trigrams("A b, c e");
        assert_eq!(x.len(), 2);
        assert!((jaccard(&x, &y) - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(jaccard(&x, &x), 1.0);
        assert!(word_trigrams("two words").is_empty());
        assert_eq!(jaccard(&[], &[]), 0.0);
        // Repeated trigrams count once.
        assert_eq!(word_trigrams("a b c a b c").len(), 3);
    }

    /// A library of four packages: `a/pdf` and `b/pdf` (name `PDF_`) are near-copies (one
    /// sentence apart), `c/pdf` shares their name but half its text differs, `d/pdf-tools`
    /// has `a/pdf`'s text word for word under another name.
    fn library(root: &std::path::Path) {
        let body = "Extract text and tables from PDF files with pdfplumber, merge or split \
                    documents, fill forms and add watermarks; convert scanned pages with OCR \
                    before extraction and keep the page order of the source document.";
        let other = "Render charts from spreadsheet columns, pick colours that print well in \
                     grey, label every axis and export the figure as SVG for the report.";
        let write = |dir: &str, name: &str, text: &str| {
            let d = root.join(dir);
            std::fs::create_dir_all(&d).unwrap();
            let md = format!("---\nname: {name}\ndescription: PDF work.\n---\n\n{text}\n");
            std::fs::write(d.join("SKILL.md"), md).unwrap();
        };
        write("a/pdf", "pdf", body);
        write("b/pdf", "PDF_", &format!("{body} Check the output."));
        let half: String = body.split(' ').take(14).collect::<Vec<_>>().join(" ");
        write("c/pdf", "pdf", &format!("{half} {other}"));
        write("d/pdf-tools", "pdf-tools", body);
    }

    #[test]
    fn near_copies_need_the_same_name_and_trigram_jaccard_above_the_threshold() {
        use gos_build::build::NoProgress;
        use gos_build::{BuildOptions, build_workspace};
        let tmp = tempfile::tempdir().unwrap();
        let lib = tmp.path().join("library");
        library(&lib);
        let ws_dir = tmp.path().join("ws");
        build_workspace(
            &BuildOptions {
                force: false,
                library: lib.clone(),
                workspace: ws_dir.clone(),
                relate: gos_build::relate::RelateOptions::default(),
                embed: None,
            },
            &NoProgress,
        )
        .unwrap();
        let ws = Workspace::open(&ws_dir).unwrap();
        let node = |id: &str| ws.index_of(id).unwrap();
        let (a, b, c, d) = (
            node("a/pdf"),
            node("b/pdf"),
            node("c/pdf"),
            node("d/pdf-tools"),
        );
        let mut copies = Copies::new(&ws);
        assert_eq!(copies.skill_file(a), lib.join("a/pdf/SKILL.md"));
        let text =
            |n: usize| word_trigrams(&std::fs::read_to_string(copies.skill_file(n)).unwrap());
        let (ta, tb, tc, td) = (text(a), text(b), text(c), text(d));
        // a has 39 words, 37 trigrams; b's name `PDF_` (the word `pdf_`) changes a's first two
        // trigrams and its three extra words add three: 35 shared of 37 + 40 - 35 = 42.
        assert_eq!((ta.len(), tb.len()), (37, 40));
        let ab = jaccard(&ta, &tb);
        assert!((ab - 35.0 / 42.0).abs() < 1e-12, "{ab}");
        let ac = jaccard(&ta, &tc);
        assert!(ac < JACCARD_THRESHOLD && ac > 0.2, "{ac}");
        // d: the same body under the name `pdf-tools` (two words): 35 shared of 37 + 38 - 35.
        assert!((jaccard(&ta, &td) - 35.0 / 40.0).abs() < 1e-12);
        // The copy counts both ways; the same-name pair below the threshold and the
        // identical text under another name do not.
        assert_eq!(copies.of(a).unwrap(), vec![b]);
        assert_eq!(copies.of(b).unwrap(), vec![a]);
        assert_eq!(copies.of(c).unwrap(), Vec::<usize>::new());
        assert_eq!(copies.of(d).unwrap(), Vec::<usize>::new());
        // A bundle holding both copies of oracle a scores it once.
        let matches = [vec![a, b]];
        let t = crate::metrics::TaskScores::compute(&crate::metrics::TaskInput {
            available: &[a],
            matches: &matches,
            oracle_total: 1,
            bundle: &[b, a, c],
            ranked: &[b, a, c],
            dependency_edges: &[],
            context_chars: 0,
            latency_ms: 0.0,
        });
        assert_eq!(
            (t.recall_available, t.recall_available_equiv),
            (Some(1.0), Some(1.0))
        );
        assert_eq!(
            (t.precision, t.precision_equiv),
            (Some(1.0 / 3.0), Some(1.0 / 3.0))
        );
        assert_eq!((t.mrr_at_10, t.mrr_at_10_equiv), (Some(0.5), Some(1.0)));
        // A file that has gone is named in the error.
        std::fs::remove_file(lib.join("c/pdf/SKILL.md")).unwrap();
        let e = Copies::new(&ws).of(a).unwrap_err().to_string();
        assert!(e.contains("c/pdf/SKILL.md") && e.contains("rebuild"), "{e}");
    }
}
