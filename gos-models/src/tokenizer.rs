//! Tokenizer setup shared by the sentence encoder ([`crate::dense::SentenceEncoder`]) and the
//! pair tokenization of the cross-encoders ([`crate::cross_encoder::CrossEncoder`]).
//!
//! Both pad a batch to its longest text, whatever padding the shipped tokenizer.json asks for
//! (all-MiniLM-L6-v2's says Fixed(128); ../shared/docs/toolchain-notes.md), and truncate at the
//! model's limit; they differ only in what a pair loses first ([`TruncationStrategy`]).

use tokenizers::{PaddingParams, PaddingStrategy, Tokenizer, TruncationParams, TruncationStrategy};

/// Configure `tokenizer` to pad each batch to its longest encoding with token `pad_id` (its
/// token text from the vocabulary, `[PAD]` when the vocabulary has none) and to truncate at
/// `max_length` tokens, special tokens included, with `strategy` (for single texts every
/// strategy cuts the end).
///
/// # Errors
/// The tokenizers crate's error when the truncation cannot be set (a `max_length` too small
/// for the special tokens).
pub(crate) fn pad_and_truncate(
    tokenizer: &mut Tokenizer,
    pad_id: u32,
    max_length: usize,
    strategy: TruncationStrategy,
) -> tokenizers::Result<()> {
    let pad_token = tokenizer
        .id_to_token(pad_id)
        .unwrap_or_else(|| "[PAD]".to_string());
    tokenizer.with_padding(Some(PaddingParams {
        strategy: PaddingStrategy::BatchLongest,
        pad_id,
        pad_token,
        ..PaddingParams::default()
    }));
    tokenizer.with_truncation(Some(TruncationParams {
        max_length,
        strategy,
        ..TruncationParams::default()
    }))?;
    Ok(())
}
