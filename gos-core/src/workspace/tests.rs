//! Tests of the workspace module: build targets, staging, the swap and its recovery.

use super::*;

fn workspace_json(dir: &Path, skills: usize) {
    std::fs::create_dir_all(dir).unwrap();
    let text = format!(r#"{{"format":"gos-workspace","format_version":1,"skills":{skills}}}"#);
    std::fs::write(dir.join("workspace.json"), text).unwrap();
}

#[test]
fn targets_gos_did_not_create_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let lib = tmp.path().join("lib");
    std::fs::create_dir_all(lib.join("pkg")).unwrap();
    let user = tmp.path().join("user");
    std::fs::create_dir_all(&user).unwrap();
    std::fs::write(user.join("notes.txt"), "mine").unwrap();
    let file = tmp.path().join("file.txt");
    std::fs::write(&file, "mine").unwrap();
    let refused = |t: &Path| -> String {
        match check_build_target(t, &lib) {
            Err(Error::UnsafeTarget { reason, .. }) => reason,
            other => panic!("{} accepted: {other:?}", t.display()),
        }
    };
    assert!(refused(&user).contains("not a gos workspace"));
    assert!(refused(&file).contains("is a file"));
    assert!(refused(&lib).contains("library itself"));
    assert!(refused(tmp.path()).contains("contains the library"));
    assert!(refused(&lib.join("pkg")).contains("inside the library"));
    assert!(refused(&lib.join("new/ws")).contains("inside the library"));
    // `..` in a path that does not exist yet still resolves into the library.
    assert!(refused(&tmp.path().join("nope/../lib/ws")).contains("inside the library"));
    #[cfg(unix)]
    {
        let link = tmp.path().join("link");
        std::os::unix::fs::symlink(&user, &link).unwrap();
        assert!(refused(&link).contains("symbolic link"));
    }
    assert_eq!(
        std::fs::read_to_string(user.join("notes.txt")).unwrap(),
        "mine"
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine");
}

#[test]
fn new_empty_and_gos_targets_are_accepted() {
    let tmp = tempfile::tempdir().unwrap();
    let lib = tmp.path().join("lib");
    std::fs::create_dir_all(&lib).unwrap();
    let new = tmp.path().join("a/b/ws");
    assert_eq!(check_build_target(&new, &lib).unwrap(), BuildTarget::Absent);
    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    assert_eq!(
        check_build_target(&empty, &lib).unwrap(),
        BuildTarget::Empty
    );
    let ws = tmp.path().join("ws");
    workspace_json(&ws, 7);
    assert_eq!(
        check_build_target(&ws, &lib).unwrap(),
        BuildTarget::Workspace { skills: 7 }
    );
}

#[test]
fn only_marked_staging_leftovers_are_cleaned_up() {
    let tmp = tempfile::tempdir().unwrap();
    let target = tmp.path().join("ws");
    let foreign = tmp.path().join(".ws.building-1");
    std::fs::create_dir(&foreign).unwrap();
    std::fs::write(foreign.join("keep.txt"), "mine").unwrap();
    let stale = tmp.path().join(".ws.building-2");
    std::fs::create_dir(&stale).unwrap();
    std::fs::write(stale.join(STAGING_MARKER), "").unwrap();
    let staging = staging_dir(&target).unwrap();
    assert!(
        foreign.join("keep.txt").is_file(),
        "unmarked folder was removed"
    );
    assert!(!stale.exists(), "marked leftover was kept");
    assert!(staging.join(STAGING_MARKER).is_file());
    workspace_json(&staging, 1);
    commit_dir(&staging, &target).unwrap();
    assert!(target.join("workspace.json").is_file());
    assert!(!target.join(STAGING_MARKER).exists());
}

#[test]
fn commit_refuses_a_target_that_changed_during_the_build() {
    let tmp = tempfile::tempdir().unwrap();
    let target = tmp.path().join("ws");
    let staging = staging_dir(&target).unwrap();
    std::fs::create_dir(&target).unwrap();
    std::fs::write(target.join("report.docx"), "mine").unwrap();
    assert!(matches!(
        commit_dir(&staging, &target),
        Err(Error::UnsafeTarget { .. })
    ));
    assert_eq!(
        std::fs::read_to_string(target.join("report.docx")).unwrap(),
        "mine"
    );
}

#[test]
fn recovery_restores_the_previous_workspace_and_removes_only_gos_leftovers() {
    let tmp = tempfile::tempdir().unwrap();
    let target = tmp.path().join("ws");
    // A build killed between its renames: the target is missing, the old one aside.
    workspace_json(&tmp.path().join(".ws.old-41"), 3);
    workspace_json(&tmp.path().join(".ws.old-42"), 3);
    let foreign = tmp.path().join(".ws.old-7");
    std::fs::create_dir(&foreign).unwrap();
    std::fs::write(foreign.join("notes.txt"), "mine").unwrap();
    let restored = recover_interrupted_swap(&target).unwrap().unwrap();
    assert!(restored.starts_with(tmp.path()));
    assert_eq!(
        classify_target(&target).unwrap(),
        BuildTarget::Workspace { skills: 3 }
    );
    assert!(!tmp.path().join(".ws.old-41").exists() && !tmp.path().join(".ws.old-42").exists());
    assert!(
        foreign.join("notes.txt").is_file(),
        "a folder gos did not write was removed"
    );
    // A build killed after its second rename: the target exists, the old copy is removed.
    workspace_json(&tmp.path().join(".ws.old-43"), 1);
    assert_eq!(recover_interrupted_swap(&target).unwrap(), None);
    assert!(!tmp.path().join(".ws.old-43").exists());
    assert!(target.join("workspace.json").is_file());
    assert_eq!(recover_interrupted_swap(&target).unwrap(), None);
}

#[test]
fn open_reads_the_intact_previous_workspace_when_a_swap_was_interrupted() {
    let tmp = tempfile::tempdir().unwrap();
    let lib = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/library");
    let ws = tmp.path().join("ws");
    let opts = gos_build::BuildOptions {
        force: false,
        library: lib,
        workspace: ws.clone(),
        relate: gos_build::relate::RelateOptions::default(),
        embed: None,
    };
    gos_build::build_workspace(&opts, &gos_build::build::NoProgress).unwrap();
    let skills = Workspace::open(&ws).unwrap().len();
    let old = tmp.path().join(".ws.old-99");
    std::fs::rename(&ws, &old).unwrap();
    let read = Workspace::open(&ws).unwrap();
    assert_eq!((read.len(), read.dir()), (skills, old.as_path()));
    // Without a leftover, a missing workspace is the plain error at once.
    std::fs::remove_dir_all(&old).unwrap();
    assert!(matches!(
        Workspace::open(&ws),
        Err(Error::NotAWorkspace { .. })
    ));
}
