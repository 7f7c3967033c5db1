//! Lexical seeds walk the semantic edges, and the adaptive cut reads the walk without them
//! (session 16), on a real build of a small library: two PDDL skills joined by a BM25
//! semantic edge, a planning skill of another kind, and unrelated skills.

use gos_core::graph::ppr::{TransitionMatrix, TypeWeights};
use gos_core::seed::SeedSource;
use gos_core::{EdgeType, RetrieveOptions, Retriever, Workspace};
use gos_testkit::workspace::build_lexical;
use std::path::Path;
use std::sync::Arc;

const SKILLS: [(&str, &str, &str, &str); 8] = [
    (
        "plan/pddl-planner",
        "pddl-planner",
        "Solve PDDL planning problems: PDDL domain and problem files to a plan with a classical planner.",
        "Run fast-downward on the PDDL domain and problem.",
    ),
    (
        "plan/pddl-validator",
        "pddl-validator",
        "Validate PDDL plans against the PDDL domain and problem files.",
        "Run VAL on a plan for a PDDL domain.",
    ),
    (
        "plan/sprint-plans",
        "sprint-plans",
        "Write sprint plans and milestones for a team.",
        "Owners, deadlines, milestones.",
    ),
    (
        "util/kettle",
        "kettle",
        "Boils water.",
        "Boils water for tea.",
    ),
    (
        "util/csv-cleanup",
        "csv-cleanup",
        "Clean CSV files: trim, dedupe, fix encodings.",
        "Clean CSV columns and rows.",
    ),
    (
        "util/chart-maker",
        "chart-maker",
        "Draw bar and line charts from tables.",
        "Matplotlib charts from a table.",
    ),
    (
        "util/pdf-text",
        "pdf-text",
        "Extract text from PDF files.",
        "pdftotext and pypdf extraction.",
    ),
    (
        "util/email-draft",
        "email-draft",
        "Draft polite emails.",
        "Subject lines and greetings.",
    ),
];

/// The library built into `dir/ws` (lexical: BM25 semantic edges).
fn workspace(dir: &Path) -> Arc<Workspace> {
    let lib = dir.join("lib");
    for (id, name, description, body) in SKILLS {
        let d = lib.join(id);
        std::fs::create_dir_all(&d).unwrap();
        let text =
            format!("---\nname: {name}\ndescription: {description}\n---\n# {name}\n{body}\n");
        std::fs::write(d.join("SKILL.md"), text).unwrap();
    }
    let ws = dir.join("ws");
    build_lexical(&lib, &ws);
    Arc::new(Workspace::open(&ws).unwrap())
}

fn lexical() -> RetrieveOptions {
    let mut opts = RetrieveOptions::default();
    opts.seeds.source = SeedSource::Lexical;
    opts
}

fn bundle(r: &Retriever, text: &str, opts: &RetrieveOptions) -> Vec<String> {
    let got = r.retrieve(text, opts).unwrap();
    got.bundle.skills.into_iter().map(|s| s.id).collect()
}

#[test]
fn semantic_mass_orders_a_bundle_but_never_opens_or_closes_it() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = workspace(tmp.path());
    let semantic: Vec<_> = ws
        .graph()
        .edges()
        .filter(|e| e.edge_type == EdgeType::Semantic)
        .map(|e| (e.source.as_str(), e.target.as_str(), e.evidence.as_str()))
        .collect();
    assert_eq!(
        semantic,
        [(
            "plan/pddl-planner",
            "plan/pddl-validator",
            "bm25 0.56; shared: domain, pddl, problem"
        )]
    );
    let r = Retriever::new(ws);
    let on = lexical();
    assert!(on.cut_without_semantic);
    assert_eq!(on.edge_semantic_lexical, 0.1);
    let final_scores = RetrieveOptions {
        cut_without_semantic: false,
        ..on
    };
    let no_semantic = RetrieveOptions {
        edge_semantic_lexical: 0.0,
        ..on
    };
    let (planner, validator, sprint) = (
        "plan/pddl-planner",
        "plan/pddl-validator",
        "plan/sprint-plans",
    );
    // The validator's semantic mass would open a bundle that stops at the planner...
    let q = "classical planner for PDDL";
    assert_eq!(bundle(&r, q, &no_semantic), [planner]);
    assert_eq!(bundle(&r, q, &final_scores), [planner, validator]);
    assert_eq!(bundle(&r, q, &on), [planner]);
    // With the planner the only seed, the validator is there by its edge, whose evidence names
    // its measure: the reason does not repeat the provenance.
    let mut one_seed = final_scores;
    one_seed.seeds.seed_k = 1;
    let got = r.retrieve(q, &one_seed).unwrap();
    assert_eq!(got.bundle.skills[1].id, validator);
    assert_eq!(
        got.bundle.skills[1].reason,
        "related to pddl-planner via semantic edge (bm25 0.56; shared: domain, pddl, problem)"
    );
    // ...or close one that holds a third skill.
    let q = "solve the planning problem in problem.pddl";
    assert_eq!(bundle(&r, q, &no_semantic), [planner, validator, sprint]);
    assert_eq!(bundle(&r, q, &final_scores), [planner, validator]);
    assert_eq!(bundle(&r, q, &on), [planner, validator, sprint]);
    // It still orders: here it lifts the validator over the sprint plans.
    let q = "solve this PDDL planning problem with a classical planner and write the plan";
    assert_eq!(bundle(&r, q, &no_semantic), [planner, sprint, validator]);
    assert_eq!(bundle(&r, q, &on), [planner, validator, sprint]);
}

#[test]
fn lexical_seeds_read_their_own_semantic_factor() {
    let tmp = tempfile::tempdir().unwrap();
    let r = Retriever::new(workspace(tmp.path()));
    let q = "classical planner for PDDL";
    let validator_mass = |opts: &RetrieveOptions| -> f64 {
        let got = r.retrieve(q, opts).unwrap();
        let v = got.ranked.iter().find(|s| s.id == "plan/pddl-validator");
        v.map_or(0.0, |s| s.graph_score)
    };
    let on = lexical();
    let mut other = on;
    other.edge_weights.semantic = 0.7; // applies to dense and hybrid seeds only
    let mut none = on;
    none.edge_semantic_lexical = 0.0;
    assert_eq!(validator_mass(&on), validator_mass(&other));
    assert!(
        validator_mass(&on) > 1.5 * validator_mass(&none),
        "{} against {}",
        validator_mass(&on),
        validator_mass(&none)
    );
}

#[test]
fn a_typed_matrix_is_built_once_per_setting() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = workspace(tmp.path());
    let w = TypeWeights {
        semantic: 0.1,
        ..TypeWeights::default()
    };
    let first = ws.typed_matrix(&w);
    assert!(Arc::ptr_eq(&first, &ws.typed_matrix(&w)));
    assert_eq!(
        first.to_dense_rows(),
        TransitionMatrix::build_typed(ws.graph(), &w).to_dense_rows()
    );
    // One edge per row: normalized rows read 1 whatever the factor; sub-stochastic rows keep
    // the edge's weight x factor (0.56 x 0.1) and restart the rest.
    assert_eq!(first.row(0).1, [1.0]);
    let other = ws.typed_matrix(&TypeWeights {
        substochastic: true,
        ..w
    });
    assert!(!Arc::ptr_eq(&first, &other));
    assert!(
        (other.row(0).1[0] - 0.056).abs() < 1e-3,
        "{:?}",
        other.row(0)
    );
    assert!((other.leak(0) - 0.944).abs() < 1e-3);
}
