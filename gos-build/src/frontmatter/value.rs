//! Frontmatter values: YAML loading and conversion to JSON, and the string and list forms of
//! a value that normalization reads.

use serde_json::Value as Json;
use serde_norway::Value as Yaml;

/// Parse `src` as YAML, applying `<<` merge keys.
pub(super) fn load(src: &str) -> Result<Yaml, serde_norway::Error> {
    let mut v: Yaml = serde_norway::from_str(src)?;
    let _ = v.apply_merge();
    Ok(v)
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
