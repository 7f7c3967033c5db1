//! A model is identified by its files, not its folder name (issue 24 item 4), and `--device
//! cuda` without a GPU build is refused with one line naming `--device cpu` (item 3).

use crate::util::{gos, repo, write_tiny_bert};
use serde_json::Value;

#[test]
fn a_renamed_model_folder_is_the_same_model() {
    let tmp = tempfile::tempdir().unwrap();
    let first = tmp.path().join("mcopy");
    write_tiny_bert(&first, 7);
    let ws = tmp.path().join("ws");
    let out = gos()
        .args(["build", "--json", "-q", "-w"])
        .arg(&ws)
        .arg("--model-dir")
        .arg(&first)
        .arg(repo().join("fixtures/library"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let moved = tmp.path().join("mcopy2");
    std::fs::rename(&first, &moved).unwrap();
    let out = gos()
        .args(["retrieve", "--json", "-w"])
        .arg(&ws)
        .arg("--model-dir")
        .arg(&moved)
        .arg("write to a client saying sorry that their parcel arrived late")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["seed_source"], "hybrid");

    // Other files (another seed) are another model, whatever the folder is called.
    let other = tmp.path().join("mcopy3");
    write_tiny_bert(&other, 8);
    let out = gos()
        .args(["retrieve", "--json", "-w"])
        .arg(&ws)
        .arg("--model-dir")
        .arg(&other)
        .arg("a task")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("vectors come from mcopy@"), "{err}");
    assert!(err.contains("query encoder is mcopy3@"), "{err}");
}

#[test]
fn a_model_dir_that_does_not_exist_is_reported_as_such() {
    let tmp = tempfile::tempdir().unwrap();
    let gone = tmp.path().join("no-such-model");
    let out = gos()
        .args(["build", "-q", "-w"])
        .arg(tmp.path().join("ws"))
        .arg("--model-dir")
        .arg(&gone)
        .arg(repo().join("fixtures/library"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no-such-model"), "{err}");
    assert!(err.contains("does not exist"), "{err}");
    assert!(!err.contains("missing config.json"), "{err}");
}

#[cfg(not(feature = "cuda"))]
#[test]
fn device_cuda_on_a_cpu_build_is_one_short_line_naming_device_cpu() {
    let out = gos()
        .args(["retrieve", "--device", "cuda", "-w"])
        .arg(repo().join("fixtures/library"))
        .arg("a task")
        .env("RUST_BACKTRACE", "1")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("built without the `cuda` feature"), "{err}");
    assert!(err.contains("--device cpu"), "{err}");
    assert!(err.lines().count() <= 4, "{err}");
}
