//! [`RetrieveOptions`]: everything that shapes one retrieval.

use crate::diffuse::RetrievalMode;
use crate::graph::ppr::{PprParams, TypeWeights};
use crate::hydrate::Budgets;
use crate::relevance::{
    DEFAULT_MIN_RELATIVE_SCORE, DEFAULT_MIN_SEED_SCORE, DenseFloor, RelevanceFloors,
};
use crate::rerank::RerankWeights;
use crate::seed::SeedParams;

use super::cut::{BundleCut, KeepPrerequisites};

/// Everything that shapes one retrieval. `RetrieveOptions::default()` is what `gos retrieve`
/// does without options.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RetrieveOptions {
    /// Graph operation.
    pub mode: RetrievalMode,
    /// Seeding (source [`crate::seed::SeedSource::Auto`] by default: hybrid when the retriever has a query
    /// encoder, else lexical).
    pub seeds: SeedParams,
    /// Diffusion.
    pub ppr: PprParams,
    /// Per-type transition factors of the PPR modes ([`TypeWeights`], typed diffusion);
    /// today's matrix by default.
    pub edge_weights: TypeWeights,
    /// Factor of semantic edges in the walk when the seeds are lexical only (BM25); it
    /// replaces [`TypeWeights::semantic`], which applies with dense and hybrid seeds. Default
    /// [`DEFAULT_EDGE_SEMANTIC_LEXICAL`].
    pub edge_semantic_lexical: f64,
    /// Final-score mixing.
    pub rerank: RerankWeights,
    /// Bundle budgets.
    pub budgets: Budgets,
    /// Lexical relevance floor ([`RelevanceFloors::min_seed_score`]).
    pub min_seed_score: f32,
    /// Dense relevance floor ([`RelevanceFloors::min_dense_score`]).
    pub min_dense_score: DenseFloor,
    /// Relative floor ([`RelevanceFloors::min_relative_score`]).
    pub min_relative_score: f64,
    /// Leave out skills the build flagged with content warnings
    /// ([`crate::SkillNode::warnings`], docs/security.md); off by default.
    pub exclude_flagged: bool,
    /// Write `Source:` paths as absolute paths under the workspace's library root instead of
    /// relative to it ([`crate::hydrate::SourcePaths::absolute`]); off by default.
    pub absolute_paths: bool,
    /// Keep one member per near-duplicate group of the workspace in the ranked list, the
    /// best-ranked, and list the others as its alternates ([`crate::workspace::duplicates`]). A
    /// workspace without groups is unaffected. Default: [`DEFAULT_COLLAPSE_DUPLICATES`].
    pub collapse_duplicates: bool,
    /// Also keep one member per alternative group (`alternatives.json`, merged with the
    /// near-duplicate groups: [`crate::workspace::Workspace::alternative_groups`]), the
    /// best-ranked, with the others as its alternates. Default:
    /// [`DEFAULT_COLLAPSE_ALTERNATIVES`].
    pub collapse_alternatives: bool,
    /// Per-skill admission floor of the bundle: a candidate with no BM25 hit whose cosine with
    /// the query is known and below this gets no bundle slot (no lexical match and a cosine
    /// near zero is no evidence); the ranked list keeps it. Default
    /// [`DEFAULT_MIN_SKILL_COSINE`]; -1 turns it off.
    pub min_skill_cosine: f32,
    /// After the adaptive cut, bring back the candidates past it that feed a kept skill by a
    /// dependency or workflow edge of the kinds chosen ([`super::cut::keep_prerequisites`]),
    /// in graph modes. Default [`DEFAULT_KEEP_PREREQUISITES`].
    pub keep_prerequisites: KeepPrerequisites,
    /// Adaptive bundle size ([`BundleCut`]); default [`BundleCut::default`] (floor 0.2, gap
    /// 0.5, cosine 0.1).
    pub bundle_cut: BundleCut,
    /// When semantic edges are in the walk, read the adaptive cut off the ranking of the walk
    /// without them: the bundle keeps the candidates that cut keeps, in the final order, with
    /// the skills outside the first-stage pool that rank before its end
    /// ([`super::cut::keep_cut_of`]). Semantic mass then orders a bundle and may bring a
    /// neighbour in, but never opens or closes it; dependency and workflow mass still does
    /// (a prerequisite lifted over a cliff stays). Default [`DEFAULT_CUT_WITHOUT_SEMANTIC`].
    pub cut_without_semantic: bool,
    /// Bundle slots reserved for prerequisites of the top-ranked skills in graph modes
    /// ([`crate::prerequisite::reserve`]); off by default.
    pub prerequisites: crate::prerequisite::PrerequisiteShare,
    /// Facet seeding and coverage selection ([`super::coverage`]); off by default.
    pub coverage: super::coverage::CoverageParams,
    /// How the query text becomes BM25 terms: markup stripping, code-like token boosts,
    /// field boosts ([`crate::query::QueryParams`]); today's behaviour by default.
    pub query: crate::query::QueryParams,
    /// Lexical coverage floor ([`RelevanceFloors::min_coverage`]); default
    /// [`crate::relevance::DEFAULT_MIN_COVERAGE`].
    pub min_coverage: f32,
}

/// Default [`RetrieveOptions::collapse_duplicates`]: off, because on DEV the kept copy is often
/// not the labelled one and bundle recall falls from 0.736 to 0.638 (docs/evaluation.md).
pub const DEFAULT_COLLAPSE_DUPLICATES: bool = false;

/// Default [`RetrieveOptions::collapse_alternatives`]: on. A bundle spends one slot per group
/// of copies and same-job skills, on the copy the query matches best (first-stage score, at the
/// group's best rank; [`crate::retrieve::collapse::query_match_first`]), with the others listed as its
/// alternates (issue 22). Measured on DEV with the metrics that count a near-copy of an oracle
/// as the oracle: bundle recall 0.736 -> 0.753 (hybrid seeds) and 0.758 -> 0.793 (lexical);
/// the strict metrics, which credit only the labelled copy, fall (docs/graph-quality.md,
/// "Session 7: the default bundle").
pub const DEFAULT_COLLAPSE_ALTERNATIVES: bool = true;

/// Default [`RetrieveOptions::min_skill_cosine`]: 0.1. all-MiniLM-L6-v2 gives unrelated
/// sentence pairs cosines of 0.01-0.12; a bundle skill with no BM25 hit needs more than that.
/// It acts on the bundle only, so the ranked list (and recall@k) keeps every candidate: as a
/// ranked-list filter it took a dense-only oracle out of the top 50 of gos-eval's hybrid
/// fixture benchmark (no-graph/dense recall@50 1.000 -> 0.933).
pub const DEFAULT_MIN_SKILL_COSINE: f32 = 0.1;

/// Default [`RetrieveOptions::keep_prerequisites`]: [`KeepPrerequisites::Stated`]. With every
/// dependency edge (`all`) it restored fixtures/library's chains the cut ends early
/// (reverse/lexical bundle recall 0.900 -> 1.000, precision 0.668 -> 0.565) but on DEV it
/// added no recall and cost precision (hybrid 0.383 -> 0.337, lexical 0.342 -> 0.310,
/// equivalent metrics): most io edges it followed there are not prerequisites
/// (docs/graph-quality.md, "Session 7: the default bundle"). Edges the text states are read as
/// acceptable far more often, and without them a new user's `requires:` prerequisite that the
/// query also matched weakly was cut (session 19), so those come back by default.
pub const DEFAULT_KEEP_PREREQUISITES: KeepPrerequisites = KeepPrerequisites::Stated;

/// Default [`RetrieveOptions::cut_without_semantic`]: on. With semantic edges in the walk and
/// the cut on the final scores, their mass opened DEV bundles of one skill to eight siblings
/// (the pddl tasks' planning skills): 4-fold CV with lexical seeds chose the cut without them
/// in every fold. A first version cut on the ranking without any graph; it dropped the
/// prerequisites fixtures/library exists to show (reverse/lexical recall 0.900 -> 0.767), so
/// dependency mass still counts (docs/graph-quality.md, "Session 16").
pub const DEFAULT_CUT_WITHOUT_SEMANTIC: bool = true;

/// Default [`RetrieveOptions::edge_semantic_lexical`]: 0.1. 4-fold CV by F2 (equivalent) over
/// `cut_without_semantic` 0 / 1 x this factor 0 / 0.1 / 0.3 on the real library's lexical
/// workspace chose (1, 0.1) in every fold (0.3 ties, and ties keep the smaller factor); out of
/// fold equivalent recall 0.807 and precision 0.365 against 0.793 and 0.360 without. With
/// hybrid seeds the folds chose a semantic factor once in four and lost out of fold, so
/// [`TypeWeights::semantic`] stays 0: the dense seeds already hold the similarity these
/// edges encode (docs/graph-quality.md, "Session 16").
pub const DEFAULT_EDGE_SEMANTIC_LEXICAL: f64 = 0.1;

impl Default for RetrieveOptions {
    fn default() -> Self {
        RetrieveOptions {
            mode: RetrievalMode::Reverse,
            seeds: SeedParams::default(),
            ppr: PprParams::default(),
            edge_weights: TypeWeights::default(),
            edge_semantic_lexical: DEFAULT_EDGE_SEMANTIC_LEXICAL,
            rerank: RerankWeights::default(),
            budgets: Budgets::default(),
            min_seed_score: DEFAULT_MIN_SEED_SCORE,
            min_dense_score: DenseFloor::Auto,
            min_relative_score: DEFAULT_MIN_RELATIVE_SCORE,
            exclude_flagged: false,
            absolute_paths: false,
            collapse_duplicates: DEFAULT_COLLAPSE_DUPLICATES,
            collapse_alternatives: DEFAULT_COLLAPSE_ALTERNATIVES,
            min_skill_cosine: DEFAULT_MIN_SKILL_COSINE,
            keep_prerequisites: DEFAULT_KEEP_PREREQUISITES,
            bundle_cut: BundleCut::default(),
            cut_without_semantic: DEFAULT_CUT_WITHOUT_SEMANTIC,
            prerequisites: Default::default(),
            coverage: Default::default(),
            query: Default::default(),
            min_coverage: crate::relevance::DEFAULT_MIN_COVERAGE,
        }
    }
}

impl RetrieveOptions {
    /// The relevance floors of these options.
    pub fn floors(&self, skills: usize) -> RelevanceFloors {
        RelevanceFloors {
            min_seed_score: self.min_seed_score,
            min_dense_score: self.min_dense_score.cosine(skills),
            min_relative_score: self.min_relative_score,
            min_coverage: self.min_coverage,
        }
    }
}
