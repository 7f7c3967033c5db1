//! Builds and readers of one workspace at the same time, in threads of one process (each
//! build takes the workspace's file lock through its own file handle, as separate processes
//! do): builds never interleave, and a reader never sees a half-swapped workspace ("graph
//! nodes differ from manifest nodes") however the swaps fall.

use gos_build::build::NoProgress;
use gos_build::relate::RelateOptions;
use gos_build::{BuildOptions, build_workspace};
use gos_core::Workspace;
use gos_testkit::repo;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

fn opts(library: PathBuf, ws: &Path) -> BuildOptions {
    BuildOptions {
        force: true,
        library,
        workspace: ws.to_path_buf(),
        relate: RelateOptions::default(),
        embed: None,
    }
}

fn node_ids(ws: &Workspace) -> Vec<String> {
    ws.manifest().nodes.iter().map(|n| n.id.clone()).collect()
}

#[test]
fn readers_never_see_a_half_swapped_workspace_and_builds_take_turns() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    let libraries = [
        repo().join("fixtures/library"),
        repo().join("fixtures/llm/library"),
    ];
    // The two libraries give different node sets, so a mixed read would be caught.
    let mut expected = Vec::new();
    for lib in &libraries {
        build_workspace(&opts(lib.clone(), &ws), &NoProgress).unwrap();
        expected.push(node_ids(&Workspace::open(&ws).unwrap()));
    }
    assert_ne!(expected[0], expected[1]);
    let done = AtomicBool::new(false);
    let (opens, errors) = std::thread::scope(|s| {
        // Two builders race on the same workspace, each alternating libraries.
        let builders: Vec<_> = (0..2)
            .map(|b| {
                let (ws, libraries) = (&ws, &libraries);
                s.spawn(move || {
                    for round in 0..6 {
                        let lib = libraries[(round + b) % 2].clone();
                        build_workspace(&opts(lib, ws), &NoProgress).expect("build succeeds");
                    }
                })
            })
            .collect();
        let reader = s.spawn(|| {
            let (mut opens, mut errors) = (0, Vec::new());
            while !done.load(Ordering::SeqCst) {
                match Workspace::open(&ws) {
                    Ok(w) => {
                        let ids = node_ids(&w);
                        if !expected.contains(&ids) {
                            errors.push(format!("unexpected node set of {} nodes", ids.len()));
                        }
                        opens += 1;
                    }
                    Err(e) => errors.push(e.to_string()),
                }
            }
            (opens, errors)
        });
        for b in builders {
            b.join().unwrap();
        }
        done.store(true, Ordering::SeqCst);
        reader.join().unwrap()
    });
    assert!(
        errors.is_empty(),
        "{} failed opens of {}: {:?}",
        errors.len(),
        opens + errors.len(),
        errors
    );
    assert!(opens > 0);
    // No staging or old folders are left beside the workspace.
    let mut left: Vec<String> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, [".ws.lock", "ws"]);
}
