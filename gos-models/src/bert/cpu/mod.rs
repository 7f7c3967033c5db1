//! BERT (the sequence classifier and the sentence encoder) on the CPU without padding: every pair's tokens are packed one
//! after another into a `(tokens, hidden)` matrix, the per-token layers (projections,
//! feed-forward, LayerNorm) run over all of them at once, and attention runs per pair over its
//! own length. No position is ever computed for padding, whatever the spread of lengths.
//!
//! Same arithmetic as [`super::encoder::BertEncoder`] plus the pooler and head of
//! `crate::cross_encoder::bert::BertClassifier` (the query weights carry the 1/sqrt(head width) score
//! scale), on f32 slices with the kernels of [`super::kernels`]:
//! - the per-token work runs over blocks of [`BLOCK_ROWS`] rows, each block's product followed
//!   at once by its fused element-wise pass (bias and GELU; bias, residual and LayerNorm) while
//!   the block is in cache; the feed-forward block keeps its `BLOCK_ROWS x intermediate`
//!   activations in a block-local buffer. With many blocks (a batch of pairs) the blocks run in
//!   parallel on rayon's pool; with fewer than two per thread (one query: one block) each
//!   product is split by output columns across the pool instead, every task computing its own
//!   columns (and their bias and activation) from the weights' own panels, so nothing is packed
//!   twice;
//! - attention runs every (pair, head) in parallel, each head's products over strided views of
//!   the packed query/key/value matrix, the context written straight into its columns of the
//!   output (no head split or merge copies). On the panel kernel (AVX2 without AVX-512,
//!   [`super::panels`]) a head packs its keys and values once and then takes its queries 24
//!   rows at a time: scores, softmax and the product with the values while the rows' scores
//!   are in L1.

use super::kernels::{self, Activation, Norm, matmul, matmul_ptr};
use super::panels::{self, NR, Panels, matmul_panels};
use candle_core::{Result, Tensor};
use rayon::prelude::*;

mod dense;
pub(crate) use dense::Dense;
use dense::{Dest, Epilogue};

/// Rows per block of the per-token work. Each block's products re-pack the weights, so larger
/// blocks pack less: 256 rows of the 1,536-wide feed-forward activations are 1.5 MiB, inside a
/// core's 2 MiB L2 cache here, and 2,500 tokens still make 10 blocks for the pool. Measured on
/// the shallow-stage bench (20 pairs, 5,059 tokens, one thread): 64 rows 0.99 CPU-s, 128 rows
/// 0.91, 256 rows 0.86.
const BLOCK_ROWS: usize = 256;

/// Query rows per step of a head's fused scores / softmax / values pass on the panel kernel:
/// four 6-row micro-kernel tiles; 24 rows of 512 scores are 48 KiB, in L2 between the passes.
const ATTENTION_ROWS: usize = 24;

/// LayerNorm parameters from candle tensors.
pub(crate) fn norm(weight: &Tensor, bias: &Tensor, eps: f64) -> Result<Norm> {
    Ok(Norm {
        gamma: weight.to_vec1::<f32>()?,
        beta: bias.to_vec1::<f32>()?,
        eps: eps as f32,
    })
}

/// One encoder layer.
pub(crate) struct CpuLayer {
    /// Query (pre-scaled), key and value projections, concatenated: `3 x hidden` outputs.
    pub qkv: Dense,
    /// Attention output projection.
    pub out: Dense,
    /// LayerNorm after the attention block.
    pub ln_attention: Norm,
    /// Feed-forward up projection.
    pub up: Dense,
    /// Feed-forward down projection.
    pub down: Dense,
    /// LayerNorm after the feed-forward block.
    pub ln_output: Norm,
}

/// The pooler and classification head of a sequence classifier.
pub(crate) struct Head {
    /// Pooler over the `[CLS]` state (tanh follows).
    pub pooler: Dense,
    /// Classification head.
    pub classifier: Dense,
}

/// A BERT encoder, with a sequence-classification head or without one (a sentence encoder),
/// as plain f32 buffers.
pub(crate) struct CpuBert {
    /// Word embeddings, `(vocab, hidden)`.
    pub words: Vec<f32>,
    /// Position embeddings, `(max positions, hidden)`.
    pub positions: Vec<f32>,
    /// Token-type embeddings, `(types, hidden)`.
    pub types: Vec<f32>,
    /// LayerNorm of the embeddings.
    pub ln_embeddings: Norm,
    /// The encoder layers.
    pub layers: Vec<CpuLayer>,
    /// Pooler and classifier; `None` for a sentence encoder.
    pub head: Option<Head>,
    /// Hidden width.
    pub hidden: usize,
    /// Attention heads.
    pub heads: usize,
    /// Feed-forward activation.
    pub act: Activation,
}

/// Pairs packed without padding: pair `p` owns tokens `offsets[p]..offsets[p + 1]` of `ids`
/// and `types`.
pub(crate) struct Packed<'a> {
    /// Token ids, all pairs one after another.
    pub ids: &'a [u32],
    /// Token type ids, same layout.
    pub types: &'a [u32],
    /// `pairs + 1` offsets into `ids`, starting at 0.
    pub offsets: &'a [usize],
}

impl CpuBert {
    /// Logits, `num_labels` per pair, in pair order.
    ///
    /// # Errors
    /// When the model has no classification head, and see [`CpuBert::hidden_states`].
    pub(crate) fn logits(&self, input: &Packed) -> Result<Vec<Vec<f32>>> {
        let Some(head) = &self.head else {
            candle_core::bail!("the encoder has no classification head");
        };
        let x = self.hidden_states(input)?;
        Ok(self.head(head, &x, input.offsets))
    }

    /// Quantize the encoder layers' four linear layers (query/key/value, attention output,
    /// feed-forward up and down) to int8 ([`super::int8`]); embeddings, LayerNorms, attention
    /// scores and the classification head stay f32.
    pub(crate) fn quantize_int8(&mut self) {
        for l in &mut self.layers {
            for d in [&mut l.qkv, &mut l.out, &mut l.up, &mut l.down] {
                d.quantize_int8();
            }
        }
    }

    /// Last hidden states of every packed token, `(tokens, hidden)` row-major, in packing
    /// order.
    ///
    /// # Errors
    /// When a token id, a type id or a sequence's length is outside the model's tables, or
    /// the packing is inconsistent.
    pub(crate) fn hidden_states(&self, input: &Packed) -> Result<Vec<f32>> {
        let h = self.hidden;
        let tokens = input.ids.len();
        let offsets = input.offsets;
        if input.types.len() != tokens
            || offsets.first() != Some(&0)
            || offsets.last() != Some(&tokens)
            || offsets.windows(2).any(|w| w[0] >= w[1])
        {
            candle_core::bail!("inconsistent packed pairs ({tokens} tokens, {offsets:?})");
        }
        let vocab = self.words.len() / h;
        let type_count = self.types.len() / h;
        let max_len = self.positions.len() / h;
        if let Some(id) = input.ids.iter().find(|&&i| i as usize >= vocab) {
            candle_core::bail!("token id {id} outside the vocabulary of {vocab}");
        }
        if let Some(t) = input.types.iter().find(|&&t| t as usize >= type_count) {
            candle_core::bail!("token type {t} outside the {type_count} types");
        }
        if let Some(w) = offsets.windows(2).find(|w| w[1] - w[0] > max_len) {
            candle_core::bail!(
                "pair of {} tokens over the {max_len} positions",
                w[1] - w[0]
            );
        }
        let mut x = self.embed(input);
        let mut qkv = vec![0.0f32; tokens * 3 * h];
        let mut ctx = vec![0.0f32; tokens * h];
        for layer in &self.layers {
            self.attention(layer, &mut x, &mut qkv, &mut ctx, offsets);
            self.feed_forward(layer, &mut x);
        }
        Ok(x)
    }

    /// Word + position + type embeddings, LayerNorm: `(tokens, hidden)`.
    fn embed(&self, input: &Packed) -> Vec<f32> {
        let h = self.hidden;
        let mut x = vec![0.0f32; input.ids.len() * h];
        x.par_chunks_mut(h)
            .enumerate()
            .with_min_len(BLOCK_ROWS)
            .for_each(|(t, row)| {
                // The pair of token t and its position in it.
                let p = input.offsets.partition_point(|&o| o <= t) - 1;
                let pos = t - input.offsets[p];
                let (id, ty) = (input.ids[t] as usize, input.types[t] as usize);
                let w = &self.words[id * h..(id + 1) * h];
                let q = &self.positions[pos * h..(pos + 1) * h];
                let y = &self.types[ty * h..(ty + 1) * h];
                for (((v, a), b), c) in row.iter_mut().zip(w).zip(q).zip(y) {
                    *v = a + b + c;
                }
                kernels::bias_layer_norm(row, &[], &self.ln_embeddings);
            });
        x
    }

    /// Whether the per-token work of `tokens` rows splits each product by columns (few row
    /// blocks) rather than running the blocks in parallel (at least two per thread).
    fn split_columns(tokens: usize) -> bool {
        tokens.div_ceil(BLOCK_ROWS) < 2 * rayon::current_num_threads()
    }

    /// `x = LayerNorm(x + attention(x))`, with `qkv` and `ctx` as scratch.
    fn attention(
        &self,
        layer: &CpuLayer,
        x: &mut [f32],
        qkv: &mut [f32],
        ctx: &mut [f32],
        offsets: &[usize],
    ) {
        let h = self.hidden;
        let w3 = 3 * h;
        let split = Self::split_columns(x.len() / h);
        let project = |(q, xb): (&mut [f32], &[f32])| {
            layer
                .qkv
                .product(xb, xb.len() / h, q, false, Epilogue::Bias, split);
        };
        if split {
            qkv.chunks_mut(BLOCK_ROWS * w3)
                .zip(x.chunks(BLOCK_ROWS * h))
                .for_each(project);
        } else {
            qkv.par_chunks_mut(BLOCK_ROWS * w3)
                .zip(x.par_chunks(BLOCK_ROWS * h))
                .for_each(project);
        }
        // Every (pair, head) is a task of its own; each writes its head's columns of its pair's
        // rows of `ctx`.
        let tasks: Vec<(usize, usize, usize)> = offsets
            .windows(2)
            .flat_map(|w| (0..self.heads).map(move |head| (w[0], w[1] - w[0], head)))
            .collect();
        let dest = Dest(ctx.as_mut_ptr());
        let qkv = &*qkv;
        tasks
            .into_par_iter()
            .for_each_init(HeadScratch::default, |scratch, (start, len, head)| {
                // SAFETY: `ctx` holds every token's `hidden` columns; this task alone writes rows
                // `start..start + len`, columns of `head`.
                unsafe { self.attention_head(qkv, start, len, head, dest, scratch) };
            });
        // x = LayerNorm(x + ctx · Woᵀ + bo), block by block.
        let ctx = &*ctx;
        let output = |(xb, cb): (&mut [f32], &[f32])| {
            layer
                .out
                .product(cb, cb.len() / h, xb, true, Epilogue::None, split);
            self.layer_norm(xb, &layer.out.bias, &layer.ln_attention, split);
        };
        if split {
            x.chunks_mut(BLOCK_ROWS * h)
                .zip(ctx.chunks(BLOCK_ROWS * h))
                .for_each(output);
        } else {
            x.par_chunks_mut(BLOCK_ROWS * h)
                .zip(ctx.par_chunks(BLOCK_ROWS * h))
                .for_each(output);
        }
    }

    /// One head of one pair: `ctx[rows, head's columns] = softmax(Q Kᵀ) V` over the pair's
    /// `len` tokens from `start` (the scale is in Q).
    ///
    /// # Safety
    /// `ctx` valid for every token's `hidden` columns; no other thread touches rows
    /// `start..start + len`, columns `head · d..(head + 1) · d`.
    unsafe fn attention_head(
        &self,
        qkv: &[f32],
        start: usize,
        len: usize,
        head: usize,
        ctx: Dest,
        scratch: &mut HeadScratch,
    ) {
        let h = self.hidden;
        let d = h / self.heads;
        let w3 = 3 * h;
        let c = head * d;
        let base = &qkv[start * w3..];
        // SAFETY (both arms): the destination is row `start`, column `c` of `ctx`, and this
        // task's rows and columns are the caller's.
        let out = unsafe { ctx.0.add(start * h + c) };
        if panels::panels_preferred() {
            // Kᵀ as a d x len right-hand side: element (p, j) is K[j][p].
            scratch.keys.pack(&base[h + c..], (d, len), 1, w3);
            // V as a len x d right-hand side.
            scratch.values.pack(&base[2 * h + c..], (len, d), w3, 1);
            let stride = scratch.keys.panels() * NR;
            scratch.scores.resize(ATTENTION_ROWS * stride, 0.0);
            let mut i0 = 0;
            while i0 < len {
                let rows = ATTENTION_ROWS.min(len - i0);
                let scores = &mut scratch.scores;
                // SAFETY: `scores` holds `rows` rows of `stride` >= len columns.
                unsafe {
                    let keys = &scratch.keys;
                    let q = &base[i0 * w3 + c..];
                    matmul_panels(
                        rows,
                        q,
                        w3,
                        keys,
                        0..keys.panels(),
                        scores.as_mut_ptr(),
                        stride,
                        false,
                    );
                }
                for row in scores.chunks_exact_mut(stride).take(rows) {
                    kernels::softmax_rows(&mut row[..len], len);
                }
                // SAFETY: rows i0..i0 + rows of this task's block of `ctx`.
                unsafe {
                    let values = &scratch.values;
                    let dst = out.add(i0 * h);
                    matmul_panels(
                        rows,
                        scores,
                        stride,
                        values,
                        0..values.panels(),
                        dst,
                        h,
                        false,
                    );
                }
                i0 += rows;
            }
        } else {
            let scores = &mut scratch.scores;
            scores.resize(len * len, 0.0);
            // scores = Q Kᵀ: K's rows are read as columns.
            matmul(
                (len, len, d),
                &base[c..],
                w3,
                (&base[h + c..], 1, w3),
                scores,
                len,
                false,
            );
            kernels::softmax_rows(&mut scores[..len * len], len);
            // SAFETY: `len` rows of `d` columns at stride `hidden` from `out`, this task's.
            unsafe {
                matmul_ptr(
                    (len, d, len),
                    scores,
                    len,
                    (&base[2 * h + c..], w3, 1),
                    out,
                    h,
                    false,
                );
            }
        }
    }

    /// `rows = LayerNorm(rows + bias)`, over row chunks in parallel when `split`.
    fn layer_norm(&self, rows: &mut [f32], bias: &[f32], norm: &Norm, split: bool) {
        if split {
            rows.par_chunks_mut(32 * self.hidden)
                .for_each(|r| kernels::bias_layer_norm(r, bias, norm));
        } else {
            kernels::bias_layer_norm(rows, bias, norm);
        }
    }

    /// `x = LayerNorm(x + down(act(up(x))))`, block by block, the activations block-local.
    fn feed_forward(&self, layer: &CpuLayer, x: &mut [f32]) {
        let h = self.hidden;
        let inter = layer.up.outputs;
        let split = Self::split_columns(x.len() / h);
        let block = |xb: &mut [f32]| {
            let rows = xb.len() / h;
            let mut up = vec![0.0f32; rows * inter];
            let act = Epilogue::BiasActivation(self.act);
            layer.up.product(xb, rows, &mut up, false, act, split);
            layer
                .down
                .product(&up, rows, xb, true, Epilogue::None, split);
            self.layer_norm(xb, &layer.down.bias, &layer.ln_output, split);
        };
        if split {
            x.chunks_mut(BLOCK_ROWS * h).for_each(block);
        } else {
            x.par_chunks_mut(BLOCK_ROWS * h).for_each(block);
        }
    }

    /// `classifier(tanh(pooler(h[CLS])))` for each pair (its first token).
    fn head(&self, head: &Head, x: &[f32], offsets: &[usize]) -> Vec<Vec<f32>> {
        let h = self.hidden;
        let pairs = offsets.len() - 1;
        let mut cls = Vec::with_capacity(pairs * h);
        for &o in &offsets[..pairs] {
            cls.extend_from_slice(&x[o * h..(o + 1) * h]);
        }
        let mut pooled = vec![0.0f32; pairs * h];
        head.pooler
            .product(&cls, pairs, &mut pooled, false, Epilogue::None, false);
        for row in pooled.chunks_exact_mut(h) {
            for (v, b) in row.iter_mut().zip(&head.pooler.bias) {
                *v = (*v + b).tanh();
            }
        }
        let labels = head.classifier.outputs;
        let mut logits = vec![0.0f32; pairs * labels];
        head.classifier
            .product(&pooled, pairs, &mut logits, false, Epilogue::Bias, false);
        logits.chunks_exact(labels).map(<[f32]>::to_vec).collect()
    }
}

/// A head task's buffers, reused across the tasks a rayon job runs.
#[derive(Default)]
struct HeadScratch {
    /// The head's keys as panels (panel kernel only).
    keys: Panels,
    /// The head's values as panels (panel kernel only).
    values: Panels,
    /// Scores: [`ATTENTION_ROWS`] rows of the padded length (panel kernel), or `len x len`.
    scores: Vec<f32>,
}
