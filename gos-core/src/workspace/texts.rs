//! The texts of a skill that the online stages read, each produced here and only here:
//!
//! | text | read by | what it is |
//! | --- | --- | --- |
//! | [`Workspace::body`] | the two below, the pipelines' document views | the stored body of the SKILL.md (empty when the index has none) |
//! | [`Workspace::content`] | hydration ([`crate::hydrate::select`]) | the description paragraph, a blank line, then the body |
//! | [`Workspace::cross_encoder_text`] | the cross-encoder stage ([`crate::rerank::CrossEncoderReranker`], cut to `max_chars`) | the name on its own line, then the content |
//!
//! The texts embedded into skill vectors at build time are the [`crate::index::dense::TextView`]s
//! (description, card, body); gos-pipeline's document views compose name, description and body
//! in their own templates (SkillFlow's and SkillRouter's).

use super::Workspace;
use crate::error::Result;

impl Workspace {
    /// The stored SKILL.md body of `node`; empty when the index stores none.
    ///
    /// # Errors
    /// [`crate::Error::Index`] when the document store cannot be read.
    pub fn body(&self, node: usize) -> Result<String> {
        Ok(self.lexical().body(node)?.unwrap_or_default())
    }

    /// The content a bundle shows for `node`: its description (trimmed), a blank line, then
    /// its body (trimmed); the body as stored when the description is empty.
    ///
    /// # Errors
    /// As [`Workspace::body`].
    pub fn content(&self, node: usize) -> Result<String> {
        let body = self.body(node)?;
        let description = self.manifest().nodes[node].description.value.trim();
        Ok(if description.is_empty() {
            body
        } else {
            format!("{description}\n\n{}", body.trim())
        })
    }

    /// The text the cross-encoder reads for `node`: its name, a line break, then its
    /// [`Workspace::content`] (the stage cuts it to its character cap).
    ///
    /// # Errors
    /// As [`Workspace::body`].
    pub fn cross_encoder_text(&self, node: usize) -> Result<String> {
        Ok(format!(
            "{}\n{}",
            self.manifest().nodes[node].name,
            self.content(node)?
        ))
    }
}
