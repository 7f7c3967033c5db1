//! Files read at request time: a SKILL.md replaced by a symbolic link after the build must
//! not make the server read outside the library (gos_server::skills::library_file), and
//! damaged workspace files give errors that say so and how to rebuild.

use axum::body::{Body, to_bytes};
use axum::http::{Request, StatusCode, header};
use gos_server::http::{HttpConfig, router};
use gos_server::state::{ServeConfig, ServerState};
use serde_json::Value;
use std::path::Path;
use std::sync::Arc;
use tower::ServiceExt;

/// Copy the directory tree `from` to `to` (plain files and folders).
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

fn open(ws: &Path) -> Result<ServerState, gos_server::ServerError> {
    ServerState::open(ServeConfig {
        workspace: ws.to_path_buf(),
        model_dir: None,
        lexical_only: true,
        precision: Default::default(),
    })
}

async fn get_json(state: Arc<ServerState>, uri: &str) -> (StatusCode, Value) {
    let req = Request::get(uri)
        .header(header::HOST, "localhost")
        .body(Body::empty())
        .unwrap();
    let res = router(state, HttpConfig::default())
        .oneshot(req)
        .await
        .unwrap();
    let status = res.status();
    let body = to_bytes(res.into_body(), 16 << 20).await.unwrap();
    (status, serde_json::from_slice(&body).unwrap())
}

#[tokio::test]
#[cfg(unix)]
async fn a_skill_md_swapped_for_a_link_outside_the_library_is_refused() {
    let t = tempfile::tempdir().unwrap();
    let lib = t.path().join("library");
    copy_tree(&gos_testkit::fixtures().join("library"), &lib);
    let ws = t.path().join("ws");
    gos_testkit::workspace::build_lexical(&lib, &ws);
    let state = Arc::new(open(&ws).unwrap());
    let id = "geo/shapefile-reader";
    let (s, doc) = get_json(state.clone(), &format!("/v1/skills/{id}")).await;
    assert_eq!(s, StatusCode::OK, "{doc}");
    assert_eq!(doc["skill_md_from"], "library");
    let source = doc["source"].as_str().unwrap().to_string();

    // After the build: the SKILL.md becomes a link to a secret outside the library, and a
    // package file appears that links there too.
    let secret = t.path().join("passwd");
    std::fs::write(&secret, "root:x:0:0:secret-marker\n").unwrap();
    let skill_md = lib.join(&source);
    std::fs::remove_file(&skill_md).unwrap();
    std::os::unix::fs::symlink(&secret, &skill_md).unwrap();
    let pkg = skill_md.parent().unwrap();
    std::os::unix::fs::symlink(&secret, pkg.join("notes.txt")).unwrap();

    let (s, err) = get_json(state.clone(), &format!("/v1/skills/{id}")).await;
    assert_eq!(s, StatusCode::FORBIDDEN, "{err}");
    assert_eq!(err["error"]["code"], "outside_library");
    let message = err["error"]["message"].as_str().unwrap();
    assert!(message.contains("outside the library"), "{message}");
    assert!(!err.to_string().contains("secret-marker"), "{err}");

    // A link that stays inside the library is still served, and the outside link is not
    // listed among the package files.
    let inside = pkg.join("inside.md");
    std::fs::write(&inside, "---\nname: shapefile-reader\n---\ninside-marker\n").unwrap();
    std::fs::remove_file(&skill_md).unwrap();
    std::os::unix::fs::symlink(&inside, &skill_md).unwrap();
    let (s, doc) = get_json(state, &format!("/v1/skills/{id}")).await;
    assert_eq!(s, StatusCode::OK, "{doc}");
    assert!(doc["skill_md"].as_str().unwrap().contains("inside-marker"));
    let files: Vec<&str> = doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    assert!(files.iter().any(|f| f.ends_with("inside.md")), "{files:?}");
    assert!(!files.iter().any(|f| f.ends_with("notes.txt")), "{files:?}");
}

#[test]
fn each_damaged_workspace_file_says_damaged_and_how_to_rebuild() {
    let t = tempfile::tempdir().unwrap();
    let ws = t.path().join("ws");
    copy_tree(gos_testkit::fixtures_workspace(), &ws);
    // Random-looking bytes that are neither UTF-8 nor JSON.
    let garbage: Vec<u8> = (0u32..512).map(|i| (i * 7919 % 251 + 128) as u8).collect();
    let mut files = vec!["workspace.json", "manifest.json", "graph.json"];
    if ws.join("duplicates.json").exists() {
        files.push("duplicates.json");
    }
    files.push("tantivy/meta.json");
    for file in files {
        let path = ws.join(file);
        let good = std::fs::read(&path).unwrap();
        std::fs::write(&path, &garbage).unwrap();
        let message = match open(&ws) {
            Ok(_) => panic!("{file}: a damaged file opened"),
            Err(e) => e.to_string(),
        };
        std::fs::write(&path, good).unwrap();
        assert!(
            message.contains("damaged") && message.contains("rebuild"),
            "{file}: {message}"
        );
        assert!(
            !message.contains("stream did not contain valid UTF-8"),
            "{file}: {message}"
        );
    }
    assert!(open(&ws).is_ok(), "the restored workspace opens");
}
