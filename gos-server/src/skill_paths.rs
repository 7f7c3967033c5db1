//! The `<skill-path>` under which the Skills extension (SEP-2640) publishes each skill.
//!
//! The SEP addresses a skill as `skill://<skill-path>/SKILL.md`, where `<skill-path>` locates
//! the skill *in the server's skill namespace*: its final segment **must** equal the
//! frontmatter `name`, and the segments before it are "a server-chosen organizational
//! prefix" (SEP-2640, Resource Mapping). The namespace is the server's, not the disk's, so a
//! package whose folder name differs from its `name` (in `fixtures/library`,
//! `media/speech-to-text` is named `whisper-transcribe`) can still be served conformantly: gos
//! keeps the folder's parent path as the prefix and puts the name last
//! (`skill://media/whisper-transcribe/SKILL.md`), and file paths stay relative to the package
//! folder. Where the folder name already equals the name, the skill path is the skill id.
//!
//! A renamed path is used only when it is unambiguous: no skill id equals it (that id's own
//! files would otherwise share the URI space) and no other renamed skill maps to it. Skills
//! left without a path are not published (they stay reachable through the tools, by id).
//! Whether the name itself is valid is checked later, on the entry ([`rmcp::model::Skill::validate`]).
//!
//! Cost: one pass over the nodes and one hash map of the paths, built once per loaded
//! workspace (milliseconds at 5,584 skills).

use gos_core::Workspace;
use std::collections::HashMap;

/// Every node's published skill path, and the node of each path.
#[derive(Debug, Clone, Default)]
pub struct SkillPaths {
    by_node: Vec<Option<String>>,
    by_path: HashMap<String, usize>,
}

/// The path a skill with id `id` and frontmatter name `name` would have: `id` when its last
/// segment is `name`, else the id's parent with `name` last.
pub fn renamed_path(id: &str, name: &str) -> String {
    match id.rsplit_once('/') {
        Some((_, last)) if last == name => id.to_string(),
        Some((prefix, _)) => format!("{prefix}/{name}"),
        None => name.to_string(),
    }
}

impl SkillPaths {
    /// The paths of `(id, name)` pairs in node order (module docs for the rules).
    pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        let pairs: Vec<(&str, &str)> = pairs.into_iter().collect();
        let ids: HashMap<&str, usize> = pairs
            .iter()
            .enumerate()
            .map(|(i, (id, _))| (*id, i))
            .collect();
        let candidates: Vec<String> = pairs
            .iter()
            .map(|(id, name)| renamed_path(id, name))
            .collect();
        let mut claims: HashMap<&str, usize> = HashMap::new();
        for c in &candidates {
            *claims.entry(c.as_str()).or_default() += 1;
        }
        let mut by_node = Vec::with_capacity(pairs.len());
        let mut by_path = HashMap::with_capacity(pairs.len());
        for (i, ((id, _), path)) in pairs.iter().zip(&candidates).enumerate() {
            let natural = path == id;
            let free = natural || (!ids.contains_key(path.as_str()) && claims[path.as_str()] == 1);
            if free {
                by_path.insert(path.clone(), i);
                by_node.push(Some(path.clone()));
            } else {
                by_node.push(None);
            }
        }
        SkillPaths { by_node, by_path }
    }

    /// The paths of the workspace's skills (id and build-time name of each node).
    pub fn new(ws: &Workspace) -> Self {
        Self::from_pairs(
            ws.manifest()
                .nodes
                .iter()
                .map(|n| (n.id.as_str(), n.name.as_str())),
        )
    }

    /// The published path of node `i`; `None` when it has none (an ambiguous rename).
    pub fn path(&self, i: usize) -> Option<&str> {
        self.by_node.get(i).and_then(|p| p.as_deref())
    }

    /// The node published at `path`.
    pub fn node(&self, path: &str) -> Option<usize> {
        self.by_path.get(path).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_renamed_folder_is_published_under_its_name_with_the_folder_prefix() {
        assert_eq!(
            renamed_path("media/speech-to-text", "whisper-transcribe"),
            "media/whisper-transcribe"
        );
        assert_eq!(renamed_path("git-workflow", "git-workflow"), "git-workflow");
        assert_eq!(renamed_path("old-name", "new-name"), "new-name");
        let p = SkillPaths::from_pairs([
            ("media/speech-to-text", "whisper-transcribe"),
            ("docs/pdf", "pdf"),
        ]);
        assert_eq!(p.path(0), Some("media/whisper-transcribe"));
        assert_eq!(p.node("media/whisper-transcribe"), Some(0));
        assert_eq!(p.node("media/speech-to-text"), None);
        assert_eq!(p.path(1), Some("docs/pdf"));
    }

    #[test]
    fn an_ambiguous_rename_is_left_unpublished() {
        let p = SkillPaths::from_pairs([
            // Renamed onto the id of another skill (which keeps its own path).
            ("docs/a", "b"),
            ("docs/b", "b"),
            // Two renames onto one path: neither is published.
            ("x/one", "same"),
            ("x/two", "same"),
            // Renamed onto the id of a skill that is itself renamed away.
            ("y/c", "d"),
            ("y/d", "e"),
        ]);
        assert_eq!(p.path(0), None);
        assert_eq!(p.path(1), Some("docs/b"));
        assert_eq!((p.path(2), p.path(3)), (None, None));
        assert_eq!(p.path(4), None);
        assert_eq!(p.path(5), Some("y/e"));
        assert_eq!(p.node("docs/b"), Some(1));
    }
}
