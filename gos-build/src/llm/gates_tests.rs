//! Unit tests of the acceptance gates (one proposal per gate).
use super::*;
use gos_core::Field;

fn node(
    id: &str,
    desc: &str,
    ins: &[&str],
    outs: &[&str],
    tags: &[&str],
    tools: &[&str],
) -> SkillNode {
    let v = |x: &[&str]| Field::parsed(x.iter().map(|s| s.to_string()).collect());
    SkillNode {
        id: id.into(),
        name: id.rsplit('/').next().unwrap().into(),
        description: Field::parsed(desc.into()),
        capability: Field::parsed(desc.into()),
        inputs: v(ins),
        outputs: v(outs),
        domain_tags: v(tags),
        tooling: v(tools),
        example_tasks: Field::default(),
        entrypoints: Field::default(),
        headings: vec![],
        source_path: format!("{id}/SKILL.md"),
        content_hash: String::new(),
        warnings: Vec::new(),
    }
}

fn prop(s: &str, t: &str, kind: &str, c: f64, arts: &[&str]) -> Proposal {
    Proposal {
        source: s.into(),
        target: t.into(),
        kind: kind.into(),
        confidence: c,
        description: "because".into(),
        artifacts: arts.iter().map(|a| a.to_string()).collect(),
    }
}

#[test]
fn each_gate_rejects_its_failure_kind() {
    let nodes = vec![
        node(
            "geo/shp",
            "Read shapefile layers into geojson features",
            &["shapefile"],
            &["geojson"],
            &["gis"],
            &["python"],
        ),
        node(
            "geo/map",
            "Draw choropleth maps from geojson features",
            &["geojson"],
            &["png"],
            &["gis"],
            &["python"],
        ),
        node(
            "x/lint",
            "Lint python code style",
            &["python"],
            &["text"],
            &["code"],
            &["python"],
        ),
        node(
            "x/fmt",
            "Format python source files",
            &["text"],
            &["code"],
            &["code"],
            &["python"],
        ),
        node(
            "y/poem",
            "Write rhyming poems about cats",
            &[],
            &["text"],
            &["writing"],
            &[],
        ),
        node("z/other", "Outside the pool", &[], &[], &[], &[]),
    ];
    let common = BTreeSet::new();
    let cols: BTreeSet<String> = ["geo", "x", "y", "z"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let ctx = GateContext {
        nodes: &nodes,
        common_types: &common,
        collections: &cols,
        opts: GateOptions::default(),
    };
    let pool = [1, 2, 3, 4];
    let ok = ctx
        .check(
            &prop("geo/shp", "geo/map", "dependency", 0.9, &[]),
            0,
            &pool,
        )
        .unwrap();
    assert_eq!(
        (ok.source, ok.target, ok.artifacts.clone()),
        (0, 1, vec!["geojson".to_string()])
    );
    let gate = |p: Proposal, focus: usize| ctx.check(&p, focus, &pool).unwrap_err();
    assert_eq!(
        gate(prop("geo/shp", "z/other", "semantic", 0.9, &[]), 0),
        "unknown_skill"
    );
    assert_eq!(
        gate(prop("geo/shp", "shp", "semantic", 0.9, &[]), 0),
        "self_loop"
    );
    assert_eq!(
        gate(prop("geo/map", "x/lint", "semantic", 0.9, &[]), 0),
        "not_focus"
    );
    assert_eq!(
        gate(prop("geo/shp", "geo/map", "prerequisite", 0.9, &[]), 0),
        "invalid_type"
    );
    assert_eq!(
        gate(prop("geo/shp", "geo/map", "dependency", 0.3, &[]), 0),
        "low_confidence"
    );
    assert_eq!(
        gate(prop("geo/shp", "geo/map", "dependency", 1.5, &[]), 0),
        "low_confidence"
    );
    assert_eq!(
        gate(prop("geo/map", "geo/shp", "dependency", 0.9, &[]), 0),
        "direction"
    );
    assert_eq!(
        gate(
            prop(
                "geo/shp",
                "geo/map",
                "workflow",
                0.9,
                &["success", "status"]
            ),
            0
        ),
        "result_state"
    );
    assert_eq!(
        gate(prop("x/lint", "x/fmt", "dependency", 0.9, &[]), 2),
        "generic_container"
    );
    assert_eq!(
        gate(prop("x/fmt", "x/lint", "workflow", 0.9, &[]), 3),
        "tooling_only"
    );
    assert_eq!(
        gate(prop("y/poem", "geo/map", "semantic", 0.7, &[]), 4),
        "cross_domain"
    );
    // A strong proposal passes the cross-domain gate; symmetric types are canonicalized.
    let strong = ctx
        .check(&prop("y/poem", "geo/map", "semantic", 0.9, &[]), 4, &pool)
        .unwrap();
    assert_eq!((strong.source, strong.target), (1, 4));
    assert_eq!(relation_weight(EdgeType::Workflow, 0.9), 0.63);
}

#[test]
fn relations_are_parsed_item_by_item() {
    let v: serde_json::Value = serde_json::from_str(
        r#"{"relations":[{"source":"a","target":"b","type":"Semantic","confidence":"0.7"},{"source":1}]}"#,
    )
    .unwrap();
    let items = parse_relations(&v).unwrap();
    assert_eq!(items[0].as_ref().unwrap().kind, "semantic");
    assert_eq!(items[0].as_ref().unwrap().confidence, 0.7);
    assert!(items[1].is_none());
    assert!(parse_relations(&serde_json::json!({"edges": []})).is_err());
}
