//! `gos hook claude|codex|gemini`: a prompt hook that puts a ranked skill listing and the top
//! of the bundle into the agent's context before the model sees the prompt.
//!
//! The harness runs the hook with its event JSON on stdin (`prompt`, `cwd`, `session_id`,
//! ...). The hook answers on stdout with `hookSpecificOutput.additionalContext` (Claude Code
//! and Codex `UserPromptSubmit`, Gemini CLI `BeforeAgent`), within `--budget` characters. It
//! must never block or break the prompt: any error, an empty prompt, `NO_SKILL_HIT` or a
//! run past `--timeout-ms` ends it with exit status 0 and nothing on stdout (the reason goes
//! to stderr only with `GOS_HOOK_DEBUG=1`).
//!
//! With `--server URL` (or `GOS_SERVER`) it asks a running `gos serve` (`POST /v1/retrieve`,
//! the bearer token from `GOS_TOKEN` when set), so a hook costs milliseconds; otherwise it
//! opens the workspace itself, lexical seeds only (no encoder to load).

use crate::args::{HookArgs, HookHarness};
use anyhow::{Context, Result, anyhow, bail};
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::sync::mpsc;
use std::time::Duration;

impl HookHarness {
    /// The hook event this harness answers with `additionalContext`.
    pub fn event(self) -> &'static str {
        match self {
            HookHarness::Claude | HookHarness::Codex => "UserPromptSubmit",
            HookHarness::Gemini => "BeforeAgent",
        }
    }
}

/// Most characters of one listing line's description.
const DESCRIPTION_CHARS: usize = 160;

/// The first line of `text`, at most `max` characters (an ellipsis marks a cut).
fn one_line(text: &str, max: usize) -> String {
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    if line.chars().count() <= max {
        return line.to_string();
    }
    let mut out: String = line.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// `text` cut to at most `max` characters, at the last line break before the cut when there
/// is one in its second half.
fn cut_chars(text: &str, max: usize) -> &str {
    let Some((end, _)) = text.char_indices().nth(max) else {
        return text;
    };
    let head = &text[..end];
    match head.rfind('\n') {
        Some(nl) if nl >= end / 2 => &head[..nl],
        _ => head,
    }
}

/// The `additionalContext` for bundle document `doc` within `budget` characters: a ranked
/// listing (name, one-line description, source) and as much of the rendered context as fits.
/// `None` for `NO_SKILL_HIT` or an empty bundle.
pub fn context(doc: &Value, budget: usize) -> Option<String> {
    if doc["status"].as_str() != Some("SKILL_HIT") {
        return None;
    }
    let skills = doc["skills"].as_array().filter(|s| !s.is_empty())?;
    let mut out = String::from(
        "Skills for this prompt, ranked by gos (read a skill's SKILL.md at its source before \
         following it):\n",
    );
    for (i, s) in skills.iter().enumerate() {
        let name = s["name"].as_str().or(s["id"].as_str()).unwrap_or("?");
        let description = one_line(s["description"].as_str().unwrap_or(""), DESCRIPTION_CHARS);
        let source = s["source"].as_str().unwrap_or("");
        let line = if description.is_empty() {
            format!("{}. {name} ({source})\n", i + 1)
        } else {
            format!("{}. {name}: {description} ({source})\n", i + 1)
        };
        if out.chars().count() + line.chars().count() > budget {
            break;
        }
        out.push_str(&line);
    }
    let rendered = doc["rendered_context"].as_str().unwrap_or("");
    let used = out.chars().count() + 1;
    let note = "\n[bundle cut to fit the hook's budget; the retrieve_skill_bundle tool or \
                `gos retrieve` gives the whole]";
    let room = budget.saturating_sub(used);
    if rendered.chars().count() <= room {
        out.push('\n');
        out.push_str(rendered);
    } else if room > note.chars().count() + 200 {
        out.push('\n');
        out.push_str(cut_chars(rendered, room - note.chars().count()));
        out.push_str(note);
    }
    Some(out)
}

/// The bundle document from the server at `url` (`POST URL/v1/retrieve`).
fn from_server(url: &str, query: &str, top: usize, timeout: Duration) -> Result<Value> {
    let client = reqwest::blocking::Client::builder()
        .timeout(timeout)
        .build()
        .context("an HTTP client")?;
    let mut req = client
        .post(format!("{}/v1/retrieve", url.trim_end_matches('/')))
        .json(&json!({ "query": query, "max_skills": top }));
    if let Ok(token) = std::env::var("GOS_TOKEN") {
        req = req.bearer_auth(token.trim());
    }
    let res = req.send().context("asking the server")?;
    if !res.status().is_success() {
        bail!("the server answered {}", res.status());
    }
    res.json().context("reading the server's answer")
}

/// The bundle document from the workspace at `ws`, opened here (lexical seeds).
fn from_workspace(ws: &std::path::Path, query: &str, top: usize) -> Result<Value> {
    let state = gos_server::ServerState::open(gos_server::ServeConfig {
        workspace: ws.to_path_buf(),
        model_dir: None,
        lexical_only: true,
        precision: Default::default(),
    })?;
    let req = gos_server::request::RetrieveRequest {
        query: query.to_string(),
        max_skills: Some(top as u64),
        max_chars_per_skill: None,
        max_context_chars: None,
        mode: None,
    };
    gos_server::request::retrieve(
        &state.current(),
        &req,
        &gos_server::Limits::default(),
        &gos_server::staged::Control::new(),
    )
    .map_err(|e| anyhow!("{}", e.message))
}

/// The hook's answer for the event JSON `input`, or `None` when nothing should be printed.
fn answer(args: &HookArgs, input: &str) -> Result<Option<Value>> {
    let event: Value = serde_json::from_str(input).context("the hook event is not JSON")?;
    let prompt = event["prompt"].as_str().unwrap_or("").trim();
    if prompt.is_empty() {
        return Ok(None);
    }
    let max = gos_server::Limits::default().max_query_chars;
    let query: String = prompt.chars().take(max).collect();
    let timeout = Duration::from_millis(args.timeout_ms);
    let doc = match (&args.server, &args.workspace) {
        (Some(url), _) => from_server(url, &query, args.top, timeout)?,
        (None, Some(ws)) => from_workspace(ws, &query, args.top)?,
        (None, None) => bail!("no --server and no -w WORKSPACE"),
    };
    Ok(context(&doc, args.budget).map(|text| {
        json!({
            "hookSpecificOutput": {
                "hookEventName": args.harness.event(),
                "additionalContext": text,
            }
        })
    }))
}

/// Run `gos hook`: always exit status 0; stdout holds the answer or nothing.
pub fn run(args: HookArgs) -> Result<()> {
    let debug = std::env::var_os("GOS_HOOK_DEBUG").is_some_and(|v| v == "1");
    let limit = Duration::from_millis(args.timeout_ms);
    let start = std::time::Instant::now();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut input = String::new();
        let result = std::io::stdin()
            .take(1 << 20)
            .read_to_string(&mut input)
            .context("reading the hook event on stdin")
            .and_then(|_| answer(&args, &input));
        let _ = tx.send(result);
    });
    // An answer that arrives after the limit (the waiting thread was not scheduled in time)
    // is dropped too: the limit holds whatever the scheduler does.
    let outcome = match rx.recv_timeout(limit) {
        Ok(result) if start.elapsed() <= limit => result,
        _ => Err(anyhow!("no answer within {} ms", limit.as_millis())),
    };
    match outcome {
        Ok(Some(v)) => {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{v}");
            let _ = out.flush();
        }
        Ok(None) => {}
        Err(e) if debug => eprintln!("gos hook: no context: {e:#}"),
        Err(_) => {}
    }
    // Leave at once, without waiting for a retrieval still running past the limit.
    std::process::exit(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(rendered: &str) -> Value {
        json!({
            "status": "SKILL_HIT",
            "skills": [
                {"id": "geo/shp", "name": "shapefile-reader",
                 "description": "Read ESRI shapefiles.\nSecond line.", "source": "geo/shp/SKILL.md"},
                {"id": "geo/proj", "name": "reproject", "description": "", "source": "geo/proj/SKILL.md"},
            ],
            "rendered_context": rendered,
        })
    }

    #[test]
    fn the_context_lists_skills_then_the_bundle_within_the_budget() {
        let text = context(&doc("## shapefile-reader\nbody"), 4000).unwrap();
        assert!(text.contains(
            "1. shapefile-reader: Read ESRI shapefiles. (geo/shp/SKILL.md)\n2. reproject (geo/proj/SKILL.md)\n"
        ), "{text}");
        assert!(text.ends_with("\n## shapefile-reader\nbody"), "{text}");

        let long = "line of the bundle\n".repeat(500);
        let text = context(&doc(&long), 1000).unwrap();
        assert!(text.chars().count() <= 1000, "{}", text.chars().count());
        assert!(text.contains("line of the bundle"));
        assert!(text.ends_with("gives the whole]"), "{text}");
    }

    #[test]
    fn no_hit_or_no_skills_gives_no_context() {
        let mut d = doc("x");
        d["status"] = json!("NO_SKILL_HIT");
        assert_eq!(context(&d, 4000), None);
        let mut d = doc("x");
        d["skills"] = json!([]);
        assert_eq!(context(&d, 4000), None);
    }

    #[test]
    fn one_line_takes_the_first_line_and_cuts_it() {
        assert_eq!(one_line("\n  first \nsecond", 80), "first");
        assert_eq!(one_line("abcdef", 4), "abc…");
        assert_eq!(cut_chars("aaaa\nbbbb\ncc", 11), "aaaa\nbbbb");
        assert_eq!(cut_chars("short", 10), "short");
    }
}
