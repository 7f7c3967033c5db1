//! `watch`: a real file watcher on a temporary library picks up an added, an edited and a
//! deleted package within a few seconds, parses only what changed, and embeds only the new and
//! the edited texts (vectors of the others are reused). Needs the sentence encoder at
//! `models/all-MiniLM-L6-v2`; skips with a message without it.

use gos_build::BuildOptions;
use gos_build::build::NoProgress;
use gos_build::embed::EmbedOptions;
use gos_build::roots::LibrarySpec;
use gos_build::watch::watch;
use gos_testkit::model_dir;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

fn write_skill(root: &Path, rel: &str, description: &str) {
    let dir = root.join(rel);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        format!("---\nname: {rel}\ndescription: {description}\n---\n# {rel}\n\nBody of {rel}.\n"),
    )
    .unwrap();
}

/// (skills, parsed, from cache, embedded, reused) of one build.
type Seen = (usize, usize, usize, usize, usize);

#[test]
fn added_edited_and_deleted_packages_are_picked_up_and_only_changes_are_embedded() {
    let Some(model) = model_dir() else { return };
    let t = tempfile::tempdir().unwrap();
    let lib = t.path().join("lib");
    write_skill(
        &lib,
        "alpha",
        "Reads CSV files. Use when a CSV must be loaded.",
    );
    write_skill(&lib, "beta", "Plots charts. Use when a chart is asked for.");
    write_skill(
        &lib,
        "gamma",
        "Sends email. Use when a message must go out.",
    );
    let opts = BuildOptions {
        force: false,
        library: lib.clone(),
        workspace: t.path().join("ws"),
        relate: Default::default(),
        embed: Some(EmbedOptions::new(
            model,
            gos_models::dense::load_workspace_encoder,
        )),
    };
    let spec = LibrarySpec::single(&lib);
    let stop = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<Seen>();
    std::thread::scope(|s| {
        let worker = s.spawn(|| {
            watch(
                &opts,
                &spec,
                None,
                &NoProgress,
                Duration::from_millis(200),
                &stop,
                |r| {
                    let report = r.result.as_ref().expect("build succeeds");
                    let e = report.embed.as_ref().expect("vectors");
                    tx.send((
                        report.nodes,
                        r.cache.parsed,
                        r.cache.reused,
                        e.embedded,
                        e.reused,
                    ))
                    .is_ok()
                },
            )
        });
        let next = |what: &str| {
            let start = Instant::now();
            let seen = rx
                .recv_timeout(Duration::from_secs(30))
                .unwrap_or_else(|_| panic!("no rebuild after {what}"));
            (seen, start.elapsed())
        };
        let (first, _) = next("start");
        assert_eq!(first, (3, 3, 0, 3, 0));
        // The watcher is armed before the first build; give the events a clean start.
        std::thread::sleep(Duration::from_millis(300));

        write_skill(
            &lib,
            "delta",
            "Compresses folders. Use when an archive is needed.",
        );
        let (added, took) = next("adding delta");
        assert_eq!(added, (4, 1, 3, 1, 3), "added");
        assert!(took < Duration::from_secs(10), "{took:?}");

        std::thread::sleep(Duration::from_millis(300));
        write_skill(
            &lib,
            "alpha",
            "Reads and cleans CSV files. Use when a CSV must be loaded.",
        );
        let (edited, took) = next("editing alpha");
        assert_eq!(edited, (4, 1, 3, 1, 3), "edited");
        assert!(took < Duration::from_secs(10), "{took:?}");

        std::thread::sleep(Duration::from_millis(300));
        std::fs::remove_dir_all(lib.join("beta")).unwrap();
        let (deleted, took) = next("deleting beta");
        assert_eq!(deleted, (3, 0, 3, 0, 3), "deleted");
        assert!(took < Duration::from_secs(10), "{took:?}");

        stop.store(true, Ordering::Relaxed);
        worker.join().unwrap().unwrap();
    });
    let ws = gos_core::Workspace::open(&t.path().join("ws")).unwrap();
    let ids: Vec<&str> = ws.manifest().nodes.iter().map(|n| n.id.as_str()).collect();
    assert_eq!(ids, ["alpha", "delta", "gamma"]);
    assert!(
        ws.manifest().nodes[0]
            .description
            .value
            .starts_with("Reads and cleans")
    );
}
