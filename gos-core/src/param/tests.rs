//! Tests of the parameter registry.

use super::*;
use std::collections::HashSet;

#[test]
fn names_and_aliases_are_unique_snake_case() {
    let mut seen = HashSet::new();
    for k in KNOBS {
        for n in std::iter::once(&k.name).chain(k.aliases) {
            assert!(
                n.chars().all(|c| c.is_ascii_lowercase() || c == '_'),
                "{n} is not snake_case"
            );
            assert!(seen.insert(*n), "{n} is declared twice");
        }
        assert!(!k.doc.is_empty(), "{} has no doc", k.name);
    }
    assert_eq!(KNOBS.len(), 63);
}

#[test]
fn every_default_is_accepted_by_its_own_range_and_round_trips() {
    for k in KNOBS {
        let d = k.default_value();
        if let Access::Loader { .. } = k.access {
            continue;
        }
        k.range
            .parse(&d)
            .unwrap_or_else(|e| panic!("{}: default {d} refused: {e}", k.name));
        let mut o = RetrieveOptions::default();
        let mut s = StageParams::default();
        match k.access {
            Access::Options { .. } => set(&mut o, k.name, &d).unwrap(),
            Access::Stage { .. } => set_stage(&mut s, k.name, &d).unwrap(),
            Access::Loader { .. } => unreachable!(),
        }
        assert_eq!(o, RetrieveOptions::default(), "{}", k.name);
        assert_eq!(s, StageParams::default(), "{}", k.name);
    }
}

#[test]
fn defaults_are_the_structs_defaults() {
    let d = |n: &str| knob(n).unwrap().default_value();
    assert_eq!(d("mode"), "reverse");
    assert_eq!(d("ppr"), "push");
    assert_eq!(d("seeds"), "auto");
    assert_eq!(d("top_n"), "8");
    assert_eq!(d("min_seed_score"), "0.5");
    assert_eq!(d("min_dense_score"), "auto");
    assert_eq!(d("graph_weight"), "0.5");
    assert_eq!(d("fusion"), "weighted:0.7");
    assert_eq!(d("code_boost"), "auto");
    assert_eq!(d("rerank_top"), crate::rerank::DEFAULT_TOP.to_string());
    assert_eq!(d("prereq_slots"), "0");
    assert_eq!(d("coverage"), "false");
    assert_eq!(d("markup"), "keep");
    assert_eq!(d("device"), "cpu");
    assert_eq!(d("edge_io"), "1");
    assert_eq!(d("edge_semantic"), "0");
    assert_eq!(d("reverse_dependency"), "1");
    assert_eq!(d("reverse_workflow"), "0.5");
}

#[test]
fn set_writes_the_field_and_get_reads_it_back() {
    let mut o = RetrieveOptions::default();
    set(&mut o, "top-n", "5").unwrap();
    set(&mut o, "mode", "one-hop").unwrap();
    set(&mut o, "min_score", "0.3").unwrap(); // old name
    set(&mut o, "markup", "1").unwrap(); // sweep index
    set(&mut o, "prereq_slots", "2").unwrap();
    set(&mut o, "coverage", "1").unwrap();
    set(&mut o, "code_boost", "2").unwrap();
    set(&mut o, "min_dense_score", "0.4").unwrap();
    set(&mut o, "edge_io", "0.25").unwrap();
    set(&mut o, "edge_semantic", "0.1").unwrap();
    assert_eq!((o.edge_weights.io, o.edge_weights.semantic), (0.25, 0.1));
    assert_eq!(o.edge_weights.mention, 1.0);
    assert_eq!(o.budgets.top_n, 5);
    assert_eq!(o.mode, crate::RetrievalMode::OneHop);
    assert_eq!(o.min_seed_score, 0.3);
    assert_eq!(o.query.markup, crate::query::Markup::Strip);
    assert_eq!(o.prerequisites.slots, 2);
    assert!(o.coverage.enabled);
    assert_eq!(o.query.code_boost, Some(2.0));
    assert_eq!(get(&o, "markup").as_deref(), Some("strip"));
    assert_eq!(get(&o, "min_seed_score").as_deref(), Some("0.3"));
    assert_eq!(get(&o, "min_dense_score").as_deref(), Some("0.4"));
    set(&mut o, "code_boost", "auto").unwrap();
    assert_eq!(o.query.code_boost, None);
    let mut s = StageParams::default();
    set_stage(&mut s, "ce-weight", "0.25").unwrap();
    assert_eq!(s.weight, 0.25);
    assert_eq!(get_stage(&s, "rerank_weight").as_deref(), Some("0.25"));
}

#[test]
fn errors_name_the_knob_and_the_allowed_values() {
    let mut o = RetrieveOptions::default();
    let e = |n, v| {
        set(&mut RetrieveOptions::default(), n, v)
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        e("mode", "sideways"),
        "mode: `sideways` is not one of reverse, forward, one-hop, no-graph"
    );
    assert_eq!(e("top_n", "0"), "top_n: `0` is not a whole number >= 1");
    assert_eq!(e("top_n", "2.5"), "top_n: `2.5` is not a whole number >= 1");
    assert_eq!(
        e("restart_prob", "1"),
        "restart_prob: `1` is not a number in (0, 1)"
    );
    assert_eq!(
        e("max_term_df", "0"),
        "max_term_df: `0` is not a number in (0, 1]"
    );
    assert!(e("min_seed_score", "NaN").contains("a finite number"));
    assert!(e("code_boost", "0").contains("`auto` or a number > 0"));
    assert!(e("coverage", "2").contains("true or false"));
    assert!(e("fusion", "rrf:-1").contains("fusion:"));
    let unknown = e("alpha", "1");
    assert!(unknown.starts_with("unknown parameter `alpha` (one of mode, ppr"));
    assert!(e("rerank_top", "4").contains("cross-encoder stage parameter"));
    assert!(e("device", "cuda").contains("chooses a model or device"));
    assert!(set_all(&mut o, ["top_n"]).is_err());
    set_all(&mut o, ["top_n=3", "bundle_floor=0.4"]).unwrap();
    assert_eq!((o.budgets.top_n, o.bundle_cut.min_top_ratio), (3, 0.4));
}

#[test]
fn the_experiments_are_the_options_every_fold_turned_off() {
    let experimental: Vec<&str> = KNOBS
        .iter()
        .filter(|k| k.status == Status::Experimental)
        .map(|k| k.name)
        .collect();
    assert_eq!(
        experimental,
        [
            "coverage",
            "coverage_relevance",
            "facet_seeds",
            "prereq_slots",
            "prereq_anchors",
            "prereq_min_ratio",
            "markup",
            "max_term_df",
            "min_coverage"
        ]
    );
    for k in KNOBS {
        assert_eq!(
            k.status == Status::Experimental,
            k.category == Category::Experimental,
            "{}",
            k.name
        );
    }
}
