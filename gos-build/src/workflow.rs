//! Workflow edges: explicit sequencing in a skill's text that names another skill of the library
//! (\[P\] §3.2, the `workflow` relation), found deterministically.
//!
//! A skill's body orders itself against another skill in words: "run `brand-voice` first",
//! "the last stop after `checkpoint-promotion`", "hand off the design to the
//! `multi-agent-brainstorming` skill", "use the `diagramming-code` skill after augmenting", or
//! numbered steps that name other skills one after the other. Each such sentence gives an edge
//! of type [`EdgeType::Workflow`], provenance [`EdgeProvenance::Sequence`], weight 1, directed
//! in execution order (source first), evidence = the sentence, clipped to
//! [`MAX_EVIDENCE_CHARS`] with markup and control characters removed, so a reason can quote it.
//!
//! **What counts as naming a skill.** Fenced code, table rows and headings are skipped. A name
//! is a skill's frontmatter name or folder name (lower-case) and must be *explicit*: followed
//! within three words by "skill"/"skills", or a compound name (`-` or `_` in it) in backticks
//! or bold. A bare word (`search`, `extract`, `review`: the subcommands and flags that bodies
//! backtick all the time) names nothing, nor does a word of the mention rule's common-word list.
//!
//! **Cues and direction** (the name replaced by a placeholder `X`, lower-case, first rule that
//! matches decides; "this" is the skill whose body it is):
//!
//! | pattern | order |
//! | --- | --- |
//! | "before (using) X", "then / next / finally (use) X", "followed by X", "hand / pass / feed ... to X", "X next", "X ... after" | this, then X |
//! | "after (running) X", "output of X", "X's output", "produced by X", "first, (use) X", "X ... first", "X ... before", "X ... then" | X, then this |
//! | numbered steps `1.` / `Step 2:` naming X in one step and Y in a later one | X, then Y |
//!
//! **Guards**, the mention rule's ([`crate::relate`]) with the same reasons:
//!
//! - an ambiguous name links nothing; it resolves when exactly one candidate has it as folder
//!   name, or when all candidates are copies of one skill (one near-duplicate group of
//!   [`crate::dedup`], at most [`WorkflowOptions::max_copies`]): then to each copy. The
//!   naming skill's own name and its copies are never candidates;
//! - a skill named in sequence by more than [`WorkflowOptions::max_fan_in`] skills is a hub
//!   ("see also" in a template): none of its workflow edges is kept;
//! - a body sequencing more than [`WorkflowOptions::max_fan_out`] skills is an index or an
//!   orchestrator's table of contents: none of its edges is kept;
//! - a deprecated skill (the word in its description) is in nobody's workflow;
//! - a pair ordered both ways (by the two bodies, or twice in one) is dropped.
//!
//! No collection, folder or path is evidence: a folder name is only one of the two names a
//! text can call a skill by, and candidates are never narrowed by where they live.
//!
//! Cost: one pass over each body (O(total body length) with a hash lookup per word), then
//! O(edges) for the guards.

use gos_core::{EdgeProvenance, EdgeType, SkillEdge, SkillNode};
use rayon::prelude::*;
use regex::Regex;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock};

/// Most characters of an edge's evidence (the quoted sentence).
pub const MAX_EVIDENCE_CHARS: usize = 160;

/// Parameters of the workflow pass.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WorkflowOptions {
    /// Whether the pass runs (default true).
    pub enabled: bool,
    /// A skill named in sequence by more skills than this gets no workflow edge (default 10,
    /// the mention rule's [`crate::relate::MAX_MENTION_FAN_IN`]).
    pub max_fan_in: usize,
    /// A body sequencing more skills than this gives no workflow edge (default 5).
    pub max_fan_out: usize,
    /// A name that every candidate shares as copies of one skill links to each copy when
    /// there are at most this many (default 3); more copies link nothing.
    pub max_copies: usize,
}

impl Default for WorkflowOptions {
    fn default() -> Self {
        WorkflowOptions {
            enabled: true,
            max_fan_in: 10,
            max_fan_out: 5,
            max_copies: 3,
        }
    }
}

/// Counters of the workflow pass (the build report's `workflow` entry).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct WorkflowStats {
    /// Sequencing sentences or step pairs that named a skill explicitly (before resolution).
    pub cues: usize,
    /// Of those, names that stayed ambiguous.
    pub ambiguous: usize,
    /// Edges dropped because the named skill is a hub ([`WorkflowOptions::max_fan_in`]).
    pub hub: usize,
    /// Edges dropped because the body sequences a list ([`WorkflowOptions::max_fan_out`]).
    pub list: usize,
    /// Edges dropped because one end is deprecated.
    pub deprecated: usize,
    /// Pairs dropped because they were ordered both ways.
    pub contradictory: usize,
    /// Edges made, of which `from_steps` from numbered steps.
    pub edges: usize,
    /// Edges made from numbered steps.
    pub from_steps: usize,
}

/// Which way a cue orders the named skill against the body's own skill.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Order {
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
struct Piece {
    text: String,
    step: Option<(usize, usize)>,
}

/// Prose of `body` in pieces: fenced code, tables and headings skipped; a line that starts no
/// step, bullet or paragraph continues the one before (markdown wraps sentences across lines);
/// a heading or a new unindented paragraph ends a run of numbered steps.
fn pieces(body: &str) -> Vec<Piece> {
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
fn sentences(text: &str) -> Vec<&str> {
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
struct Named {
    start: usize,
    end: usize,
    name: String,
}

/// The explicit skill names of `sentence` (module docs) that `known` holds.
fn explicit_names(sentence: &str, known: &HashMap<String, BTreeSet<usize>>) -> Vec<Named> {
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
fn cue(sentence: &str, named: &Named) -> Option<Order> {
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
fn evidence(text: &str, at: usize) -> String {
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

/// One body's claim of an ordered pair: `((source, target), evidence, from numbered steps)`.
pub(crate) type Claim = ((usize, usize), String, bool);

/// One body's claims in the order it makes them, with its cue counts.
pub(crate) type BodyClaims = (Vec<Claim>, WorkflowStats);

/// Workflow edges over `nodes` with their markdown `bodies` (same order); `copies` are the
/// near-duplicate groups as node indices (see the module docs).
pub fn workflow_edges(
    nodes: &[SkillNode],
    bodies: &[&str],
    copies: &[Vec<usize>],
    opts: &WorkflowOptions,
    stats: &mut WorkflowStats,
) -> Vec<SkillEdge> {
    workflow_edges_cached(nodes, bodies, copies, opts, stats, None)
}

/// [`workflow_edges`], taking each body's claims from `cache` when neither the body nor
/// anything else the claims read changed (see [`WorkflowCache`]).
pub(crate) fn workflow_edges_cached(
    nodes: &[SkillNode],
    bodies: &[&str],
    copies: &[Vec<usize>],
    opts: &WorkflowOptions,
    stats: &mut WorkflowStats,
    mut cache: Option<&mut WorkflowCache>,
) -> Vec<SkillEdge> {
    if !opts.enabled {
        return Vec::new();
    }
    let mut by_name: HashMap<String, BTreeSet<usize>> = HashMap::new();
    for (i, node) in nodes.iter().enumerate() {
        by_name
            .entry(node.name.to_lowercase())
            .or_default()
            .insert(i);
        by_name
            .entry(node.folder().to_lowercase())
            .or_default()
            .insert(i);
    }
    let mut group_of: Vec<Option<usize>> = vec![None; nodes.len()];
    for (g, members) in copies.iter().enumerate() {
        for &m in members {
            group_of[m] = Some(g);
        }
    }
    // Each body's candidates in the order it names them, with its cue counts; bodies are read
    // in parallel and merged in body order, so the first claim of a pair wins as in one pass.
    if let Some(c) = cache.as_deref_mut() {
        c.start(nodes, &group_of, opts);
    }
    let known = cache.as_deref();
    let hits = AtomicUsize::new(0);
    let per_body: Vec<Arc<BodyClaims>> = bodies
        .par_iter()
        .enumerate()
        .map(|(me, body)| {
            if let Some(hit) = known.and_then(|c| c.get(me, &nodes[me], body)) {
                hits.fetch_add(1, Ordering::Relaxed);
                return hit;
            }
            let mut local = WorkflowStats::default();
            let stats = &mut local;
            let mut claims: Vec<Claim> = Vec::new();
            let own = nodes[me].name.to_lowercase();
            let resolve = |name: &str, stats: &mut WorkflowStats| -> Vec<usize> {
                if name == own || name == nodes[me].folder().to_lowercase() {
                    return Vec::new();
                }
                let pool: Vec<usize> = by_name[name]
                    .iter()
                    .copied()
                    .filter(|&i| i != me && (group_of[i].is_none() || group_of[i] != group_of[me]))
                    .collect();
                match pool.as_slice() {
                    [] => Vec::new(),
                    [one] => vec![*one],
                    many => {
                        let exact: Vec<usize> = many
                            .iter()
                            .copied()
                            .filter(|&i| nodes[i].folder().eq_ignore_ascii_case(name))
                            .collect();
                        let group = group_of[many[0]];
                        if exact.len() == 1 {
                            exact
                        } else if group.is_some()
                            && many.iter().all(|&i| group_of[i] == group)
                            && many.len() <= opts.max_copies
                        {
                            many.to_vec()
                        } else {
                            stats.ambiguous += 1;
                            Vec::new()
                        }
                    }
                }
            };
            let mut steps: Vec<((usize, usize), String, usize, String)> = Vec::new();
            for piece in pieces(body) {
                for named in explicit_names(&piece.text, &by_name) {
                    if let Some((run, index)) = piece.step {
                        steps.push((
                            (run, index),
                            named.name.clone(),
                            named.start,
                            piece.text.clone(),
                        ));
                    }
                    let Some(order) = cue(&piece.text, &named) else {
                        continue;
                    };
                    stats.cues += 1;
                    let ev = evidence(&piece.text, named.start);
                    for other in resolve(&named.name, stats) {
                        let pair = match order {
                            Order::ThisFirst => (me, other),
                            Order::NamedFirst => (other, me),
                        };
                        claims.push((pair, ev.clone(), false));
                    }
                }
            }
            // Numbered steps: a name in one step, the next named step's name after it.
            for w in steps.windows(2) {
                let (a, b) = (&w[0], &w[1]);
                if a.0.0 != b.0.0 || a.0.1 >= b.0.1 || a.1 == b.1 {
                    continue;
                }
                stats.cues += 1;
                let (ra, rb) = (resolve(&a.1, stats), resolve(&b.1, stats));
                let ev = format!(
                    "step {}: {} / step {}: {}",
                    a.0.1,
                    evidence(&a.3, a.2)
                        .chars()
                        .take(MAX_EVIDENCE_CHARS / 2 - 10)
                        .collect::<String>(),
                    b.0.1,
                    evidence(&b.3, b.2)
                        .chars()
                        .take(MAX_EVIDENCE_CHARS / 2 - 10)
                        .collect::<String>(),
                );
                for &x in &ra {
                    for &y in &rb {
                        if x != y {
                            claims.push(((x, y), ev.clone(), true));
                        }
                    }
                }
            }
            Arc::new((claims, local))
        })
        .collect();
    if let Some(c) = cache {
        c.keep(nodes, bodies, &per_body, hits.into_inner());
    }
    // (source, target) -> evidence, and whether it came from steps, with the naming body.
    let mut found: BTreeMap<(usize, usize), (String, bool, usize)> = BTreeMap::new();
    for (me, body) in per_body.iter().enumerate() {
        let (claims, local) = &**body;
        stats.cues += local.cues;
        stats.ambiguous += local.ambiguous;
        for (pair, ev, from_steps) in claims {
            found
                .entry(*pair)
                .or_insert_with(|| (ev.clone(), *from_steps, me));
        }
    }
    // Guards over all candidates.
    let mut fan_in: HashMap<usize, BTreeSet<usize>> = HashMap::new();
    let mut fan_out: HashMap<usize, BTreeSet<usize>> = HashMap::new();
    for (&(s, t), &(_, _, body)) in &found {
        for named in [s, t].into_iter().filter(|&x| x != body) {
            fan_in.entry(named).or_default().insert(body);
            fan_out.entry(body).or_default().insert(named);
        }
    }
    let mut edges = Vec::new();
    for (&(s, t), (ev, from_steps, body)) in &found {
        if found.contains_key(&(t, s)) {
            if s < t {
                stats.contradictory += 1;
            }
            continue;
        }
        if fan_out[body].len() > opts.max_fan_out {
            stats.list += 1;
            continue;
        }
        let named: Vec<usize> = [s, t].into_iter().filter(|x| x != body).collect();
        if named.iter().any(|x| fan_in[x].len() > opts.max_fan_in) {
            stats.hub += 1;
            continue;
        }
        if crate::edge_evidence::is_deprecated(&nodes[s])
            || crate::edge_evidence::is_deprecated(&nodes[t])
        {
            stats.deprecated += 1;
            continue;
        }
        stats.from_steps += usize::from(*from_steps);
        edges.push(SkillEdge {
            source: nodes[s].id.clone(),
            target: nodes[t].id.clone(),
            edge_type: EdgeType::Workflow,
            weight: 1.0,
            provenance: EdgeProvenance::Sequence,
            evidence: ev.clone(),
        });
    }
    stats.edges = edges.len();
    edges
}

#[path = "workflow_cache.rs"]
mod cache;
pub(crate) use cache::WorkflowCache;

#[cfg(test)]
#[path = "workflow_tests.rs"]
mod tests;
