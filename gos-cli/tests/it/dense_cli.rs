//! `gos build --model-dir` and `gos retrieve` with dense and hybrid seeds, as a user runs them.
//!
//! Needs all-MiniLM-L6-v2 (`scripts/setup-model.sh` or `GOS_MODEL_DIR`); skips with a message
//! without it, unless `GOS_REQUIRE_MODEL=1` (set by `.ci/run`).

use serde_json::Value;

use crate::util::{gos, model_dir, repo};
use std::process::Command;

fn json_ok(cmd: &mut Command) -> Value {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

/// `gos build --json -q -w WS --model-dir MODEL REPO/LIBRARY`, its report.
fn build_with_model(ws: &std::path::Path, model: &std::path::Path, library: &str) -> Value {
    json_ok(
        gos()
            .args(["build", "--json", "-q", "-w"])
            .arg(ws)
            .arg("--model-dir")
            .arg(model)
            .arg(repo().join(library)),
    )
}

#[test]
fn build_with_a_model_then_retrieve_with_hybrid_seeds_by_default() {
    let Some(model) = model_dir() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    let report = build_with_model(&ws, &model, "fixtures/library");
    assert_eq!(report["embed"]["embedded"], 36);
    assert_eq!(report["embed"]["dim"], 384);
    assert_eq!(report["embed"]["view"], "card");
    let info: Value =
        serde_json::from_str(&std::fs::read_to_string(ws.join("workspace.json")).unwrap()).unwrap();
    assert_eq!(info["dense"]["view"], "card");
    assert!(ws.join("vectors-card.bin").is_file());

    // Hybrid by default, with the model recorded in the workspace.
    let r = json_ok(
        gos()
            .args(["retrieve", "--json", "-w"])
            .arg(&ws)
            .arg("write to a client saying sorry that their parcel arrived late"),
    );
    assert_eq!(r["seed_source"], "hybrid");
    assert_eq!(r["status"], "SKILL_HIT");
    assert!(r["timings_ms"]["encode"].as_f64().unwrap() > 0.0);
    let top = r["top_dense_score"].as_f64().unwrap();
    assert!((0.3..=1.0).contains(&top), "{top}");
    let task_coverage = r["lexical_coverage"].as_f64().unwrap();
    assert!(
        task_coverage > 0.0 && task_coverage <= 1.0,
        "{task_coverage}"
    );
    let ids: Vec<&str> = r["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert!(ids[..3].contains(&"docs/email-drafting"), "{ids:?}");

    // The int8 query encoder, by flag or by the environment's default: the same best skills,
    // the best cosine within 0.01 of f32's (docs/performance.md: cosine >= 0.999 to f32).
    let task = "write to a client saying sorry that their parcel arrived late";
    let by_flag = json_ok(
        gos()
            .args(["retrieve", "--json", "--query-precision", "int8", "-w"])
            .arg(&ws)
            .arg(task),
    );
    let by_env = json_ok(
        gos()
            .env("GOS_QUERY_PRECISION", "int8")
            .args(["retrieve", "--json", "-w"])
            .arg(&ws)
            .arg(task),
    );
    for int8 in [&by_flag, &by_env] {
        assert_eq!(int8["seed_source"], "hybrid");
        let top8 = int8["top_dense_score"].as_f64().unwrap();
        assert!((top8 - top).abs() < 0.01, "int8 {top8} vs f32 {top}");
        let ids8: Vec<&str> = int8["skills"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["id"].as_str().unwrap())
            .collect();
        assert!(ids8[..3].contains(&"docs/email-drafting"), "{ids8:?}");
    }
    assert_eq!(by_flag["top_dense_score"], by_env["top_dense_score"]);
    let out = gos()
        .args(["retrieve", "--query-precision", "bf16", "-w"])
        .arg(&ws)
        .arg(task)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("f32 or int8"), "{err}");

    // The cosine floor turns an unrelated question away.
    let r = json_ok(
        gos()
            .args(["retrieve", "--json", "-w"])
            .arg(&ws)
            .arg("How long should a sourdough loaf proof in the fridge overnight before baking?"),
    );
    assert_eq!(r["status"], "NO_SKILL_HIT");
    assert!(r["top_dense_score"].as_f64().unwrap() < 0.3);
    // The lexical evidence agrees: the question shares less of its terms with the best hits.
    let question_coverage = r["lexical_coverage"].as_f64().unwrap();
    assert!(
        question_coverage < task_coverage,
        "{question_coverage} vs {task_coverage}"
    );

    // --no-embed wins over GOS_MODEL_DIR; dense seeds then fail with a clear message.
    let plain = tmp.path().join("plain");
    let out = gos()
        .env("GOS_MODEL_DIR", &model)
        .args(["build", "-q", "--no-embed", "-w"])
        .arg(&plain)
        .arg(repo().join("fixtures/library"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = gos()
        .args(["retrieve", "--seeds", "dense", "-w"])
        .arg(&plain)
        .arg("draft an email")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("has no skill vectors"), "{err}");
    let r = json_ok(
        gos()
            .args(["retrieve", "--json", "-w"])
            .arg(&plain)
            .arg("draft an email"),
    );
    assert_eq!(r["seed_source"], "lexical");
}

/// `gos mcp` and `gos serve` over a workspace whose encoder does not load: the error names the
/// flag that exists (`--lexical`) and says what went wrong once.
#[test]
fn servers_without_their_encoder_name_lexical_and_say_it_once() {
    let Some(model) = model_dir() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    json_ok(
        gos()
            .args(["build", "--json", "-q", "-w"])
            .arg(&ws)
            .arg("--model-dir")
            .arg(&model)
            .arg(repo().join("fixtures/library")),
    );
    let gone = tmp.path().join("no-model");
    for cmd in [&["mcp"][..], &["serve", "--addr", "127.0.0.1:0"][..]] {
        let out = gos()
            .args(cmd)
            .arg("-w")
            .arg(&ws)
            .arg("--model-dir")
            .arg(&gone)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("or serve with --lexical"), "{cmd:?}: {err}");
        assert!(!err.contains("--seeds lexical"), "{cmd:?}: {err}");
        // Said once, and as what it is: the folder is not there (not "missing config.json").
        assert_eq!(err.matches("does not exist").count(), 1, "{cmd:?}: {err}");
        assert!(!err.contains("missing config.json"), "{cmd:?}: {err}");
    }
}

/// Issue 22 item 7, as a new user met it: on a 5-skill personal library with vectors, "shrink
/// my Dockerfile image size" got three unrelated skills, one admitted as a seed at cosine
/// -0.01. Now no bundle skill lacks both a lexical match and a cosine of at least 0.1, and a
/// task the library does answer gets its skill first, alone or with few others.
#[test]
fn a_small_personal_library_gives_an_unrelated_task_no_unsupported_skill() {
    let Some(model) = model_dir() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    let report = build_with_model(&ws, &model, "fixtures/personal-library");
    assert_eq!(report["embed"]["embedded"], 5);
    let retrieve = |q: &str| {
        json_ok(
            gos()
                .args(["retrieve", "--json", "-w"])
                .arg(&ws)
                .arg("--model-dir")
                .arg(&model)
                .arg(q),
        )
    };
    let r = retrieve("shrink my Dockerfile image size");
    assert_eq!(r["seed_source"], "hybrid");
    let best = r["top_dense_score"].as_f64().unwrap();
    assert!(best < 0.3, "best cosine {best}");
    // Each seed's reason states its evidence ("seed match (rank 1: BM25 3.1, cosine 0.42)").
    for s in r["skills"].as_array().unwrap() {
        let reason = s["reason"].as_str().unwrap_or_default();
        let cosine = reason
            .split("cosine ")
            .nth(1)
            .and_then(|rest| rest.trim_end_matches(')').parse::<f64>().ok());
        let supported = reason.contains("BM25") || cosine.is_none_or(|c| c >= 0.1);
        assert!(supported, "{} got a slot on {reason:?}", s["id"]);
    }
    // A task the library answers.
    let r = retrieve("extract the tables from this quarterly report PDF into csv files");
    assert_eq!(r["status"], "SKILL_HIT");
    let ids: Vec<&str> = r["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids[0], "pdf-tables", "{ids:?}");
    assert!(
        ids.len() <= 3,
        "the bundle stops where relevance stops: {ids:?}"
    );
}

/// Issue 22 item 7 on long task texts: a text that names many common words ("build", "source",
/// "install", "test", "results") matches skills of other fields lexically with slowly falling
/// scores, so the floor and the gap never end the bundle (on the 89 Terminal-Bench texts 75 of
/// 77 hybrid bundles were full). The cosine rule ends it at the first first-stage skill whose
/// cosine with the task is below `--bundle-min-cosine` (default 0.1): here the irrigation skill
/// (cosine about 0.05), whatever its BM25 match.
#[test]
fn a_skill_that_shares_only_words_with_a_long_task_ends_the_bundle() {
    let Some(model) = model_dir() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let library = tmp.path().join("library");
    let skill = |name: &str, description: &str, body: &str| {
        let dir = library.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        let text =
            format!("---\nname: {name}\ndescription: {description}\n---\n\n# {name}\n\n{body}\n");
        std::fs::write(dir.join("SKILL.md"), text).unwrap();
    };
    skill(
        "cmake-build",
        "Build a C or C++ project from source with CMake and make, then install the binary into /usr/local/bin.",
        "Run cmake -S . -B build, then cmake --build build and cmake --install build. Check the binary with ldd.",
    );
    skill(
        "pytest-runner",
        "Run a Python project's test suite with pytest and report failures.",
        "pytest -q; read the summary line.",
    );
    skill(
        "garden-irrigation",
        "Plan drip irrigation for a vegetable garden: build the line from the source tap, install emitters, test the flow and note the results per bed.",
        "Measure flow per emitter; output a table of litres per bed.",
    );
    skill(
        "sourdough-starter",
        "Feed and keep a sourdough starter: build up the levain, install the jar in a warm spot, test the rise and write the results to a baking log.",
        "Feed flour and water twice a day. Test: a spoon of starter floats when ready. Record results in the output log.",
    );
    skill(
        "choir-rehearsal",
        "Run a choir rehearsal: build the warm-up from the source score, install the seating plan, test each section and list the results for the director.",
        "Warm up, sectional tests, full run.",
    );
    let ws = tmp.path().join("ws");
    let report = json_ok(
        gos()
            .args(["build", "--json", "-q", "-w"])
            .arg(&ws)
            .arg("--model-dir")
            .arg(&model)
            .arg(&library),
    );
    assert_eq!(report["embed"]["embedded"], 5);
    let task = "Build pMARS from source on Debian without X11 support, install the binary to \
                /usr/local/bin and test it with the provided warrior files; the output should \
                print the results line";
    // The floor and the gap off, so only the cosine rule decides the bundle's end.
    let bundle = |min_cosine: &str| -> Vec<String> {
        let r = json_ok(
            gos()
                .args([
                    "retrieve",
                    "--json",
                    "--bundle-floor",
                    "0",
                    "--bundle-gap",
                    "0",
                ])
                .args(["--bundle-min-cosine", min_cosine])
                .arg("-w")
                .arg(&ws)
                .arg("--model-dir")
                .arg(&model)
                .arg(task),
        );
        assert_eq!(r["seed_source"], "hybrid");
        r["skills"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["id"].as_str().unwrap().to_string())
            .collect()
    };
    let off = bundle("-1");
    assert_eq!(
        off.len(),
        5,
        "every skill matches a word of the task: {off:?}"
    );
    assert_eq!(off[0], "cmake-build");
    // Cosines with the task: cmake-build 0.27, pytest-runner 0.32, choir-rehearsal 0.11,
    // garden-irrigation 0.05: the bundle ends at the irrigation skill, fourth of five.
    assert_eq!(
        off[..4],
        [
            "cmake-build",
            "pytest-runner",
            "choir-rehearsal",
            "garden-irrigation"
        ]
    );
    assert_eq!(bundle("0.1"), off[..3]);
    // A floor above every cosine keeps only the first skill, which the relevance floors judge.
    assert_eq!(bundle("0.99"), ["cmake-build"]);
}
