//! Frontmatter values: YAML loading and conversion to JSON, and the string and list forms of
//! a value that normalization reads.

use serde_json::Value as Json;
use serde_norway::Value as Yaml;

/// Largest frontmatter block handed to the YAML parser, in bytes. Real frontmatter stays
/// under 3 KB (the largest of the 5,584 real packages: 2,965 bytes); a larger block is not
/// parsed as a whole, and its top-level keys are read one by one (each under this cap).
pub const MAX_FRONTMATTER_BYTES: usize = 64 * 1024;

/// Deepest flow-collection nesting (`[` and `{`, outside quoted strings and comments) handed
/// to the YAML parser. The parser's cost grows with the nesting depth times the length (one
/// 40 KB line of `[` took seconds), so deeper text is refused before parsing, which keeps
/// parsing linear. Real frontmatter nests at most 6 deep.
pub const MAX_FLOW_DEPTH: usize = 32;

/// Why a YAML block was not loaded.
#[derive(Debug, thiserror::Error)]
pub(super) enum LoadError {
    /// Over [`MAX_FRONTMATTER_BYTES`].
    #[error("frontmatter block of {0} bytes is over the {MAX_FRONTMATTER_BYTES}-byte cap")]
    TooLarge(usize),
    /// Flow collections nested deeper than [`MAX_FLOW_DEPTH`].
    #[error("flow collections nested deeper than {MAX_FLOW_DEPTH} levels")]
    TooDeep,
    /// The YAML parser refused it.
    #[error(transparent)]
    Yaml(#[from] serde_norway::Error),
}

/// Parse `src` as YAML, applying `<<` merge keys. Blocks over the size or nesting caps are
/// refused without parsing.
pub(super) fn load(src: &str) -> Result<Yaml, LoadError> {
    if src.len() > MAX_FRONTMATTER_BYTES {
        return Err(LoadError::TooLarge(src.len()));
    }
    if flow_depth_exceeds(src, MAX_FLOW_DEPTH) {
        return Err(LoadError::TooDeep);
    }
    #[cfg(test)]
    PARSED.with(|p| {
        let (calls, bytes) = p.get();
        p.set((calls + 1, bytes + src.len()));
    });
    let mut v: Yaml = serde_norway::from_str(src)?;
    let _ = v.apply_merge();
    Ok(v)
}

#[cfg(test)]
thread_local! {
    /// Calls into the YAML parser on this thread and the bytes they were given (tests only).
    pub(super) static PARSED: std::cell::Cell<(usize, usize)> = const { std::cell::Cell::new((0, 0)) };
}

/// Whether `[`/`{` nesting in `src` goes deeper than `max`, in one pass. Quoted strings (a
/// quote that starts a scalar: after a line start, space, `[`, `{`, `,` or `:`) and comments
/// are skipped; a stray closing bracket never takes the depth below zero. The count may
/// overestimate what YAML reads as flow nesting, never underestimate it.
pub(super) fn flow_depth_exceeds(src: &str, max: usize) -> bool {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut comment = false;
    let mut prev = '\n';
    let mut escaped = false;
    for c in src.chars() {
        if comment {
            comment = c != '\n';
        } else if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if q == '"' && c == '\\' {
                escaped = true;
            } else if c == q {
                // A doubled '' inside a single-quoted string closes and reopens: same result.
                quote = None;
            }
        } else {
            let starts_scalar = matches!(prev, '\n' | ' ' | '\t' | '[' | '{' | ',' | ':');
            match c {
                '"' | '\'' if starts_scalar => quote = Some(c),
                '#' if matches!(prev, '\n' | ' ' | '\t') => comment = true,
                '[' | '{' => {
                    depth += 1;
                    if depth > max {
                        return true;
                    }
                }
                ']' | '}' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        prev = c;
    }
    false
}

/// A mapping key as a string (`null` for a null key, other scalars in their string form).
pub(super) fn key_string(k: Yaml) -> String {
    match k {
        Yaml::String(s) => s,
        Yaml::Null => "null".into(),
        other => value_to_string(&yaml_to_json(other)).unwrap_or_default(),
    }
}

/// Convert YAML to JSON: numbers that JSON cannot hold (`.inf`, `.nan`) become strings, tags
/// are dropped, non-string keys are stringified.
pub(super) fn yaml_to_json(v: Yaml) -> Json {
    match v {
        Yaml::Null => Json::Null,
        Yaml::Bool(b) => Json::Bool(b),
        Yaml::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.into()
            } else if let Some(u) = n.as_u64() {
                u.into()
            } else {
                n.as_f64()
                    .and_then(serde_json::Number::from_f64)
                    .map_or_else(|| Json::String(n.to_string()), Json::Number)
            }
        }
        Yaml::String(s) => Json::String(s),
        Yaml::Sequence(seq) => Json::Array(seq.into_iter().map(yaml_to_json).collect()),
        Yaml::Mapping(m) => Json::Object(
            m.into_iter()
                .map(|(k, v)| (key_string(k), yaml_to_json(v)))
                .collect(),
        ),
        Yaml::Tagged(t) => yaml_to_json(t.value),
    }
}

fn scalar(v: &Json) -> Option<String> {
    let s = match v {
        Json::String(s) => s.trim().to_owned(),
        Json::Number(n) => n.to_string(),
        Json::Bool(b) => b.to_string(),
        _ => return None,
    };
    (!s.is_empty()).then_some(s)
}

/// String form of a frontmatter value: strings trimmed, numbers and booleans as written,
/// lists and mappings as their [`value_to_list`] items joined with `", "`. `None` for null
/// and for values that are empty after trimming.
pub fn value_to_string(v: &Json) -> Option<String> {
    match v {
        Json::Array(_) | Json::Object(_) => {
            let items = value_to_list(v);
            (!items.is_empty()).then(|| items.join(", "))
        }
        _ => scalar(v),
    }
}

/// List form of a frontmatter value: a list gives its items (nested lists flattened), a
/// string gives itself as one item (never split on commas), a mapping gives `key: value`
/// items, numbers and booleans their string form. Items are trimmed; empty ones dropped.
pub fn value_to_list(v: &Json) -> Vec<String> {
    match v {
        Json::Array(items) => items.iter().flat_map(value_to_list).collect(),
        Json::Object(map) => map
            .iter()
            .filter_map(|(k, v)| match value_to_string(v) {
                Some(s) => Some(format!("{}: {s}", k.trim())),
                None => Some(k.trim().to_owned()).filter(|k| !k.is_empty()),
            })
            .collect(),
        _ => scalar(v).into_iter().collect(),
    }
}
