//! Hydration: rendering ranked skills into a bundle under character budgets.
//!
//! Every character of the rendered context counts against the global budget, the preamble and
//! each skill's header lines included (the reference left the preamble uncounted and then
//! hard-clipped the whole text, which could drop every payload while still listing the skills,
//! §7.5). Each skill block (header lines plus content) gets at most `max_chars_per_skill`
//! characters and at most a fair share of what is left (`remaining / slots left`), so the
//! bundle holds up to `top_n` skills instead of the first four or five at full length. A skill
//! whose share cannot hold its header and [`Budgets::min_content_chars`] of content is left out
//! together with everything after it; it is never listed without content. Content is clipped
//! at a line boundary. Counts are in Unicode scalar values (`char`s).

use crate::text::clip_at_line;
use serde::Serialize;

/// Bundle budgets. Defaults: 8 skills, 2,400 characters per skill, 12,000 in all
/// (\[C\] `RETRIEVAL_TOP_N`, `MAX_SKILL_CHARS`, `MAX_CONTEXT_CHARS`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Budgets {
    /// Most skills in a bundle.
    pub top_n: usize,
    /// Most characters of one skill block, its header lines included.
    pub max_chars_per_skill: usize,
    /// Most characters of the whole rendered context.
    pub max_context_chars: usize,
    /// Least content characters (after the header) worth including; smaller shares end the
    /// bundle.
    pub min_content_chars: usize,
}

/// Default [`Budgets::top_n`] (\[C\] `RETRIEVAL_TOP_N`).
pub const DEFAULT_TOP_N: usize = 8;
/// Default [`Budgets::max_chars_per_skill`] (\[C\] `MAX_SKILL_CHARS`).
pub const DEFAULT_MAX_CHARS_PER_SKILL: usize = 2_400;
/// Default [`Budgets::max_context_chars`] (\[C\] `MAX_CONTEXT_CHARS`).
pub const DEFAULT_MAX_CONTEXT_CHARS: usize = 12_000;

impl Default for Budgets {
    fn default() -> Self {
        Budgets {
            top_n: DEFAULT_TOP_N,
            max_chars_per_skill: DEFAULT_MAX_CHARS_PER_SKILL,
            max_context_chars: DEFAULT_MAX_CONTEXT_CHARS,
            min_content_chars: 200,
        }
    }
}

/// Bundle status (\[C\] `SKILL_HIT` / `NO_SKILL_HIT`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum RetrievalStatus {
    /// At least one skill cleared the relevance floor and was hydrated.
    #[serde(rename = "SKILL_HIT")]
    SkillHit,
    /// Nothing relevant: the bundle is empty.
    #[serde(rename = "NO_SKILL_HIT")]
    NoSkillHit,
}

impl RetrievalStatus {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            RetrievalStatus::SkillHit => "SKILL_HIT",
            RetrievalStatus::NoSkillHit => "NO_SKILL_HIT",
        }
    }
}

/// A skill offered for hydration, in rank order.
#[derive(Debug, Clone, PartialEq)]
pub struct HydrationInput {
    /// Node index.
    pub node: usize,
    /// Skill id.
    pub id: String,
    /// Display name.
    pub name: String,
    /// `Source:` path.
    pub source: String,
    /// Final score.
    pub score: f64,
    /// One-line reason.
    pub reason: String,
    /// Content: description paragraph and body.
    pub content: String,
}

/// One hydrated skill.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BundleSkill {
    /// Node index (not serialized: workspace-specific).
    #[serde(skip)]
    pub node: usize,
    /// Skill id (package path relative to the library root).
    pub id: String,
    /// Display name.
    pub name: String,
    /// `SKILL.md` path relative to the library root.
    pub source: String,
    /// Final score.
    pub score: f64,
    /// Why the skill is in the bundle.
    pub reason: String,
    /// Characters of this skill's block in the rendered context.
    pub chars: usize,
    /// Whether its content was clipped.
    pub clipped: bool,
}

/// The hydrated bundle.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Bundle {
    /// SKILL_HIT or NO_SKILL_HIT.
    pub status: RetrievalStatus,
    /// Hydrated skills in rank order.
    pub skills: Vec<BundleSkill>,
    /// The whole text to inject into an agent's context; at most `max_context_chars` chars.
    pub rendered_context: String,
}

fn preamble(query: &str, status: RetrievalStatus) -> String {
    let one_line: String = query.split_whitespace().collect::<Vec<_>>().join(" ");
    let shown: String = one_line.chars().take(160).collect();
    let ellipsis = if one_line.chars().count() > 160 {
        "..."
    } else {
        ""
    };
    let advice = match status {
        RetrievalStatus::SkillHit => {
            "Use these skills as constraints on the solution: read each Source path as given, \
             reuse a skill's scripts/ before writing new code, and do only what the task's \
             checks require."
        }
        RetrievalStatus::NoSkillHit => {
            "No skill in the library is relevant to this task: proceed without skills and do \
             not claim to use one."
        }
    };
    format!(
        "# Skill bundle\nQuery: {shown}{ellipsis}\nRetrieval status: {}\n{advice}\n",
        status.as_str()
    )
}

/// Render `ranked` (already in final order, already filtered by relevance) for `query` as a
/// SKILL_HIT bundle.
///
/// `None` when `ranked` is empty or no skill fits the budgets with
/// [`Budgets::min_content_chars`] of content (the caller then returns [`no_hit`], see
/// [`crate::relevance::NoHitReason::NothingFits`]).
pub fn hydrate(query: &str, ranked: &[HydrationInput], budgets: &Budgets) -> Option<Bundle> {
    let mut context = preamble(query, RetrievalStatus::SkillHit);
    let mut used = context.chars().count();
    let mut skills = Vec::new();
    let candidates = &ranked[..ranked.len().min(budgets.top_n)];
    for (i, item) in candidates.iter().enumerate() {
        let slots_left = candidates.len() - i;
        let remaining = budgets.max_context_chars.saturating_sub(used);
        // One blank line separates blocks.
        let share = (remaining / slots_left)
            .min(budgets.max_chars_per_skill)
            .saturating_sub(1);
        let header = format!(
            "## Skill: {}\nSource: {}\nWhy: {}\n",
            item.name, item.source, item.reason
        );
        let header_chars = header.chars().count();
        if share < header_chars + budgets.min_content_chars {
            break;
        }
        let room = share - header_chars;
        let content = clip_at_line(item.content.trim(), room);
        let clipped = content.len() < item.content.trim().len();
        let block = format!("{header}{content}\n");
        let chars = block.chars().count();
        context.push('\n');
        context.push_str(&block);
        used += chars + 1;
        skills.push(BundleSkill {
            node: item.node,
            id: item.id.clone(),
            name: item.name.clone(),
            source: item.source.clone(),
            score: item.score,
            reason: item.reason.clone(),
            chars,
            clipped,
        });
    }
    if skills.is_empty() {
        return None;
    }
    debug_assert!(context.chars().count() <= budgets.max_context_chars);
    Some(Bundle {
        status: RetrievalStatus::SkillHit,
        skills,
        rendered_context: context,
    })
}

/// The empty NO_SKILL_HIT bundle for `query`.
pub fn no_hit(query: &str) -> Bundle {
    Bundle {
        status: RetrievalStatus::NoSkillHit,
        skills: Vec::new(),
        rendered_context: preamble(query, RetrievalStatus::NoSkillHit),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(i: usize, len: usize) -> HydrationInput {
        let line = "x".repeat(59) + "\n";
        HydrationInput {
            node: i,
            id: format!("c/s{i}"),
            name: format!("s{i}"),
            source: format!("c/s{i}/SKILL.md"),
            score: 1.0 / (i + 1) as f64,
            reason: "seed match".into(),
            content: line.repeat(len / 60),
        }
    }

    #[test]
    fn budgets_hold_for_every_size() {
        for (per, total, n) in [
            (2400, 12000, 8),
            (600, 1500, 8),
            (300, 700, 3),
            (5000, 3000, 2),
        ] {
            let budgets = Budgets {
                top_n: n,
                max_chars_per_skill: per,
                max_context_chars: total,
                min_content_chars: 100,
            };
            let ranked: Vec<_> = (0..12).map(|i| item(i, 3000)).collect();
            let b = hydrate("make a chart", &ranked, &budgets).expect("skills fit");
            assert!(b.rendered_context.chars().count() <= total, "{per} {total}");
            assert!(b.skills.len() <= n);
            for s in &b.skills {
                assert!(s.chars <= per, "{} > {per}", s.chars);
                assert!(
                    b.rendered_context
                        .contains(&format!("Source: {}\n", s.source))
                );
                assert!(s.chars > 100, "listed skills carry content");
            }
        }
    }

    #[test]
    fn short_skills_are_not_clipped_and_tiny_budgets_give_no_hit() {
        let ranked = vec![item(0, 300), item(1, 300)];
        let b = hydrate("q", &ranked, &Budgets::default()).expect("skills fit");
        assert_eq!(b.status, RetrievalStatus::SkillHit);
        assert_eq!(b.skills.len(), 2);
        assert!(b.skills.iter().all(|s| !s.clipped));
        let tiny = Budgets {
            max_context_chars: 250,
            ..Budgets::default()
        };
        assert_eq!(hydrate("q", &ranked, &tiny), None);
        assert_eq!(no_hit("q").status, RetrievalStatus::NoSkillHit);
    }
}
