//! XLM-RoBERTa sequence classifier: the layout of Hugging Face
//! `XLMRobertaForSequenceClassification` (the bge-reranker family).
//!
//! candle-transformers 0.11 already implements the whole model
//! ([`XLMRobertaForSequenceClassification`]: position ids counted from `pad_token_id + 1` over
//! non-padding tokens, no pooler, head `out_proj(tanh(dense(h[<s>])))`); this module only adapts
//! it to the crate's calling convention. Weight names: `roberta.*`,
//! `classifier.dense.{weight,bias}`, `classifier.out_proj.{weight,bias}`.

use candle_core::{Result, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::xlm_roberta::{Config, XLMRobertaForSequenceClassification};

/// A loaded XLM-RoBERTa sequence classifier.
pub(crate) struct XlmRobertaClassifier {
    model: XLMRobertaForSequenceClassification,
}

impl XlmRobertaClassifier {
    /// Load from the root of an `XLMRobertaForSequenceClassification` checkpoint.
    pub(crate) fn load(vb: VarBuilder, config: &Config, num_labels: usize) -> Result<Self> {
        Ok(XlmRobertaClassifier {
            model: XLMRobertaForSequenceClassification::new(num_labels, config, vb)?,
        })
    }

    /// Logits `(batch, num_labels)` for `ids`, `types` and `mask`, each `(batch, seq)` u32.
    /// XLM-R has one token type, so `types` must be all zeros.
    pub(crate) fn forward(&self, ids: &Tensor, types: &Tensor, mask: &Tensor) -> Result<Tensor> {
        self.model.forward(ids, mask, types)
    }
}
