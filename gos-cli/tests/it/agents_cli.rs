//! The agent-harness commands as a harness runs them: `gos hook` (event JSON on stdin, hook
//! JSON or nothing on stdout, always exit 0), `gos install` / `gos uninstall` in a temporary
//! HOME and project, and `gos serve`'s bearer token beyond loopback.

use crate::serve_support::{client, fixture_workspace, serve};
use crate::util::{fixtures, gos};
use serde_json::{Value, json};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// Run `cmd` with `stdin` written to it.
fn with_stdin(mut cmd: Command, stdin: &str) -> Output {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn event(prompt: &str) -> String {
    json!({ "session_id": "s1", "cwd": "/tmp", "hook_event_name": "UserPromptSubmit",
            "prompt": prompt })
    .to_string()
}

/// `gos hook ARGS` on `stdin`: exit status must be 0; the stdout text.
fn hook(args: &[&str], stdin: &str) -> String {
    let mut cmd = gos();
    cmd.arg("hook").args(args);
    let out = with_stdin(cmd, stdin);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

const TASK: &str = "convert a shapefile to geojson";

#[test]
fn the_hook_answers_with_a_ranked_listing_and_the_bundle_within_budget() {
    let t = tempfile::tempdir().unwrap();
    let ws = fixture_workspace(t.path());
    let ws = ws.to_str().unwrap();
    let out = hook(&["claude", "-w", ws], &event(TASK));
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "UserPromptSubmit");
    let text = v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(
        text.starts_with("Skills for this prompt, ranked by gos"),
        "{text}"
    );
    assert!(text.contains("1. shapefile-reader: "), "{text}");
    assert!(text.contains("SKILL.md)"), "{text}");
    assert!(text.chars().count() <= 4000, "{}", text.chars().count());

    let small = hook(&["gemini", "-w", ws, "--budget", "700"], &event(TASK));
    let v: Value = serde_json::from_str(&small).unwrap();
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "BeforeAgent");
    let text = v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(text.chars().count() <= 700, "{}", text.chars().count());
    assert!(text.contains("shapefile-reader"));

    // Through a running server: the same context.
    let server = serve(Path::new(ws), &[]);
    let via = hook(&["claude", "--server", &server.base], &event(TASK));
    assert_eq!(via, out);
}

#[test]
fn the_hook_stays_silent_and_exits_0_on_no_hit_and_on_every_failure() {
    let t = tempfile::tempdir().unwrap();
    let ws = fixture_workspace(t.path());
    let ws = ws.to_str().unwrap();
    let unrelated = std::fs::read_to_string(fixtures().join("unrelated-queries.txt")).unwrap();
    let unrelated = unrelated.lines().find(|l| !l.trim().is_empty()).unwrap();
    let missing = t.path().join("no-such-ws");
    let cases: [(&str, Vec<&str>, String); 6] = [
        ("no hit", vec!["claude", "-w", ws], event(unrelated)),
        ("empty prompt", vec!["claude", "-w", ws], event("  ")),
        ("not JSON", vec!["codex", "-w", ws], "{not json".into()),
        (
            "no workspace",
            vec!["claude", "-w", missing.to_str().unwrap()],
            event(TASK),
        ),
        ("nothing to ask", vec!["claude"], event(TASK)),
        (
            "server down",
            vec!["claude", "--server", "http://127.0.0.1:9"],
            event(TASK),
        ),
    ];
    for (what, args, stdin) in cases {
        assert_eq!(hook(&args, &stdin), "", "{what}");
    }
    // Past the time limit: nothing, at once.
    let start = std::time::Instant::now();
    assert_eq!(
        hook(&["claude", "-w", ws, "--timeout-ms", "1"], &event(TASK)),
        ""
    );
    assert!(start.elapsed().as_secs_f64() < 5.0);
}

#[test]
fn serve_beyond_loopback_needs_a_token_and_checks_it() {
    let t = tempfile::tempdir().unwrap();
    let ws = fixture_workspace(t.path());
    let out = gos()
        .arg("serve")
        .arg("-w")
        .arg(&ws)
        .args(["--addr", "0.0.0.0:0"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("without a bearer token") && err.contains("--token-file"),
        "{err}"
    );

    let token = "s3cret-token-0123456789abcdef";
    let file = t.path().join("token");
    std::fs::write(&file, format!("{token}\n")).unwrap();
    let server = serve(&ws, &["--token-file", file.to_str().unwrap()]);
    let url = format!("{}/v1/status", server.base);
    let c = client();
    assert_eq!(c.get(&url).send().unwrap().status().as_u16(), 401);
    let wrong = c.get(&url).bearer_auth("s3cret-token-0123456789abcdeX");
    assert_eq!(wrong.send().unwrap().status().as_u16(), 401);
    let status = |r: reqwest::blocking::RequestBuilder| r.send().unwrap().status().as_u16();
    assert_eq!(status(c.get(&url).bearer_auth(token)), 200);
    // Over the socket too: a rebinding page's Host, or another Origin, is refused.
    let rebound = c
        .get(&url)
        .bearer_auth(token)
        .header("Host", "evil.example");
    assert_eq!(status(rebound), 403);
    let page = format!("{}/", server.base);
    let foreign = c
        .get(&page)
        .bearer_auth(token)
        .header("Origin", "http://evil.example");
    assert_eq!(status(foreign), 403);
    // The hook reads the token from GOS_TOKEN.
    let mut cmd = gos();
    cmd.args(["hook", "claude", "--server", &server.base])
        .env("GOS_TOKEN", token);
    let out = with_stdin(cmd, &event(TASK));
    assert!(String::from_utf8_lossy(&out.stdout).contains("shapefile-reader"));
}

/// `gos ARGS` with HOME at `home`, no CODEX_HOME, in `project`.
fn in_home(home: &Path, project: &Path, args: &[&str]) -> Output {
    let out = gos()
        .args(args)
        .env("HOME", home)
        .env_remove("CODEX_HOME")
        .current_dir(project)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "gos {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn install_writes_gos_beside_other_entries_and_uninstall_takes_it_out() {
    let t = tempfile::tempdir().unwrap();
    let ws = fixture_workspace(t.path());
    let ws = ws.to_str().unwrap();
    let (home, project) = (t.path().join("home"), t.path().join("project"));
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    std::fs::create_dir_all(home.join(".codex")).unwrap();
    std::fs::create_dir_all(&project).unwrap();
    let claude_json = home.join(".claude.json");
    let settings = home.join(".claude/settings.json");
    let config = home.join(".codex/config.toml");
    let claude_before = json!({ "mcpServers": { "other": { "command": "other-server" } },
                                "numStartups": 3 });
    let settings_before = json!({ "hooks": { "UserPromptSubmit": [
        { "hooks": [{ "type": "command", "command": "echo mine" }] } ] }, "model": "opus" });
    let toml_before = "# my settings\nmodel = \"o3\"\n\n[mcp_servers.other]\ncommand = \"x\"\n";
    std::fs::write(&claude_json, claude_before.to_string()).unwrap();
    std::fs::write(&settings, settings_before.to_string()).unwrap();
    std::fs::write(&config, toml_before).unwrap();

    // --dry-run: a diff, nothing written.
    let dry = in_home(
        &home,
        &project,
        &["install", "claude", "--user", "-w", ws, "--dry-run"],
    );
    let diff = String::from_utf8(dry.stdout).unwrap();
    assert!(
        diff.contains(&format!("+++ {}", claude_json.display())),
        "{diff}"
    );
    assert!(diff.contains("hook claude -w"), "{diff}");
    assert_eq!(read_json(&claude_json), claude_before);
    assert!(!home.join(".claude.json.gos-backup").exists());

    for _ in 0..2 {
        in_home(&home, &project, &["install", "claude", "--user", "-w", ws]);
    }
    let c = read_json(&claude_json);
    assert_eq!(
        c["mcpServers"]["other"],
        claude_before["mcpServers"]["other"]
    );
    assert_eq!(c["numStartups"], 3);
    assert_eq!(c["mcpServers"]["gos"]["args"], json!(["mcp", "-w", ws]));
    let s = read_json(&settings);
    let groups = s["hooks"]["UserPromptSubmit"].as_array().unwrap();
    assert_eq!(groups.len(), 2, "installed twice, listed once: {s}");
    assert_eq!(groups[0], settings_before["hooks"]["UserPromptSubmit"][0]);
    assert!(
        groups[1]["hooks"][0]["command"]
            .as_str()
            .unwrap()
            .contains(" hook claude -w ")
    );
    assert!(home.join(".claude.json.gos-backup").exists());
    assert!(home.join(".claude/settings.json.gos-backup").exists());

    in_home(&home, &project, &["install", "codex", "-w", ws]);
    let text = std::fs::read_to_string(&config).unwrap();
    assert!(text.starts_with(toml_before), "{text}");
    let table: toml::Table = text.parse().unwrap();
    assert_eq!(table["mcp_servers"]["gos"]["args"][0].as_str(), Some("mcp"));
    let hooks = read_json(&home.join(".codex/hooks.json"));
    assert_eq!(
        hooks["hooks"]["UserPromptSubmit"].as_array().unwrap().len(),
        1
    );

    in_home(
        &home,
        &project,
        &["install", "gemini", "--project", "-w", ws],
    );
    let g = read_json(&project.join(".gemini/settings.json"));
    assert_eq!(g["mcpServers"]["gos"]["args"][2], ws);
    let gemini_hook = &g["hooks"]["BeforeAgent"][0]["hooks"][0];
    assert_eq!(gemini_hook["timeout"], 10000);

    in_home(&home, &project, &["uninstall", "claude"]);
    assert_eq!(read_json(&claude_json), claude_before);
    assert_eq!(read_json(&settings), settings_before);
    in_home(&home, &project, &["uninstall", "codex"]);
    assert_eq!(std::fs::read_to_string(&config).unwrap(), toml_before);
    in_home(&home, &project, &["uninstall", "gemini", "--project"]);
    assert_eq!(read_json(&project.join(".gemini/settings.json")), json!({}));
}

/// `gos install` edits a JSON config in place: keys in the author's (non-alphabetical) order,
/// indentation and every other entry stay byte for byte; only gos's entries are added, and
/// `gos uninstall` gives back the original file exactly.
#[test]
fn install_keeps_a_configs_key_order_and_bytes_apart_from_gos_entries() {
    let t = tempfile::tempdir().unwrap();
    let ws = fixture_workspace(t.path());
    let ws = ws.to_str().unwrap();
    let (home, project) = (t.path().join("home"), t.path().join("project"));
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    std::fs::create_dir_all(&project).unwrap();
    let claude_json = home.join(".claude.json");
    let settings = home.join(".claude/settings.json");
    let servers_head = "{\n    \"numStartups\": 3,\n    \"theme\": \"dark\",\n    \"mcpServers\": {\n        \"zeta\": { \"command\": \"z\" },\n        \"alpha\": { \"command\": \"a\" }";
    let servers_tail = "\n    },\n    \"autoUpdates\": false\n}\n";
    let claude_before = format!("{servers_head}{servers_tail}");
    let settings_before = "{\n  \"model\": \"opus\",\n  \"hooks\": {\n    \"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"notify-send done\"}]}],\n    \"UserPromptSubmit\": [\n      {\"hooks\": [{\"type\": \"command\", \"command\": \"echo mine\"}]}\n    ]\n  },\n  \"env\": {\"B\": \"2\", \"A\": \"1\"}\n}\n";
    std::fs::write(&claude_json, &claude_before).unwrap();
    std::fs::write(&settings, settings_before).unwrap();

    in_home(&home, &project, &["install", "claude", "--user", "-w", ws]);
    let claude = std::fs::read_to_string(&claude_json).unwrap();
    assert!(claude.starts_with(servers_head), "{claude}");
    assert!(claude.ends_with(servers_tail), "{claude}");
    let added = &claude[servers_head.len()..claude.len() - servers_tail.len()];
    assert!(added.starts_with(",\n        \"gos\": {"), "{added}");
    assert_eq!(
        read_json(&claude_json)["mcpServers"]["gos"]["args"],
        json!(["mcp", "-w", ws])
    );
    let s = std::fs::read_to_string(&settings).unwrap();
    let keep = "{\n  \"model\": \"opus\",\n  \"hooks\": {\n    \"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"notify-send done\"}]}],\n    \"UserPromptSubmit\": [\n      {\"hooks\": [{\"type\": \"command\", \"command\": \"echo mine\"}]}";
    assert!(s.starts_with(keep), "{s}");
    assert!(
        s.ends_with("  },\n  \"env\": {\"B\": \"2\", \"A\": \"1\"}\n}\n"),
        "{s}"
    );
    let groups = read_json(&settings)["hooks"]["UserPromptSubmit"].clone();
    assert_eq!(groups.as_array().unwrap().len(), 2, "{s}");

    in_home(&home, &project, &["uninstall", "claude"]);
    assert_eq!(
        std::fs::read_to_string(&claude_json).unwrap(),
        claude_before
    );
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), settings_before);
}
