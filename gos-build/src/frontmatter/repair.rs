//! Repairs for YAML frontmatter that strict parsing rejects but other skill loaders accept:
//! tabs used as indentation, values that need quoting (an unquoted `: ` is the most common real
//! break), control characters, and a last-resort key-by-key extraction. Each repair returns
//! the repaired text and notes of what it changed.

use super::value::{key_string, load, yaml_to_json};
use serde_json::Value as Json;
use serde_norway::Value as Yaml;
use std::collections::BTreeMap;

/// Replace tabs in the leading whitespace of each line by two spaces.
pub(super) fn fix_tabs(src: &str) -> Option<(String, Vec<String>)> {
    let mut n = 0;
    let out: Vec<String> = src
        .split('\n')
        .map(|l| {
            let rest = l.trim_start_matches([' ', '\t']);
            let lead = &l[..l.len() - rest.len()];
            if lead.contains('\t') {
                n += 1;
                format!("{}{rest}", lead.replace('\t', "  "))
            } else {
                l.to_owned()
            }
        })
        .collect();
    let note = format!("replaced tab indentation with spaces on {n} line(s)");
    (n > 0).then(|| (out.join("\n"), vec![note]))
}

/// Remove control characters other than LF and tab, and the non-characters YAML refuses.
pub(super) fn strip_controls(s: &str) -> Option<(String, Vec<String>)> {
    let bad = |c: char| {
        (c.is_control() && c != '\n' && c != '\t') || matches!(c, '\u{fffe}' | '\u{ffff}')
    };
    let n = s.chars().filter(|&c| bad(c)).count();
    let note = format!("stripped {n} control character(s) from the frontmatter");
    (n > 0).then(|| (s.chars().filter(|&c| !bad(c)).collect(), vec![note]))
}

/// Split YAML lines into top-level blocks: a line at column 0 starts a block; indented, blank,
/// comment and zero-indent `- ` lines continue the current one. Returns line ranges.
pub(super) fn blocks(lines: &[&str]) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let cont =
            l.is_empty() || l.starts_with([' ', '\t', '#']) || l.starts_with("- ") || *l == "-";
        match out.last_mut() {
            Some(last) if cont => last.1 = i + 1,
            _ => out.push((i, i + 1)),
        }
    }
    out
}

/// `(raw key text, key, value)` of a top-level `key: value` line.
pub(super) fn top_key(line: &str) -> Option<(&str, String, &str)> {
    if line.starts_with([' ', '\t', '-', '#', '[', '{', '?']) {
        return None;
    }
    let (key, rest) = if let Some(q) = line.chars().next().filter(|c| matches!(c, '"' | '\'')) {
        let end = line[1..].find(q)? + 1;
        (line[1..end].to_owned(), line[end + 1..].strip_prefix(':')?)
    } else {
        let colon = line
            .match_indices(':')
            .map(|(i, _)| i)
            .find(|&i| line[i + 1..].is_empty() || line[i + 1..].starts_with([' ', '\t']))?;
        (line[..colon].trim().to_owned(), &line[colon + 1..])
    };
    if key.is_empty() || !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
        return None;
    }
    let raw = &line[..line.len() - rest.len() - 1];
    Some((raw, key, rest.trim()))
}

pub(super) fn is_block_scalar_header(v: &str) -> bool {
    let head = v.split(" #").next().unwrap_or_default().trim();
    let mut cs = head.chars();
    matches!(cs.next(), Some('|' | '>')) && head.len() <= 3 && cs.all(|c| "+-123456789".contains(c))
}

/// Why the value of this block must be re-quoted, or `None` when it reads correctly as it is.
pub(super) fn quote_reason(block: &[&str]) -> Option<String> {
    let (_, _, value) = top_key(block[0])?;
    if value.is_empty() || is_block_scalar_header(value) {
        return None;
    }
    let plain = !value.starts_with(['"', '\'', '[', '{']);
    if plain && value.contains(" #") {
        return Some("containing ' #'".into());
    }
    let alone = block.join("\n");
    let alone = strip_controls(&alone).map_or(alone, |(clean, _)| clean);
    if load(&alone).is_ok() {
        return None;
    }
    let first = value.chars().next().unwrap_or(' ');
    Some(if plain && value.contains(": ") {
        "containing ': '".into()
    } else if "@`%*&!|>,?[]{}\"'".contains(first) {
        format!("starting with '{first}'")
    } else {
        "that is not valid YAML on its own".into()
    })
}

/// Re-quote the top-level values YAML misreads as one JSON-style double-quoted string
/// (continuation lines joined with spaces). `None` when nothing needed quoting.
pub(super) fn requote(src: &str) -> Option<(String, Vec<String>)> {
    let lines: Vec<&str> = src.split('\n').collect();
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    let mut notes = Vec::new();
    for (s, e) in blocks(&lines) {
        let block = &lines[s..e];
        match (quote_reason(block), top_key(block[0])) {
            (Some(reason), Some((raw, key, value))) => {
                let joined = join_plain(value, &block[1..]);
                let quoted = serde_json::to_string(&joined).unwrap_or_default();
                out.push(format!("{raw}: {quoted}"));
                notes.push(format!("quoted value of `{key}` {reason}"));
            }
            _ => out.extend(block.iter().map(|l| (*l).to_owned())),
        }
    }
    (!notes.is_empty()).then(|| (out.join("\n"), notes))
}

pub(super) fn join_plain(value: &str, rest: &[&str]) -> String {
    let mut s = value.to_owned();
    for t in rest.iter().map(|l| l.trim()).filter(|t| !t.is_empty()) {
        s.push(' ');
        s.push_str(t);
    }
    s
}

/// Last resort: parse each top-level block on its own; a block that still fails gives its raw
/// text as a string. Returns the mapping and how many lines were dropped as not YAML.
pub(super) fn extract_keys(src: &str) -> (BTreeMap<String, Json>, usize) {
    let lines: Vec<&str> = src.split('\n').collect();
    let mut map = BTreeMap::new();
    let mut dropped = 0;
    for (s, e) in blocks(&lines) {
        let block = &lines[s..e];
        let Some((_, key, value)) = top_key(block[0]) else {
            dropped += block
                .iter()
                .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
                .count();
            continue;
        };
        if let Ok(Yaml::Mapping(m)) = load(&block.join("\n")) {
            for (k, v) in m {
                map.insert(key_string(k), yaml_to_json(v));
            }
            continue;
        }
        let text = if is_block_scalar_header(value) {
            let sep = if value.starts_with('>') { " " } else { "\n" };
            block[1..]
                .iter()
                .map(|l| l.trim())
                .collect::<Vec<_>>()
                .join(sep)
        } else {
            join_plain(value, &block[1..])
        };
        let text = text.trim();
        let unq = ['"', '\'']
            .iter()
            .find_map(|q| text.strip_prefix(*q).and_then(|t| t.strip_suffix(*q)))
            .unwrap_or(text);
        let v = if unq.is_empty() {
            Json::Null
        } else {
            Json::String(unq.to_owned())
        };
        map.insert(key, v);
    }
    (map, dropped)
}
