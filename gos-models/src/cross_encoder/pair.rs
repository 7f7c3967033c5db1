//! Pair tokenization: `(query, document)` through the model's own tokenizer.json, with the
//! special-token template that file defines (`\[CLS\] q \[SEP\] d \[SEP\]` for BERT,
//! `<s> q </s></s> d </s>` for XLM-R), padding to the longest pair of the batch, and a
//! truncation that keeps the query and cuts the document.
//!
//! Truncation: a query longer than half of `max_length` tokens is first cut to that many
//! tokens (at a token boundary, in the query's own text), so that the document always keeps at
//! least `max_length / 2 - specials` tokens; the pair is then truncated with the `only_second`
//! strategy of the tokenizers crate (tokens removed from the end of the document only). The
//! ms-marco and bge cross-encoders use a 512-token limit; Hugging Face's default
//! `longest_first` would cut a long task description, which carries the intent.

use tokenizers::{EncodeInput, Encoding, Tokenizer};

/// The query cut to at most `max_tokens` tokens (no special tokens counted), at the end byte
/// of its last kept token; unchanged when short enough. `tokenizer` must not truncate.
pub(crate) fn cap_query<'q>(
    tokenizer: &Tokenizer,
    query: &'q str,
    max_tokens: usize,
) -> tokenizers::Result<&'q str> {
    let enc = tokenizer.encode(query, false)?;
    let offsets = enc.get_offsets();
    if offsets.len() <= max_tokens {
        return Ok(query);
    }
    let end = offsets[..max_tokens]
        .iter()
        .map(|o| o.1)
        .max()
        .unwrap_or(0)
        .min(query.len());
    // Offsets are byte offsets into the original text on char boundaries; stay safe anyway.
    let mut end = end;
    while !query.is_char_boundary(end) {
        end -= 1;
    }
    Ok(&query[..end])
}

/// Encode `(query, doc)` for every document with `pairs` (configured by
/// [`crate::tokenizer::pad_and_truncate`] with the `OnlySecond` strategy),
/// padded to the batch's longest pair; the query is capped with `plain`, the same tokenizer
/// without truncation or padding.
pub(crate) fn encode_pairs(
    plain: &Tokenizer,
    pairs: &Tokenizer,
    query: &str,
    docs: &[&str],
    max_length: usize,
) -> tokenizers::Result<Vec<Encoding>> {
    let query = cap_query(plain, query, max_length / 2)?;
    let inputs: Vec<EncodeInput> = docs
        .iter()
        .map(|d| EncodeInput::from((query.to_string(), d.to_string())))
        .collect();
    pairs.encode_batch(inputs, true)
}
