//! The graph operations a retrieval can apply to its seeds.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::str::FromStr;

/// Graph operation applied to the seeds (the ablation arms of \[P\] Table 2, reference notes §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
pub enum RetrievalMode {
    /// Reverse-aware PPR: prerequisites of seeded skills receive mass (the GoS default).
    #[default]
    Reverse,
    /// PPR with every reverse factor zero: mass only flows producer -> consumer.
    Forward,
    /// Seeds plus the direct dependency predecessors of each seed, no diffusion.
    OneHop,
    /// Seeds and the lexical pool only, no graph.
    NoGraph,
}

impl RetrievalMode {
    /// All modes, the default first.
    pub const ALL: [RetrievalMode; 4] = [
        RetrievalMode::Reverse,
        RetrievalMode::Forward,
        RetrievalMode::OneHop,
        RetrievalMode::NoGraph,
    ];

    /// Command-line name (`reverse`, `forward`, `one-hop`, `no-graph`).
    pub fn as_str(self) -> &'static str {
        match self {
            RetrievalMode::Reverse => "reverse",
            RetrievalMode::Forward => "forward",
            RetrievalMode::OneHop => "one-hop",
            RetrievalMode::NoGraph => "no-graph",
        }
    }
}

impl FromStr for RetrievalMode {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        RetrievalMode::ALL
            .into_iter()
            .find(|m| m.as_str() == s)
            .ok_or_else(|| Error::InvalidOption {
                name: "RetrieveOptions::mode",
                reason: format!("`{s}` is not one of reverse, forward, one-hop, no-graph"),
            })
    }
}

impl std::fmt::Display for RetrievalMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
