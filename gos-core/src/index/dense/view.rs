//! Which text of a skill is embedded: the [`TextView`]s of a workspace's skill vectors, named
//! in `workspace.json` (`dense.view`) and in the vector files' names.

use crate::error::{Error, Result};
use crate::skill::SkillNode;
use serde::{Deserialize, Serialize};
use std::str::FromStr;

/// Characters of the body kept for the body view before tokenization (the encoder truncates at
/// 256 tokens, about 1,000-1,200 characters of English, anyway).
pub const BODY_VIEW_CHARS: usize = 2_000;

/// Which text of a skill is embedded.
///
/// SkillFlow found the description alone beat full content for its encoder; SkillRouter found the
/// body essential. gos measures both on the DEV set (docs/evaluation.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum TextView {
    /// Name and description only.
    Description,
    /// Name, description, capability, input/output types, domain tags and tooling.
    #[default]
    Card,
    /// Name and description followed by the start of the body (`BODY_VIEW_CHARS` characters).
    Body,
    /// Two embeddings, the card view and the body view, fused at score level (max cosine).
    Sectioned,
}

impl TextView {
    /// All views.
    pub const ALL: [TextView; 4] = [
        TextView::Description,
        TextView::Card,
        TextView::Body,
        TextView::Sectioned,
    ];

    /// Command-line and file name of the view.
    pub fn as_str(self) -> &'static str {
        match self {
            TextView::Description => "description",
            TextView::Card => "card",
            TextView::Body => "body",
            TextView::Sectioned => "sectioned",
        }
    }

    /// The single-text views whose embeddings this view needs, in file order (the sectioned
    /// view needs two files).
    pub fn parts(self) -> &'static [TextView] {
        match self {
            TextView::Description => &[TextView::Description],
            TextView::Card => &[TextView::Card],
            TextView::Body => &[TextView::Body],
            TextView::Sectioned => &[TextView::Card, TextView::Body],
        }
    }

    /// The text embedded for `node` with body `body` under this single-text view.
    ///
    /// # Panics
    /// For [`TextView::Sectioned`], which is not a single text (use [`TextView::parts`]).
    pub fn render(self, node: &SkillNode, body: &str) -> String {
        let head = format!("{}: {}", node.name, node.description.value.trim());
        match self {
            TextView::Description => head,
            TextView::Card => {
                let mut s = head;
                let cap = node.capability.value.trim();
                if !cap.is_empty() && !node.description.value.contains(cap) {
                    s.push_str(&format!("\n{cap}"));
                }
                for (label, list) in [
                    ("inputs", &node.inputs.value),
                    ("outputs", &node.outputs.value),
                    ("tags", &node.domain_tags.value),
                    ("tools", &node.tooling.value),
                ] {
                    if !list.is_empty() {
                        s.push_str(&format!("\n{label}: {}", list.join(", ")));
                    }
                }
                s
            }
            TextView::Body => {
                let clipped: String = body.trim().chars().take(BODY_VIEW_CHARS).collect();
                format!("{head}\n{clipped}")
            }
            TextView::Sectioned => panic!("the sectioned view is two texts; use parts()"),
        }
    }
}

impl FromStr for TextView {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        TextView::ALL
            .into_iter()
            .find(|v| v.as_str() == s)
            .ok_or_else(|| Error::InvalidOption {
                name: "TextView",
                reason: format!("`{s}` is not one of description, card, body, sectioned"),
            })
    }
}

impl std::fmt::Display for TextView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
