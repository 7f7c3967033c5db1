//! The BERT encoder of the cross-encoder and of the sentence encoder
//! ([`crate::dense::SentenceEncoder`]) on candle's tensors (any device; both use it on a GPU,
//! and on the CPU convert it with [`BertEncoder::to_cpu`] to the packed, padding-free
//! [`CpuBert`]). The cross-encoder stage runs once per query over 20-100 pairs.
//!
//! Same arithmetic as Hugging Face `BertModel` (absolute positions, post-LayerNorm blocks), with
//! the work a pair does not need left out:
//! - the query, key and value projections are one matrix product (weights concatenated at
//!   load), and the 1/sqrt(head width) score scale is folded into the query weights, so no
//!   pass over the `heads x len x len` scores divides them;
//! - the padding mask is added only when the batch has padding (a batch of pairs of one
//!   length, or a single pair, has none);
//! - the fused last-dimension softmax of candle-nn.
//!
//! Weight names are those of `BertModel` (`embeddings.*`, `encoder.layer.N.*`), read under the
//! prefix the caller gives.

use candle_core::{D, DType, Module, Result, Tensor};
use candle_nn::{Embedding, LayerNorm, Linear, VarBuilder, layer_norm, linear};
use candle_transformers::models::bert::{Config, HiddenAct, PositionEmbeddingType};

use super::cpu::{self, CpuBert, CpuLayer, Dense, Head};
use super::kernels::{Activation, Norm};

struct Layer {
    qkv: Linear,
    out: Linear,
    ln_attention: LayerNorm,
    up: Linear,
    down: Linear,
    ln_output: LayerNorm,
}

/// A loaded BERT encoder.
pub(crate) struct BertEncoder {
    words: Embedding,
    positions: Tensor,
    types: Embedding,
    ln_embeddings: LayerNorm,
    layers: Vec<Layer>,
    heads: usize,
    head_dim: usize,
    act: HiddenAct,
    eps: f64,
}

impl BertEncoder {
    /// Load from `vb` (already at the encoder's prefix). Only absolute position embeddings are
    /// supported (every BERT cross-encoder and sentence encoder gos knows of uses them).
    pub(crate) fn load(vb: VarBuilder, config: &Config) -> Result<Self> {
        if config.position_embedding_type != PositionEmbeddingType::Absolute {
            candle_core::bail!("only absolute position embeddings are supported");
        }
        let h = config.hidden_size;
        let heads = config.num_attention_heads;
        if heads == 0 || !h.is_multiple_of(heads) {
            candle_core::bail!("hidden_size {h} is not a multiple of {heads} heads");
        }
        let head_dim = h / heads;
        let eps = config.layer_norm_eps;
        let e = vb.pp("embeddings");
        let words = candle_nn::embedding(config.vocab_size, h, e.pp("word_embeddings"))?;
        let positions = e.get(
            (config.max_position_embeddings, h),
            "position_embeddings.weight",
        )?;
        let types = candle_nn::embedding(config.type_vocab_size, h, e.pp("token_type_embeddings"))?;
        let ln_embeddings = layer_norm(h, eps, e.pp("LayerNorm"))?;
        let scale = 1.0 / (head_dim as f64).sqrt();
        let mut layers = Vec::with_capacity(config.num_hidden_layers);
        for l in 0..config.num_hidden_layers {
            let p = vb.pp(format!("encoder.layer.{l}"));
            let a = p.pp("attention");
            let s = a.pp("self");
            let w = |name: &str| s.get((h, h), &format!("{name}.weight"));
            let b = |name: &str| s.get(h, &format!("{name}.bias"));
            let qkv_w = Tensor::cat(&[(w("query")? * scale)?, w("key")?, w("value")?], 0)?;
            let qkv_b = Tensor::cat(&[(b("query")? * scale)?, b("key")?, b("value")?], 0)?;
            layers.push(Layer {
                qkv: Linear::new(qkv_w, Some(qkv_b)),
                out: linear(h, h, a.pp("output").pp("dense"))?,
                ln_attention: layer_norm(h, eps, a.pp("output").pp("LayerNorm"))?,
                up: linear(
                    h,
                    config.intermediate_size,
                    p.pp("intermediate").pp("dense"),
                )?,
                down: linear(config.intermediate_size, h, p.pp("output").pp("dense"))?,
                ln_output: layer_norm(h, eps, p.pp("output").pp("LayerNorm"))?,
            });
        }
        Ok(BertEncoder {
            words,
            positions,
            types,
            ln_embeddings,
            layers,
            heads,
            head_dim,
            act: config.hidden_act,
            eps,
        })
    }

    /// The same encoder, with `head` (pooler, classifier) when given, as plain f32 buffers
    /// for the CPU path ([`CpuBert`]), which packs sequences without padding.
    pub(crate) fn to_cpu(&self, head: Option<(&Linear, &Linear)>) -> Result<CpuBert> {
        let dense = |l: &Linear| -> Result<Dense> {
            match l.bias() {
                Some(b) => Dense::new(l.weight(), b),
                None => candle_core::bail!("a linear layer without bias"),
            }
        };
        let norm = |n: &LayerNorm| -> Result<Norm> {
            match n.bias() {
                Some(b) => cpu::norm(n.weight(), b, self.eps),
                None => candle_core::bail!("a LayerNorm without bias"),
            }
        };
        let flat = |t: &Tensor| t.flatten_all()?.to_vec1::<f32>();
        let layers = self
            .layers
            .iter()
            .map(|l| {
                Ok(CpuLayer {
                    qkv: dense(&l.qkv)?,
                    out: dense(&l.out)?,
                    ln_attention: norm(&l.ln_attention)?,
                    up: dense(&l.up)?,
                    down: dense(&l.down)?,
                    ln_output: norm(&l.ln_output)?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(CpuBert {
            words: flat(self.words.embeddings())?,
            positions: flat(&self.positions)?,
            types: flat(self.types.embeddings())?,
            ln_embeddings: norm(&self.ln_embeddings)?,
            layers,
            head: match head {
                Some((pooler, classifier)) => Some(Head {
                    pooler: dense(pooler)?,
                    classifier: dense(classifier)?,
                }),
                None => None,
            },
            hidden: self.heads * self.head_dim,
            heads: self.heads,
            act: match self.act {
                HiddenAct::Gelu => Activation::Gelu,
                HiddenAct::GeluApproximate => Activation::GeluTanh,
                HiddenAct::Relu => Activation::Relu,
            },
        })
    }

    /// Last hidden states `(batch, seq, hidden)` for `ids` and `types`, each `(batch, seq)`
    /// u32; `mask` (same shape, 1 = token, 0 = padding) is needed only when the batch is
    /// padded.
    pub(crate) fn forward(
        &self,
        ids: &Tensor,
        types: &Tensor,
        mask: Option<&Tensor>,
    ) -> Result<Tensor> {
        let (b, l) = ids.dims2()?;
        let x = self.words.forward(ids)?.add(&self.types.forward(types)?)?;
        let x = x.broadcast_add(&self.positions.narrow(0, 0, l)?)?;
        let mut x = self.ln_embeddings.forward(&x)?;
        // (b, 1, 1, l): 0 for tokens, f32::MIN for padding.
        let bias = match mask {
            Some(m) => Some(
                ((m.to_dtype(DType::F32)? - 1.0)? * f64::from(f32::MAX))?.reshape((b, 1, 1, l))?,
            ),
            None => None,
        };
        let (heads, d) = (self.heads, self.head_dim);
        let hidden = heads * d;
        for layer in &self.layers {
            let qkv = layer.qkv.forward(&x)?; // (b, l, 3 * hidden)
            let split = |i: usize| -> Result<Tensor> {
                qkv.narrow(D::Minus1, i * hidden, hidden)?
                    .reshape((b, l, heads, d))?
                    .transpose(1, 2)?
                    .contiguous()
            };
            let (q, k, v) = (split(0)?, split(1)?, split(2)?);
            let mut scores = q.matmul(&k.t()?)?; // (b, heads, l, l), already scaled
            if let Some(bias) = &bias {
                scores = scores.broadcast_add(bias)?;
            }
            let probs = candle_nn::ops::softmax_last_dim(&scores)?;
            let ctx = probs
                .matmul(&v)?
                .transpose(1, 2)?
                .contiguous()?
                .reshape((b, l, hidden))?;
            x = layer
                .ln_attention
                .forward(&layer.out.forward(&ctx)?.add(&x)?)?;
            let up = layer.up.forward(&x)?;
            let up = match self.act {
                HiddenAct::Gelu => up.gelu_erf()?,
                HiddenAct::GeluApproximate => up.gelu()?,
                HiddenAct::Relu => up.relu()?,
            };
            x = layer
                .ln_output
                .forward(&layer.down.forward(&up)?.add(&x)?)?;
        }
        Ok(x)
    }
}
