//! Skill text views of the pipeline stages: which part of a skill a model reads, under which
//! character caps. The parts come from the workspace ([`Workspace::body`] and the manifest);
//! gos's own skill texts (the hydrated content, the cross-encoder's text, the embedded views)
//! are gos-core's (`gos_core::workspace` texts, [`gos_core::index::dense::TextView`]).

use gos_core::Workspace;
use gos_core::text::truncate_chars;
use serde::{Deserialize, Serialize};

/// The text of a skill a dense or rerank stage reads. In TOML an inline table:
/// `view = { kind = "fields", description_chars = 300, body_chars = 2500 }`,
/// `view = { kind = "text", max_chars = 512 }`, `view = { kind = "description" }`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum DocView {
    /// The description only (SkillFlow's retriever text); the name when the description is
    /// empty, so no skill embeds an empty string.
    #[default]
    Description,
    /// `name | description | body` with the description and the body each cut to a cap
    /// (SkillRouter's document template).
    Fields {
        /// Characters of the description.
        description_chars: usize,
        /// Characters of the body.
        body_chars: usize,
    },
    /// `name`, `description`, a blank line and the body, the whole cut to `max_chars`
    /// (SkillFlow's rerankers: 512 and 4,096 characters; the layout of gos's cross-encoder
    /// text, [`Workspace::cross_encoder_text`], except for a skill without description).
    Text {
        /// Characters of the whole text.
        max_chars: usize,
    },
}

impl DocView {
    /// A short key of the view and its caps, part of the document-vector cache key
    /// (e.g. `fields-300-2500`).
    pub fn key(&self) -> String {
        match self {
            DocView::Description => "description".into(),
            DocView::Fields {
                description_chars,
                body_chars,
            } => format!("fields-{description_chars}-{body_chars}"),
            DocView::Text { max_chars } => format!("text-{max_chars}"),
        }
    }

    /// Whether the view reads the body (which is read from the index, so it costs I/O).
    pub fn needs_body(&self) -> bool {
        !matches!(self, DocView::Description)
    }

    /// The caps of the view as JSON, for the trace.
    pub fn caps(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or_default()
    }

    /// Check the caps: each at least 1.
    ///
    /// # Errors
    /// A message naming the cap.
    pub fn validate(&self) -> Result<(), String> {
        match self {
            DocView::Fields {
                description_chars: 0,
                ..
            } => Err("`description_chars` must be at least 1".into()),
            DocView::Fields { body_chars: 0, .. } => Err("`body_chars` must be at least 1".into()),
            DocView::Text { max_chars: 0 } => Err("`max_chars` must be at least 1".into()),
            _ => Ok(()),
        }
    }

    /// The view's text of skill `node` of `ws` (its body read only when the view needs it).
    ///
    /// # Errors
    /// Index errors reading the stored body.
    pub fn text_of(&self, ws: &Workspace, node: usize) -> gos_core::Result<String> {
        let n = &ws.manifest().nodes[node];
        let body = if self.needs_body() {
            ws.body(node)?
        } else {
            String::new()
        };
        Ok(self.render(&n.name, &n.description.value, &body))
    }

    /// The view's text of a skill with `name`, `description` and `body`.
    pub fn render(&self, name: &str, description: &str, body: &str) -> String {
        let (name, description, body) = (name.trim(), description.trim(), body.trim());
        match self {
            DocView::Description if description.is_empty() => name.to_string(),
            DocView::Description => description.to_string(),
            DocView::Fields {
                description_chars,
                body_chars,
            } => format!(
                "{name} | {} | {}",
                truncate_chars(description, *description_chars).trim_end(),
                truncate_chars(body, *body_chars).trim_end()
            ),
            DocView::Text { max_chars } => {
                let full = format!("{name}\n{description}\n\n{body}");
                truncate_chars(&full, *max_chars).to_string()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views_apply_their_caps_in_characters() {
        let body = "é".repeat(3_000);
        let f = DocView::Fields {
            description_chars: 300,
            body_chars: 2_500,
        };
        let t = f.render("n", &"d".repeat(400), &body);
        assert_eq!(t.chars().count(), "n | ".len() + 300 + " | ".len() + 2_500);
        assert_eq!(
            DocView::Text { max_chars: 512 }
                .render("n", "d", &body)
                .chars()
                .count(),
            512
        );
        assert_eq!(DocView::Description.render("name", "  ", "b"), "name");
        assert_eq!(DocView::Description.render("name", " desc ", "b"), "desc");
        assert_eq!(f.key(), "fields-300-2500");
        assert!(DocView::Text { max_chars: 0 }.validate().is_err());
    }
}
