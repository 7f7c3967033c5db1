//! The MCP Skills extension (SEP-2640) of `gos mcp` and `gos serve`'s `/mcp`, driven with raw
//! JSON-RPC over both transports, on a library laid out like the SEP's own examples
//! (`git-workflow`, `pdf-processing` with references, scripts and nested templates,
//! `acme/billing/refunds` with a licence and an example).

use crate::serve_support::{build, client, serve};
use crate::util::gos;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Stdio};

/// The SEP's example skills: (package path, file, contents).
const FILES: &[(&str, &str, &str)] = &[
    (
        "git-workflow",
        "SKILL.md",
        "---\nname: git-workflow\ndescription: Follow this team's Git conventions for branching and commits\n---\n\n# Git workflow\n\nBranch from main, name branches `topic/short-name`, write commit subjects in the imperative.\n",
    ),
    (
        "pdf-processing",
        "SKILL.md",
        "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\nmetadata:\n  version: 2.1.0\n---\n\n# PDF processing\n\nChoose the matching template from `templates/`, fill the form fields listed in `references/FORMS.md`, and run `scripts/extract.py` to pull text out of a PDF.\n",
    ),
    (
        "pdf-processing",
        "references/FORMS.md",
        "# Forms\n\nField names of the invoice and purchase-order forms.\n",
    ),
    (
        "pdf-processing",
        "scripts/extract.py",
        "import sys\nprint(open(sys.argv[1], 'rb').read()[:100])\n",
    ),
    (
        "pdf-processing",
        "templates/invoice.md",
        "# Invoice\n\nNumber, date, lines, total.\n",
    ),
    (
        "pdf-processing",
        "templates/purchase-order.md",
        "# Purchase order\n\nSupplier, lines, delivery date.\n",
    ),
    (
        "pdf-processing",
        "templates/regional/eu-invoice.md",
        "# EU invoice\n\nVAT number, reverse charge note.\n",
    ),
    (
        "acme/billing/refunds",
        "SKILL.md",
        "---\nname: refunds\ndescription: Process customer refund requests per company policy\nlicense: Apache-2.0\n---\n\n# Refunds\n\nCheck the order, the refund window and the payment method; answer with the email in `examples/email.md`.\n",
    ),
    (
        "acme/billing/refunds",
        "examples/email.md",
        "Dear customer, your refund of {amount} is on its way.\n",
    ),
];

fn digest(text: &str) -> String {
    let hex: String = Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("sha256:{hex}")
}

/// The SEP example library under `dir/library`, built into `dir/ws`.
fn sep_workspace(dir: &Path) -> std::path::PathBuf {
    let library = dir.join("library");
    for (pkg, file, text) in FILES {
        let path = library.join(pkg).join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let ws = dir.join("ws");
    build(&library, &ws);
    ws
}

/// A JSON-RPC peer: send a request, get its response object.
trait Rpc {
    fn call(&mut self, id: u64, method: &str, params: Value) -> Value;
    fn notify(&mut self, method: &str);
}

/// `gos mcp` over stdio, one JSON message a line.
struct Stdio_ {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Drop for Stdio_ {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Rpc for Stdio_ {
    fn call(&mut self, id: u64, method: &str, params: Value) -> Value {
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(self.stdin, "{msg}").unwrap();
        loop {
            let mut line = String::new();
            assert!(
                self.stdout.read_line(&mut line).unwrap() > 0,
                "gos mcp closed stdout"
            );
            let v: Value = serde_json::from_str(&line).unwrap();
            if v["id"] == id {
                return v;
            }
        }
    }
    fn notify(&mut self, method: &str) {
        writeln!(
            self.stdin,
            "{}",
            json!({"jsonrpc": "2.0", "method": method})
        )
        .unwrap();
    }
}

/// `gos serve`'s `/mcp` (streamable HTTP), with its session id.
struct Http {
    url: String,
    session: Option<String>,
}

impl Http {
    fn post(&mut self, body: &Value) -> Option<Value> {
        let mut req = client()
            .post(&self.url)
            .header("accept", "application/json, text/event-stream")
            .json(body);
        if let Some(s) = &self.session {
            req = req.header("mcp-session-id", s);
        }
        let r = req.send().unwrap();
        if let Some(s) = r.headers().get("mcp-session-id") {
            self.session = Some(s.to_str().unwrap().to_string());
        }
        let text = r.text().unwrap();
        text.lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .map(str::trim)
            .filter(|d| !d.is_empty())
            .filter_map(|d| serde_json::from_str::<Value>(d).ok())
            .find(|v| v.get("id").is_some())
            .or_else(|| serde_json::from_str(&text).ok())
    }
}

impl Rpc for Http {
    fn call(&mut self, id: u64, method: &str, params: Value) -> Value {
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.post(&msg)
            .unwrap_or_else(|| panic!("no JSON-RPC answer to {method}"))
    }
    fn notify(&mut self, method: &str) {
        self.post(&json!({"jsonrpc": "2.0", "method": method}));
    }
}

fn initialize(rpc: &mut dyn Rpc) -> Value {
    let init = rpc.call(
        1,
        "initialize",
        json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "gos-sep-2640-test", "version": "0"}
        }),
    );
    rpc.notify("notifications/initialized");
    init
}

/// Every check of the SEP's examples, over one transport.
fn check_sep_examples(rpc: &mut dyn Rpc) {
    let init = initialize(rpc);
    let caps = &init["result"]["capabilities"];
    assert_eq!(
        caps["extensions"]["io.modelcontextprotocol/skills"],
        json!({"directoryRead": true}),
        "{init}"
    );
    assert!(caps["resources"].is_object(), "{init}");

    // skills/list: all three skills, each a complete manifest with digests and sizes.
    let list = rpc.call(2, "skills/list", json!({}));
    let skills = list["result"]["skills"]
        .as_array()
        .unwrap_or_else(|| panic!("{list}"));
    let uris: Vec<&str> = skills.iter().map(|s| s["uri"].as_str().unwrap()).collect();
    let mut sorted = uris.clone();
    sorted.sort_unstable();
    assert_eq!(
        sorted,
        [
            "skill://acme/billing/refunds/SKILL.md",
            "skill://git-workflow/SKILL.md",
            "skill://pdf-processing/SKILL.md"
        ]
    );
    assert!(list["result"].get("nextCursor").is_none(), "{list}");
    let refunds = skills
        .iter()
        .find(|s| s["uri"] == "skill://acme/billing/refunds/SKILL.md")
        .unwrap();
    assert_eq!(
        refunds["frontmatter"],
        json!({"name": "refunds", "description": "Process customer refund requests per company policy", "license": "Apache-2.0"})
    );
    let expect = |pkg: &str| -> Vec<Value> {
        let mut v: Vec<Value> = FILES
            .iter()
            .filter(|(p, _, _)| *p == pkg)
            .map(|(p, f, t)| json!({"uri": format!("skill://{p}/{f}"), "digest": digest(t), "size": t.len()}))
            .collect();
        v.sort_by(|a, b| a["uri"].as_str().cmp(&b["uri"].as_str()));
        v
    };
    let mut got = refunds["resources"].as_array().unwrap().clone();
    got.sort_by(|a, b| a["uri"].as_str().cmp(&b["uri"].as_str()));
    assert_eq!(got, expect("acme/billing/refunds"));

    // Pagination: the cursor hands out every skill once.
    let page = rpc.call(3, "skills/list", json!({"cursor": "1"}));
    assert_eq!(
        page["result"]["skills"].as_array().unwrap().len(),
        2,
        "{page}"
    );
    let bad = rpc.call(4, "skills/list", json!({"cursor": "not-a-cursor"}));
    assert_eq!(bad["error"]["code"], -32602, "{bad}");

    // gos extension: the skills ranked for a task, within a character budget.
    let ranked = rpc.call(
        5,
        "skills/list",
        json!({"_meta": {"io.github.gos/task": "fill the purchase order PDF form from a template"}}),
    );
    let first = &ranked["result"]["skills"][0];
    assert_eq!(first["uri"], "skill://pdf-processing/SKILL.md", "{ranked}");
    assert!(
        ranked["result"]["_meta"]["io.github.gos/status"].is_string(),
        "{ranked}"
    );
    let tight = rpc.call(
        6,
        "skills/list",
        json!({"_meta": {"io.github.gos/task": "fill the purchase order PDF form", "io.github.gos/max_chars": 10}}),
    );
    assert_eq!(
        tight["result"]["skills"].as_array().unwrap().len(),
        1,
        "{tight}"
    );

    // skills/get, as in the SEP's example: pdf-processing with its five supporting files.
    let got = rpc.call(
        7,
        "skills/get",
        json!({"uri": "skill://pdf-processing/SKILL.md"}),
    );
    let skill = &got["result"]["skill"];
    assert_eq!(
        skill["frontmatter"]["metadata"],
        json!({"version": "2.1.0"}),
        "{got}"
    );
    assert_eq!(skill["frontmatter"]["name"], "pdf-processing");
    let mut res = skill["resources"].as_array().unwrap().clone();
    res.sort_by(|a, b| a["uri"].as_str().cmp(&b["uri"].as_str()));
    assert_eq!(res, expect("pdf-processing"));
    for (id, uri) in [
        (8, "skill://acme/billing/chargebacks/SKILL.md"),
        (9, "skill://pdf-processing/templates/invoice.md"),
    ] {
        let e = rpc.call(id, "skills/get", json!({"uri": uri}));
        assert_eq!(e["error"]["code"], -32602, "{e}");
    }

    // resources/read of a supporting file: its bytes, which hash to the listed digest.
    let read = rpc.call(
        10,
        "resources/read",
        json!({"uri": "skill://pdf-processing/templates/invoice.md"}),
    );
    let c = &read["result"]["contents"][0];
    assert_eq!(c["mimeType"], "text/markdown", "{read}");
    assert_eq!(
        digest(c["text"].as_str().unwrap()),
        expect("pdf-processing")[3]["digest"]
    );
    for (id, uri) in [
        (11, "skill://pdf-processing/../git-workflow/SKILL.md"),
        (12, "skill://pdf-processing/missing.md"),
        (13, "file:///etc/passwd"),
    ] {
        let e = rpc.call(id, "resources/read", json!({"uri": uri}));
        assert!(e["error"]["code"].is_i64(), "{uri} was served: {e}");
    }

    // resources/list: every file of every skill.
    let all = rpc.call(14, "resources/list", json!({}));
    assert_eq!(
        all["result"]["resources"].as_array().unwrap().len(),
        FILES.len(),
        "{all}"
    );

    // resources/directory/read, as in the SEP's example.
    let size = |file: &str| {
        FILES
            .iter()
            .find(|(p, f, _)| *p == "pdf-processing" && *f == file)
            .map(|(_, _, t)| t.len())
            .unwrap()
    };
    let dir = rpc.call(
        15,
        "resources/directory/read",
        json!({"uri": "skill://pdf-processing/templates"}),
    );
    assert_eq!(
        dir["result"]["resources"],
        json!([
            {"uri": "skill://pdf-processing/templates/invoice.md", "name": "invoice.md", "mimeType": "text/markdown", "size": size("templates/invoice.md")},
            {"uri": "skill://pdf-processing/templates/purchase-order.md", "name": "purchase-order.md", "mimeType": "text/markdown", "size": size("templates/purchase-order.md")},
            {"uri": "skill://pdf-processing/templates/regional", "name": "regional", "mimeType": "inode/directory"}
        ]),
        "{dir}"
    );
    let root = rpc.call(
        16,
        "resources/directory/read",
        json!({"uri": "skill://pdf-processing"}),
    );
    assert_eq!(
        root["result"]["resources"].as_array().unwrap().len(),
        4,
        "{root}"
    );
    for (id, uri) in [
        (18, "skill://pdf-processing/templates/.."),
        (19, "skill://pdf-processing/../acme"),
    ] {
        let e = rpc.call(id, "resources/directory/read", json!({"uri": uri}));
        assert_eq!(e["error"]["code"], -32602, "{uri}: {e}");
    }
    let not_dir = rpc.call(
        17,
        "resources/directory/read",
        json!({"uri": "skill://pdf-processing/SKILL.md"}),
    );
    assert_eq!(not_dir["error"]["code"], -32602, "{not_dir}");
}

#[test]
fn sep_2640_examples_over_stdio() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = sep_workspace(tmp.path());
    let mut child = gos()
        .arg("mcp")
        .arg("-w")
        .arg(&ws)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdin = child.stdin.take().unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let mut rpc = Stdio_ {
        child,
        stdin,
        stdout,
    };
    check_sep_examples(&mut rpc);
}

#[test]
fn sep_2640_examples_over_streamable_http() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = sep_workspace(tmp.path());
    let server = serve(&ws, &[]);
    let mut rpc = Http {
        url: format!("{}/mcp", server.base),
        session: None,
    };
    check_sep_examples(&mut rpc);
}

/// A file replaced by a symbolic link after the build (to a file outside the library) is not
/// served, and leaves the skill's listing; a link inside the package is not followed either.
#[cfg(unix)]
#[test]
fn a_file_turned_into_a_link_after_the_build_is_not_served() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = sep_workspace(tmp.path());
    let secret = tmp.path().join("secret.txt");
    std::fs::write(&secret, "outside the library").unwrap();
    let pkg = tmp.path().join("library/pdf-processing");
    std::fs::remove_file(pkg.join("templates/invoice.md")).unwrap();
    std::os::unix::fs::symlink(&secret, pkg.join("templates/invoice.md")).unwrap();
    let mut child = gos()
        .arg("mcp")
        .arg("-w")
        .arg(&ws)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdin = child.stdin.take().unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let mut rpc = Stdio_ {
        child,
        stdin,
        stdout,
    };
    initialize(&mut rpc);
    let read = rpc.call(
        2,
        "resources/read",
        json!({"uri": "skill://pdf-processing/templates/invoice.md"}),
    );
    assert_eq!(read["error"]["code"], -32602, "{read}");
    assert!(!read.to_string().contains("outside the library"), "{read}");
    let got = rpc.call(
        3,
        "skills/get",
        json!({"uri": "skill://pdf-processing/SKILL.md"}),
    );
    let uris: Vec<&str> = got["result"]["skill"]["resources"]
        .as_array()
        .unwrap_or_else(|| panic!("{got}"))
        .iter()
        .map(|r| r["uri"].as_str().unwrap())
        .collect();
    assert!(
        !uris.contains(&"skill://pdf-processing/templates/invoice.md"),
        "{uris:?}"
    );
    assert_eq!(uris.len(), 5, "{uris:?}");
    let dir = rpc.call(
        4,
        "resources/directory/read",
        json!({"uri": "skill://pdf-processing/templates"}),
    );
    assert!(!dir.to_string().contains("invoice.md"), "{dir}");
}

/// SEP-2640: the last segment of a skill path is the frontmatter name, the segments before it
/// are the server's prefix. A package whose folder is named otherwise is published under its
/// folder's prefix and its name; a rename onto another skill's path is not published.
#[test]
fn a_skill_whose_folder_is_named_otherwise_is_published_under_its_name() {
    let tmp = tempfile::tempdir().unwrap();
    let library = tmp.path().join("library");
    let files = [
        (
            "media/speech-to-text/SKILL.md",
            "---\nname: whisper-transcribe\ndescription: Transcribe speech in an audio file to text\n---\n\n# Whisper\n\nRun `scripts/run.py AUDIO`.\n",
        ),
        (
            "media/speech-to-text/scripts/run.py",
            "print('transcribing')\n",
        ),
        (
            "docs/a/SKILL.md",
            "---\nname: b\ndescription: Write the quarterly report in the house style\n---\n\n# A\n",
        ),
        (
            "docs/b/SKILL.md",
            "---\nname: b\ndescription: Proofread a report for the house style\n---\n\n# B\n",
        ),
    ];
    for (file, text) in files {
        let path = library.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let ws = tmp.path().join("ws");
    build(&library, &ws);
    let mut child = gos()
        .arg("mcp")
        .arg("-w")
        .arg(&ws)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdin = child.stdin.take().unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let mut rpc = Stdio_ {
        child,
        stdin,
        stdout,
    };
    initialize(&mut rpc);
    let list = rpc.call(2, "skills/list", json!({}));
    let skills = list["result"]["skills"]
        .as_array()
        .unwrap_or_else(|| panic!("{list}"));
    let mut uris: Vec<&str> = skills.iter().map(|s| s["uri"].as_str().unwrap()).collect();
    uris.sort_unstable();
    assert_eq!(
        uris,
        [
            "skill://docs/b/SKILL.md",
            "skill://media/whisper-transcribe/SKILL.md"
        ]
    );
    let whisper = skills
        .iter()
        .find(|s| s["frontmatter"]["name"] == "whisper-transcribe")
        .unwrap();
    let mut res = whisper["resources"].as_array().unwrap().clone();
    res.sort_by(|a, b| a["uri"].as_str().cmp(&b["uri"].as_str()));
    assert_eq!(
        res,
        [
            json!({"uri": "skill://media/whisper-transcribe/SKILL.md", "digest": digest(files[0].1), "size": files[0].1.len()}),
            json!({"uri": "skill://media/whisper-transcribe/scripts/run.py", "digest": digest(files[1].1), "size": files[1].1.len()}),
        ]
    );
    let read = rpc.call(
        3,
        "resources/read",
        json!({"uri": "skill://media/whisper-transcribe/scripts/run.py"}),
    );
    assert_eq!(read["result"]["contents"][0]["text"], files[1].1, "{read}");
    let got = rpc.call(
        4,
        "skills/get",
        json!({"uri": "skill://media/whisper-transcribe/SKILL.md"}),
    );
    assert_eq!(
        got["result"]["skill"]["uri"],
        "skill://media/whisper-transcribe/SKILL.md"
    );
    for (id, uri) in [
        (5, "skill://media/speech-to-text/SKILL.md"),
        (6, "skill://docs/a/SKILL.md"),
    ] {
        let e = rpc.call(id, "skills/get", json!({"uri": uri}));
        assert_eq!(e["error"]["code"], -32602, "{uri}: {e}");
    }
}
