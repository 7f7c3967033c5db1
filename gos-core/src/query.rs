//! The query as the online stages see it.

use crate::lexical::LexicalIndex;
use std::collections::BTreeMap;

/// One query: its text, its analyzed terms, and (for dense and hybrid seeds) its embeddings.
///
/// Built once per retrieval and shared by every stage, so the text is analyzed once.
#[derive(Debug, Clone, PartialEq)]
pub struct Query<'q> {
    /// The task text as given.
    pub text: &'q str,
    /// Analyzed terms with their counts ([`LexicalIndex::query_terms`]: simple tokenizer, lower
    /// case, English stop words, Porter stemming).
    pub terms: BTreeMap<String, u32>,
    /// Unit-length query embeddings, the whole text first, then one per passage when query
    /// passages are on ([`crate::Retriever::embed_query`]); `None` for lexical seeds.
    pub vectors: Option<&'q [Vec<f32>]>,
}

impl<'q> Query<'q> {
    /// A query over `text` with its terms analyzed and no vectors.
    pub fn new(text: &'q str) -> Self {
        Query {
            text,
            terms: LexicalIndex::query_terms(text),
            vectors: None,
        }
    }

    /// The same query with `vectors` as its embeddings.
    pub fn with_vectors(mut self, vectors: &'q [Vec<f32>]) -> Self {
        self.vectors = Some(vectors);
        self
    }
}
