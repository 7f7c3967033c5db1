//! The web page of `gos serve` in a real headless browser: Debian's chromium driven over
//! WebDriver (chromedriver), installed by `scripts/setup-chromium.sh`. Types a query, waits for
//! the bundle, opens a skill's neighbourhood and checks the drawn graph; saves a screenshot to
//! `GOS_SCREENSHOT` (default: the test's temporary folder). Skips with a message where chromium
//! cannot be installed; `GOS_REQUIRE_BROWSER=1` turns the skip into a failure.

use crate::serve_support::{client, fixture_workspace, json_of, repo, serve};
use serde_json::{Value, json};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// chromedriver on a free port; killed on drop.
struct Driver {
    child: Child,
    base: String,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn browser_available() -> bool {
    let ok = Command::new(repo().join("scripts/setup-chromium.sh"))
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        gos_testkit::skip(
            gos_testkit::Resource::Browser,
            "needs chromium and chromedriver (scripts/setup-chromium.sh could not install them)",
        );
    }
    ok
}

fn start_driver() -> Driver {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new("chromedriver")
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let base = format!("http://127.0.0.1:{port}");
    let deadline = Instant::now() + Duration::from_secs(30);
    while client().get(format!("{base}/status")).send().is_err() {
        assert!(Instant::now() < deadline, "chromedriver did not start");
        std::thread::sleep(Duration::from_millis(100));
    }
    Driver { child, base }
}

/// One WebDriver command; panics on a WebDriver error.
fn wd(method: &str, url: &str, body: Option<Value>) -> Value {
    let http = client();
    let req = match method {
        "GET" => http.get(url),
        "DELETE" => http.delete(url),
        _ => http.post(url).json(&body.unwrap_or(json!({}))),
    };
    let (status, v) = json_of(req.send().unwrap());
    assert_eq!(status, 200, "WebDriver {method} {url}: {v}");
    v["value"].clone()
}

fn element(session: &str, css: &str) -> String {
    let v = wd(
        "POST",
        &format!("{session}/element"),
        Some(json!({ "using": "css selector", "value": css })),
    );
    v.as_object()
        .unwrap()
        .values()
        .next()
        .unwrap()
        .as_str()
        .unwrap()
        .to_string()
}

fn script(session: &str, js: &str) -> Value {
    wd(
        "POST",
        &format!("{session}/execute/sync"),
        Some(json!({ "script": js, "args": [] })),
    )
}

fn wait_for(session: &str, js: &str, what: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let v = script(session, js);
        if !(v.is_null() || v == json!(false) || v == json!(0)) {
            return v;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn a_person_searches_sees_the_bundle_and_opens_a_neighbourhood() {
    if !browser_available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let ws = fixture_workspace(tmp.path());
    let server = serve(&ws, &[]);
    let driver = start_driver();
    let profile = tmp.path().join("profile");
    let caps = json!({ "capabilities": { "alwaysMatch": {
        "browserName": "chrome",
        "goog:chromeOptions": {
            "binary": "/usr/bin/chromium",
            "args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                     "--disable-background-networking", "--disable-component-update", "--disable-sync",
                     "--window-size=1400,900", format!("--user-data-dir={}", profile.display())]
        }
    }}});
    let session_id = wd("POST", &format!("{}/session", driver.base), Some(caps))["sessionId"]
        .as_str()
        .unwrap()
        .to_string();
    let session = format!("{}/session/{session_id}", driver.base);

    wd(
        "POST",
        &format!("{session}/url"),
        Some(json!({ "url": format!("{}/", server.base) })),
    );
    let query =
        "reproject the districts GeoJSON to web mercator and draw a choropleth map of turnout";
    let input = element(&session, "#query");
    wd(
        "POST",
        &format!("{session}/element/{input}/value"),
        Some(json!({ "text": query })),
    );
    let go = element(&session, "#go");
    wd("POST", &format!("{session}/element/{go}/click"), None);

    // The bundle on the page is the one the API gives.
    let shown = wait_for(
        &session,
        "const s = [...document.querySelectorAll('#bundle .skill')]; \
         return s.length ? s.map(e => [e.dataset.id, e.querySelector('.reason').textContent]) : null;",
        "the bundle",
    );
    let (_, api) = json_of(
        client()
            .post(format!("{}/v1/retrieve", server.base))
            .json(&json!({ "query": query }))
            .send()
            .unwrap(),
    );
    let want: Vec<Value> = api["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| json!([s["id"], s["reason"]]))
        .collect();
    assert_eq!(shown, json!(want));
    let status_line = script(
        &session,
        "return document.getElementById('bundle-status').textContent;",
    );
    assert!(
        status_line.as_str().unwrap().starts_with("SKILL_HIT"),
        "{status_line}"
    );

    // Open the neighbourhood of the bundle's skill with the most prerequisites and dependents.
    let mut best = (0usize, String::new());
    for s in api["skills"].as_array().unwrap() {
        let id = s["id"].as_str().unwrap();
        let (_, n) = json_of(
            client()
                .get(format!("{}/v1/skills/{id}/neighbors", server.base))
                .send()
                .unwrap(),
        );
        let edges = n["prerequisites"].as_array().unwrap().len()
            + n["dependents"].as_array().unwrap().len();
        if edges > best.0 {
            best = (edges, id.to_string());
        }
    }
    assert!(best.0 > 0, "no skill of the bundle has a neighbour");
    let button = element(
        &session,
        &format!("#bundle .skill[data-id='{}'] button.neighbors", best.1),
    );
    wd("POST", &format!("{session}/element/{button}/click"), None);
    let drawn = wait_for(
        &session,
        "const g = document.querySelector('#neighbourhood'); if (!g) return null; \
         return { nodes: g.querySelectorAll('g.node').length, \
                  edges: [...g.querySelectorAll('line.edge title')].map(t => t.textContent), \
                  center: g.querySelector('g.node.center title').textContent };",
        "the neighbourhood drawing",
    );
    assert_eq!(drawn["center"], best.1.as_str());
    let edges = drawn["edges"].as_array().unwrap();
    assert!(edges.len() >= best.0.min(12), "{drawn}");
    for e in edges {
        let t = e.as_str().unwrap();
        assert!(
            t.contains(" edge · provenance "),
            "edge tooltip lacks type and provenance: {t}"
        );
    }

    let png = wd("GET", &format!("{session}/screenshot"), None);
    let path = std::env::var_os("GOS_SCREENSHOT")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| tmp.path().join("web-page.png"));
    let mut decode = Command::new("base64")
        .arg("-d")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    decode
        .stdin
        .take()
        .unwrap()
        .write_all(png.as_str().unwrap().as_bytes())
        .unwrap();
    let out = decode.wait_with_output().unwrap();
    assert!(
        out.status.success() && out.stdout.starts_with(b"\x89PNG"),
        "the screenshot is not a PNG"
    );
    std::fs::write(&path, &out.stdout).unwrap();
    eprintln!("screenshot: {}", path.display());
    wd("DELETE", &session, None);
}
