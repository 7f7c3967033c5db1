//! The indexes of a workspace: what the first stage searches.
//!
//! - [`lexical`]: the tantivy BM25 index over the skills' fields, with its text analyzer
//!   ([`lexical::analyzer`]) and per-field boosts ([`lexical::FieldBoosts`]);
//! - [`dense`]: the skill vectors of one text view ([`dense::TextView`]), exact or HNSW
//!   nearest-neighbour search over them, and the interface of the model that embeds queries
//!   ([`dense::TextEmbedder`]).
//!
//! Both are opened with the workspace ([`crate::Workspace::lexical`],
//! [`crate::Workspace::dense`]) and read by the seeders ([`crate::seed`]).

pub mod dense;
pub mod lexical;
