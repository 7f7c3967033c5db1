//! A pipeline as data: a name and ordered stages, read from TOML or taken from a preset.
//!
//! ```toml
//! name = "gos-then-skillflow-rerankers"
//!
//! [[stage]]
//! kind = "gos"
//! name = "graph"
//! keep = 100
//!
//! [[stage]]
//! kind = "rerank"
//! name = "shallow"
//! view = { kind = "text", max_chars = 512 }
//! keep = 10
//! model = "models/ms-marco-MiniLM-L-6-v2"
//! ```
//!
//! Every stage has a `kind` and a `name` (unique in the pipeline; `--stage-model NAME=DIR`
//! refers to it). Values left out take the defaults of the structs below, which are SkillFlow's
//! where a SkillFlow stage exists (reference notes §6.1).

use crate::error::{Error, Result};
use crate::view::DocView;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The names of the presets.
pub const PRESETS: [&str; 3] = ["gos", "skillflow", "skillrouter"];

/// A pipeline: ordered stages.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PipelineSpec {
    /// Name shown in the trace and in eval arm names.
    pub name: String,
    /// The stages, in order (`[[stage]]` tables in TOML).
    #[serde(rename = "stage")]
    pub stages: Vec<StageSpec>,
}

/// One stage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum StageSpec {
    /// gos's retriever: seeds, diffusion, field-evidence rerank (must be the first stage that
    /// produces candidates).
    Gos(GosStage),
    /// A bi-encoder over a skill text view.
    Dense(DenseStage),
    /// A cross-encoder over the top candidates.
    Rerank(RerankStage),
    /// SkillFlow's multi-query generation (feeds the next dense stages).
    LlmQueries(LlmQueriesStage),
    /// SkillFlow's LLM selector.
    LlmSelect(LlmSelectStage),
}

impl StageSpec {
    /// The stage's name.
    pub fn name(&self) -> &str {
        match self {
            StageSpec::Gos(s) => &s.name,
            StageSpec::Dense(s) => &s.name,
            StageSpec::Rerank(s) => &s.name,
            StageSpec::LlmQueries(s) => &s.name,
            StageSpec::LlmSelect(s) => &s.name,
        }
    }

    /// The stage's kind as written in TOML.
    pub fn kind(&self) -> &'static str {
        match self {
            StageSpec::Gos(_) => "gos",
            StageSpec::Dense(_) => "dense",
            StageSpec::Rerank(_) => "rerank",
            StageSpec::LlmQueries(_) => "llm-queries",
            StageSpec::LlmSelect(_) => "llm-select",
        }
    }

    /// Whether the stage makes candidates from the whole library when nothing came before it.
    fn produces(&self) -> bool {
        matches!(self, StageSpec::Gos(_) | StageSpec::Dense(_))
    }

    /// Whether the stage needs candidates from an earlier stage.
    fn consumes(&self) -> bool {
        matches!(self, StageSpec::Rerank(_) | StageSpec::LlmSelect(_))
    }
}

/// gos's retriever as a stage. Without `mode` and `seeds` it runs with the options of the
/// command (`gos retrieve` flags, `gos eval` base options), so the `gos` preset is exactly
/// `gos retrieve`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GosStage {
    /// Stage name.
    #[serde(default = "gos_name")]
    pub name: String,
    /// Graph operation (registry knob `mode`: `reverse`, `forward`, `one-hop`, `no-graph`);
    /// the command's by default.
    pub mode: Option<gos_core::RetrievalMode>,
    /// Seed source (registry knob `seeds`: `lexical`, `dense`, `hybrid`, `auto`); the
    /// command's by default.
    pub seeds: Option<gos_core::seed::SeedSource>,
    /// Candidates passed on: the first `keep` above the relative floor (all by default).
    pub keep: Option<usize>,
}

fn gos_name() -> String {
    "gos".into()
}

/// Which texts the dense stage's queries are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum QuerySource {
    /// The queries of an earlier `llm-queries` stage, else the task text.
    #[default]
    Generated,
    /// The task text only.
    Task,
}

/// How union candidates are scored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rescore {
    /// Cosine with the task text (SkillFlow: "candidates re-scored by cosine").
    #[default]
    Task,
    /// Best cosine over the queries.
    Max,
}

/// A bi-encoder stage: each query's `depth` nearest skills (by cosine over the skill text
/// view), their union re-scored, the best `keep` passed on. As a later stage it searches only
/// the candidates it is given.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DenseStage {
    /// Stage name.
    #[serde(default = "dense_name")]
    pub name: String,
    /// Embedding model directory (Hugging Face layout); `--stage-model NAME=DIR` wins.
    pub model: Option<PathBuf>,
    /// Skill text embedded.
    #[serde(default)]
    pub view: DocView,
    /// Query cap in characters (SkillRouter: 1,500); none by default.
    pub query_chars: Option<usize>,
    /// Query texts.
    #[serde(default)]
    pub queries: QuerySource,
    /// Nearest skills per query: `t_k = 200` in SkillFlow.
    #[serde(default = "default_depth")]
    pub depth: usize,
    /// Candidates passed on: `k₁ = 1000` in SkillFlow.
    #[serde(default = "default_k1")]
    pub keep: usize,
    /// Scoring of the union.
    #[serde(default)]
    pub rescore: Rescore,
}

fn dense_name() -> String {
    "dense".into()
}
fn default_depth() -> usize {
    200
}
fn default_k1() -> usize {
    1000
}

/// A cross-encoder stage: the first `top` candidates scored with the task, in score order,
/// the best `keep` passed on (candidates past `top` follow, unscored, while `keep` allows).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RerankStage {
    /// Stage name.
    #[serde(default = "rerank_name")]
    pub name: String,
    /// Reranker directory (Hugging Face layout); `--stage-model NAME=DIR` wins.
    pub model: Option<PathBuf>,
    /// Skill text read with the query.
    #[serde(default = "rerank_view")]
    pub view: DocView,
    /// Query cap in characters; none by default.
    pub query_chars: Option<usize>,
    /// Candidates scored (all by default).
    pub top: Option<usize>,
    /// Candidates passed on: `k₂ = 100` in SkillFlow's shallow stage.
    #[serde(default = "default_k2")]
    pub keep: usize,
    /// Sequence limit in tokens given to the model (its own limit by default).
    pub max_length: Option<usize>,
}

fn rerank_name() -> String {
    "rerank".into()
}
fn rerank_view() -> DocView {
    DocView::Text { max_chars: 512 }
}
fn default_k2() -> usize {
    100
}

/// SkillFlow's multi-query generation (gos_llm::skillflow::generate_queries).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LlmQueriesStage {
    /// Stage name.
    #[serde(default = "queries_name")]
    pub name: String,
    /// Queries asked for: `M₁ = 5` in SkillFlow.
    #[serde(default = "default_m")]
    pub count: usize,
}

fn queries_name() -> String {
    "queries".into()
}
fn default_m() -> usize {
    gos_llm::skillflow::DEFAULT_QUERY_COUNT
}

/// SkillFlow's selector (gos_llm::skillflow::select_skills).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LlmSelectStage {
    /// Stage name.
    #[serde(default = "select_name")]
    pub name: String,
    /// Most skills chosen: 5 in SkillFlow.
    #[serde(default = "default_max_selected")]
    pub max_skills: usize,
    /// Characters of each skill's text in the prompt (SkillFlow shows the whole SKILL.md; gos
    /// caps it so ten skills fit a small model's context).
    #[serde(default = "default_select_chars")]
    pub max_chars: usize,
    /// Run the specificity filter after the selection (off in SkillFlow's default).
    #[serde(default)]
    pub specificity: bool,
}

fn select_name() -> String {
    "select".into()
}
fn default_max_selected() -> usize {
    gos_llm::skillflow::DEFAULT_MAX_SELECTED
}
fn default_select_chars() -> usize {
    4_096
}

impl PipelineSpec {
    /// A preset by name ([`PRESETS`]); `None` for other names.
    pub fn preset(name: &str) -> Option<Self> {
        let stages = match name {
            "gos" => vec![StageSpec::Gos(GosStage {
                name: gos_name(),
                mode: None,
                seeds: None,
                keep: None,
            })],
            "skillflow" => skillflow(),
            "skillrouter" => skillrouter(),
            _ => return None,
        };
        Some(PipelineSpec {
            name: name.into(),
            stages,
        })
    }

    /// Parse a TOML pipeline (module docs) and validate it; `path` names it in errors.
    ///
    /// # Errors
    /// [`Error::Parse`] for TOML or schema errors; [`Error::Invalid`] (see [`Self::validate`]).
    pub fn from_toml(text: &str, path: &Path) -> Result<Self> {
        let spec: PipelineSpec = toml::from_str(text).map_err(|e| Error::Parse {
            path: path.to_path_buf(),
            reason: e.to_string(),
        })?;
        spec.validate()?;
        Ok(spec)
    }

    /// A preset name or the path of a TOML file.
    ///
    /// # Errors
    /// [`Error::Unknown`] when `name_or_path` is neither; [`Error::Read`], and the errors of
    /// [`Self::from_toml`].
    pub fn resolve(name_or_path: &str) -> Result<Self> {
        if let Some(p) = Self::preset(name_or_path) {
            return Ok(p);
        }
        let path = Path::new(name_or_path);
        if !path.is_file() {
            return Err(Error::Unknown(name_or_path.into()));
        }
        let text = std::fs::read_to_string(path).map_err(|source| Error::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Self::from_toml(&text, path)
    }

    /// Check the stage order and values: at least one stage; unique names; the first stage
    /// that touches candidates produces them (`gos` or `dense`); a `gos` stage comes before any
    /// other candidate stage; `keep`, `depth`, `count` and `max_skills` are positive.
    ///
    /// # Errors
    /// [`Error::Invalid`] saying what is wrong.
    pub fn validate(&self) -> Result<()> {
        let invalid = |reason: String| Error::Invalid {
            pipeline: self.name.clone(),
            reason,
        };
        if self.stages.is_empty() {
            return Err(invalid("it has no stage".into()));
        }
        let mut seen_candidates = false;
        for (i, s) in self.stages.iter().enumerate() {
            if self.stages[..i].iter().any(|p| p.name() == s.name()) {
                return Err(invalid(format!(
                    "two stages are named `{}`; give each a distinct `name`",
                    s.name()
                )));
            }
            if s.consumes() && !seen_candidates {
                return Err(invalid(format!(
                    "stage `{}` ({}) needs candidates, but no gos or dense stage comes before it",
                    s.name(),
                    s.kind()
                )));
            }
            if matches!(s, StageSpec::Gos(_)) && seen_candidates {
                return Err(invalid(format!(
                    "stage `{}` (gos) searches the whole library, so it must come before every \
                     other gos, dense, rerank or llm-select stage",
                    s.name()
                )));
            }
            seen_candidates |= s.produces();
            let zero = match s {
                StageSpec::Gos(g) => (g.keep == Some(0)).then_some("keep"),
                StageSpec::Dense(d) if d.keep == 0 => Some("keep"),
                StageSpec::Dense(d) if d.depth == 0 => Some("depth"),
                StageSpec::Rerank(r) if r.keep == 0 => Some("keep"),
                StageSpec::Rerank(r) if r.top == Some(0) => Some("top"),
                StageSpec::LlmQueries(q) if q.count == 0 => Some("count"),
                StageSpec::LlmSelect(l) if l.max_skills == 0 => Some("max_skills"),
                _ => None,
            };
            if let Some(field) = zero {
                return Err(invalid(format!(
                    "`{field}` of stage `{}` must be at least 1",
                    s.name()
                )));
            }
            if let Some(e) = s.view().and_then(|v| v.validate().err()) {
                return Err(invalid(format!("stage `{}`: {e}", s.name())));
            }
        }
        Ok(())
    }
}

impl StageSpec {
    fn view(&self) -> Option<&DocView> {
        match self {
            StageSpec::Dense(d) => Some(&d.view),
            StageSpec::Rerank(r) => Some(&r.view),
            _ => None,
        }
    }
}

/// SkillFlow (reference notes §6.1): M₁ = 5 LLM queries; bge-base-en-v1.5 over the description
/// only, t_k = 200 per query, union re-scored by cosine, k₁ = 1000; ms-marco-MiniLM-L-6-v2 on
/// 512 characters to k₂ = 100; bge-reranker-v2-m3 on 4,096 characters to k₃ = 10; the LLM
/// selector, at most 5 skills.
fn skillflow() -> Vec<StageSpec> {
    vec![
        StageSpec::LlmQueries(LlmQueriesStage {
            name: queries_name(),
            count: 5,
        }),
        StageSpec::Dense(DenseStage {
            name: "retrieve".into(),
            model: None,
            view: DocView::Description,
            query_chars: None,
            queries: QuerySource::Generated,
            depth: 200,
            keep: 1000,
            rescore: Rescore::Task,
        }),
        StageSpec::Rerank(RerankStage {
            name: "shallow".into(),
            model: None,
            view: DocView::Text { max_chars: 512 },
            query_chars: None,
            top: None,
            keep: 100,
            max_length: None,
        }),
        StageSpec::Rerank(RerankStage {
            name: "deep".into(),
            model: None,
            view: DocView::Text { max_chars: 4_096 },
            query_chars: None,
            top: None,
            keep: 10,
            max_length: None,
        }),
        StageSpec::LlmSelect(LlmSelectStage {
            name: select_name(),
            max_skills: 5,
            max_chars: default_select_chars(),
            specificity: false,
        }),
    ]
}

/// SkillRouter (reference notes §6.2): the bi-encoder over `name | description | body`
/// (description ≤ 300, body ≤ 2,500 characters; query ≤ 1,500) retrieves K = 20; the reranker
/// reads the same fields with description ≤ 500 and body ≤ 2,000 characters, 4,096 tokens.
fn skillrouter() -> Vec<StageSpec> {
    vec![
        StageSpec::Dense(DenseStage {
            name: "retrieve".into(),
            model: None,
            view: DocView::Fields {
                description_chars: 300,
                body_chars: 2_500,
            },
            query_chars: Some(1_500),
            queries: QuerySource::Task,
            depth: 20,
            keep: 20,
            rescore: Rescore::Task,
        }),
        StageSpec::Rerank(RerankStage {
            name: "rerank".into(),
            model: None,
            view: DocView::Fields {
                description_chars: 500,
                body_chars: 2_000,
            },
            query_chars: Some(1_500),
            top: None,
            keep: 20,
            max_length: Some(4_096),
        }),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The gos stage's retrieval keys are registry knobs, typed: a bad value is refused when
    /// the file is read.
    #[test]
    fn gos_stage_keys_are_registry_knobs() {
        let stage = GosStage {
            name: "g".into(),
            mode: Some(gos_core::RetrievalMode::OneHop),
            seeds: Some(gos_core::seed::SeedSource::Lexical),
            keep: None,
        };
        let v = serde_json::to_value(&stage).unwrap();
        assert_eq!(v["mode"], "one-hop");
        assert_eq!(v["seeds"], "lexical");
        for key in ["mode", "seeds"] {
            gos_core::param::knob(key).unwrap();
            let mut o = gos_core::RetrieveOptions::default();
            gos_core::param::set(&mut o, key, v[key].as_str().unwrap()).unwrap();
        }
        let bad = "name = \"p\"\n[[stage]]\nkind = \"gos\"\nmode = \"sideways\"\n";
        assert!(toml::from_str::<PipelineSpec>(bad).is_err());
    }

    #[test]
    fn presets_are_valid_and_round_trip_through_toml() {
        for name in PRESETS {
            let p = PipelineSpec::preset(name).unwrap();
            p.validate().unwrap();
            let text = toml::to_string(&p).unwrap();
            assert_eq!(PipelineSpec::from_toml(&text, Path::new("x")).unwrap(), p);
        }
        let sf = PipelineSpec::preset("skillflow").unwrap();
        let kinds: Vec<&str> = sf.stages.iter().map(StageSpec::kind).collect();
        assert_eq!(
            kinds,
            ["llm-queries", "dense", "rerank", "rerank", "llm-select"]
        );
    }

    #[test]
    fn defaults_are_skillflows_and_bad_orders_are_refused() {
        let p = PipelineSpec::from_toml(
            "name = \"x\"\n[[stage]]\nkind = \"dense\"\n[[stage]]\nkind = \"rerank\"\n",
            Path::new("x.toml"),
        )
        .unwrap();
        let StageSpec::Dense(d) = &p.stages[0] else {
            panic!()
        };
        assert_eq!(
            (d.depth, d.keep, d.view.clone()),
            (200, 1000, DocView::Description)
        );
        let err = |t: &str| {
            PipelineSpec::from_toml(t, Path::new("p.toml"))
                .unwrap_err()
                .to_string()
        };
        assert!(err("name = \"x\"\n[[stage]]\nkind = \"rerank\"\n").contains("needs candidates"));
        assert!(
            err("name = \"x\"\n[[stage]]\nkind = \"dense\"\n[[stage]]\nkind = \"gos\"\n")
                .contains("must come before")
        );
        assert!(
            err("name = \"x\"\n[[stage]]\nkind = \"dense\"\n[[stage]]\nkind = \"dense\"\n")
                .contains("two stages are named `dense`")
        );
        assert!(err("name = \"x\"\n[[stage]]\nkind = \"dense\"\nkeep = 0\n").contains("`keep`"));
        assert!(err("name = \"x\"\n[[stage]]\nkind = \"sparse\"\n").contains("p.toml"));
        assert!(err("name = \"x\"\n[[stage]]\nkind = \"gos\"\ntop = 3\n").contains("top"));
        assert!(err("name = \"x\"\nstage = []\n").contains("no stage"));
        assert!(matches!(
            PipelineSpec::resolve("no-such-pipeline"),
            Err(Error::Unknown(_))
        ));
    }
}
