//! Faults a careless user or a crowded machine produces, against the real `gos` binary and
//! real workspaces in a temporary folder: read-only workspaces, two builds at once, a build
//! killed between its two renames, a reader during a swap, a closed stdout, corrupt files,
//! stray log lines, secrets echoed by an LLM endpoint.

use crate::util::{gos, repo};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Output, Stdio};
use std::time::{Duration, Instant, SystemTime};

const QUERY: &str = "Plot a chart from the columns of a CSV file";

fn library() -> PathBuf {
    repo().join("fixtures/library")
}

fn build(ws: &Path) -> Output {
    gos()
        .args(["build", "--quiet", "--no-embed", "-w"])
        .arg(ws)
        .arg(library())
        .output()
        .unwrap()
}

fn built(dir: &Path) -> PathBuf {
    let ws = dir.join("ws");
    let out = build(&ws);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    ws
}

fn retrieve(ws: &Path, extra: &[&str]) -> Output {
    gos()
        .args(["retrieve", "--seeds", "lexical", "--json", "-w"])
        .arg(ws)
        .args(extra)
        .arg(QUERY)
        .output()
        .unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn skill_ids(out: &Output) -> Vec<String> {
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    v["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap().to_string())
        .collect()
}

/// Every entry under `dir` (itself included) with its kind, size, permissions and
/// modification time: equal snapshots mean nothing was created, removed or written.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, (bool, u64, u32, SystemTime)> {
    use std::os::unix::fs::PermissionsExt;
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(p) = stack.pop() {
        let m = std::fs::symlink_metadata(&p).unwrap();
        out.insert(
            p.clone(),
            (
                m.is_dir(),
                m.len(),
                m.permissions().mode(),
                m.modified().unwrap(),
            ),
        );
        if m.is_dir() {
            for e in std::fs::read_dir(&p).unwrap() {
                stack.push(e.unwrap().path());
            }
        }
    }
    out
}

fn set_read_only(dir: &Path, read_only: bool) {
    use std::os::unix::fs::PermissionsExt;
    for (path, (is_dir, ..)) in snapshot(dir) {
        let mode = match (is_dir, read_only) {
            (true, true) => 0o555,
            (true, false) => 0o755,
            (false, true) => 0o444,
            (false, false) => 0o644,
        };
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
    }
}

#[test]
fn retrieve_and_stats_read_a_read_only_workspace_without_touching_it() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = built(tmp.path());
    let writable_ids = skill_ids(&retrieve(&ws, &[]));
    assert!(!writable_ids.is_empty());
    set_read_only(&ws, true);
    // Also the folder around it, so not even a lock file beside it could be created.
    set_read_only(tmp.path(), true);
    let before = snapshot(tmp.path());
    // Under root, permissions do not stop writes: the snapshots are what proves nothing
    // was written.
    std::thread::sleep(Duration::from_millis(20));
    let out = retrieve(&ws, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(skill_ids(&out), writable_ids);
    let stats = gos().args(["stats", "-w"]).arg(&ws).output().unwrap();
    assert!(stats.status.success(), "{}", stderr(&stats));
    assert!(String::from_utf8_lossy(&stats.stdout).contains("nodes "));
    let after = snapshot(tmp.path());
    set_read_only(tmp.path(), false);
    set_read_only(&ws, false);
    assert_eq!(before, after, "retrieve or stats changed the workspace");
}

/// Wait until `path` exists (the build reached its pause), failing after two minutes.
fn wait_for(path: &Path, child: &mut Child) {
    let start = Instant::now();
    while !path.exists() {
        if let Ok(Some(status)) = child.try_wait() {
            panic!("the build ended ({status}) before its pause");
        }
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "no pause marker"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Two real builds of one workspace, the first paused between its two renames (a debug-build
/// hook) and then killed with SIGKILL: the second build refuses with `--no-wait` naming the
/// holder, waits without it, and finishes once the first dies; a retrieve while the workspace
/// path is missing reads the intact previous workspace, and the waiting build puts it back
/// before rebuilding.
#[test]
fn builds_take_turns_and_a_build_killed_between_its_renames_is_recovered() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = built(tmp.path());
    let ids = skill_ids(&retrieve(&ws, &[]));
    let marker = tmp.path().join("paused");
    let mut first = gos()
        .args(["build", "--quiet", "--no-embed", "-w"])
        .arg(&ws)
        .arg(library())
        .env("GOS_DEBUG_PAUSE_BETWEEN_RENAMES", &marker)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for(&marker, &mut first);
    let pid = first.id();
    // The workspace path is missing now; the previous workspace sits under .ws.old-PID.
    assert!(!ws.exists());
    let old = tmp.path().join(format!(".ws.old-{pid}"));
    assert!(old.join("workspace.json").is_file());

    let busy = gos()
        .args(["build", "--quiet", "--no-embed", "--no-wait", "-w"])
        .arg(&ws)
        .arg(library())
        .output()
        .unwrap();
    assert!(!busy.status.success());
    let msg = stderr(&busy);
    assert!(
        msg.contains("another build is writing this workspace")
            && msg.contains(&format!("process {pid}")),
        "{msg}"
    );

    let reader = retrieve(&ws, &[]);
    assert!(reader.status.success(), "{}", stderr(&reader));
    assert_eq!(skill_ids(&reader), ids);

    let mut second = gos()
        .args(["build", "--quiet", "--no-embed", "-w"])
        .arg(&ws)
        .arg(library())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The second build waits for the lock while the first is alive.
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        second.try_wait().unwrap().is_none(),
        "second build did not wait"
    );
    first.kill().unwrap(); // SIGKILL: no cleanup runs in the first build.
    first.wait().unwrap();
    let out = second.wait_with_output().unwrap();
    let msg = stderr(&out);
    assert!(out.status.success(), "{msg}");
    assert!(msg.contains(&format!("waiting for process {pid}")), "{msg}");
    assert!(!old.exists(), "the interrupted swap was not cleaned up");
    let mut left: Vec<String> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    // The killed build's staging folder is gone too; the lock file stays (a few bytes).
    assert_eq!(left, [".ws.lock", "paused", "ws"]);
    let after = retrieve(&ws, &[]);
    assert!(after.status.success(), "{}", stderr(&after));
    assert_eq!(skill_ids(&after), ids);
}

/// `gos ... | head`: stdout closed before gos writes. No panic message, no exit status 101.
#[test]
fn a_closed_stdout_ends_gos_quietly() {
    use std::os::unix::process::ExitStatusExt;
    let tmp = tempfile::tempdir().unwrap();
    let ws = built(tmp.path());
    for args in [
        vec!["retrieve", "--seeds", "lexical", QUERY],
        vec!["retrieve", "--seeds", "lexical", "--json", QUERY],
        vec!["stats"],
    ] {
        let mut child = gos()
            .args(&args)
            .arg("-w")
            .arg(&ws)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take()); // the reader is gone before the first write
        let out = child.wait_with_output().unwrap();
        let msg = stderr(&out);
        assert!(
            !msg.contains("panicked") && !msg.contains("Broken pipe"),
            "{args:?}: {msg}"
        );
        assert_ne!(out.status.code(), Some(101), "{args:?}: {msg}");
        assert!(
            out.status.success() || out.status.signal() == Some(libc::SIGPIPE),
            "{args:?}: {:?} {msg}",
            out.status
        );
    }
}

/// Every damaged workspace file gives an error that names the file and says to rebuild, and
/// tantivy's own log lines never reach stderr.
#[test]
fn corrupt_files_are_named_with_a_rebuild_hint_and_tantivy_stays_quiet() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = built(tmp.path());
    let clean = retrieve(&ws, &[]);
    assert!(
        !stderr(&clean).to_lowercase().contains("tantivy"),
        "{}",
        stderr(&clean)
    );
    let store = std::fs::read_dir(ws.join("tantivy"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "store"))
        .expect("a tantivy store file");
    let cases: Vec<(PathBuf, &[u8])> = vec![
        (ws.join("manifest.json"), b"{\"nodes\": [" as &[u8]),
        // Random bytes, not UTF-8 (once "stream did not contain valid UTF-8", nothing more).
        (
            ws.join("manifest.json"),
            &[0xff, 0xfe, 0x00, 0x9c, 0xc3, 0x28, 0xa0, 0xa1],
        ),
        (ws.join("graph.json"), b"not json"),
        (ws.join("workspace.json"), b"{\"format_version\": 1}"),
        (ws.join("tantivy/meta.json"), b"{}"),
        // 7 bytes made tantivy 0.27 panic (it checks for 4 bytes, then reads 8).
        (store.clone(), b"garbage"),
        (store, &[0x5a; 300]),
    ];
    for (file, bytes) in cases {
        let saved = std::fs::read(&file).unwrap();
        std::fs::write(&file, bytes).unwrap();
        let out = retrieve(&ws, &[]);
        std::fs::write(&file, saved).unwrap();
        let msg = stderr(&out);
        assert!(!out.status.success(), "{}: accepted", file.display());
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            msg.contains(&name) || msg.contains("tantivy"),
            "{name}: {msg}"
        );
        assert!(
            (msg.contains("damaged") || name == "workspace.json") && msg.contains("rebuild"),
            "{name}: {msg}"
        );
        assert!(!msg.contains("panicked"), "{name}: {msg}");
    }
    // A missing file says the same.
    std::fs::rename(ws.join("graph.json"), tmp.path().join("graph.json")).unwrap();
    let msg = stderr(&retrieve(&ws, &[]));
    assert!(
        msg.contains("graph.json")
            && msg.contains("the file is missing")
            && msg.contains("rebuild"),
        "{msg}"
    );
}

/// An over-long query is cut, and the retrieval says so on stderr and in the JSON.
#[test]
fn an_over_long_query_is_capped_with_a_note() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = built(tmp.path());
    let long = format!("{QUERY}. {}", "plot the csv columns again ".repeat(1_000));
    let out = gos()
        .args(["retrieve", "--seeds", "lexical", "--json", "-w"])
        .arg(&ws)
        .arg(&long)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let notes = v["limits_applied"].as_array().unwrap();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(notes[0].as_str().unwrap().contains("first 20000 of"));
    assert!(stderr(&out).contains("note: query cut to its first 20000"));
    let normal = retrieve(&ws, &[]);
    let v: serde_json::Value = serde_json::from_slice(&normal.stdout).unwrap();
    assert_eq!(v["limits_applied"], serde_json::json!([]));
    assert!(!stderr(&normal).contains("note:"));
}

/// `--query-chunks` on a task of 20,000 bullet lines embeds at most 32 passages and says so
/// (before: killed for memory). Needs the sentence encoder.
#[test]
fn query_chunks_are_capped_with_a_note() {
    let Some(model) = crate::util::model_dir() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    let out = gos()
        .args(["build", "--quiet", "-w"])
        .arg(&ws)
        .arg("--model-dir")
        .arg(&model)
        .arg(library())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let task: String = (0..20_000)
        .map(|i| format!("- step {i}: load the csv and plot the columns as a chart\n"))
        .collect();
    // Through stdin: the text is too long for one command-line argument.
    let mut child = gos()
        .args([
            "retrieve",
            "--json",
            "--query-chunks",
            "--seeds",
            "dense",
            "-w",
        ])
        .arg(&ws)
        .arg("--model-dir")
        .arg(&model)
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    std::io::Write::write_all(&mut stdin, task.as_bytes()).unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let notes: Vec<&str> = v["limits_applied"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(
        notes[0].starts_with("query cut to its first 20000"),
        "{notes:?}"
    );
    assert!(
        notes[1].starts_with("embedded the first 32 of"),
        "{notes:?}"
    );
}

/// A log that does not go to a terminal (`gos mcp 2>log`, `gos serve 2>log`) is plain text:
/// no ANSI colour codes.
#[test]
fn a_redirected_log_has_no_colour_codes() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = built(tmp.path());
    let out = gos()
        .env_remove("NO_COLOR")
        .env("GOS_LOG", "info")
        .args(["mcp", "-w"])
        .arg(&ws)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let log = stderr(&out);
    assert!(log.contains("serving MCP on stdio"), "{log}");
    assert!(!log.contains('\u{1b}'), "{log:?}");
}
