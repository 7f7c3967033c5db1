//! The BERT encoder shared by the sentence encoder ([`crate::dense::SentenceEncoder`]) and the
//! BERT cross-encoder ([`crate::cross_encoder::CrossEncoder`]).
//!
//! - [`encoder`]: [`BertEncoder`] on candle's tensors (any device; padded batches);
//! - [`cpu`]: [`CpuBert`], the same model as plain f32 buffers on the CPU, texts or pairs
//!   packed without padding (both model kinds convert to it on the CPU);
//! - [`kernels`]: the hand-written matrix-product and element-wise kernels [`CpuBert`] runs on;
//! - [`panels`]: weights packed once into column panels and the AVX2 + FMA micro-kernel that
//!   multiplies by them (CPUs with AVX2 but without AVX-512);
//! - [`int8`]: int8 weights and the integer product of the opt-in int8 query encoder.

pub(crate) mod cpu;
pub(crate) mod encoder;
pub(crate) mod int8;
pub(crate) mod kernels;
pub(crate) mod panels;

pub(crate) use cpu::{CpuBert, Packed};
pub(crate) use encoder::BertEncoder;
