//! The LLM layer end to end against a real HTTP server on 127.0.0.1 (the test responder of
//! `gos_llm::testing`, replying from `fixtures/llm/`): gates, cache hits on rebuild, retries
//! on 429 and 5xx, timeouts, malformed JSON, budget cuts, an unreachable endpoint, incremental
//! rebuilds, and completion. Query rewrite is tested in gos-llm (`tests/rewrite.rs`).

use gos_build::build::NoProgress;
use gos_build::llm::LlmOptions;
use gos_build::relate::RelateOptions;
use gos_build::{BuildOptions, BuildReport, build_workspace_with};
use gos_core::graph::GraphFile;
use gos_core::{EdgeProvenance, Manifest, Provenance};
use gos_llm::client::ClientConfig;
use gos_llm::testing::{Fault, Responder};
use gos_testkit::repo;
use std::path::{Path, PathBuf};
use std::time::Duration;

const MODEL: &str = "fixture-model";
const KEY: &str = "sk-test-secret-never-written";

fn lab() -> PathBuf {
    repo().join("fixtures/llm/library")
}

fn responder() -> Responder {
    Responder::start(repo().join("fixtures/llm/replies"), 0).expect("responder starts")
}

fn client(base_url: String) -> ClientConfig {
    ClientConfig {
        base_url,
        model: MODEL.into(),
        api_key: Some(KEY.into()),
        timeout: Duration::from_secs(5),
        max_retries: 2,
        backoff_base: Duration::from_millis(5),
    }
}

fn opts(base_url: Option<String>) -> LlmOptions {
    let mut o = LlmOptions::new(MODEL, base_url.map(client));
    o.concurrency = 1;
    o
}

fn build(library: &Path, ws: &Path, llm: Option<&LlmOptions>) -> BuildReport {
    let b = BuildOptions {
        force: false,
        library: library.to_path_buf(),
        workspace: ws.to_path_buf(),
        relate: RelateOptions::default(),
        embed: None,
    };
    build_workspace_with(&b, llm, &NoProgress).expect("build succeeds")
}

fn graph(ws: &Path) -> GraphFile {
    serde_json::from_str(&std::fs::read_to_string(ws.join("graph.json")).unwrap()).unwrap()
}

fn read(ws: &Path, f: &str) -> Vec<u8> {
    std::fs::read(ws.join(f)).unwrap()
}

#[test]
fn gates_accept_and_reject_each_kind_and_a_rebuild_is_served_by_the_cache() {
    let r = responder();
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    let o = opts(Some(r.base_url()));
    let report = build(&lab(), &ws, Some(&o));
    let llm = &report.llm;
    assert!(llm.configured && llm.complete, "{llm:?}");
    let v = llm.validation.as_ref().unwrap();
    assert_eq!(v.prompts, 7);
    assert_eq!(v.proposals, 15);
    assert_eq!(v.accepted, 2, "{v:?}");
    // The accepted semantic edge joins a pair the BM25 similarity rule had already joined: the
    // model confirms it, and the edge now carries the model's evidence.
    assert_eq!(v.confirmed, 1, "{v:?}");
    assert_eq!(v.accepted_by_type.get("dependency"), Some(&1));
    assert_eq!(v.accepted_by_type.get("semantic"), Some(&1));
    for (gate, n) in &v.rejected {
        let want = if gate == "duplicate" { 2 } else { 1 };
        assert_eq!(*n, want, "gate {gate}: {:?}", v.rejected);
    }
    let req = llm.requests.as_ref().unwrap();
    assert_eq!((req.calls, req.calls_ok, req.cache_hits), (7, 7, 0));
    assert!(req.prompt_tokens > 0);
    assert_eq!(r.requests(), 7);
    assert!(r.models().iter().all(|m| m == MODEL));
    assert_eq!(report.edges_by_provenance.get("llm"), Some(&2));

    let g = graph(&ws);
    let llm_edges: Vec<_> = g
        .edges
        .iter()
        .filter(|e| e.provenance == EdgeProvenance::Llm)
        .collect();
    assert_eq!(llm_edges.len(), 2);
    let dep = llm_edges
        .iter()
        .find(|e| e.source == "lab/csv-loader")
        .unwrap();
    assert_eq!((dep.target.as_str(), dep.weight), ("lab/chart-maker", 0.9));
    assert!(
        dep.evidence.contains("model fixture-model"),
        "{}",
        dep.evidence
    );
    assert!(
        dep.evidence.contains("artifacts dataframe"),
        "{}",
        dep.evidence
    );
    let sem = llm_edges
        .iter()
        .find(|e| e.source == "lab/chart-maker")
        .unwrap();
    assert_eq!((sem.target.as_str(), sem.weight), ("lab/plot-studio", 0.32));
    for f in [
        "build-report.json",
        "llm-cache.jsonl",
        "llm-pools.json",
        "graph.json",
    ] {
        let text = String::from_utf8(read(&ws, f)).unwrap();
        assert!(!text.contains(KEY), "the API key leaked into {f}");
    }

    // Rebuild over the same workspace: every reply from the carried-over cache.
    let (manifest0, graph0) = (read(&ws, "manifest.json"), read(&ws, "graph.json"));
    let again = build(&lab(), &ws, Some(&o));
    let req = again.llm.requests.as_ref().unwrap();
    assert_eq!((req.calls, req.cache_hits), (0, 7));
    assert_eq!(r.requests(), 7, "a cached rebuild made HTTP calls");
    assert!(read(&ws, "manifest.json") == manifest0 && read(&ws, "graph.json") == graph0);

    // Another workspace sharing the cache file, offline: identical graph, no calls.
    let mut offline = opts(None);
    offline.cache_path = Some(ws.join("llm-cache.jsonl"));
    let ws2 = tmp.path().join("ws2");
    let rep2 = build(&lab(), &ws2, Some(&offline));
    assert!(rep2.llm.complete && rep2.llm.offline);
    assert_eq!(r.requests(), 7);
    assert!(read(&ws2, "graph.json") == graph0 && read(&ws2, "manifest.json") == manifest0);
}

#[test]
fn no_llm_and_an_unreachable_endpoint_both_keep_the_deterministic_graph() {
    let tmp = tempfile::tempdir().unwrap();
    let plain = tmp.path().join("plain");
    let report = build(&lab(), &plain, None);
    assert!(!report.llm.configured && report.llm.complete);
    assert!(report.llm.note.contains("no LLM configured"));
    assert!(!plain.join("llm-cache.jsonl").exists());
    let g = graph(&plain);
    assert!(g.edges.iter().all(|e| e.provenance != EdgeProvenance::Llm));
    assert!(
        g.edges
            .iter()
            .any(|e| e.source == "lab/csv-loader" && e.target == "lab/plot-studio")
    );

    // A port with nothing listening.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut o = opts(Some(format!("http://127.0.0.1:{port}/v1")));
    o.concurrency = 4;
    let down = tmp.path().join("down");
    let report = build(&lab(), &down, Some(&o));
    assert!(!report.llm.complete);
    let req = report.llm.requests.as_ref().unwrap();
    assert_eq!(req.failures.get("unreachable"), Some(&7), "{req:?}");
    // The client gives up after 3 connection failures in a row (gos_llm::client), so the 4
    // workers make at most 3 + 3 attempts in all instead of 7 x 3.
    assert!(req.retries <= 3, "{req:?}");
    assert_eq!(report.llm.skipped_total, 7);
    assert!(read(&down, "graph.json") == read(&plain, "graph.json"));
    assert!(read(&down, "manifest.json") == read(&plain, "manifest.json"));
}

#[test]
fn a_429_and_a_503_are_retried_then_succeed() {
    let r = responder();
    r.push_faults([Fault::Status(429), Fault::Status(503)]);
    let tmp = tempfile::tempdir().unwrap();
    let report = build(
        &lab(),
        &tmp.path().join("ws"),
        Some(&opts(Some(r.base_url()))),
    );
    let req = report.llm.requests.as_ref().unwrap();
    assert!(report.llm.complete, "{:?}", report.llm);
    assert_eq!((req.calls, req.calls_ok, req.retries), (7, 7, 2));
    assert_eq!(r.requests(), 9);
    assert_eq!(report.llm.validation.as_ref().unwrap().accepted, 2);
}

#[test]
fn a_timeout_is_retried_and_a_request_that_keeps_timing_out_is_skipped_then_retried_next_build() {
    let r = responder();
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    let mut o = opts(Some(r.base_url()));
    if let Some(c) = o.client.as_mut() {
        c.timeout = Duration::from_millis(300);
        c.max_retries = 1;
    }
    // One slow reply: retried, and the build is complete.
    r.push_faults([Fault::Delay(Duration::from_millis(1500))]);
    let report = build(&lab(), &tmp.path().join("one"), Some(&o));
    assert!(report.llm.complete);
    assert_eq!(report.llm.requests.as_ref().unwrap().retries, 1);

    // Both attempts of the first prompt (focus lab/chart-maker) time out.
    r.push_faults([
        Fault::Delay(Duration::from_millis(1500)),
        Fault::Delay(Duration::from_millis(1500)),
    ]);
    let report = build(&lab(), &ws, Some(&o));
    assert!(!report.llm.complete);
    let req = report.llm.requests.as_ref().unwrap();
    assert_eq!(req.failures.get("timeout"), Some(&1));
    assert_eq!(report.llm.skipped[0].id, "lab/chart-maker");
    assert!(report.llm.skipped[0].reason.contains("timed out"));
    let v = report.llm.validation.as_ref().unwrap();
    assert_eq!((v.focus_failed, v.accepted), (1, 0));
    assert_eq!(report.edges_by_provenance.get("io"), Some(&1));

    let before = r.requests();
    let report = build(&lab(), &ws, Some(&o));
    assert!(report.llm.complete);
    assert_eq!(
        r.requests() - before,
        1,
        "only the failed prompt is sent again"
    );
    assert_eq!(report.llm.validation.as_ref().unwrap().accepted, 2);
}

#[test]
fn malformed_json_fails_one_node_and_is_not_cached() {
    let r = responder();
    r.push_faults([
        Fault::Content("{\"relations\": [".into()),
        Fault::Content("{\"edges\": []}".into()),
    ]);
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    let o = opts(Some(r.base_url()));
    let report = build(&lab(), &ws, Some(&o));
    let req = report.llm.requests.as_ref().unwrap();
    assert_eq!(req.failures.get("malformed_json"), Some(&1));
    let v = report.llm.validation.as_ref().unwrap();
    assert_eq!((v.replies_malformed, v.focus_failed), (1, 2));
    assert_eq!(report.llm.skipped_total, 2);
    assert!(!report.llm.complete);
    // The broken reply was not cached; the well-formed one without `relations` was.
    let before = r.requests();
    let again = build(&lab(), &ws, Some(&o));
    assert_eq!(r.requests() - before, 1);
    assert_eq!(again.llm.validation.as_ref().unwrap().replies_malformed, 1);
}

#[test]
fn a_budget_cut_keeps_deterministic_edges_and_reports_the_rest() {
    let r = responder();
    let mut o = opts(Some(r.base_url()));
    o.max_requests = Some(2);
    o.concurrency = 3;
    let tmp = tempfile::tempdir().unwrap();
    let report = build(&lab(), &tmp.path().join("ws"), Some(&o));
    let req = report.llm.requests.as_ref().unwrap();
    assert_eq!((req.calls, req.budget), (2, Some(2)));
    assert_eq!(req.failures.get("budget"), Some(&5));
    assert_eq!(r.requests(), 2);
    assert!(!report.llm.complete);
    assert_eq!(report.llm.skipped_total, 5);
    // The budget goes to the first prompts in focus order: lab/chart-maker is served.
    assert_eq!(report.llm.validation.as_ref().unwrap().accepted, 2);
    assert_eq!(report.edges_by_provenance.get("io"), Some(&1));
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

#[test]
fn an_incremental_rebuild_asks_only_about_what_changed() {
    let r = responder();
    let tmp = tempfile::tempdir().unwrap();
    let lib = tmp.path().join("lib");
    copy_dir(&lab(), &lib);
    let ws = tmp.path().join("ws");
    let mut o = opts(Some(r.base_url()));
    o.pool_k = 2;
    let first = build(&lib, &ws, Some(&o));
    let v1 = first.llm.validation.as_ref().unwrap();
    assert!(!v1.incremental.previous);
    assert_eq!(v1.incremental.revalidated, 7);

    let haiku = lib.join("lab/haiku-writer/SKILL.md");
    let text = std::fs::read_to_string(&haiku).unwrap();
    std::fs::write(
        &haiku,
        text.replace("the seasons", "the seasons and the sea"),
    )
    .unwrap();
    let before = r.requests();
    let second = build(&lib, &ws, Some(&o));
    let v2 = second.llm.validation.as_ref().unwrap();
    let inc = &v2.incremental;
    assert!(inc.previous);
    assert_eq!(inc.new_or_changed, 1);
    assert_eq!(inc.reused + inc.revalidated, 7);
    // A focus skill is revalidated when it changed, when the changed skill sits in its pool
    // (its prompt lists that skill), when the changed skill enters its pool, or when the
    // candidate edges its prompt shows changed (a BM25 similarity's evidence moves with idf).
    assert_eq!(
        inc.revalidated,
        inc.new_or_changed + inc.member_changed + inc.entered_pools + inc.candidates_changed,
        "{inc:?}"
    );
    assert!(inc.reused >= 1, "{inc:?}");
    let req = second.llm.requests.as_ref().unwrap();
    assert_eq!(req.calls + req.cache_hits, v2.prompts as u64);
    assert!(req.calls as usize <= inc.revalidated, "{req:?} {inc:?}");
    assert_eq!(r.requests() - before, req.calls);
    assert!(second.llm.complete);
}

#[test]
fn completion_fills_only_empty_fields_and_creates_no_edges() {
    let r = responder();
    let tmp = tempfile::tempdir().unwrap();
    let mut o = opts(Some(r.base_url()));
    o.complete = true;
    o.validate = false;
    let ws = tmp.path().join("ws");
    let report = build(&lab(), &ws, Some(&o));
    let c = report.llm.completion.as_ref().unwrap();
    assert!(report.llm.complete);
    assert_eq!(c.eligible, 7, "{c:?}");
    let m: Manifest =
        serde_json::from_str(&std::fs::read_to_string(ws.join("manifest.json")).unwrap()).unwrap();
    let haiku = m.nodes.iter().find(|n| n.id == "lab/haiku-writer").unwrap();
    assert_eq!(haiku.inputs.value, vec!["csv"]);
    assert!(matches!(
        &haiku.inputs.provenance,
        Provenance::Inferred { model, prompt_hash } if model == MODEL && prompt_hash.len() == 64
    ));
    assert_eq!(haiku.domain_tags.value, vec!["poetry", "lab"]);
    assert_eq!(haiku.domain_tags.provenance, Provenance::Parsed);
    let loader = m.nodes.iter().find(|n| n.id == "lab/csv-loader").unwrap();
    assert_eq!(loader.inputs.provenance, Provenance::Parsed);
    let plain = tmp.path().join("plain");
    build(&lab(), &plain, None);
    assert!(read(&ws, "graph.json") == read(&plain, "graph.json"));
}

/// The review fixture (`fixtures/llm/review/`): three workflow candidates found in the bodies.
fn review_lab() -> PathBuf {
    repo().join("fixtures/llm/review/library")
}

fn edges_between<'g>(g: &'g GraphFile, a: &str, b: &str) -> Vec<&'g gos_core::SkillEdge> {
    g.edges
        .iter()
        .filter(|e| (e.source == a && e.target == b) || (e.source == b && e.target == a))
        .collect()
}

#[test]
fn the_validator_confirms_retypes_and_rejects_workflow_candidates() {
    let tmp = tempfile::tempdir().unwrap();
    let (collector, cleaner, report, mailer) = (
        "flow/survey-collector",
        "flow/survey-cleaner",
        "flow/survey-report",
        "flow/survey-mailer",
    );
    // Without an LLM, the sequencing sentences give three workflow edges in execution order.
    let plain = tmp.path().join("plain");
    build(&review_lab(), &plain, None);
    let g = graph(&plain);
    let mut seq: Vec<(&str, &str)> = g
        .edges
        .iter()
        .filter(|e| e.provenance == EdgeProvenance::Sequence)
        .map(|e| (e.source.as_str(), e.target.as_str()))
        .collect();
    seq.sort();
    assert_eq!(
        seq,
        [(cleaner, report), (collector, cleaner), (report, mailer)],
        "{:?}",
        g.edges
    );

    let r = Responder::start(repo().join("fixtures/llm/review/replies"), 0).unwrap();
    let ws = tmp.path().join("ws");
    let rep = build(&review_lab(), &ws, Some(&opts(Some(r.base_url()))));
    let v = rep.llm.validation.as_ref().unwrap();
    assert!(v.providers.iter().any(|p| p == "candidate_edges"), "{v:?}");
    assert_eq!((v.accepted, v.confirmed, v.retyped), (2, 1, 1), "{v:?}");
    assert_eq!(v.candidates_rejected.get("workflow"), Some(&1), "{v:?}");
    let g = graph(&ws);
    assert!(
        g.edges
            .iter()
            .all(|e| e.provenance != EdgeProvenance::Sequence),
        "every workflow candidate was judged: {:?}",
        g.edges
    );
    // Confirmed: the same workflow edge, now the model's, with its evidence.
    let confirmed = edges_between(&g, collector, cleaner);
    assert_eq!(confirmed.len(), 1, "{confirmed:?}");
    let e = confirmed[0];
    assert_eq!(
        (e.source.as_str(), e.edge_type, e.provenance),
        (collector, gos_core::EdgeType::Workflow, EdgeProvenance::Llm)
    );
    assert_eq!(e.weight, 0.63, "workflow 0.7 x confidence 0.9");
    assert!(e.evidence.contains("model fixture-model"), "{}", e.evidence);
    // Retyped: the workflow candidate gave way to the model's dependency edge.
    let retyped = edges_between(&g, cleaner, report);
    assert_eq!(retyped.len(), 1, "{retyped:?}");
    assert_eq!(
        (retyped[0].edge_type, retyped[0].provenance),
        (gos_core::EdgeType::Dependency, EdgeProvenance::Llm)
    );
    // Rejected: nothing joins the report and the mailer any more.
    assert!(
        edges_between(&g, report, mailer).is_empty(),
        "{:?}",
        g.edges
    );

    // The prompts showed the candidates; the cached rebuild repeats the verdicts, no calls.
    let graph0 = read(&ws, "graph.json");
    let calls = r.requests();
    build(&review_lab(), &ws, Some(&opts(Some(r.base_url()))));
    assert_eq!(r.requests(), calls, "a cached rebuild made HTTP calls");
    assert!(read(&ws, "graph.json") == graph0);
    let prompts = r.user_messages();
    let mailer_prompt = prompts
        .iter()
        .find(|p| p.starts_with(&format!("Focus skill:\n- [{mailer}]")))
        .expect("the mailer was a focus skill");
    assert!(
        mailer_prompt.contains(&format!(
            "- [{report}] survey-report: Summarize questionnaire answers in charts and a short report.; Domain tags: surveys\n  Proposed by the build: workflow, [{report}] first (sequence: "
        )),
        "{mailer_prompt}"
    );
    assert!(mailer_prompt.contains("A relation proposed by the build is kept only if you list it"));

    // A validator that cannot be reached judges nothing: the candidates stay as built.
    let dead = tmp.path().join("dead");
    let mut o = opts(Some("http://127.0.0.1:9".into()));
    o.client.as_mut().unwrap().max_retries = 0;
    let rep = build(&review_lab(), &dead, Some(&o));
    let v = rep.llm.validation.as_ref().unwrap();
    assert_eq!((v.candidates_reviewed, v.retyped), (0, 0), "{v:?}");
    let kept = graph(&dead)
        .edges
        .iter()
        .filter(|e| e.provenance == EdgeProvenance::Sequence)
        .count();
    assert_eq!(kept, 3);
}
