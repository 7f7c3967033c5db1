//! An endpoint that echoes the Authorization header in its error bodies (over real HTTP on
//! 127.0.0.1): the API key appears nowhere in the workspace, the build report included.

use gos_build::build::NoProgress;
use gos_build::llm::LlmOptions;
use gos_build::relate::RelateOptions;
use gos_build::{BuildOptions, build_workspace_with};
use gos_llm::client::ClientConfig;
use gos_llm::testing::{Fault, Responder};
use gos_testkit::repo;
use std::path::{Path, PathBuf};
use std::time::Duration;

const MODEL: &str = "fixture-model";
const KEY: &str = "sk-proj-echoed-0123456789";

/// Every file under `dir`, as bytes.
fn files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push((p.clone(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out
}

#[test]
fn an_echoed_key_never_reaches_the_build_report_or_any_workspace_file() {
    let r = Responder::start(repo().join("fixtures/llm/replies"), 0).expect("responder starts");
    // Every request of the build gets a 401 (fails at once) or a 503 (retried) whose body
    // repeats the Authorization header.
    r.push_faults((0..40).map(|i| Fault::EchoAuthorization(if i % 2 == 0 { 401 } else { 503 })));
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    let mut llm = LlmOptions::new(
        MODEL,
        Some(ClientConfig {
            base_url: r.base_url(),
            model: MODEL.into(),
            api_key: Some(KEY.into()),
            timeout: Duration::from_secs(5),
            max_retries: 1,
            backoff_base: Duration::from_millis(1),
        }),
    );
    llm.concurrency = 1;
    let opts = BuildOptions {
        force: false,
        library: repo().join("fixtures/llm/library"),
        workspace: ws.clone(),
        relate: RelateOptions::default(),
        embed: None,
    };
    let report = build_workspace_with(&opts, Some(&llm), &NoProgress).expect("build succeeds");
    assert!(!report.llm.complete);
    assert!(r.requests() > 0);
    // The servers' bodies did reach the report, redacted.
    let report_text = std::fs::read_to_string(ws.join("build-report.json")).unwrap();
    assert!(report_text.contains("invalid credentials"), "{report_text}");
    assert!(report_text.contains("[REDACTED]"), "{report_text}");
    assert!(!format!("{report:?}").contains(KEY));
    for (path, bytes) in files(&ws) {
        let text = String::from_utf8_lossy(&bytes);
        assert!(!text.contains(KEY), "{} holds the key", path.display());
        assert!(
            !text.contains("0123456789"),
            "{} holds part of the key",
            path.display()
        );
    }
}
