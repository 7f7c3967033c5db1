//! Qwen3-based reranker (the layout of Qwen3-Reranker-0.6B and of SkillRouter's
//! SR-Rank-0.6B): a Qwen3 causal language model asked whether a document meets a query, scored
//! by its next-token logits for `yes` and `no`.
//!
//! Input, in the chat format of Qwen3-Reranker: a system turn telling the model to answer
//! only "yes" or "no", a user turn `<Instruct>: {instruction}\n<Query>: {query}\n<Document>:
//! {document}`, and an opened assistant turn with an empty thinking block. The three parts are
//! tokenized separately without special tokens (the reference code does the same), and only the
//! user turn is truncated, from its end, so that the whole fits in the sequence limit: the
//! document loses its tail, the prompt's frame is never cut.
//!
//! Score: `P(yes) = softmax([logit(no), logit(yes)])[1]` at the last position, i.e. the
//! exponential of the log-softmax over the two tokens, in 0..1.

use crate::batch::length_groups;
use crate::model_dir::model_err;
use crate::qwen3::{last_token_states, load_parts};
use candle_core::{D, Device, Tensor};
use candle_transformers::models::qwen3::Model;
use gos_core::Result;
use gos_core::rerank::PairScorer;
use std::path::{Path, PathBuf};
use tokenizers::Tokenizer;

/// The system turn and the opening of the user turn (Qwen3-Reranker's prompt).
pub const QWEN3_RERANK_PREFIX: &str = "<|im_start|>system\nJudge whether the Document meets \
    the requirements based on the Query and the Instruct provided. Note that the answer can \
    only be \"yes\" or \"no\".<|im_end|>\n<|im_start|>user\n";

/// The end of the user turn and the opened assistant turn with an empty thinking block.
pub const QWEN3_RERANK_SUFFIX: &str = "<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n";

/// Instruction when the caller gives none: SkillRouter's reranker judges whether a skill is
/// relevant to and useful for the task (reference notes §6.2; wording ours).
pub const DEFAULT_RERANK_INSTRUCTION: &str =
    "Given a task, judge whether the skill document is relevant and useful for completing it";

/// Sequence limit in tokens when the caller gives none: 4,096, SkillRouter's reranker cap
/// (reference notes §6.2).
pub const DEFAULT_QWEN3_RERANK_MAX_LENGTH: usize = 4096;

/// Pairs per forward pass.
pub const QWEN3_RERANK_BATCH_SIZE: usize = 4;

/// A loaded Qwen3 reranker.
pub struct Qwen3Reranker {
    model: Model,
    /// Rows `[no, yes]` of the output head, `(2, hidden)`.
    yes_no: Tensor,
    tokenizer: Tokenizer,
    prefix: Vec<u32>,
    suffix: Vec<u32>,
    instruction: String,
    max_length: usize,
    pad_id: u32,
    device: Device,
    dir: PathBuf,
}

impl std::fmt::Debug for Qwen3Reranker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Qwen3Reranker")
            .field("dir", &self.dir)
            .field("max_length", &self.max_length)
            .field("instruction", &self.instruction)
            .finish()
    }
}

impl Qwen3Reranker {
    /// Load the reranker in `dir` onto `device` with the sequence limit `max_length` tokens
    /// (default [`DEFAULT_QWEN3_RERANK_MAX_LENGTH`], capped by `max_position_embeddings`) and
    /// [`DEFAULT_RERANK_INSTRUCTION`]. The output head is `lm_head.weight`, or the token
    /// embeddings when `tie_word_embeddings` is set.
    ///
    /// # Errors
    /// [`gos_core::Error::Model`] naming the file when a file is missing or unreadable, the config
    /// is not a Qwen3 config, the tokenizer has no single `yes` or `no` token, the limit leaves
    /// fewer than 16 tokens for the user turn, or the weights do not match the config.
    pub fn load(dir: &Path, device: &Device, max_length: Option<usize>) -> Result<Self> {
        let parts = load_parts(dir, device, "see docs/cross-encoder.md")?;
        let cfg = &parts.config;
        let head_name = if cfg.tie_word_embeddings {
            "model.embed_tokens.weight"
        } else {
            "lm_head.weight"
        };
        let tok = &parts.tokenizer;
        let id = |t: &str| {
            tok.token_to_id(t)
                .ok_or_else(|| model_err(&parts.tokenizer_path, format!("no single `{t}` token")))
        };
        let (no, yes) = (id("no")?, id("yes")?);
        let yes_no = (|| {
            let head = parts.vb.get((cfg.vocab_size, cfg.hidden_size), head_name)?;
            let rows = Tensor::new(&[no, yes], device)?;
            head.index_select(&rows, 0)
        })()
        .map_err(|e| model_err(&parts.weights_path, e))?;
        let encode = |text: &str| -> Result<Vec<u32>> {
            tok.encode(text, false)
                .map(|e| e.get_ids().to_vec())
                .map_err(|e| model_err(&parts.tokenizer_path, e))
        };
        let prefix = encode(QWEN3_RERANK_PREFIX)?;
        let suffix = encode(QWEN3_RERANK_SUFFIX)?;
        let max_length = max_length
            .unwrap_or(DEFAULT_QWEN3_RERANK_MAX_LENGTH)
            .min(cfg.max_position_embeddings);
        if max_length < prefix.len() + suffix.len() + 16 {
            return Err(model_err(
                dir,
                format!(
                    "sequence limit {max_length} tokens leaves under 16 tokens after the \
                     prompt's {} tokens",
                    prefix.len() + suffix.len()
                ),
            ));
        }
        let pad_id = tok.token_to_id("<|endoftext|>").unwrap_or(0);
        Ok(Qwen3Reranker {
            model: parts.model,
            yes_no,
            tokenizer: parts.tokenizer,
            prefix,
            suffix,
            instruction: DEFAULT_RERANK_INSTRUCTION.to_string(),
            max_length,
            pad_id,
            device: device.clone(),
            dir: dir.to_path_buf(),
        })
    }

    /// Replace the instruction of the user turn.
    pub fn with_instruction(mut self, instruction: &str) -> Self {
        self.instruction = instruction.to_string();
        self
    }

    /// The instruction of the user turn.
    pub fn instruction(&self) -> &str {
        &self.instruction
    }

    /// Sequence limit in tokens, the prompt's frame included.
    pub fn max_length(&self) -> usize {
        self.max_length
    }

    /// Model directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Token ids of the prompt for `(query, doc)`: prefix, the user turn cut to fit, suffix.
    ///
    /// # Errors
    /// [`gos_core::Error::Model`] on tokenizer failures.
    pub fn pair_ids(&self, query: &str, doc: &str) -> Result<Vec<u32>> {
        let user = format!(
            "<Instruct>: {}\n<Query>: {query}\n<Document>: {doc}",
            self.instruction
        );
        let enc = self
            .tokenizer
            .encode(user, false)
            .map_err(|e| model_err(&self.dir, e))?;
        let budget = self.max_length - self.prefix.len() - self.suffix.len();
        let body = &enc.get_ids()[..enc.len().min(budget)];
        let mut ids = Vec::with_capacity(self.prefix.len() + body.len() + self.suffix.len());
        ids.extend_from_slice(&self.prefix);
        ids.extend_from_slice(body);
        ids.extend_from_slice(&self.suffix);
        Ok(ids)
    }

    /// `P(yes)` for each document, in input order, computed in groups of similar length of
    /// at most [`QWEN3_RERANK_BATCH_SIZE`] pairs.
    ///
    /// # Errors
    /// [`gos_core::Error::Model`] on tokenizer or tensor failures, or a short model output.
    pub fn score(&self, query: &str, docs: &[&str]) -> Result<Vec<f32>> {
        let ids: Vec<Vec<u32>> = docs
            .iter()
            .map(|d| self.pair_ids(query, d))
            .collect::<Result<_>>()?;
        let lens: Vec<usize> = ids.iter().map(Vec::len).collect();
        let mut out = vec![0.0f32; docs.len()];
        for group in length_groups(&lens, QWEN3_RERANK_BATCH_SIZE) {
            let rows: Vec<Vec<u32>> = group.iter().map(|&i| ids[i].clone()).collect();
            let p = (|| -> candle_core::Result<Vec<f32>> {
                let last = last_token_states(&self.model, &rows, self.pad_id, &self.device)?;
                let logits = last.matmul(&self.yes_no.t()?)?; // (n, 2): [no, yes]
                let logp = candle_nn::ops::log_softmax(&logits, D::Minus1)?;
                logp.narrow(1, 1, 1)?
                    .exp()?
                    .flatten_all()?
                    .to_device(&Device::Cpu)?
                    .to_vec1::<f32>()
            })()
            .map_err(|e| model_err(&self.dir, e))?;
            if p.len() != group.len() {
                return Err(model_err(
                    &self.dir,
                    format!(
                        "the model returned {} scores for {} pairs",
                        p.len(),
                        group.len()
                    ),
                ));
            }
            for (&i, s) in group.iter().zip(p) {
                out[i] = s;
            }
        }
        Ok(out)
    }
}

impl PairScorer for Qwen3Reranker {
    fn model_name(&self) -> String {
        self.dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| self.dir.display().to_string())
    }

    fn score_pairs(&self, query: &str, docs: &[&str]) -> Result<Vec<f32>> {
        self.score(query, docs)
    }
}
