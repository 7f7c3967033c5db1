//! Facets of a task text: the parts a bundle should cover, found deterministically.
//!
//! Task texts are long and multi-step ("1. parse the STL ... 2. look up the density ... 3.
//! write the report"). [`split`] cuts one into facets, in text order, each a short query of
//! its own:
//!
//! - **steps** ([`FacetKind::Step`]): numbered items (`1.`, `2)`, `(3)`, `Step 4:`) and bulleted
//!   items (`-`, `*`, `+`, `•`), each with its indented continuation lines;
//! - **actions** ([`FacetKind::Action`]): sentences of the remaining prose that hold an action
//!   verb ([`ACTION_VERBS`], with `-s`, `-es`, `-ed`, `-ing` forms); other sentences are context;
//! - **artifacts** ([`FacetKind::Artifact`]): named things the task works on: file names with
//!   an extension (`/root/scan_data.stl` gives `scan_data.stl`), known formats
//!   ([`FORMATS`]) and code-like spans in backticks (`pandas`, `ffmpeg`), once each,
//!   lower-cased.
//!
//! Markdown markup (`**`, `__`, backticks) is stripped from step and action texts; heading
//! lines are context and end a paragraph. Facets with the same lower-cased text are kept once, and at most [`MAX_FACETS`] are
//! returned (steps first, then actions, then artifacts), so the per-facet seeding costs at most
//! that many extra BM25 queries. Cost: O(text length).

/// Most facets [`split`] returns.
pub const MAX_FACETS: usize = 16;

/// What kind of part of the task a facet is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FacetKind {
    /// A numbered or bulleted item.
    Step,
    /// A prose sentence with an action verb.
    Action,
    /// A file, format, tool or library the task names.
    Artifact,
}

/// One facet: its kind and its text (markup stripped, whitespace collapsed).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Facet {
    /// Step, action or artifact.
    pub kind: FacetKind,
    /// The facet's text, used as its query.
    pub text: String,
}

/// Verbs that make a prose sentence an action (base forms, lower case).
pub const ACTION_VERBS: &[&str] = &[
    "analyse",
    "analyze",
    "annotate",
    "build",
    "calculate",
    "call",
    "classify",
    "clean",
    "cluster",
    "compare",
    "compile",
    "compute",
    "configure",
    "convert",
    "count",
    "create",
    "debug",
    "deploy",
    "detect",
    "download",
    "draw",
    "edit",
    "estimate",
    "evaluate",
    "export",
    "extract",
    "fill",
    "filter",
    "find",
    "fit",
    "fix",
    "format",
    "generate",
    "identify",
    "implement",
    "install",
    "load",
    "measure",
    "merge",
    "model",
    "optimize",
    "parse",
    "plot",
    "predict",
    "process",
    "query",
    "read",
    "render",
    "report",
    "resize",
    "run",
    "save",
    "scrape",
    "search",
    "simulate",
    "solve",
    "sort",
    "split",
    "summarize",
    "test",
    "train",
    "transcribe",
    "transform",
    "translate",
    "update",
    "validate",
    "verify",
    "visualize",
    "write",
];

/// File formats recognised as artifacts when named as words (lower case).
pub const FORMATS: &[&str] = &[
    "bam", "csv", "docx", "fasta", "fastq", "geojson", "gif", "hdf5", "html", "jpeg", "jpg",
    "json", "jsonl", "latex", "markdown", "mp3", "mp4", "netcdf", "parquet", "pdb", "pdf", "png",
    "pptx", "sql", "sqlite", "stl", "svg", "tsv", "vcf", "wav", "xlsx", "xml", "yaml",
];

/// Strip a list marker from a trimmed line: the item's text when the line is a numbered or
/// bulleted item.
fn list_item(line: &str) -> Option<&str> {
    for bullet in ["- ", "* ", "+ ", "• "] {
        if let Some(rest) = line.strip_prefix(bullet) {
            return Some(rest);
        }
    }
    let lower = line.to_ascii_lowercase();
    let (body, offset) = match lower.strip_prefix("step ") {
        Some(rest) => (rest, 5),
        None => (lower.as_str(), 0),
    };
    let body = body.strip_prefix('(').unwrap_or(body);
    let skipped = lower.len() - offset - body.len();
    let digits = body.chars().take_while(char::is_ascii_digit).count();
    if digits == 0 || digits > 2 {
        return None;
    }
    let after = &body[digits..];
    let marker = after.chars().next()?;
    let numbered = matches!(marker, '.' | ')' | ':') && after[1..].starts_with(char::is_whitespace)
        || (offset > 0 && matches!(marker, '.' | ')' | ':'));
    numbered.then(|| line[offset + skipped + digits + 1..].trim_start())
}

/// Markup stripped and whitespace collapsed.
fn clean(text: &str) -> String {
    text.replace("**", "")
        .replace("__", "")
        .replace('`', "")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether `word` (lower case) is an action verb or one of its `-s`, `-es`, `-ed`, `-ing`
/// forms.
fn is_action(word: &str) -> bool {
    let known = |s: &str| ACTION_VERBS.binary_search(&s).is_ok();
    known(word)
        || ["s", "es", "ed", "d", "ing"]
            .iter()
            .any(|suffix| word.strip_suffix(suffix).is_some_and(known))
        || word
            .strip_suffix("ing")
            .is_some_and(|s| known(&format!("{s}e")))
}

/// Sentences of a prose paragraph: split after `.`, `!` or `?` followed by a space, unless
/// the word ending there is an abbreviation (`e.g.`, `i.e.`, `etc.`, `vs.`).
fn sentences(paragraph: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let words: Vec<&str> = paragraph.split_whitespace().collect();
    for w in words {
        if !current.is_empty() {
            current.push(' ');
        }
        current.push_str(w);
        let lower = w
            .trim_start_matches(|c: char| !c.is_alphanumeric())
            .to_ascii_lowercase();
        let abbreviation = ["e.g.", "i.e.", "etc.", "vs.", "approx."].contains(&lower.as_str());
        if w.ends_with(['.', '!', '?']) && !abbreviation {
            out.push(std::mem::take(&mut current));
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// The artifacts `text` names, in first-seen order, lower-cased, each once.
fn artifacts(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |a: String| {
        if !a.is_empty() && !out.contains(&a) {
            out.push(a);
        }
    };
    let mut rest = text;
    while let Some(open) = rest.find('`') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('`') else { break };
        let span = after[..close].trim();
        let code_like = !span.is_empty()
            && span.len() <= 40
            && !span.contains(char::is_whitespace)
            && !span.contains('/')
            && span.chars().any(char::is_alphabetic);
        if code_like && !span.contains('.') {
            push(span.to_lowercase());
        }
        rest = &after[close + 1..];
    }
    for raw in text.split(|c: char| c.is_whitespace() || matches!(c, '`' | '(' | ')' | ',' | '"')) {
        let word = raw.trim_end_matches(['.', ':', ';', '!', '?']);
        let name = word.rsplit('/').next().unwrap_or(word);
        let lower = name.to_lowercase();
        if let Some((stem, ext)) = lower.rsplit_once('.') {
            let file = !stem.is_empty()
                && (1..=5).contains(&ext.len())
                && ext.chars().all(|c| c.is_ascii_alphanumeric())
                && ext.chars().any(|c| c.is_ascii_alphabetic())
                && stem
                    .chars()
                    .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'));
            if file && !["e.g", "i.e"].contains(&lower.trim_end_matches('.')) {
                push(lower);
                continue;
            }
        }
        if FORMATS.binary_search(&lower.as_str()).is_ok() {
            push(lower);
        }
    }
    out
}

/// The facets of `text` (see the module docs).
pub fn split(text: &str) -> Vec<Facet> {
    let mut steps: Vec<String> = Vec::new();
    let mut prose: Vec<String> = vec![String::new()];
    let mut in_step = false;
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            in_step = false;
            prose.push(String::new());
            continue;
        }
        if let Some(item) = list_item(trimmed) {
            steps.push(item.to_string());
            in_step = true;
        } else if in_step && line.starts_with(char::is_whitespace) {
            let last = steps.last_mut().expect("in_step follows a step");
            last.push(' ');
            last.push_str(trimmed);
        } else {
            in_step = false;
            let para = prose.last_mut().expect("prose starts non-empty");
            para.push(' ');
            para.push_str(trimmed);
        }
    }
    let mut facets: Vec<Facet> = Vec::new();
    let mut add = |kind: FacetKind, text: String| {
        let text = clean(&text);
        let key = text.to_lowercase();
        if !text.is_empty() && !facets.iter().any(|f| f.text.to_lowercase() == key) {
            facets.push(Facet { kind, text });
        }
    };
    for s in steps {
        add(FacetKind::Step, s);
    }
    for para in &prose {
        for s in sentences(para) {
            let action = s
                .split(|c: char| !c.is_alphanumeric())
                .any(|w| is_action(&w.to_lowercase()));
            if action {
                add(FacetKind::Action, s);
            }
        }
    }
    for a in artifacts(text) {
        add(FacetKind::Artifact, a);
    }
    facets.truncate(MAX_FACETS);
    facets
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(facets: &[Facet]) -> Vec<(FacetKind, &str)> {
        facets.iter().map(|f| (f.kind, f.text.as_str())).collect()
    }

    #[test]
    fn verb_and_format_lists_are_sorted_for_binary_search() {
        assert!(ACTION_VERBS.windows(2).all(|w| w[0] < w[1]));
        assert!(FORMATS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn numbered_steps_actions_and_files_of_a_task() {
        let task = "You need to calculate the mass of a 3D printed part. The input \
                    (`/root/scan_data.stl`) is a binary STL.\n\n\
                    You need to:\n\
                    1. Parse the binary STL and identify the **largest connected component**.\n\
                    2. Extract the Material ID and reference it with `/root/density.md`.\n\
                    3. Save the result to `/root/mass_report.json`.\n";
        use FacetKind::*;
        assert_eq!(
            texts(&split(task)),
            vec![
                (
                    Step,
                    "Parse the binary STL and identify the largest connected component."
                ),
                (
                    Step,
                    "Extract the Material ID and reference it with /root/density.md."
                ),
                (Step, "Save the result to /root/mass_report.json."),
                (
                    Action,
                    "You need to calculate the mass of a 3D printed part."
                ),
                (Artifact, "scan_data.stl"),
                (Artifact, "stl"),
                (Artifact, "density.md"),
                (Artifact, "mass_report.json"),
            ]
        );
    }

    #[test]
    fn bullets_with_continuations_code_spans_and_context_sentences() {
        let task = "# Report\nThe data is noisy. Plot the daily totals with `matplotlib` \
                    (e.g. a bar chart) and export a PDF.\n\
                    - load sales.csv\n  and drop empty rows\n\
                    * Step two: merge with the `pandas` frame\n\
                    Step 3: write summary.xlsx\n";
        use FacetKind::*;
        assert_eq!(
            texts(&split(task)),
            vec![
                (Step, "load sales.csv and drop empty rows"),
                (Step, "Step two: merge with the pandas frame"),
                (Step, "write summary.xlsx"),
                (
                    Action,
                    "Plot the daily totals with matplotlib (e.g. a bar chart) and export a PDF."
                ),
                (Artifact, "matplotlib"),
                (Artifact, "pandas"),
                (Artifact, "pdf"),
                (Artifact, "sales.csv"),
                (Artifact, "summary.xlsx"),
            ]
        );
    }

    #[test]
    fn plain_questions_give_at_most_their_artifacts_and_no_duplicates() {
        assert!(split("What is a good recipe for sourdough bread?").is_empty());
        let facets = split("- Convert a.pdf\n- convert A.PDF\n");
        assert_eq!(
            texts(&facets),
            vec![
                (FacetKind::Step, "Convert a.pdf"),
                (FacetKind::Artifact, "a.pdf")
            ]
        );
        let many: String = (1..=30).map(|i| format!("{i}. run job{i}\n")).collect();
        assert_eq!(split(&many).len(), MAX_FACETS);
    }
}
