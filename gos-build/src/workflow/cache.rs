//! The workflow pass's cache of live rebuilds (`crate::stage_cache`): each body's claims from
//! the previous build, by position and package content.

use super::{BodyClaims, WorkflowOptions};
use gos_core::SkillNode;
use sha2::{Digest, Sha256};
use std::sync::Arc;

/// Each body's workflow claims from the previous build, valid while the node names, folders,
/// copy groups and options are the same (their digest).
#[derive(Default)]
pub(crate) struct WorkflowCache {
    context: [u8; 32],
    /// Per position: the SKILL.md hash and body length read, and the claims found.
    bodies: Vec<(String, usize, Arc<BodyClaims>)>,
    /// Bodies whose claims the last build took from the cache.
    pub(crate) reused: usize,
}

impl WorkflowCache {
    /// Begin a build: drop every entry when what claims resolve against changed.
    pub(crate) fn start(
        &mut self,
        nodes: &[SkillNode],
        group_of: &[Option<usize>],
        opts: &WorkflowOptions,
    ) {
        let mut h = Sha256::new();
        for (node, group) in nodes.iter().zip(group_of) {
            for text in [node.id.as_str(), node.name.as_str()] {
                h.update((text.len() as u64).to_le_bytes());
                h.update(text.as_bytes());
            }
            h.update(group.map_or(u64::MAX, |g| g as u64).to_le_bytes());
        }
        h.update(format!("{opts:?}").as_bytes());
        let context: [u8; 32] = h.finalize().into();
        if context != self.context {
            self.context = context;
            self.bodies.clear();
        }
    }

    /// The claims of the body of `node` at position `me`, if it is the one read last time.
    pub(crate) fn get(&self, me: usize, node: &SkillNode, body: &str) -> Option<Arc<BodyClaims>> {
        let (hash, len, claims) = self.bodies.get(me)?;
        (*hash == node.content_hash && *len == body.len()).then(|| Arc::clone(claims))
    }

    /// Keep this build's claims (and nothing older), `reused` of them taken from the cache.
    pub(crate) fn keep(
        &mut self,
        nodes: &[SkillNode],
        bodies: &[&str],
        claims: &[Arc<BodyClaims>],
        reused: usize,
    ) {
        self.reused = reused;
        self.bodies = nodes
            .iter()
            .zip(bodies)
            .zip(claims)
            .map(|((n, b), c)| (n.content_hash.clone(), b.len(), Arc::clone(c)))
            .collect();
    }
}
