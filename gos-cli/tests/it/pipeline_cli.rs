//! `gos retrieve --pipeline` and `gos eval` pipeline arms on the fixture library, with tiny
//! random-weight models written by the test (one BERT used both as the embedding model and as
//! the cross-encoder) and the loopback OpenAI-compatible responder of gos-llm replying from
//! `fixtures/pipelines/llm`. Scores mean nothing with random weights; the tests check which
//! stages ran, in which order, with which candidate counts and caps, and the LLM fallbacks.

use crate::util::gos_out;
use crate::util::{pipeline_stages as stages, repo, write_tiny_bert};
use gos_llm::testing::{Fault, Responder};
use serde_json::Value;
use std::path::Path;
use std::process::Output;
use std::time::Duration;

const QUERY: &str = "Read the sales csv file and plot a bar chart of the data into a png image";

fn ok(out: Output) -> Output {
    assert!(
        out.status.success(),
        "gos failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn json(out: Output) -> Value {
    serde_json::from_slice(&ok(out).stdout).unwrap()
}

/// The fixture workspace and a tiny random BERT under `dir`.
fn setup(dir: &Path) -> (String, String) {
    let ws = dir.join("ws");
    let library = repo().join("fixtures/library");
    ok(gos_out(&[
        "build",
        library.to_str().unwrap(),
        "-w",
        ws.to_str().unwrap(),
        "-q",
    ]));
    let model = dir.join("bert");
    write_tiny_bert(&model, 11);
    (
        ws.to_str().unwrap().to_string(),
        model.to_str().unwrap().to_string(),
    )
}

fn stage_models(model: &str, names: &[&str]) -> Vec<String> {
    names
        .iter()
        .flat_map(|n| ["--stage-model".to_string(), format!("{n}={model}")])
        .collect()
}

fn field(stages: &[Value], key: &str) -> Vec<Value> {
    stages.iter().map(|s| s[key].clone()).collect()
}

/// `skillflow-small.toml` through the responder; the JSON document.
fn skillflow_small(ws: &str, model: &str, llm: &[&str]) -> Value {
    let file = repo().join("fixtures/pipelines/skillflow-small.toml");
    let mut args: Vec<String> = [
        "retrieve",
        "-w",
        ws,
        "--json",
        "--pipeline",
        file.to_str().unwrap(),
    ]
    .map(String::from)
    .to_vec();
    args.extend(stage_models(model, &["retrieve", "shallow", "deep"]));
    args.extend(llm.iter().map(|s| s.to_string()));
    args.push(QUERY.into());
    json(gos_out(
        &args.iter().map(String::as_str).collect::<Vec<_>>(),
    ))
}

#[test]
fn gos_preset_is_gos_retrieve_plus_a_trace() {
    let tmp = tempfile::tempdir().unwrap();
    let (ws, _) = setup(tmp.path());
    let strip = |mut v: Value| {
        let o = v.as_object_mut().unwrap();
        o.remove("timings_ms");
        o.remove("pipeline");
        v
    };
    for extra in [&[][..], &["--mode", "forward", "--top-n", "3"][..]] {
        let mut plain = vec!["retrieve", "-w", &ws, "--json"];
        plain.extend(extra);
        plain.push(QUERY);
        let a = json(gos_out(&plain));
        let mut piped = plain.clone();
        piped.splice(4..4, ["--pipeline", "gos"]);
        let b = json(gos_out(&piped));
        let st = stages(&b);
        assert_eq!(field(&st, "kind"), [Value::from("gos")]);
        assert_eq!(
            st[0]["output"].as_u64().unwrap() as usize,
            b["skills"]
                .as_array()
                .unwrap()
                .len()
                .max(st[0]["output"].as_u64().unwrap() as usize)
        );
        assert_eq!(st[0]["input"], 36);
        assert!(!a["skills"].as_array().unwrap().is_empty());
        assert_eq!(strip(a), strip(b));
    }
}

#[test]
fn skillflow_stages_run_in_order_with_their_counts_caps_and_cache() {
    let tmp = tempfile::tempdir().unwrap();
    let (ws, model) = setup(tmp.path());
    let responder = Responder::start(repo().join("fixtures/pipelines/llm"), 0).unwrap();
    let url = responder.base_url();
    let llm = ["--llm-base-url", &url, "--llm-model", "fixture-model"];
    let v = skillflow_small(&ws, &model, &llm);
    let st = stages(&v);
    assert_eq!(
        field(&st, "name"),
        ["queries", "retrieve", "shallow", "deep", "select"].map(Value::from)
    );
    assert_eq!(
        field(&st, "input"),
        [36, 36, 12, 6, 3].map(Value::from),
        "{st:#?}"
    );
    assert_eq!(field(&st, "output"), [36, 12, 6, 3, 2].map(Value::from));
    assert!(
        st.iter().all(|s| s["fallbacks"] == Value::Array(vec![])),
        "{st:#?}"
    );
    // Queries: the responder's five, from the LLM; five queries searched, 4 deep each.
    assert_eq!(st[0]["detail"]["outcome"]["kind"], "llm");
    assert_eq!(st[0]["detail"]["queries"].as_array().unwrap().len(), 5);
    assert_eq!(st[1]["detail"]["queries"], 5);
    let union = st[1]["detail"]["union"].as_u64().unwrap();
    assert!(
        (12..=20).contains(&union),
        "union of 5 x 4 nearest: {union}"
    );
    assert_eq!(st[1]["caps"]["depth"], 4);
    assert_eq!(st[1]["caps"]["view"]["kind"], "description");
    // Caps: the shallow stage read at most 512 characters per skill, the deep one 4,096.
    assert_eq!(st[2]["caps"]["view"]["max_chars"], 512);
    assert_eq!(st[3]["caps"]["view"]["max_chars"], 4096);
    let longest = |i: usize| st[i]["detail"]["longest_doc_chars"].as_u64().unwrap();
    assert_eq!(
        longest(2),
        512,
        "fixture skills are longer than 512 characters"
    );
    assert!(longest(3) > 512 && longest(3) <= 4096);
    assert_eq!(st[2]["detail"]["scored"], 12);
    // The selector's reply [2, 1] picks the deep stage's second and first skills, in that
    // order, and they are the bundle.
    let deep = st[3]["head"].as_array().unwrap();
    assert_eq!(
        st[4]["head"],
        Value::from(vec![deep[1].clone(), deep[0].clone()])
    );
    let bundle: Vec<Value> = v["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].clone())
        .collect();
    assert_eq!(bundle, st[4]["head"].as_array().unwrap().clone());
    assert_eq!(v["status"], "SKILL_HIT");
    assert_eq!(v["rerank"], "pipeline:skillflow-small");
    assert!(
        v["skills"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("after stage `select`")
    );
    // Document vectors were cached in the workspace and are reused; LLM replies come from
    // the cache: the second run sends no request.
    assert_eq!(st[1]["detail"]["doc_vectors"]["embedded"], 36);
    let requests = responder.requests();
    assert_eq!(requests, 2);
    let again = skillflow_small(&ws, &model, &llm);
    let st2 = stages(&again);
    assert_eq!(st2[1]["detail"]["doc_vectors"]["reused"], 36);
    assert_eq!(st2[1]["detail"]["doc_vectors"]["embedded"], 0);
    assert_eq!(st2[0]["detail"]["outcome"]["cached"], true);
    assert_eq!(responder.requests(), requests);
    assert_eq!(again["skills"], v["skills"]);
    assert!(Path::new(&ws).join("pipeline-vectors").is_dir());
}

#[test]
fn llm_faults_fall_back_and_are_reported() {
    let tmp = tempfile::tempdir().unwrap();
    let (ws, model) = setup(tmp.path());
    let responder = Responder::start(repo().join("fixtures/pipelines/llm"), 0).unwrap();
    let url = responder.base_url();
    let cache = |n: &str| tmp.path().join(n).to_str().unwrap().to_string();
    // Bad JSON three times (a refusal in prose, a wrong shape, a broken fence): two retries,
    // then the single-query prompts answer.
    responder.push_faults([
        Fault::Content("I'm sorry, but I can't help with that.".into()),
        Fault::Content("{\"queries\": \"not a list\"}".into()),
        Fault::Content("```json\n{\"queries\": [\n```".into()),
    ]);
    let c1 = cache("c1.jsonl");
    let llm = [
        "--llm-base-url",
        &url,
        "--llm-model",
        "m",
        "--llm-cache",
        &c1,
    ];
    let v = skillflow_small(&ws, &model, &llm);
    let st = stages(&v);
    assert_eq!(st[0]["detail"]["outcome"]["kind"], "llm");
    let notes: Vec<&str> = st[0]["fallbacks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    assert_eq!(notes.len(), 4, "{notes:?}");
    assert!(notes[0].starts_with("skillflow-queries/v1: malformed JSON"));
    assert!(notes[1].starts_with("skillflow-queries-retry1/v1: no usable"));
    assert!(notes[2].starts_with("skillflow-queries-retry2/v1: malformed JSON"));
    assert!(
        notes[3].contains("1 of 5 queries from single-query prompts"),
        "{notes:?}"
    );
    assert_eq!(responder.requests(), 3 + 5 + 1);
    // SkillFlow's temperatures: +0.3 per retry, 0.3 for the single queries, 0 for the selector.
    let t = responder.temperatures();
    assert_eq!(t[..3], [0.0, 0.3, 0.6]);
    assert!(t[3..8].iter().all(|&x| x == 0.3), "{t:?}");
    assert_eq!(t[8], 0.0);
    // The five single-query prompts got the same reply: one query, 4 nearest skills.
    assert_eq!(st[1]["detail"]["queries"], 1);
    assert_eq!(field(&st, "output"), [36, 4, 4, 3, 2].map(Value::from));

    // A timeout on the query prompt: no retry chain, the task text is the query; a refusal
    // from the selector: the deep stage's order is kept.
    responder.push_faults([
        Fault::Delay(Duration::from_millis(2_500)),
        Fault::Content("I cannot choose skills for this request.".into()),
    ]);
    let c2 = cache("c2.jsonl");
    let llm = [
        "--llm-base-url",
        &url,
        "--llm-model",
        "m",
        "--llm-cache",
        &c2,
        "--llm-timeout-s",
        "1",
        "--llm-retries",
        "0",
    ];
    let before = responder.requests();
    let v = skillflow_small(&ws, &model, &llm);
    let st = stages(&v);
    assert_eq!(responder.requests() - before, 2);
    assert_eq!(st[0]["detail"]["outcome"]["kind"], "fallback");
    assert!(
        st[0]["detail"]["outcome"]["reason"]
            .as_str()
            .unwrap()
            .contains("timed out")
    );
    assert_eq!(st[0]["detail"]["queries"], Value::from(vec![QUERY]));
    assert_eq!(st[1]["detail"]["queries"], 1);
    assert_eq!(st[4]["detail"]["outcome"]["kind"], "fallback");
    assert!(
        st[4]["fallbacks"][0]
            .as_str()
            .unwrap()
            .starts_with("kept the input order")
    );
    assert_eq!(st[4]["head"], st[3]["head"]);
    assert_eq!(field(&st, "output"), [36, 4, 4, 3, 3].map(Value::from));
    assert_eq!(v["status"], "SKILL_HIT");

    // No endpoint at all: both LLM stages fall back, the retrieval still succeeds.
    let v = skillflow_small(&ws, &model, &[]);
    let st = stages(&v);
    for i in [0, 4] {
        assert_eq!(
            st[i]["detail"]["outcome"]["reason"],
            "no LLM endpoint configured"
        );
    }
    assert_eq!(v["skills"].as_array().unwrap().len(), 3);
}

#[test]
fn mixes_presets_and_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let (ws, model) = setup(tmp.path());
    // GoS diffusion followed by SkillFlow's rerankers.
    let file = repo().join("fixtures/pipelines/gos-then-rerankers.toml");
    let mut args = vec![
        "retrieve",
        "-w",
        &ws,
        "--json",
        "--pipeline",
        file.to_str().unwrap(),
    ];
    let models = stage_models(&model, &["shallow", "deep"]);
    args.extend(models.iter().map(String::as_str));
    args.push(QUERY);
    let v = json(gos_out(&args));
    let st = stages(&v);
    assert_eq!(
        field(&st, "kind"),
        ["gos", "rerank", "rerank"].map(Value::from)
    );
    // The gos stage passes on its `keep` (20) of the candidates above the relative floor, not
    // the bundle's five or six the adaptive cut leaves (it did before session 21).
    let gos_stage_out = st[0]["output"].as_u64().unwrap();
    assert_eq!(gos_stage_out, 20);
    assert_eq!(st[1]["input"], gos_stage_out);
    assert_eq!(
        st[2]["output"].as_u64().unwrap(),
        gos_stage_out.min(10).min(5)
    );
    assert_eq!(v["mode"], "reverse");
    assert!(!v["seeds"].as_array().unwrap().is_empty());

    // The presets run with their full depths on a small library: SkillRouter's K = 20.
    let mut args = vec!["retrieve", "-w", &ws, "--json", "--pipeline", "skillrouter"];
    let models = stage_models(&model, &["retrieve", "rerank"]);
    args.extend(models.iter().map(String::as_str));
    args.push(QUERY);
    let v = json(gos_out(&args));
    let st = stages(&v);
    assert_eq!(field(&st, "output"), [20, 20].map(Value::from));
    assert_eq!(st[0]["caps"]["view"]["description_chars"], 300);
    assert_eq!(st[0]["caps"]["view"]["body_chars"], 2500);
    assert_eq!(st[0]["caps"]["query_chars"], 1500);
    assert_eq!(st[1]["caps"]["max_length"], 4096);
    assert_eq!(v["seed_source"], "dense");
    assert_eq!(v["mode"], "no-graph");
    assert_eq!(v["skills"].as_array().unwrap().len(), 8);

    // A missing model names the stage and the flag.
    let out = gos_out(&["retrieve", "-w", &ws, "--pipeline", "skillflow", QUERY]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("stage `retrieve` (dense)") && err.contains("--stage-model retrieve=DIR"),
        "{err}"
    );
    let out = gos_out(&[
        "retrieve",
        "-w",
        &ws,
        "--pipeline",
        "skillflow",
        "--stage-model",
        "shallo=x",
        QUERY,
    ]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("no such stage"));
    let out = gos_out(&["retrieve", "-w", &ws, "--pipeline", "nosuch", QUERY]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown pipeline `nosuch`"));
}

#[test]
fn eval_runs_pipeline_arms() {
    let tmp = tempfile::tempdir().unwrap();
    let (ws, model) = setup(tmp.path());
    let out_dir = tmp.path().join("eval");
    let file = repo().join("fixtures/pipelines/skillflow-small.toml");
    let arms = format!("reverse/lexical,pipeline:gos,pipeline:{}", file.display());
    let tasks = repo().join("fixtures/tasks.jsonl");
    let mut args = vec![
        "eval",
        "-w",
        &ws,
        "--tasks",
        tasks.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
        "--arms",
        &arms,
        "-q",
    ];
    let models = stage_models(&model, &["retrieve", "shallow", "deep"]);
    args.extend(models.iter().map(String::as_str));
    ok(gos_out(&args));
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("report.json")).unwrap())
            .unwrap();
    let sf = format!("pipeline:{}", file.display());
    let arms = report["arms"].as_object().unwrap();
    assert_eq!(arms.len(), 3);
    assert!(
        arms.contains_key("pipeline:gos") && arms.contains_key(&sf),
        "{arms:?}"
    );
    // pipeline:gos runs with the base options: the same figures as reverse/lexical.
    let strip = |a: &Value| {
        let mut a = a.clone();
        a.as_object_mut()
            .unwrap()
            .retain(|k, _| !k.contains("latency") && !k.contains("ms"));
        a
    };
    assert_eq!(
        strip(&arms["reverse/lexical"]),
        strip(&arms["pipeline:gos"])
    );
    // The SkillFlow arm: no endpoint, so the selector keeps the deep stage's 3 skills.
    let tasks = report["tasks"].as_array().unwrap();
    assert!(tasks.len() >= 5);
    for t in tasks {
        let a = &t["arms"];
        assert_eq!(a["pipeline:gos"]["bundle"], a["reverse/lexical"]["bundle"]);
        assert_eq!(a[&sf]["bundle"].as_array().unwrap().len(), 3, "{t}");
        assert_eq!(a[&sf]["status"], "SKILL_HIT");
    }
}

/// Graph and seed flags under a pipeline without a gos stage are refused, naming the flag and
/// the pipeline, with clap's usage status 2 (before the workspace is opened); budgets pass.
#[test]
fn flags_a_non_gos_pipeline_ignores_are_refused() {
    for (pipeline, flags) in [
        ("skillflow", ["--mode", "one-hop"]),
        ("skillrouter", ["--seeds", "lexical"]),
        ("skillflow", ["--min-seed-score", "0.3"]),
        ("skillrouter", ["--set", "prereq_slots=1"]),
    ] {
        let out = gos_out(&[
            "retrieve",
            "-w",
            "/nonexistent-gos-ws",
            "--pipeline",
            pipeline,
            flags[0],
            flags[1],
            QUERY,
        ]);
        assert_eq!(out.status.code(), Some(2), "{pipeline} {flags:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!(
                "{} does nothing under --pipeline {pipeline}",
                flags[0]
            )),
            "{err}"
        );
    }
    // The gos preset takes them; a budget is no graph or seed flag.
    let out = gos_out(&[
        "retrieve",
        "-w",
        "/nonexistent-gos-ws",
        "--pipeline",
        "gos",
        "--mode",
        "one-hop",
        QUERY,
    ]);
    assert_ne!(out.status.code(), Some(2));
    let out = gos_out(&[
        "retrieve",
        "-w",
        "/nonexistent-gos-ws",
        "--pipeline",
        "skillflow",
        "--top-n",
        "3",
        QUERY,
    ]);
    assert_ne!(out.status.code(), Some(2));
}
