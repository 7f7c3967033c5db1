//! BERT-family sequence classifier: the layout of Hugging Face `BertForSequenceClassification`
//! (the ms-marco MiniLM cross-encoders).
//!
//! `logits = classifier(tanh(pooler(h\[CLS\])))`, where `h` is the last hidden state of the BERT
//! encoder ([`BertEncoder`], the crate's CPU-lean implementation of `BertModel`), `pooler` a `hidden x hidden` linear layer and
//! `classifier` a `hidden x num_labels` linear layer. On the CPU, [`BertClassifier::to_cpu`]
//! gives the same model as [`CpuBert`], which runs pairs packed without padding. Weight names: `bert.*` for the encoder
//! (or no prefix), `bert.pooler.dense.{weight,bias}`, `classifier.{weight,bias}`.

use candle_core::{IndexOp, Module, Result, Tensor};
use candle_nn::{Linear, VarBuilder, linear};
use candle_transformers::models::bert::Config;

use crate::bert::{BertEncoder, CpuBert};

/// A loaded BERT sequence classifier.
pub(crate) struct BertClassifier {
    bert: BertEncoder,
    pooler: Linear,
    classifier: Linear,
}

impl BertClassifier {
    /// Load from the root of a `BertForSequenceClassification` checkpoint. The encoder and
    /// pooler are read under `bert.` when the checkpoint has that prefix, else at the root.
    pub(crate) fn load(vb: VarBuilder, config: &Config, num_labels: usize) -> Result<Self> {
        let encoder_vb = if vb.contains_tensor("bert.embeddings.word_embeddings.weight") {
            vb.pp("bert")
        } else {
            vb.clone()
        };
        let bert = BertEncoder::load(encoder_vb.clone(), config)?;
        let pooler = linear(
            config.hidden_size,
            config.hidden_size,
            encoder_vb.pp("pooler").pp("dense"),
        )?;
        let classifier = linear(config.hidden_size, num_labels, vb.pp("classifier"))?;
        Ok(BertClassifier {
            bert,
            pooler,
            classifier,
        })
    }

    /// The same classifier as plain f32 buffers for the CPU path over packed pairs.
    pub(crate) fn to_cpu(&self) -> Result<CpuBert> {
        self.bert.to_cpu(Some((&self.pooler, &self.classifier)))
    }

    /// Logits `(batch, num_labels)` for `ids`, `types` and `mask`, each `(batch, seq)` u32;
    /// `mask` is needed only when the batch is padded.
    pub(crate) fn forward(
        &self,
        ids: &Tensor,
        types: &Tensor,
        mask: Option<&Tensor>,
    ) -> Result<Tensor> {
        let hidden = self.bert.forward(ids, types, mask)?; // (batch, seq, hidden)
        let cls = hidden.i((.., 0))?.contiguous()?; // (batch, hidden)
        let pooled = self.pooler.forward(&cls)?.tanh()?;
        self.classifier.forward(&pooled)
    }
}
