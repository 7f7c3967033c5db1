//! The BERT encoder shared by the sentence encoder ([`crate::dense::SentenceEncoder`]) and the
//! BERT cross-encoder ([`crate::cross_encoder::CrossEncoder`]).
//!
//! - [`encoder`]: [`BertEncoder`] on candle's tensors (any device; padded batches);
//! - [`cpu`]: [`CpuBert`], the same model as plain f32 buffers on the CPU, texts or pairs
//!   packed without padding (both model kinds convert to it on the CPU);
//! - [`kernels`]: the hand-written matrix-product and element-wise kernels [`CpuBert`] runs on.

pub(crate) mod cpu;
pub(crate) mod encoder;
pub(crate) mod kernels;

pub(crate) use cpu::{CpuBert, Packed};
pub(crate) use encoder::BertEncoder;
