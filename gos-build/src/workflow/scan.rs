//! Reading a body for sequencing: its prose in pieces (sentences and numbered steps), the
//! explicit skill names a piece holds, the cue that orders a name against the body's own skill,
//! and the evidence quoted for an edge (the rules are in the parent module's docs).

use super::MAX_EVIDENCE_CHARS;
use regex::Regex;
use std::collections::{BTreeSet, HashMap};
use std::sync::LazyLock;

/// Which way a cue orders the named skill against the body's own skill.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Order {
    /// The body's skill, then the named one.
    ThisFirst,
    /// The named skill, then the body's.
    NamedFirst,
}

/// Cue patterns over a lower-case sentence with the name replaced by `@@`, in priority order.
static CUES: LazyLock<Vec<(Regex, Order)>> = LazyLock::new(|| {
    use Order::{NamedFirst, ThisFirst};
    let word = r"[\w'’-]+\s+";
    let filler = r"(?:(?:using|running|invoking|calling|applying|the|a|any)\s+){0,3}";
    [
        (format!(r"\bbefore\s+{filler}@@"), ThisFirst),
        (format!(r"\bafter\s+{filler}@@"), NamedFirst),
        (r"\bfollowed\s+by\s+(?:the\s+)?@@".to_string(), ThisFirst),
        (
            r"\b(?:hand|hands|handed|handing|pass|passes|passing|feed|feeds|feeding|send|sends|forward|forwards)\b(?:\s+[\w'’-]+){0,8}\s+(?:to|into)\s+(?:the\s+)?@@".to_string(),
            ThisFirst,
        ),
        (
            r"\b(?:output|outputs|results?)\s+(?:of|from)\s+(?:the\s+)?@@".to_string(),
            NamedFirst,
        ),
        (
            r"@@(?:'s|’s)?(?:\s+skill(?:'s|’s)?)?\s+(?:output|outputs|results)\b".to_string(),
            NamedFirst,
        ),
        (
            r"\b(?:produced|generated|created|prepared)\s+(?:by|with)\s+(?:the\s+)?@@".to_string(),
            NamedFirst,
        ),
        (
            format!(r"\b(?:then|next|afterwards?|finally|subsequently)\b[,:]?\s+(?:{word}){{0,3}}@@"),
            ThisFirst,
        ),
        (
            r"(?:^[^\w@]*|[.;:!?]\s*|\b(?:then|and)\s+)first\b[,:]?\s+(?:(?:use|run|invoke|load|call|apply|with)\s+)?(?:the\s+)?@@".to_string(),
            NamedFirst,
        ),
        (r"@@[^;:]{0,40}?\bfirst\b".to_string(), NamedFirst),
        (r"@@(?:\s+skill)?\s+(?:afterwards?|next|later)\b".to_string(), ThisFirst),
        (r"@@[^;:]{0,50}?\bafter\b".to_string(), ThisFirst),
        (r"@@[^;:]{0,60}?\bbefore\b".to_string(), NamedFirst),
        (r"@@[^;:]{0,60}?\bthen\b".to_string(), NamedFirst),
    ]
    .into_iter()
    .map(|(p, o)| (Regex::new(&p).expect("valid cue pattern"), o))
    .collect()
});

/// Words that look like order but are not: "before/after" (a comparison), "modeled after",
/// "named after" (a likeness), "test first" (a method); replaced by a space before the cues.
static NOT_ORDER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"\b(?:before\s*/\s*after|after\s*/\s*before|(?:modell?ed|named|patterned|styled|looks?|looking|cleans?|cleaning)\s+after|tests?[- ]first|mobile[- ]first|api[- ]first|offline[- ]first|local[- ]first)\b",
    )
    .expect("valid pattern")
});

/// A numbered step: `1.`, `2)`, `Step 3:` (optionally bold) at the start of a line.
static STEP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^(?:\*\*)?(?:\d{1,2}[.)]|step\s+\d{1,2}\s*[:.)])(?:\*\*)?\s+")
        .expect("valid step pattern")
});

/// Words and compound words of a lower-case text.
static TOKEN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[a-z0-9][a-z0-9_.-]*").expect("valid token pattern"));

/// One piece of body text: a sentence of a line, and the step run and index when the line is
/// a numbered step.
pub(super) struct Piece {
    pub(super) text: String,
    pub(super) step: Option<(usize, usize)>,
}

/// Prose of `body` in pieces: fenced code, tables and headings skipped; a line that starts no
/// step, bullet or paragraph continues the one before (markdown wraps sentences across lines);
/// a heading or a new unindented paragraph ends a run of numbered steps.
pub(super) fn pieces(body: &str) -> Vec<Piece> {
    // Blocks: a step, a bullet or a paragraph with its continuation lines.
    let mut blocks: Vec<(String, Option<(usize, usize)>)> = Vec::new();
    let (mut fence, mut run, mut in_run, mut index) = (false, 0usize, false, 0usize);
    let mut open = false;
    for line in body.lines() {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            fence = !fence;
            open = false;
            continue;
        }
        if fence || t.starts_with('|') || t.is_empty() {
            open = false;
            continue;
        }
        if t.starts_with('#') {
            in_run = false;
            open = false;
            continue;
        }
        let indent = line.len() - t.len();
        let bullet = t.starts_with(['-', '*', '+']) && !t.starts_with("**");
        match STEP.find(t).filter(|_| indent <= 3) {
            Some(m) => {
                if !in_run {
                    run += 1;
                    in_run = true;
                    index = 0;
                }
                index += 1;
                blocks.push((t[m.end()..].to_string(), Some((run, index))));
            }
            None if open && !bullet => {
                let last = blocks.last_mut().expect("an open block exists");
                last.0.push(' ');
                last.0.push_str(t);
            }
            None => {
                if indent == 0 && !bullet {
                    in_run = false;
                }
                blocks.push((t.to_string(), None));
            }
        }
        open = true;
    }
    let mut out = Vec::new();
    for (text, step) in &blocks {
        for s in sentences(text) {
            out.push(Piece {
                text: s.to_string(),
                step: *step,
            });
        }
    }
    out
}

/// `text` split after `.`, `!` or `?` followed by white space.
pub(super) fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    for (i, c) in text.char_indices() {
        if matches!(c, '.' | '!' | '?') && bytes.get(i + 1).is_some_and(u8::is_ascii_whitespace) {
            out.push(text[start..=i].trim());
            start = i + 1;
        }
    }
    out.push(text[start..].trim());
    out.retain(|s| !s.is_empty());
    out
}

/// An explicit skill name in a sentence: byte span in the sentence and the name.
pub(super) struct Named {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) name: String,
}

/// The explicit skill names of `sentence` (module docs) that `known` holds.
pub(super) fn explicit_names(
    sentence: &str,
    known: &HashMap<String, BTreeSet<usize>>,
) -> Vec<Named> {
    // Same byte length as the sentence: ASCII lower-casing, markup as spaces.
    let clean: String = sentence
        .chars()
        .map(|c| match c {
            '`' | '*' => ' ',
            c => c.to_ascii_lowercase(),
        })
        .collect();
    let mut marked: Vec<(usize, usize)> = Vec::new();
    for delim in ["`", "**"] {
        let mut at = 0;
        while let Some(open) = sentence[at..].find(delim) {
            let s = at + open + delim.len();
            let Some(close) = sentence[s..].find(delim) else {
                break;
            };
            marked.push((s, s + close));
            at = s + close + delim.len();
        }
    }
    let mut out = Vec::new();
    for m in TOKEN.find_iter(&clean) {
        let word = m.as_str().trim_end_matches('.');
        let (start, end) = (m.start(), m.start() + word.len());
        if word.len() < 2 || crate::edge_evidence::is_common_word(word) || !known.contains_key(word)
        {
            continue;
        }
        let inside = marked.iter().find(|&&(s, e)| start >= s && end <= e);
        if inside.is_some_and(|&(s, e)| sentence[s..e].trim().len() != word.len()) {
            // Part of a longer code span (`npx skills add x`): code, not a name.
            continue;
        }
        // Words after the name, a parenthetical skipped: `clawddocs` (or equivalent) skill.
        let next: Vec<&str> = clean[end..]
            .split_whitespace()
            .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
            .take(3)
            .collect();
        let compound = word.contains(['-', '_']);
        let followed_by_skill = if compound {
            next.iter().any(|w| matches!(*w, "skill" | "skills"))
        } else {
            // A bare word needs "skill" right after it, singular: "domain skills" and "scan
            // all skills" name a kind of skill, not one.
            let after_paren = clean[end..].trim_start();
            let after_paren = match after_paren.strip_prefix('(') {
                Some(rest) => rest.split_once(')').map_or("", |(_, r)| r),
                None => after_paren,
            };
            after_paren
                .split_whitespace()
                .next()
                .is_some_and(|w| w.trim_matches(|c: char| !c.is_alphanumeric()) == "skill")
        };
        if followed_by_skill || (compound && inside.is_some()) {
            out.push(Named {
                start,
                end,
                name: word.to_string(),
            });
        }
    }
    out
}

/// The cue ordering `named` against the body's skill, if any.
pub(super) fn cue(sentence: &str, named: &Named) -> Option<Order> {
    let lower: String = sentence
        .chars()
        .map(|c| match c {
            '`' | '*' => ' ',
            c => c.to_ascii_lowercase(),
        })
        .collect();
    let context = format!(
        "{} @@ {}",
        lower[..named.start].trim_end(),
        lower[named.end..].trim_start()
    );
    let context = NOT_ORDER.replace_all(&context, " ");
    let context = context.split_whitespace().collect::<Vec<_>>().join(" ");
    CUES.iter()
        .find(|(re, _)| re.is_match(&context))
        .map(|&(_, o)| o)
}

/// `text` without markup and control characters, white space collapsed, clipped to
/// [`MAX_EVIDENCE_CHARS`] around byte `at`.
pub(super) fn evidence(text: &str, at: usize) -> String {
    let keep = |c: &char| {
        !c.is_control()
            && !gos_core::hydrate::sanitize::is_bidi_control(*c)
            && !gos_core::hydrate::sanitize::is_zero_width(*c)
    };
    let before: String = text[..at.min(text.len())]
        .chars()
        .filter(keep)
        .filter(|&c| c != '`' && c != '*')
        .collect();
    let after: String = text[at.min(text.len())..]
        .chars()
        .filter(keep)
        .filter(|&c| c != '`' && c != '*')
        .collect();
    let before: Vec<&str> = before.split_whitespace().collect();
    let after: Vec<&str> = after.split_whitespace().collect();
    let mut lead = before.len();
    let mut tail = 0;
    let len = |lead: usize, tail: usize| {
        before[lead..]
            .iter()
            .chain(&after[..tail])
            .map(|w| w.chars().count() + 1)
            .sum::<usize>()
    };
    // Grow after the name first (the cue is usually there), then before it.
    while tail < after.len() && len(lead, tail + 1) <= MAX_EVIDENCE_CHARS * 2 / 3 {
        tail += 1;
    }
    while lead > 0 && len(lead - 1, tail) <= MAX_EVIDENCE_CHARS - 2 {
        lead -= 1;
    }
    while tail < after.len() && len(lead, tail + 1) <= MAX_EVIDENCE_CHARS - 2 {
        tail += 1;
    }
    let mut s = before[lead..]
        .iter()
        .chain(&after[..tail])
        .copied()
        .collect::<Vec<_>>()
        .join(" ");
    if lead > 0 {
        s = format!("…{s}");
    }
    if tail < after.len() {
        s.push('…');
    }
    s
}
