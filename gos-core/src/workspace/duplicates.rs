//! Near-duplicate groups at query time: one member of a group per ranked list, the others as
//! its alternates.
//!
//! The builder (`gos_build::dedup`) writes the groups to [`DUPLICATES_FILE`] in the workspace:
//! packages whose SKILL.md bodies are copies of one skill (word-shingle Jaccard similarity of
//! at least the recorded threshold). A workspace without the file has no groups, and retrieval
//! is then exactly what it was before groups existed.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// File name of the groups inside a workspace.
pub const DUPLICATES_FILE: &str = "duplicates.json";

/// File name of the alternative groups inside a workspace (`gos_build::alternative`).
pub const ALTERNATIVES_FILE: &str = "alternatives.json";

/// The part of `alternatives.json` read at query time.
#[derive(Deserialize)]
struct StoredGroups {
    groups: Vec<Vec<String>>,
}

/// The groups as stored: ids, each group sorted, groups sorted by their first id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DuplicateGroups {
    /// How the groups were found (method and parameters, for people).
    pub method: String,
    /// Least Jaccard similarity of two members joined directly.
    pub threshold: f64,
    /// The groups, each of at least two skill ids.
    pub groups: Vec<Vec<String>>,
}

/// The group of each node, for a workspace's node order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NodeGroups {
    group: Vec<Option<u32>>,
    groups: usize,
}

impl NodeGroups {
    /// Map stored groups onto nodes whose ids are `ids` (the manifest order).
    ///
    /// # Errors
    /// [`Error::Inconsistent`] (naming `path`) when a group names an id that is not a node, a
    /// node sits in two groups, or a group has fewer than two members.
    pub fn new(stored: &DuplicateGroups, ids: &[&str], path: &Path) -> Result<Self> {
        let index: HashMap<&str, usize> = ids.iter().enumerate().map(|(i, id)| (*id, i)).collect();
        let bad = |reason: String| Error::Inconsistent {
            path: path.to_path_buf(),
            reason,
        };
        let mut group = vec![None; ids.len()];
        for (g, members) in stored.groups.iter().enumerate() {
            if members.len() < 2 {
                return Err(bad(format!(
                    "duplicate group {g} has fewer than two members"
                )));
            }
            for id in members {
                let &node = index.get(id.as_str()).ok_or_else(|| {
                    bad(format!("duplicate group {g} names unknown skill `{id}`"))
                })?;
                if group[node].replace(g as u32).is_some() {
                    return Err(bad(format!("skill `{id}` is in two duplicate groups")));
                }
            }
        }
        Ok(NodeGroups {
            group,
            groups: stored.groups.len(),
        })
    }

    /// Read [`DUPLICATES_FILE`] from `dir` for nodes `ids`; no groups when the file is absent.
    ///
    /// # Errors
    /// [`Error::Io`] when the file exists but cannot be read, [`Error::Json`] when it does not
    /// parse, and see [`NodeGroups::new`].
    pub fn load(dir: &Path, ids: &[&str]) -> Result<Self> {
        let path = dir.join(DUPLICATES_FILE);
        let text = match std::fs::read(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(NodeGroups {
                    group: vec![None; ids.len()],
                    groups: 0,
                });
            }
            Err(source) => return Err(Error::read(&path, source)),
        };
        let stored: DuplicateGroups =
            serde_json::from_slice(&text).map_err(|source| Error::Json {
                path: path.clone(),
                source,
            })?;
        NodeGroups::new(&stored, ids, &path)
    }

    /// Read the alternative groups ([`ALTERNATIVES_FILE`], written by `gos build`: the
    /// connected components of the alternative edges) from `dir` for nodes `ids`, merged with
    /// `duplicates`: two nodes share a group when a chain of shared groups of either kind joins
    /// them. Without the file the result equals `duplicates`.
    ///
    /// # Errors
    /// As [`NodeGroups::load`], naming [`ALTERNATIVES_FILE`].
    pub fn load_alternatives(dir: &Path, ids: &[&str], duplicates: &NodeGroups) -> Result<Self> {
        let path = dir.join(ALTERNATIVES_FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(duplicates.clone()),
            Err(source) => return Err(Error::Io { path, source }),
        };
        let stored: StoredGroups = serde_json::from_str(&text).map_err(|source| Error::Json {
            path: path.clone(),
            source,
        })?;
        let alternatives = NodeGroups::new(
            &DuplicateGroups {
                method: String::new(),
                threshold: 0.0,
                groups: stored.groups,
            },
            ids,
            &path,
        )?;
        Ok(duplicates.merged(&alternatives))
    }

    /// The union of two groupings of the same nodes (module docs of
    /// [`NodeGroups::load_alternatives`]); groups are numbered by their first node.
    pub fn merged(&self, other: &NodeGroups) -> NodeGroups {
        let n = self.group.len().max(other.group.len());
        let mut parent: Vec<usize> = (0..n).collect();
        fn root(parent: &mut [usize], mut x: usize) -> usize {
            while parent[x] != x {
                parent[x] = parent[parent[x]];
                x = parent[x];
            }
            x
        }
        for g in [self, other] {
            let mut first: HashMap<u32, usize> = HashMap::new();
            for (node, grp) in g.group.iter().enumerate() {
                if let Some(grp) = grp {
                    let a = *first.entry(*grp).or_insert(node);
                    let (ra, rb) = (root(&mut parent, a), root(&mut parent, node));
                    parent[ra.max(rb)] = ra.min(rb);
                }
            }
        }
        let in_group =
            |node: usize| self.group_of(node).is_some() || other.group_of(node).is_some();
        let mut number: HashMap<usize, u32> = HashMap::new();
        let group = (0..n)
            .map(|node| {
                in_group(node).then(|| {
                    let r = root(&mut parent, node);
                    let next = number.len() as u32;
                    *number.entry(r).or_insert(next)
                })
            })
            .collect();
        NodeGroups {
            group,
            groups: number.len(),
        }
    }

    /// Number of groups.
    pub fn len(&self) -> usize {
        self.groups
    }

    /// Whether there is no group.
    pub fn is_empty(&self) -> bool {
        self.groups == 0
    }

    /// The group of `node`, if any.
    pub fn group_of(&self, node: usize) -> Option<u32> {
        self.group.get(node).copied().flatten()
    }

    /// Keep the best-ranked member of each group in `ranked` (in order; `node_of` gives an
    /// entry's node; retrieval first moves the copy the query matches best to that place,
    /// [`crate::retrieve::collapse::query_match_first`]) and drop the others; returns, per kept node that had any, the dropped
    /// members in rank order (its *alternates*). Nodes outside every group are untouched.
    pub fn collapse<T>(
        &self,
        ranked: &mut Vec<T>,
        node_of: impl Fn(&T) -> usize,
    ) -> BTreeMap<usize, Vec<usize>> {
        let mut alternates: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        if self.is_empty() {
            return alternates;
        }
        let mut kept_of_group: HashMap<u32, usize> = HashMap::new();
        ranked.retain(|r| {
            let node = node_of(r);
            match self.group_of(node) {
                None => true,
                Some(g) => match kept_of_group.get(&g) {
                    Some(&kept) => {
                        alternates.entry(kept).or_default().push(node);
                        false
                    }
                    None => {
                        kept_of_group.insert(g, node);
                        true
                    }
                },
            }
        });
        alternates
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stored(groups: &[&[&str]]) -> DuplicateGroups {
        DuplicateGroups {
            method: "test".into(),
            threshold: 0.7,
            groups: groups
                .iter()
                .map(|g| g.iter().map(|s| s.to_string()).collect())
                .collect(),
        }
    }

    #[test]
    fn collapse_keeps_the_best_member_and_lists_the_rest() {
        let ids = ["a", "b", "c", "d", "e"];
        let g = NodeGroups::new(&stored(&[&["a", "c", "e"]]), &ids, Path::new("x")).unwrap();
        assert_eq!((g.len(), g.group_of(2), g.group_of(1)), (1, Some(0), None));
        let mut r = vec![2, 1, 0, 3, 4];
        let alt = g.collapse(&mut r, |&n| n);
        assert_eq!(r, vec![2, 1, 3]);
        assert_eq!(alt, BTreeMap::from([(2, vec![0, 4])]));
    }

    /// Duplicates {a, c} and alternatives {c, e}, {b, d}: one slot for a, c and e (joined
    /// through c), one for b and d.
    #[test]
    fn alternative_groups_merge_with_duplicate_groups() {
        let ids = ["a", "b", "c", "d", "e", "f"];
        let p = Path::new("x");
        let dup = NodeGroups::new(&stored(&[&["a", "c"]]), &ids, p).unwrap();
        let alt = NodeGroups::new(&stored(&[&["b", "d"], &["c", "e"]]), &ids, p).unwrap();
        let m = dup.merged(&alt);
        assert_eq!(m.len(), 2);
        let g: Vec<Option<u32>> = (0..6).map(|i| m.group_of(i)).collect();
        assert_eq!(g, [Some(0), Some(1), Some(0), Some(1), Some(0), None]);
        let mut r = vec![4, 3, 0, 5, 1, 2];
        let alternates = m.collapse(&mut r, |&n| n);
        assert_eq!(r, vec![4, 3, 5]);
        assert_eq!(alternates, BTreeMap::from([(4, vec![0, 2]), (3, vec![1])]));
        assert_eq!(dup.merged(&NodeGroups::default()).group_of(2), Some(0));
    }

    #[test]
    fn inconsistent_groups_are_refused() {
        let ids = ["a", "b", "c"];
        let p = Path::new("ws/duplicates.json");
        let e = NodeGroups::new(&stored(&[&["a", "zz"]]), &ids, p).unwrap_err();
        assert!(e.to_string().contains("unknown skill `zz`"), "{e}");
        let e = NodeGroups::new(&stored(&[&["a", "b"], &["b", "c"]]), &ids, p).unwrap_err();
        assert!(e.to_string().contains("two duplicate groups"), "{e}");
        let e = NodeGroups::new(&stored(&[&["a"]]), &ids, p).unwrap_err();
        assert!(e.to_string().contains("fewer than two"), "{e}");
    }

    #[test]
    fn a_missing_file_means_no_groups() {
        let dir = tempfile::tempdir().unwrap();
        let g = NodeGroups::load(dir.path(), &["a", "b"]).unwrap();
        assert!(g.is_empty());
        let mut r = vec![1, 0];
        assert!(g.collapse(&mut r, |&n| n).is_empty());
        assert_eq!(r.len(), 2);
    }
}
