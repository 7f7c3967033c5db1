//! The three presets end to end on the real library (`../shared/data/library`, 5,584 skills)
//! with random-weight tiny models written by the test and the loopback LLM responder
//! (`fixtures/pipelines/llm`): `gos retrieve --pipeline` and `gos eval` arms. The figures
//! mean nothing with random weights; the test checks that the stages ran in order with the
//! presets' candidate counts (k₁/k₂/k₃ = 1000/100/10, SkillRouter's K = 20) and caps, and that
//! LLM faults fall back. Skips with a message when the real data is absent.

use crate::util::gos_ok;
use crate::util::{pipeline_stages as stages, repo, write_tiny_bert};
use gos_llm::testing::{Fault, Responder};
use serde_json::Value;

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

fn counts(st: &[Value]) -> Vec<(u64, u64)> {
    st.iter()
        .map(|s| (s["input"].as_u64().unwrap(), s["output"].as_u64().unwrap()))
        .collect()
}

#[test]
fn presets_run_end_to_end_on_the_real_library() {
    let (Some(library), Some(dev)) = (
        gos_testkit::shared_data("library"),
        gos_testkit::shared_data("skillsbench/dev/tasks.jsonl"),
    ) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws").to_str().unwrap().to_string();
    gos_ok(&strings(&[
        "build",
        library.to_str().unwrap(),
        "-w",
        &ws,
        "-q",
    ]));
    let model = tmp.path().join("bert");
    write_tiny_bert(&model, 7);
    let model = model.to_str().unwrap();
    let lines = std::fs::read_to_string(&dev).unwrap();
    let tasks: Vec<&str> = lines
        .lines()
        .filter(|l| !l.trim().is_empty())
        .take(2)
        .collect();
    let task: Value = serde_json::from_str(tasks[0]).unwrap();
    let query = task["instruction"].as_str().unwrap().to_string();
    let responder = Responder::start(repo().join("fixtures/pipelines/llm"), 0).unwrap();
    let url = responder.base_url();
    let n = 5_584;

    let models = |names: &[&str]| -> Vec<String> {
        names
            .iter()
            .flat_map(|s| ["--stage-model".to_string(), format!("{s}={model}")])
            .collect()
    };
    let retrieve = |pipeline: &str, names: &[&str], extra: &[&str]| -> Value {
        let mut a = strings(&["retrieve", "-w", &ws, "--json", "--pipeline", pipeline]);
        a.extend(models(names));
        a.extend(strings(extra));
        a.extend(["--".to_string(), query.clone()]);
        serde_json::from_slice(&gos_ok(&a).stdout).unwrap()
    };
    let llm = ["--llm-base-url", &url, "--llm-model", "fixture-model"];

    // SkillFlow: 5 queries; description-only dense retrieval, 200 per query, union re-scored,
    // the best 1000; 512-character shallow rerank to 100; 4,096-character deep rerank to 10;
    // the selector's 2 of them ([2, 1] from the responder).
    let sf = retrieve("skillflow", &["retrieve", "shallow", "deep"], &llm);
    let st = stages(&sf);
    for s in &st {
        eprintln!(
            "skillflow stage {}: {:.0} ms",
            s["name"],
            s["ms"].as_f64().unwrap()
        );
    }
    let union = st[1]["detail"]["union"].as_u64().unwrap();
    assert!((200..=1000).contains(&union), "union {union}");
    let k1 = union.min(1000);
    assert_eq!(
        counts(&st),
        [(n, n), (n, k1), (k1, 100), (100, 10), (10, 2)],
        "{st:#?}"
    );
    assert_eq!(st[1]["detail"]["queries"], 5);
    assert_eq!(st[1]["caps"]["depth"], 200);
    assert_eq!(st[1]["detail"]["doc_vectors"]["embedded"], n);
    assert_eq!(st[2]["caps"]["view"]["max_chars"], 512);
    assert_eq!(st[3]["caps"]["view"]["max_chars"], 4096);
    assert_eq!(st[2]["detail"]["longest_doc_chars"], 512);
    let deep_longest = st[3]["detail"]["longest_doc_chars"].as_u64().unwrap();
    assert!(deep_longest > 512 && deep_longest <= 4096);
    assert!(
        st.iter()
            .all(|s| s["fallbacks"].as_array().unwrap().is_empty())
    );
    assert_eq!(sf["skills"].as_array().unwrap().len(), 2);

    // LLM faults: bad JSON on the query prompt and its two retries, then the single-query
    // prompts; the selector answers in prose, so the deep stage's order is kept.
    responder.push_faults([
        Fault::Content("Sorry, I can't do that.".into()),
        Fault::Content("{}".into()),
        Fault::Content("{\"queries\": [".into()),
    ]);
    let cache = tmp.path().join("faults.jsonl");
    let mut faulty = llm.to_vec();
    faulty.extend(["--llm-cache", cache.to_str().unwrap()]);
    // The single-query prompts and then the selector: the selector is the 9th request.
    let before = responder.requests();
    responder.push_faults(std::iter::repeat_n(
        Fault::Content("{\"query\": \"csv charts\"}".into()),
        5,
    ));
    responder.push_faults([Fault::Content("I would pick the first one.".into())]);
    let v = retrieve("skillflow", &["retrieve", "shallow", "deep"], &faulty);
    let st = stages(&v);
    assert_eq!(responder.requests() - before, 3 + 5 + 1);
    assert_eq!(st[0]["fallbacks"].as_array().unwrap().len(), 4);
    assert_eq!(st[0]["detail"]["queries"], Value::from(vec!["csv charts"]));
    assert_eq!(st[1]["detail"]["doc_vectors"]["reused"], n);
    assert_eq!(counts(&st)[1], (n, 200));
    assert_eq!(st[4]["detail"]["outcome"]["kind"], "fallback");
    assert_eq!(st[4]["head"], st[3]["head"]);
    assert_eq!(v["skills"].as_array().unwrap().len(), 8);

    // SkillRouter: K = 20 over `name | description | body`, then the reranker over the 20.
    let sr = retrieve("skillrouter", &["retrieve", "rerank"], &[]);
    let st = stages(&sr);
    assert_eq!(counts(&st), [(n, 20), (20, 20)]);
    assert_eq!(st[0]["caps"]["view"]["kind"], "fields");

    // gos: the same bundle as `gos retrieve`.
    let g = retrieve("gos", &[], &[]);
    let mut plain = strings(&["retrieve", "-w", &ws, "--json", "--"]);
    plain.push(query.clone());
    let p: Value = serde_json::from_slice(&gos_ok(&plain).stdout).unwrap();
    assert_eq!(g["skills"], p["skills"]);
    assert_eq!(g["rendered_context"], p["rendered_context"]);
    assert_eq!(stages(&g)[0]["input"], n);

    // gos eval with the three presets as arms, on the first two DEV tasks.
    let subset = tmp.path().join("tasks.jsonl");
    std::fs::write(&subset, tasks.join("\n") + "\n").unwrap();
    let out = tmp.path().join("eval");
    let mut a = strings(&[
        "eval",
        "-w",
        &ws,
        "--tasks",
        subset.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--arms",
        "reverse/lexical,pipeline:gos,pipeline:skillflow,pipeline:skillrouter",
        "-q",
    ]);
    a.extend(models(&["retrieve", "shallow", "deep", "rerank"]));
    a.extend(strings(&llm));
    gos_ok(&a);
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    for t in report["tasks"].as_array().unwrap() {
        let arms = &t["arms"];
        assert_eq!(
            arms["pipeline:gos"]["bundle"],
            arms["reverse/lexical"]["bundle"]
        );
        assert_eq!(
            arms["pipeline:skillflow"]["bundle"]
                .as_array()
                .unwrap()
                .len(),
            2
        );
        assert_eq!(
            arms["pipeline:skillrouter"]["bundle"]
                .as_array()
                .unwrap()
                .len(),
            8
        );
    }
    assert_eq!(report["tasks"].as_array().unwrap().len(), 2);
}
