//! [`FieldBoosts`]: the query-time BM25 field boosts, their `NAME=BOOST,...` form and defaults.

use super::FIELD_BOOSTS;
use crate::error::{Error, Result};

/// Query-time BM25 field boosts: each field's term clauses are multiplied by its boost.
/// [`FieldBoosts::default`] is [`FIELD_BOOSTS`]. Boosts apply at query time only, so any
/// workspace index takes any boosts. Every boost must be finite and >= 0 (0 ignores the
/// field).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FieldBoosts {
    /// `name` field (display name plus folder name); default 3.
    pub name: f32,
    /// `description` field (description and capability); default 2.
    pub description: f32,
    /// `meta` field (tags, tooling, artifact types, example tasks, entrypoints); default 1.5.
    pub meta: f32,
    /// `headings` field (section headings); default 1.5.
    pub headings: f32,
    /// `body` field (the markdown body); default 1.
    pub body: f32,
}

impl Default for FieldBoosts {
    fn default() -> Self {
        let [name, description, meta, headings, body] = FIELD_BOOSTS.map(|(_, b)| b);
        FieldBoosts {
            name,
            description,
            meta,
            headings,
            body,
        }
    }
}

impl FieldBoosts {
    /// The boosts in [`FIELD_BOOSTS`] order.
    pub fn as_array(&self) -> [f32; 5] {
        [
            self.name,
            self.description,
            self.meta,
            self.headings,
            self.body,
        ]
    }
}

impl std::str::FromStr for FieldBoosts {
    type Err = Error;
    /// `NAME=BOOST,...` over the field names of [`FIELD_BOOSTS`], e.g. `name=4,body=0.5`;
    /// fields not named keep their default boost.
    fn from_str(s: &str) -> Result<Self> {
        let bad = |reason: String| Error::InvalidOption {
            name: "QueryParams::field_boosts",
            reason,
        };
        let mut boosts = FieldBoosts::default().as_array();
        for pair in s.split(',').filter(|p| !p.trim().is_empty()) {
            let (name, value) = pair
                .split_once('=')
                .ok_or_else(|| bad(format!("`{pair}` is not NAME=BOOST")))?;
            let i = FIELD_BOOSTS
                .iter()
                .position(|(n, _)| *n == name.trim())
                .ok_or_else(|| {
                    bad(format!(
                        "`{name}` is not a field (name, description, meta, headings, body)"
                    ))
                })?;
            boosts[i] = match value.trim().parse::<f32>() {
                Ok(v) if v.is_finite() && v >= 0.0 => v,
                _ => return Err(bad(format!("`{value}` is not a finite boost >= 0"))),
            };
        }
        let [name, description, meta, headings, body] = boosts;
        Ok(FieldBoosts {
            name,
            description,
            meta,
            headings,
            body,
        })
    }
}

impl std::fmt::Display for FieldBoosts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts: Vec<String> = FIELD_BOOSTS
            .iter()
            .zip(self.as_array())
            .map(|((name, _), b)| format!("{name}={b}"))
            .collect();
        f.write_str(&parts.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_boosts_parse_and_print() {
        let b: FieldBoosts = "name=4, body=0.5".parse().unwrap();
        assert_eq!(b.as_array(), [4.0, 2.0, 1.5, 1.5, 0.5]);
        assert_eq!(
            b.to_string(),
            "name=4,description=2,meta=1.5,headings=1.5,body=0.5"
        );
        assert_eq!("".parse::<FieldBoosts>().unwrap(), FieldBoosts::default());
        for bad in ["title=2", "name", "name=-1", "body=inf"] {
            assert!(bad.parse::<FieldBoosts>().is_err(), "{bad}");
        }
    }
}
