//! The query as the online stages see it, and how its text becomes weighted terms
//! ([`QueryParams`]: markup stripping, code-like token boosts, BM25 field boosts).

pub mod markup;

use crate::index::lexical::analyzer::{analyzer, tokens};
use crate::index::lexical::{FieldBoosts, LexicalIndex};
pub use markup::Markup;
use std::collections::BTreeMap;

/// Code-like token boost of hybrid seeds when [`QueryParams::code_boost`] is not set: 1.5.
/// A 4-fold CV over the 48 DEV tasks chose 1.5 in every fold with hybrid seeds (out-of-fold
/// bundle recall 0.747 and completeness 0.583 against 0.719 and 0.542, hit@1 equal); with
/// lexical seeds it lost out of fold (0.716 against 0.737), so lexical seeds keep 1
/// (docs/evaluation.md, "Query handling").
pub const DEFAULT_HYBRID_CODE_BOOST: f32 = 1.5;

/// How a query text becomes the weighted terms of the BM25 query.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct QueryParams {
    /// Markdown handling before analysis ([`Markup`]); [`Markup::Keep`] by default (stripping
    /// lost recall out of fold on DEV, docs/evaluation.md).
    pub markup: Markup,
    /// Query-term weight of the terms of code-like tokens ([`markup::code_like`]: inline
    /// code, file names, identifiers, flags), multiplying their BM25 clause boost; 1 turns it
    /// off. `None` (the default) is the seed source's default
    /// ([`crate::seed::SeedSource::default_code_boost`]).
    /// Must be finite and > 0.
    pub code_boost: Option<f32>,
    /// BM25 field boosts ([`FieldBoosts::default`] is [`crate::index::lexical::FIELD_BOOSTS`]).
    pub field_boosts: FieldBoosts,
}

/// One query: its text, its analyzed terms, and (for dense and hybrid seeds) its embeddings.
///
/// Built once per retrieval and shared by every stage, so the text is analyzed once.
#[derive(Debug, Clone, PartialEq)]
pub struct Query<'q> {
    /// The task text as given.
    pub text: &'q str,
    /// Analyzed terms with their counts ([`LexicalIndex::query_terms`]: simple tokenizer, lower
    /// case, English stop words, Porter stemming), of the text after [`QueryParams::markup`].
    pub terms: BTreeMap<String, u32>,
    /// Query-term weights other than 1 (terms of code-like tokens with
    /// [`QueryParams::code_boost`]); a term not listed weighs 1.
    pub boosts: BTreeMap<String, f32>,
    /// Unit-length query embeddings, the whole text first, then one per passage when query
    /// passages are on ([`crate::Retriever::embed_query`]); `None` for lexical seeds.
    pub vectors: Option<&'q [Vec<f32>]>,
}

impl<'q> Query<'q> {
    /// A query over `text` with its terms analyzed as given and no vectors (the default
    /// [`QueryParams`]).
    pub fn new(text: &'q str) -> Self {
        Query {
            text,
            terms: LexicalIndex::query_terms(text),
            boosts: BTreeMap::new(),
            vectors: None,
        }
    }

    /// A query over `text` prepared with `markup` ([`markup::prepare`]): terms of the
    /// stripped text, and the terms of its code-like tokens weighted by `code_boost` (when
    /// that is not 1). A path contributes its last component only.
    pub fn with_params(text: &'q str, markup: Markup, code_boost: f32) -> Self {
        if markup == Markup::Keep && code_boost == 1.0 {
            return Query::new(text);
        }
        let prepared = markup::prepare(text, markup);
        let terms = LexicalIndex::query_terms(&prepared.text);
        let mut boosts = BTreeMap::new();
        if code_boost != 1.0 {
            let mut a = analyzer();
            for span in &prepared.code {
                for word in span.split_whitespace() {
                    let word = markup::code_like(word).unwrap_or(word);
                    for t in tokens(&mut a, word) {
                        if terms.contains_key(&t) {
                            boosts.insert(t, code_boost);
                        }
                    }
                }
            }
        }
        Query {
            text,
            terms,
            boosts,
            vectors: None,
        }
    }

    /// The same query with `vectors` as its embeddings.
    pub fn with_vectors(mut self, vectors: &'q [Vec<f32>]) -> Self {
        self.vectors = Some(vectors);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_like_terms_get_the_boost_and_markup_leaves_the_terms() {
        let text = "Read `/root/scan_data.stl` and [the docs](https://trimesh.org), then \
                    write report.xlsx with openpyxl.";
        let plain = Query::new(text);
        assert!(plain.terms.contains_key("trimesh") && plain.terms.contains_key("https"));
        assert!(plain.boosts.is_empty());
        let q = Query::with_params(text, Markup::Strip, 2.0);
        let keys = |m: &BTreeMap<String, f32>| m.keys().cloned().collect::<Vec<_>>();
        // `root` of the path's folder is not boosted; `openpyxl` is plain prose, not code-like.
        assert_eq!(keys(&q.boosts), ["data", "report", "scan", "stl", "xlsx"]);
        assert!(q.boosts.values().all(|&b| b == 2.0));
        assert!(q.terms.contains_key("root") && !q.terms.contains_key("https"));
        assert_eq!(q.terms.get("doc"), Some(&1));
        // No markup handling and no boost give exactly `Query::new`.
        assert_eq!(Query::with_params(text, Markup::Keep, 1.0), plain);
    }
}
