//! The stage implementations over the candidate list: dense, rerank and the two LLM stages.
//! (The gos stage is [`gos_core::Retriever::retrieve`] itself; see [`crate::run`].)

use crate::doc_vectors::{CacheReport, doc_vectors};
use crate::spec::{DenseStage, LlmSelectStage, QuerySource, RerankStage, Rescore};
use crate::view::DocView;
use gos_core::Workspace;
use gos_core::index::dense::TextEmbedder;
use gos_core::index::dense::search::dot;
use gos_core::index::dense::vectors::Vectors;
use gos_core::rerank::PairScorer;
use gos_core::text::truncate_chars;
use gos_llm::LlmService;
use gos_llm::skillflow::{self, SelectCandidate};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

/// One candidate between stages, with the evidence the stages gathered.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// Node index.
    pub node: usize,
    /// Score of the stage that ordered the list last.
    pub score: f64,
    /// Cosine of the last dense stage.
    pub dense: Option<f32>,
    /// Score of the last rerank stage (the model's scale).
    pub pair: Option<f32>,
    /// Graph score when the candidate came from a gos stage.
    pub graph: f64,
}

impl Candidate {
    /// A candidate with only its node and score.
    pub fn new(node: usize, score: f64) -> Self {
        Candidate {
            node,
            score,
            dense: None,
            pair: None,
            graph: 0.0,
        }
    }
}

/// What a stage reports besides its candidates.
#[derive(Debug, Default)]
pub struct StageNotes {
    /// Fallbacks taken (LLM failures, unwritable caches), each in words.
    pub fallbacks: Vec<String>,
    /// Stage-specific facts for the trace (queries, cache use, union size, ...).
    pub detail: Value,
    /// Milliseconds spent embedding queries (dense stages).
    pub encode_ms: f64,
}

/// A dense stage with its model and its memo of document vectors.
pub struct DenseRunner {
    /// The stage's settings.
    pub spec: DenseStage,
    /// The embedding model.
    pub model: Box<dyn TextEmbedder>,
    memo: Mutex<Option<(PathBuf, Arc<Vectors>)>>,
}

/// `text` cut to `cap` characters when a cap is set.
fn capped(text: &str, cap: Option<usize>) -> String {
    let t = text.trim();
    cap.map_or(t, |c| truncate_chars(t, c)).to_string()
}

/// The best `k` of `scored` by descending score (ties: lower node first).
fn best(mut scored: Vec<(usize, f32)>, k: usize) -> Vec<(usize, f32)> {
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    scored.truncate(k);
    scored
}

impl DenseRunner {
    /// A runner of `spec` with `model`.
    pub fn new(spec: DenseStage, model: Box<dyn TextEmbedder>) -> Self {
        DenseRunner {
            spec,
            model,
            memo: Mutex::new(None),
        }
    }

    /// The document vectors of `ws`, from this runner's memo, else from the workspace cache.
    fn vectors(&self, ws: &Workspace) -> gos_core::Result<(Arc<Vectors>, Option<CacheReport>)> {
        let mut memo = self.memo.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((dir, v)) = memo.as_ref()
            && dir == ws.dir()
            && v.len() == ws.len()
        {
            return Ok((Arc::clone(v), None));
        }
        let (v, report) = doc_vectors(ws, self.model.as_ref(), &self.spec.view)?;
        let v = Arc::new(v);
        *memo = Some((ws.dir().to_path_buf(), Arc::clone(&v)));
        Ok((v, Some(report)))
    }

    /// Run over `input` (`None`: the whole library) with `queries` from an earlier
    /// `llm-queries` stage (empty: none).
    ///
    /// # Errors
    /// Index and model errors.
    pub fn run(
        &self,
        ws: &Workspace,
        task: &str,
        queries: &[String],
        input: Option<&[Candidate]>,
    ) -> gos_core::Result<(Vec<Candidate>, StageNotes)> {
        let s = &self.spec;
        let (vectors, cache) = self.vectors(ws)?;
        let task_text = capped(task, s.query_chars);
        let mut texts: Vec<String> = match s.queries {
            QuerySource::Generated if !queries.is_empty() => {
                queries.iter().map(|q| capped(q, s.query_chars)).collect()
            }
            _ => vec![task_text.clone()],
        };
        let task_is_query = texts == [task_text.clone()];
        if s.rescore == Rescore::Task && !task_is_query {
            texts.push(task_text);
        }
        let t = Instant::now();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let mut qv = self.model.embed_queries(&refs)?;
        let encode_ms = t.elapsed().as_secs_f64() * 1e3;
        let task_vec = if s.rescore == Rescore::Task {
            if task_is_query {
                qv[0].clone()
            } else {
                qv.pop().unwrap_or_default()
            }
        } else {
            Vec::new()
        };
        let pool: Vec<usize> = match input {
            Some(c) => c.iter().map(|c| c.node).collect(),
            None => (0..ws.len()).collect(),
        };
        let mut in_union = vec![false; ws.len()];
        for q in &qv {
            let scored = pool.iter().map(|&n| (n, dot(q, vectors.row(n)))).collect();
            for (n, _) in best(scored, s.depth) {
                in_union[n] = true;
            }
        }
        let union: Vec<(usize, f32)> = pool
            .iter()
            .filter(|&&n| in_union[n])
            .map(|&n| {
                let row = vectors.row(n);
                let score = match s.rescore {
                    Rescore::Task => dot(&task_vec, row),
                    Rescore::Max => qv.iter().map(|q| dot(q, row)).fold(f32::MIN, f32::max),
                };
                (n, score)
            })
            .collect();
        let union_size = union.len();
        let graph = |n: usize| {
            input
                .and_then(|c| c.iter().find(|c| c.node == n))
                .map_or(0.0, |c| c.graph)
        };
        let out = best(union, s.keep)
            .into_iter()
            .map(|(n, cos)| Candidate {
                node: n,
                score: f64::from(cos),
                dense: Some(cos),
                pair: None,
                graph: graph(n),
            })
            .collect();
        let mut fallbacks = Vec::new();
        if let Some(e) = cache.as_ref().and_then(|c| c.write_error.as_ref()) {
            fallbacks.push(format!("document vectors not cached: {e}"));
        }
        let detail = json!({
            "queries": qv.len(),
            "union": union_size,
            "doc_vectors": match &cache {
                Some(c) => json!(c),
                None => json!("in memory"),
            },
        });
        Ok((
            out,
            StageNotes {
                fallbacks,
                detail,
                encode_ms,
            },
        ))
    }
}

/// Run a rerank stage: the first `top` of `input` scored by `model` against the task, sorted by
/// score (ties keep input order), the unscored rest after them, the first `keep` passed on.
///
/// # Errors
/// Index and model errors.
pub fn rerank(
    ws: &Workspace,
    spec: &RerankStage,
    model: &dyn PairScorer,
    task: &str,
    input: Vec<Candidate>,
) -> gos_core::Result<(Vec<Candidate>, StageNotes)> {
    let top = spec.top.unwrap_or(input.len()).min(input.len());
    let texts = input[..top]
        .iter()
        .map(|c| spec.view.text_of(ws, c.node))
        .collect::<gos_core::Result<Vec<String>>>()?;
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let query = capped(task, spec.query_chars);
    let scores = model.score_pairs(&query, &refs)?;
    let longest = texts.iter().map(|t| t.chars().count()).max().unwrap_or(0);
    let mut scored: Vec<Candidate> = input[..top]
        .iter()
        .zip(&scores)
        .map(|(c, &s)| Candidate {
            score: f64::from(s),
            pair: Some(s),
            ..c.clone()
        })
        .collect();
    scored.sort_by(|a, b| b.score.total_cmp(&a.score));
    scored.extend(input[top..].iter().cloned());
    scored.truncate(spec.keep);
    let detail = json!({"scored": top, "longest_doc_chars": longest});
    Ok((
        scored,
        StageNotes {
            detail,
            ..StageNotes::default()
        },
    ))
}

/// Run SkillFlow's query generation; the queries and the notes.
pub fn llm_queries(
    service: Option<&LlmService>,
    task: &str,
    count: usize,
) -> (Vec<String>, StageNotes) {
    let g = skillflow::generate_queries(service, task, count);
    let mut fallbacks = g.notes.clone();
    if let skillflow::LlmOutcome::Fallback { reason } = &g.outcome {
        fallbacks.push(format!("using the task text as the only query: {reason}"));
    }
    let detail = json!({"outcome": g.outcome, "queries": g.queries});
    (
        g.queries,
        StageNotes {
            fallbacks,
            detail,
            encode_ms: 0.0,
        },
    )
}

/// Run SkillFlow's selector over `input`.
///
/// # Errors
/// Index errors reading the candidates' texts.
pub fn llm_select(
    ws: &Workspace,
    service: Option<&LlmService>,
    spec: &LlmSelectStage,
    task: &str,
    input: Vec<Candidate>,
) -> gos_core::Result<(Vec<Candidate>, StageNotes)> {
    let view = DocView::Text {
        max_chars: spec.max_chars,
    };
    let texts = input
        .iter()
        .map(|c| view.text_of(ws, c.node))
        .collect::<gos_core::Result<Vec<String>>>()?;
    let nodes = &ws.manifest().nodes;
    let shown: Vec<SelectCandidate<'_>> = input
        .iter()
        .zip(&texts)
        .map(|(c, t)| SelectCandidate {
            id: &nodes[c.node].id,
            name: &nodes[c.node].name,
            text: t,
        })
        .collect();
    let s = skillflow::select_skills(service, task, &shown, spec.max_skills, spec.specificity);
    let mut fallbacks = Vec::new();
    if let skillflow::LlmOutcome::Fallback { reason } = &s.outcome {
        fallbacks.push(format!("kept the input order: {reason}"));
    }
    let detail = json!({"outcome": s.outcome, "notes": s.notes, "chosen": s.chosen.iter().map(|&i| &nodes[input[i].node].id).collect::<Vec<_>>()});
    let out = s.chosen.iter().map(|&i| input[i].clone()).collect();
    Ok((
        out,
        StageNotes {
            fallbacks,
            detail,
            encode_ms: 0.0,
        },
    ))
}
