//! YAML frontmatter: cutting it from the markdown body and parsing it, with recovery.
//!
//! [`split`] normalizes the text (BOM, CRLF/CR), finds the `---` block (tolerating blank or
//! HTML-comment lines before it and a missing or indented closing line), and parses the YAML
//! with `serde_norway`. When the YAML does not parse, repairs are tried in order, each one
//! recorded: tab indentation → spaces; re-quoting top-level values that YAML misreads
//! (`: ` or ` #` inside, a leading indicator character); stripping control characters; and
//! finally a key-by-key extraction of the top-level keys.

mod repair;
mod value;
use repair::*;
pub use value::{MAX_FLOW_DEPTH, MAX_FRONTMATTER_BYTES, value_to_list, value_to_string};
use value::{key_string, load, yaml_to_json};

use std::collections::BTreeMap;

use serde_json::Value as Json;
use serde_norway::Value as Yaml;

/// The YAML frontmatter as a JSON-like mapping. Keys keep their spelling.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Frontmatter {
    /// Every top-level key with its value converted to JSON (dates become strings).
    pub fields: BTreeMap<String, Json>,
}

impl Frontmatter {
    /// String value of `key` (strings as they are, numbers and booleans in string form; lists
    /// joined with ", "); `None` when absent, null or empty after trimming.
    pub fn get_str(&self, key: &str) -> Option<String> {
        value_to_string(self.fields.get(key)?)
    }

    /// List value of `key`: a list gives its items' string forms; a string gives itself as one
    /// item; a mapping gives `key: value` items. Empty items are dropped.
    pub fn get_list(&self, key: &str) -> Vec<String> {
        self.fields.get(key).map(value_to_list).unwrap_or_default()
    }
}

/// The normalized text of a SKILL.md cut into frontmatter and body by [`split`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Split {
    /// Parsed frontmatter; empty when there is none or nothing could be recovered.
    pub frontmatter: Frontmatter,
    /// Markdown after the frontmatter (the whole text when there is no frontmatter), without
    /// leading blank lines or trailing whitespace.
    pub body: String,
    /// Whole text without BOM and with LF line ends.
    pub text: String,
    /// What was repaired, in order, in words.
    pub recoveries: Vec<String>,
}

/// How many lines before the opening `---` may be blank or HTML comments.
const MAX_LEADING_LINES: usize = 40;

/// Split `input` into frontmatter and body, repairing what can be repaired (see the module doc).
pub fn split(input: &str) -> Split {
    let mut recoveries = Vec::new();
    let text = normalize_text(input, &mut recoveries);
    let lines: Vec<&str> = text.split('\n').collect();
    let whole = |recoveries| Split {
        frontmatter: Frontmatter::default(),
        body: tidy_body(&text),
        text: text.clone(),
        recoveries,
    };
    let Some(open) = find_opening(&lines) else {
        return whole(recoveries);
    };
    if open > 0 {
        recoveries.push(format!(
            "skipped {open} blank or comment line(s) before the frontmatter"
        ));
    }
    let mut notes = Vec::new();
    let found = match closed_block(&lines, open, &mut notes) {
        None => indented_close(&lines, open, &mut notes)
            .or_else(|| blank_line_close(&lines, open, lines.len(), &mut notes)),
        Some((Parsed::Map(m), body, _)) => Some((Parsed::Map(m), body)),
        // The block did not read as clean YAML: when it holds markdown, the real frontmatter
        // may end at its first blank line and the `---` found be a thematic break.
        Some((parsed, body, close)) => {
            let markdown = lines[open + 1..close].iter().any(|l| is_heading(l));
            let mut alt = Vec::new();
            match (&parsed, blank_line_close(&lines, open, close, &mut alt)) {
                (Parsed::NotMap(_), Some(found)) => Some((found, alt)),
                (Parsed::Loose(_), Some(found)) if markdown => Some((found, alt)),
                _ => None,
            }
            .map(|(found, alt)| {
                notes = alt;
                found
            })
            .or(Some((parsed, body)))
        }
    };
    let Some((parsed, body)) = found else {
        recoveries.push(
            "frontmatter opening `---` has no closing line; read the file as markdown".into(),
        );
        return whole(recoveries);
    };
    recoveries.append(&mut notes);
    match parsed {
        Parsed::Map(fields) | Parsed::Loose(fields) => Split {
            frontmatter: Frontmatter { fields },
            body: tidy_body(&body),
            text,
            recoveries,
        },
        Parsed::NotMap(kind) => {
            recoveries.push(format!(
                "frontmatter block is {kind}, not a mapping; read it as markdown"
            ));
            whole(recoveries)
        }
    }
}

/// Remove a leading BOM and turn CRLF and lone CR into LF, noting each change.
fn normalize_text(input: &str, recoveries: &mut Vec<String>) -> String {
    let mut s = input;
    if s.starts_with('\u{feff}') {
        s = s.trim_start_matches('\u{feff}');
        recoveries.push("stripped UTF-8 BOM".into());
    }
    if !s.contains('\r') {
        return s.to_owned();
    }
    let crlf = s.matches("\r\n").count();
    let out = s.replace("\r\n", "\n");
    if crlf > 0 {
        recoveries.push("converted CRLF line endings to LF".into());
    }
    if out.contains('\r') {
        recoveries.push("converted CR line endings to LF".into());
        return out.replace('\r', "\n");
    }
    out
}

/// Index of the opening `---` line; only blank and HTML-comment lines may precede it.
fn find_opening(lines: &[&str]) -> Option<usize> {
    let mut in_comment = false;
    for (i, line) in lines.iter().enumerate().take(MAX_LEADING_LINES) {
        let t = line.trim();
        if in_comment {
            in_comment = !t.contains("-->");
        } else if let Some(rest) = t.strip_prefix("<!--") {
            in_comment = !rest.contains("-->");
        } else if !t.is_empty() {
            return (line.trim_end() == "---").then_some(i);
        }
    }
    None
}

fn is_close(line: &str) -> bool {
    matches!(line.trim_end(), "---" | "...")
}

/// The normal case: a closing `---` or `...` at column 0 (its index is returned too).
fn closed_block(
    lines: &[&str],
    open: usize,
    notes: &mut Vec<String>,
) -> Option<(Parsed, String, usize)> {
    let close = (open + 1..lines.len()).find(|&i| is_close(lines[i]))?;
    let yaml = lines[open + 1..close].join("\n");
    let body = lines[close + 1..].join("\n");
    Some((parse_yaml(&yaml, true, notes), body, close))
}

/// A closing line indented with spaces; accepted when the block parses as a mapping. The body
/// after it is dedented by the same amount.
fn indented_close(
    lines: &[&str],
    open: usize,
    notes: &mut Vec<String>,
) -> Option<(Parsed, String)> {
    let close = (open + 1..lines.len()).find(|&i| matches!(lines[i].trim(), "---" | "..."))?;
    let parsed = non_empty_map(&lines[open + 1..close], false, notes)?;
    let indent = lines[close].len() - lines[close].trim_start().len();
    let body: Vec<&str> = lines[close + 1..]
        .iter()
        .map(|l| {
            let n = l.len() - l.trim_start_matches(' ').len();
            &l[n.min(indent)..]
        })
        .collect();
    notes.push(format!(
        "closing `---` of the frontmatter was indented by {indent}; dedented the body"
    ));
    Some((parsed, body.join("\n")))
}

/// No usable closing line before `limit` (the `---` found, or the end of the text): the key
/// lines end at the first blank line or heading.
fn blank_line_close(
    lines: &[&str],
    open: usize,
    limit: usize,
    notes: &mut Vec<String>,
) -> Option<(Parsed, String)> {
    let start = open + 1;
    let end = (start..limit)
        .find(|&i| lines[i].trim().is_empty() || is_heading(lines[i]))
        .unwrap_or(limit);
    let no_close = limit == lines.len();
    if end == start || (end == limit && !no_close) || top_key(lines[start]).is_none() {
        return None;
    }
    let parsed = non_empty_map(&lines[start..end], true, notes)?;
    notes.push(if no_close {
        "frontmatter has no closing `---`; ended it at the first blank line or heading".into()
    } else {
        "frontmatter ended at the first blank line or heading; the later `---` is markdown".into()
    });
    Some((parsed, lines[end..].join("\n")))
}

/// Parse a candidate block; keep it (and its notes) only when it is a non-empty mapping.
fn non_empty_map(lines: &[&str], extract: bool, notes: &mut Vec<String>) -> Option<Parsed> {
    let mut local = Vec::new();
    let parsed = parse_yaml(&lines.join("\n"), extract, &mut local);
    matches!(&parsed, Parsed::Map(m) | Parsed::Loose(m) if !m.is_empty()).then(|| {
        notes.append(&mut local);
        parsed
    })
}

fn is_heading(line: &str) -> bool {
    let hashes = line.bytes().take_while(|&b| b == b'#').count();
    (1..=6).contains(&hashes) && line[hashes..].starts_with([' ', '\t'])
}

fn tidy_body(body: &str) -> String {
    body.trim_start_matches('\n').trim_end().to_owned()
}

/// Outcome of parsing one frontmatter block.
enum Parsed {
    /// A mapping, converted to JSON values.
    Map(BTreeMap<String, Json>),
    /// A mapping recovered only key by key (the block also held lines that are not YAML).
    Loose(BTreeMap<String, Json>),
    /// Not a mapping, or not readable even after every repair (what it is, in words).
    NotMap(&'static str),
}

fn classify(v: Yaml) -> Parsed {
    match v {
        Yaml::Mapping(m) => Parsed::Map(
            m.into_iter()
                .map(|(k, v)| (key_string(k), yaml_to_json(v)))
                .collect(),
        ),
        Yaml::Null => Parsed::NotMap("empty or only comments"),
        Yaml::String(_) => Parsed::NotMap("a plain string"),
        Yaml::Sequence(_) => Parsed::NotMap("a list"),
        _ => Parsed::NotMap("a scalar"),
    }
}

/// Parse a YAML block, trying the repairs of the module doc in order. `extract` allows the
/// last resort (key-by-key extraction).
fn parse_yaml(src: &str, extract: bool, notes: &mut Vec<String>) -> Parsed {
    if src.trim().is_empty() {
        return Parsed::Map(BTreeMap::new());
    }
    let err = match load(src) {
        Ok(v) => return classify(v),
        Err(e) => e.to_string(),
    };
    let first = err.lines().next().unwrap_or_default();
    notes.push(format!("frontmatter YAML error: {first}"));
    let mut cur = src.to_owned();
    type Fix = fn(&str) -> Option<(String, Vec<String>)>;
    for fix in [fix_tabs as Fix, requote, strip_controls] {
        if let Some((fixed, mut done)) = fix(&cur) {
            cur = fixed;
            notes.append(&mut done);
            if let Ok(v) = load(&cur) {
                return classify(v);
            }
        }
    }
    if !extract {
        return Parsed::NotMap("not readable YAML");
    }
    let (map, dropped) = extract_keys(&cur);
    if map.is_empty() || dropped > map.len() {
        return Parsed::NotMap("mostly not YAML");
    }
    notes.push(format!("read {} top-level key(s) one by one", map.len()));
    if dropped > 0 {
        notes.push(format!(
            "dropped {dropped} frontmatter line(s) that are not YAML"
        ));
    }
    Parsed::Loose(map)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn desc(s: &Split) -> Option<String> {
        s.frontmatter.get_str("description")
    }

    #[test]
    fn bom_and_crlf_are_stripped_and_noted() {
        let s = split("\u{feff}---\r\nname: a\r\ndescription: Does b.\r\n---\r\n# T\r\nbody\r\n");
        assert_eq!(s.frontmatter.get_str("name").as_deref(), Some("a"));
        assert_eq!(desc(&s).as_deref(), Some("Does b."));
        assert_eq!(s.body, "# T\nbody");
        assert!(!s.text.contains('\r'));
        assert!(s.recoveries.iter().any(|r| r.contains("BOM")));
        assert!(s.recoveries.iter().any(|r| r.contains("CRLF")));
    }

    #[test]
    fn clean_file_has_no_recoveries() {
        let s = split("---\nname: a\ndescription: b\n---\n\nText.\n");
        assert!(s.recoveries.is_empty(), "{:?}", s.recoveries);
        assert_eq!(s.body, "Text.");
    }

    #[test]
    fn tab_indentation_is_repaired() {
        let s = split("---\nname: a\ndescription: d\ntags:\n\t- x\n\t- y\n---\nbody");
        assert_eq!(s.frontmatter.get_list("tags"), ["x", "y"]);
        assert!(
            s.recoveries.iter().any(|r| r.contains("tab")),
            "{:?}",
            s.recoveries
        );
    }

    #[test]
    fn unquoted_colon_value_is_requoted() {
        let s = split("---\nname: logs\ndescription: Parses logs: finds errors\n---\nbody");
        assert_eq!(desc(&s).as_deref(), Some("Parses logs: finds errors"));
        assert!(
            s.recoveries
                .iter()
                .any(|r| r.contains("quoted value of `description`"))
        );
    }

    #[test]
    fn indicator_and_flow_values_are_requoted() {
        let s = split("---\nname: x\ndescription: , it predicts\nhint: [a] [b]\nat: @me\n---\n");
        assert_eq!(desc(&s).as_deref(), Some(", it predicts"));
        assert_eq!(s.frontmatter.get_str("hint").as_deref(), Some("[a] [b]"));
        assert_eq!(s.frontmatter.get_str("at").as_deref(), Some("@me"));
    }

    #[test]
    fn list_valued_description_joins() {
        let s =
            split("---\nname: x\ndescription:\n  - Reads PDFs\n  - Writes CSV (cols a, b)\n---\n");
        assert_eq!(
            desc(&s).as_deref(),
            Some("Reads PDFs, Writes CSV (cols a, b)")
        );
        assert_eq!(
            s.frontmatter.get_list("description"),
            ["Reads PDFs", "Writes CSV (cols a, b)"]
        );
    }

    #[test]
    fn leading_blank_and_comment_lines_are_skipped() {
        let s = split("\n<!-- origin -->\n---\nname: a\ndescription: b\n---\nbody");
        assert_eq!(desc(&s).as_deref(), Some("b"));
        assert!(
            s.recoveries
                .iter()
                .any(|r| r.contains("before the frontmatter"))
        );
    }

    #[test]
    fn control_chars_and_conflict_markers_recover() {
        let s = split("---\nname: a\ndescription: x\u{80}y\n---\nb");
        assert_eq!(desc(&s).as_deref(), Some("xy"));
        let s = split(
            "---\nname: a\ndescription: d\n<<<<<<< ours\nmeta:\n  k: v\n=======\n>>>>>>> theirs\n---\nb",
        );
        assert_eq!(desc(&s).as_deref(), Some("d"));
        assert_eq!(s.frontmatter.get_list("meta"), ["k: v"]);
    }

    #[test]
    fn unterminated_frontmatter_ends_at_blank_line() {
        let s = split("---\nname: a\ndescription: b\n\n# Title\ntext");
        assert_eq!(desc(&s).as_deref(), Some("b"));
        assert_eq!(s.body, "# Title\ntext");
        let s = split("---\nJust prose here.\n\nMore.");
        assert!(s.frontmatter.fields.is_empty());
        assert!(s.body.contains("Just prose"));
    }

    #[test]
    fn thematic_break_is_not_taken_as_the_closing_line() {
        let s = split("---\nname: a\ndescription: b\n\n# Title\n\ntext\n\n---\n\nmore");
        assert_eq!(desc(&s).as_deref(), Some("b"));
        assert!(s.body.starts_with("# Title") && s.body.ends_with("more"));
        let s = split("---\nname: a\n\ndescription: b: c\n<<<< junk\n---\nbody");
        assert_eq!(desc(&s).as_deref(), Some("b: c"));
        assert_eq!(s.body, "body");
    }

    #[test]
    fn non_mapping_frontmatter_is_markdown() {
        let s = split("---\n\n# Heading\n---\nText");
        assert!(s.frontmatter.fields.is_empty());
        assert!(s.body.contains("# Heading") && s.body.contains("Text"));
        assert!(s.recoveries.iter().any(|r| r.contains("not a mapping")));
    }

    #[test]
    fn hostile_yaml_ends_quickly() {
        let mut y =
            String::from("---\nname: x\nk0: &k0 [lol, lol, lol, lol, lol, lol, lol, lol]\n");
        for i in 1..12 {
            let refs = vec![format!("*k{}", i - 1); 8].join(", ");
            y.push_str(&format!("k{i}: &k{i} [{refs}]\n"));
        }
        y.push_str("---\nbody");
        let t = std::time::Instant::now();
        let s = split(&y);
        assert_eq!(s.frontmatter.get_str("name").as_deref(), Some("x"));
        let deep = format!("---\nname: y\nd: {}\n---\nbody", "[".repeat(5000));
        assert_eq!(
            split(&deep).frontmatter.get_str("name").as_deref(),
            Some("y")
        );
        assert!(t.elapsed().as_secs() < 5);
    }

    /// Bytes handed to the YAML parser while splitting `text`, and the parser calls.
    fn parser_load(text: &str) -> (usize, usize) {
        value::PARSED.with(|p| p.set((0, 0)));
        split(text);
        value::PARSED.with(|p| p.get())
    }

    #[test]
    fn nested_brackets_are_refused_before_the_parser() {
        for open in ["[", "{"] {
            let mut loads = Vec::new();
            for kb in [10, 20, 40] {
                let line = open.repeat(kb * 1024);
                let text = format!("---\nname: deep\ndescription: d\nx: {line}\n---\nbody");
                let s = split(&text);
                assert_eq!(s.frontmatter.get_str("name").as_deref(), Some("deep"));
                assert!(
                    s.recoveries
                        .iter()
                        .any(|r| r.contains("nested deeper than 32")),
                    "{:?}",
                    s.recoveries
                );
                let (calls, bytes) = parser_load(&text);
                // The nested line reaches the parser only re-quoted (a quoted string, linear
                // to parse), once: the bytes parsed stay within twice the input's length.
                assert!(
                    bytes <= 2 * text.len(),
                    "{bytes} bytes parsed for {}",
                    text.len()
                );
                loads.push(calls);
            }
            // The same number of parser calls at every size.
            assert!(loads.windows(2).all(|w| w[0] == w[1]), "{loads:?}");
        }
    }

    #[test]
    fn oversized_frontmatter_is_read_key_by_key() {
        let big = "word ".repeat(MAX_FRONTMATTER_BYTES / 5 + 10);
        let text = format!("---\nname: big\ndescription: {big}\n---\nbody");
        let s = split(&text);
        assert_eq!(s.frontmatter.get_str("name").as_deref(), Some("big"));
        assert!(
            s.recoveries.iter().any(|r| r.contains("byte cap")),
            "{:?}",
            s.recoveries
        );
        let (_, bytes) = parser_load(&text);
        // Only the small blocks reach the parser, each at most a few times.
        assert!(bytes < 4 * 1024, "{bytes}");
    }

    #[test]
    fn depth_scan_skips_quotes_and_comments() {
        let deep = "[".repeat(40);
        assert!(value::flow_depth_exceeds(&format!("a: {deep}"), 32));
        assert!(!value::flow_depth_exceeds(&format!("a: \"{deep}\""), 32));
        assert!(!value::flow_depth_exceeds(&format!("a: '{deep}'"), 32));
        assert!(!value::flow_depth_exceeds(&format!("a: 1 # {deep}"), 32));
        assert!(value::flow_depth_exceeds(
            &format!("a: \"\\\"\" {deep}"),
            32
        ));
        assert!(!value::flow_depth_exceeds("a: [[x]] ]]]] [[y]]", 2));
    }

    #[test]
    fn values_convert() {
        let s = split("---\nname: 42\non: 2024-01-02\nflag: true\n1: one\nmeta: {a: 1}\n---\n");
        let f = &s.frontmatter;
        assert_eq!(f.get_str("name").as_deref(), Some("42"));
        assert_eq!(f.get_str("on").as_deref(), Some("2024-01-02"));
        assert_eq!(f.get_str("flag").as_deref(), Some("true"));
        assert_eq!(f.get_str("1").as_deref(), Some("one"));
        assert_eq!(f.get_list("meta"), ["a: 1"]);
        assert_eq!(f.get_str("missing"), None);
    }
}
