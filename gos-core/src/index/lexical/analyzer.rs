//! The text analyzer shared by the BM25 index, the query terms and field-evidence reranking.
//!
//! One analyzer is used everywhere so that the tokens a query is scored with in BM25 and in
//! field evidence are the same: tantivy's simple tokenizer (runs of alphanumerics), tokens
//! longer than 40 bytes removed, lower-casing, English stop words removed, English (Porter)
//! stemming. Markup in queries (`**`, backticks, `#`) never reaches a query parser: queries are
//! built term by term (the peer's FTS5 crash on `**` is the lesson, peers-on-our-data.md).

use std::collections::BTreeMap;
use tantivy::tokenizer::{
    Language, LowerCaser, RemoveLongFilter, SimpleTokenizer, Stemmer, StopWordFilter, TextAnalyzer,
};

/// Name under which the analyzer is registered in the tantivy index.
pub const ANALYZER_NAME: &str = "gos_en";

/// Build the shared analyzer.
pub fn analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(RemoveLongFilter::limit(40))
        .filter(LowerCaser)
        .filter(StopWordFilter::new(Language::English).expect("English stop words are built in"))
        .filter(Stemmer::new(Language::English))
        .build()
}

/// Tokens of `text` in order, with repeats.
pub fn tokens(analyzer: &mut TextAnalyzer, text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut stream = analyzer.token_stream(text);
    while stream.advance() {
        out.push(stream.token().text.clone());
    }
    out
}

/// Term frequencies of `text`, in sorted term order.
pub fn term_counts(analyzer: &mut TextAnalyzer, text: &str) -> BTreeMap<String, u32> {
    let mut counts = BTreeMap::new();
    for t in tokens(analyzer, text) {
        *counts.entry(t).or_insert(0) += 1;
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn analyzer_stems_and_drops_stop_words_and_markup() {
        let mut a = analyzer();
        assert_eq!(
            tokens(&mut a, "**Parse** the `STL` meshes, and-then write CSVs!"),
            vec!["pars", "stl", "mesh", "write", "csvs"]
        );
    }
}
