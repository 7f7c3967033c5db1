//! BERT (the sequence classifier and the sentence encoder) on the CPU without padding: every pair's tokens are packed one
//! after another into a `(tokens, hidden)` matrix, the per-token layers (projections,
//! feed-forward, LayerNorm) run over all of them at once, and attention runs per pair over its
//! own length. No position is ever computed for padding, whatever the spread of lengths.
//!
//! Same arithmetic as [`super::encoder::BertEncoder`] plus the pooler and head of
//! `crate::cross_encoder::bert::BertClassifier` (the query weights carry the 1/sqrt(head width) score
//! scale), on f32 slices with the kernels of [`super::kernels`]:
//! - the per-token work runs over blocks of [`BLOCK_ROWS`] rows in parallel on rayon's pool,
//!   each block's product followed at once by its fused element-wise pass (bias and GELU;
//!   bias, residual and LayerNorm) while the block is in cache; the feed-forward block keeps
//!   its `BLOCK_ROWS x intermediate` activations in a block-local buffer;
//! - attention runs pairs in parallel, each head as two single-threaded products over strided
//!   views of the packed query/key/value matrix, the context written straight into its
//!   columns of the output (no head split or merge copies).

use super::kernels::{self, Activation, Norm, matmul};
use candle_core::{Result, Tensor};
use rayon::prelude::*;

/// Rows per block of the per-token work. Each block's products re-pack the weights, so larger
/// blocks pack less: 256 rows of the 1,536-wide feed-forward activations are 1.5 MiB, inside a
/// core's 2 MiB L2 cache here, and 2,500 tokens still make 10 blocks for the pool. Measured on
/// the shallow-stage bench (20 pairs, 5,059 tokens, one thread): 64 rows 0.99 CPU-s, 128 rows
/// 0.91, 256 rows 0.86.
const BLOCK_ROWS: usize = 256;

/// A linear layer, its weight transposed at load to `(inputs, outputs)` row-major: gemm reads
/// that layout with unit strides (PyTorch's `(outputs, inputs)` made it gather the weight
/// element by element on every call, ~30% of the stage's time).
pub(crate) struct Dense {
    weight_t: Vec<f32>,
    bias: Vec<f32>,
    inputs: usize,
    outputs: usize,
}

impl Dense {
    /// From a `(outputs, inputs)` weight and an `outputs` bias.
    pub(crate) fn new(weight: &Tensor, bias: &Tensor) -> Result<Self> {
        let (outputs, inputs) = weight.dims2()?;
        let bias = bias.flatten_all()?.to_vec1::<f32>()?;
        if bias.len() != outputs {
            candle_core::bail!("bias of {} for {outputs} outputs", bias.len());
        }
        Ok(Dense {
            weight_t: weight.t()?.contiguous()?.flatten_all()?.to_vec1::<f32>()?,
            bias,
            inputs,
            outputs,
        })
    }

    /// `out = x · Wᵀ` (or `out += x · Wᵀ` when `accumulate`) for `rows` rows of `x`; the
    /// bias is left to the caller's fused pass.
    fn product(&self, x: &[f32], rows: usize, out: &mut [f32], accumulate: bool) {
        matmul(
            (rows, self.outputs, self.inputs),
            x,
            self.inputs,
            (&self.weight_t, self.outputs, 1),
            out,
            self.outputs,
            accumulate,
        );
    }
}

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
        let (heads, d) = (self.heads, self.hidden / self.heads);
        let w3 = 3 * h;
        qkv.par_chunks_mut(BLOCK_ROWS * w3)
            .zip(x.par_chunks(BLOCK_ROWS * h))
            .for_each(|(q, xb)| {
                layer.qkv.product(xb, xb.len() / h, q, false);
                kernels::add_bias(q, &layer.qkv.bias);
            });
        // Each pair's context rows, disjoint slices of `ctx`.
        let mut pairs: Vec<(usize, &mut [f32])> = Vec::with_capacity(offsets.len());
        let mut rest: &mut [f32] = &mut *ctx;
        for w in offsets.windows(2) {
            let (mine, tail) = rest.split_at_mut((w[1] - w[0]) * h);
            pairs.push((w[0], mine));
            rest = tail;
        }
        let qkv = &*qkv;
        pairs.into_par_iter().for_each(|(start, out)| {
            let len = out.len() / h;
            let mut scores = vec![0.0f32; len * len];
            let base = &qkv[start * w3..];
            for head in 0..heads {
                let c = head * d;
                // scores = Q Kᵀ (the scale is in Q): K's rows are read as columns.
                matmul(
                    (len, len, d),
                    &base[c..],
                    w3,
                    (&base[h + c..], 1, w3),
                    &mut scores,
                    len,
                    false,
                );
                kernels::softmax_rows(&mut scores, len);
                matmul(
                    (len, d, len),
                    &scores,
                    len,
                    (&base[2 * h + c..], w3, 1),
                    &mut out[c..],
                    h,
                    false,
                );
            }
        });
        // x = LayerNorm(x + ctx · Woᵀ + bo), block by block.
        let ctx = &*ctx;
        x.par_chunks_mut(BLOCK_ROWS * h)
            .zip(ctx.par_chunks(BLOCK_ROWS * h))
            .for_each(|(xb, cb)| {
                layer.out.product(cb, cb.len() / h, xb, true);
                kernels::bias_layer_norm(xb, &layer.out.bias, &layer.ln_attention);
            });
    }

    /// `x = LayerNorm(x + down(act(up(x))))`, block by block, the activations block-local.
    fn feed_forward(&self, layer: &CpuLayer, x: &mut [f32]) {
        let h = self.hidden;
        let inter = layer.up.outputs;
        x.par_chunks_mut(BLOCK_ROWS * h).for_each(|xb| {
            let rows = xb.len() / h;
            let mut up = vec![0.0f32; rows * inter];
            layer.up.product(xb, rows, &mut up, false);
            kernels::bias_activation(&mut up, &layer.up.bias, self.act);
            layer.down.product(&up, rows, xb, true);
            kernels::bias_layer_norm(xb, &layer.down.bias, &layer.ln_output);
        });
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
        head.pooler.product(&cls, pairs, &mut pooled, false);
        for row in pooled.chunks_exact_mut(h) {
            for (v, b) in row.iter_mut().zip(&head.pooler.bias) {
                *v = (*v + b).tanh();
            }
        }
        let labels = head.classifier.outputs;
        let mut logits = vec![0.0f32; pairs * labels];
        head.classifier.product(&pooled, pairs, &mut logits, false);
        kernels::add_bias(&mut logits, &head.classifier.bias);
        logits.chunks_exact(labels).map(<[f32]>::to_vec).collect()
    }
}
