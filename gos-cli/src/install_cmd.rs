//! `gos install` and `gos uninstall`: the MCP registration of `gos mcp -w WS` and the prompt
//! hook `gos hook HARNESS -w WS`, written into an agent harness's own configuration.
//!
//! | harness | scope | MCP server | hook |
//! | --- | --- | --- | --- |
//! | claude | `--user` | `~/.claude.json` `mcpServers.gos` | `~/.claude/settings.json` `hooks.UserPromptSubmit` |
//! | claude | `--project` | `./.mcp.json` `mcpServers.gos` | `./.claude/settings.json` `hooks.UserPromptSubmit` |
//! | codex | `--user` | `$CODEX_HOME/config.toml` `[mcp_servers.gos]` | `$CODEX_HOME/hooks.json` `hooks.UserPromptSubmit` |
//! | codex | `--project` | `./.codex/config.toml` | `./.codex/hooks.json` |
//! | gemini | `--user` / `--project` | `~/.gemini/settings.json` / `./.gemini/settings.json` `mcpServers.gos` | the same file, `hooks.BeforeAgent` |
//!
//! Only gos's own entries change: `mcpServers.gos` (or the TOML block between gos's marker
//! comments) and hook entries whose command is `gos hook HARNESS ...`. Each file that changes
//! is first copied to `FILE.gos-backup` (the state before this change). A JSON file is edited
//! in place ([`crate::install_json`]): every byte outside gos's entries stays, key order,
//! comments and indentation included. A TOML file is edited as text, so its comments and
//! order stay too. `--dry-run` prints a diff and writes nothing.

use crate::args::{InstallArgs, InstallHarness, InstallScope, UninstallArgs};
use crate::install_json::JsonConfig;
use anyhow::{Context, Result, anyhow, bail};
use serde_json::json;
use std::path::{Path, PathBuf};

/// The name gos registers under.
const NAME: &str = "gos";
/// First line of the TOML block gos writes.
const TOML_BEGIN: &str = "# gos install: begin (gos uninstall removes this block)";
/// Last line of the TOML block gos writes.
const TOML_END: &str = "# gos install: end";
/// Seconds Claude Code and Codex give the hook (it stops itself after 1.5 s).
const HOOK_TIMEOUT_S: u64 = 10;

/// The files one harness and scope use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Targets {
    /// File holding the MCP registration.
    pub mcp: PathBuf,
    /// File holding the hooks.
    pub hooks: PathBuf,
}

/// The files of `harness` for the user (under `home`, `codex_home`) or the `project`.
pub fn targets(
    harness: InstallHarness,
    project_scope: bool,
    home: &Path,
    codex_home: &Path,
    project: &Path,
) -> Targets {
    let (mcp, hooks) = match (harness, project_scope) {
        (InstallHarness::Claude, false) => (
            home.join(".claude.json"),
            home.join(".claude/settings.json"),
        ),
        (InstallHarness::Claude, true) => (
            project.join(".mcp.json"),
            project.join(".claude/settings.json"),
        ),
        (InstallHarness::Codex, false) => (
            codex_home.join("config.toml"),
            codex_home.join("hooks.json"),
        ),
        (InstallHarness::Codex, true) => (
            project.join(".codex/config.toml"),
            project.join(".codex/hooks.json"),
        ),
        (InstallHarness::Gemini, false) => {
            let f = home.join(".gemini/settings.json");
            (f.clone(), f)
        }
        (InstallHarness::Gemini, true) => {
            let f = project.join(".gemini/settings.json");
            (f.clone(), f)
        }
    };
    Targets { mcp, hooks }
}

fn harness_name(h: InstallHarness) -> &'static str {
    match h {
        InstallHarness::Claude => "claude",
        InstallHarness::Codex => "codex",
        InstallHarness::Gemini => "gemini",
    }
}

/// The hook event of `h`.
fn event(h: InstallHarness) -> &'static str {
    match h {
        InstallHarness::Claude | InstallHarness::Codex => "UserPromptSubmit",
        InstallHarness::Gemini => "BeforeAgent",
    }
}

/// `s` quoted for a POSIX shell when it needs it.
fn shell_quote(s: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "/._-+=:,@".contains(c);
    if !s.is_empty() && s.chars().all(plain) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// Whether hook `command` is one gos installed for `harness`: its program is named `gos` and
/// it runs `hook HARNESS`.
pub fn is_gos_hook(command: &str, harness: &str) -> bool {
    let c = command.trim_start();
    let program = match c.chars().next() {
        Some(q @ ('\'' | '"')) => c[1..].split(q).next().unwrap_or(""),
        _ => c.split_whitespace().next().unwrap_or(""),
    };
    let named_gos = Path::new(program).file_name().is_some_and(|n| n == "gos");
    named_gos && command.contains(&format!(" hook {harness}"))
}

/// Remove gos's hooks for `harness` from its event's list.
fn remove_hooks(cfg: &JsonConfig, harness: InstallHarness) {
    let name = harness_name(harness);
    cfg.remove_hooks(event(harness), |c| is_gos_hook(c, name));
}

/// Add gos's hook for `harness` (replacing one it added before).
fn add_hook(cfg: &JsonConfig, harness: InstallHarness, command: &str) -> Result<()> {
    remove_hooks(cfg, harness);
    // Gemini CLI counts the hook timeout in milliseconds, the others in seconds.
    let timeout = match harness {
        InstallHarness::Gemini => HOOK_TIMEOUT_S * 1000,
        _ => HOOK_TIMEOUT_S,
    };
    cfg.append_hook_group(
        event(harness),
        &json!({ "hooks": [{ "type": "command", "command": command, "timeout": timeout }] }),
    )
}

/// `text` without gos's TOML block.
fn toml_without_block(text: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for line in text.split_inclusive('\n') {
        let t = line.trim_end();
        if t == TOML_BEGIN {
            inside = true;
            // The blank line install put before the block.
            if out.ends_with("\n\n") {
                out.pop();
            }
        } else if inside && t == TOML_END {
            inside = false;
        } else if !inside {
            out.push_str(line);
        }
    }
    out
}

/// `text` with gos's `[mcp_servers.gos]` block (replacing an earlier one).
///
/// # Errors
/// When the file already has a `[mcp_servers.gos]` table gos did not write, or the result is
/// not valid TOML.
fn toml_with_block(text: &str, command: &str, args: &[String]) -> Result<String> {
    let mut out = toml_without_block(text);
    if out.lines().any(|l| {
        l.trim()
            .trim_start_matches('[')
            .starts_with("mcp_servers.gos]")
    }) {
        bail!(
            "it already has an [mcp_servers.gos] table that gos did not write; remove or rename \
             it, then run gos install again"
        );
    }
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    if !out.is_empty() {
        out.push('\n');
    }
    let quoted: Vec<String> = args
        .iter()
        .map(|a| toml::Value::String(a.clone()).to_string())
        .collect();
    out.push_str(&format!(
        "{TOML_BEGIN}\n[mcp_servers.{NAME}]\ncommand = {}\nargs = [{}]\n{TOML_END}\n",
        toml::Value::String(command.into()),
        quoted.join(", ")
    ));
    out.parse::<toml::Table>()
        .map_err(|e| anyhow!("the edited file would not be valid TOML: {e}"))?;
    Ok(out)
}

/// A file's text now and after the change.
struct Change {
    path: PathBuf,
    before: Option<String>,
    after: String,
}

fn read(path: &Path) -> Result<Option<String>> {
    match std::fs::read_to_string(path) {
        Ok(t) => Ok(Some(t)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).with_context(|| format!("reading {}", path.display())),
    }
}

/// A line diff of `before` and `after`: common first and last lines left out.
fn diff(path: &Path, before: &str, after: &str) -> String {
    let a: Vec<&str> = before.lines().collect();
    let b: Vec<&str> = after.lines().collect();
    let head = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let tail = a[head..]
        .iter()
        .rev()
        .zip(b[head..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let mut out = format!(
        "--- {0}\n+++ {0}\n@@ line {1} @@\n",
        path.display(),
        head + 1
    );
    for l in &a[head..a.len() - tail] {
        out.push_str(&format!("-{l}\n"));
    }
    for l in &b[head..b.len() - tail] {
        out.push_str(&format!("+{l}\n"));
    }
    out
}

/// Apply `changes` (or print them with `dry_run`); a file that does not change is left alone.
fn apply(changes: Vec<Change>, dry_run: bool, verb: &str) -> Result<()> {
    let changed: Vec<Change> = changes
        .into_iter()
        .filter(|c| c.before.as_deref() != Some(c.after.as_str()))
        .collect();
    if changed.is_empty() {
        eprintln!("gos {verb}: nothing to change");
        return Ok(());
    }
    for c in &changed {
        if dry_run {
            print!(
                "{}",
                diff(&c.path, c.before.as_deref().unwrap_or(""), &c.after)
            );
            continue;
        }
        if let Some(parent) = c.path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("creating {}", parent.display()))?;
        }
        let mut note = String::new();
        if c.before.is_some() {
            let backup = PathBuf::from(format!("{}.gos-backup", c.path.display()));
            std::fs::copy(&c.path, &backup).with_context(|| {
                format!("backing up {} to {}", c.path.display(), backup.display())
            })?;
            note = format!(" (backup: {})", backup.display());
        }
        let tmp = PathBuf::from(format!("{}.gos-tmp", c.path.display()));
        std::fs::write(&tmp, &c.after).with_context(|| format!("writing {}", tmp.display()))?;
        std::fs::rename(&tmp, &c.path)
            .with_context(|| format!("replacing {}", c.path.display()))?;
        eprintln!("gos {verb}: wrote {}{note}", c.path.display());
    }
    if dry_run {
        eprintln!("gos {verb}: dry run, nothing written");
    }
    Ok(())
}

/// The files of `scope` from the environment (HOME, CODEX_HOME, the current directory).
fn scope_targets(scope: &InstallScope) -> Result<Targets> {
    let home = std::env::var_os("HOME").map(PathBuf::from).ok_or_else(|| {
        anyhow!("HOME is not set; gos install needs it to find the harness's files")
    })?;
    let codex_home = std::env::var_os("CODEX_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| home.join(".codex"));
    let project = std::env::current_dir().context("reading the current directory")?;
    Ok(targets(
        scope.harness,
        scope.project,
        &home,
        &codex_home,
        &project,
    ))
}

/// The changes that install (`Some(entry)`) or remove (`None`) gos in `targets`.
fn changes(
    harness: InstallHarness,
    targets: &Targets,
    install: Option<(&str, &[String], Option<&str>)>,
) -> Result<Vec<Change>> {
    let mut out: Vec<Change> = Vec::new();
    let mcp_before = read(&targets.mcp)?;
    let with_path = |e: anyhow::Error, p: &Path| e.context(format!("editing {}", p.display()));
    let mcp_after = if harness == InstallHarness::Codex {
        let text = mcp_before.clone().unwrap_or_default();
        match install {
            Some((command, args, _)) => {
                toml_with_block(&text, command, args).map_err(|e| with_path(e, &targets.mcp))?
            }
            None => toml_without_block(&text),
        }
    } else {
        let cfg = JsonConfig::parse(&targets.mcp, mcp_before.as_deref())?;
        match install {
            Some((command, args, _)) => {
                let mut entry = json!({ "command": command, "args": args });
                if harness == InstallHarness::Claude {
                    entry["type"] = json!("stdio");
                }
                cfg.set_server(NAME, &entry)
                    .map_err(|e| with_path(e, &targets.mcp))?;
            }
            None => cfg.remove_server(NAME),
        }
        if targets.hooks == targets.mcp {
            match install {
                Some((_, _, Some(hook))) => {
                    add_hook(&cfg, harness, hook).map_err(|e| with_path(e, &targets.mcp))?
                }
                _ => remove_hooks(&cfg, harness),
            }
        }
        cfg.text()
    };
    out.push(Change {
        path: targets.mcp.clone(),
        before: mcp_before.clone(),
        after: mcp_after,
    });
    if targets.hooks != targets.mcp {
        let before = read(&targets.hooks)?;
        let cfg = JsonConfig::parse(&targets.hooks, before.as_deref())?;
        match install {
            Some((_, _, Some(hook))) => {
                add_hook(&cfg, harness, hook).map_err(|e| with_path(e, &targets.hooks))?
            }
            _ => remove_hooks(&cfg, harness),
        }
        let after = cfg.text();
        // Uninstall never creates a file that was not there.
        if before.is_some() || install.is_some() {
            out.push(Change {
                path: targets.hooks.clone(),
                before,
                after,
            });
        }
    }
    // Uninstall leaves a missing file missing.
    out.retain(|c| c.before.is_some() || install.is_some());
    Ok(out)
}

/// Run `gos install`.
pub fn install(args: InstallArgs) -> Result<()> {
    let ws = std::path::absolute(&args.workspace)
        .with_context(|| format!("resolving {}", args.workspace.display()))?;
    crate::workspace_arg::open(&ws)?;
    let exe = std::env::current_exe().context("finding the gos executable")?;
    let exe = exe.to_string_lossy().into_owned();
    let ws_text = ws.to_string_lossy().into_owned();
    let mcp_args = vec!["mcp".to_string(), "-w".to_string(), ws_text.clone()];
    let harness = args.scope.harness;
    let hook = format!(
        "{} hook {} -w {}",
        shell_quote(&exe),
        harness_name(harness),
        shell_quote(&ws_text)
    );
    let hook = (!args.no_hook).then_some(hook.as_str());
    let targets = scope_targets(&args.scope)?;
    let changes = changes(harness, &targets, Some((&exe, &mcp_args, hook)))?;
    apply(changes, args.scope.dry_run, "install")?;
    if args.scope.project && hook.is_some() && harness == InstallHarness::Claude {
        eprintln!(
            "gos install: Claude Code runs project hooks only in a folder it trusts; accept the \
             trust prompt once"
        );
    }
    Ok(())
}

/// Run `gos uninstall`.
pub fn uninstall(args: UninstallArgs) -> Result<()> {
    let targets = scope_targets(&args.scope)?;
    let changes = changes(args.scope.harness, &targets, None)?;
    apply(changes, args.scope.dry_run, "uninstall")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hooks_are_recognised_by_program_and_harness() {
        assert!(is_gos_hook("/usr/bin/gos hook claude -w /ws", "claude"));
        assert!(is_gos_hook("'/my dir/gos' hook claude -w '/w s'", "claude"));
        assert!(!is_gos_hook("/usr/bin/gos hook codex -w /ws", "claude"));
        assert!(!is_gos_hook("python3 other.py hook claude", "claude"));
        assert!(!is_gos_hook("/usr/bin/gossip hook claude", "claude"));
    }

    #[test]
    fn the_toml_block_replaces_itself_and_leaves_the_rest() {
        let text = "# my codex\nmodel = \"o3\"\n\n[mcp_servers.other]\ncommand = \"x\"\n";
        let args = vec!["mcp".to_string(), "-w".to_string(), "/w s".to_string()];
        let once = toml_with_block(text, "/bin/gos", &args).unwrap();
        let twice = toml_with_block(&once, "/bin/gos", &args).unwrap();
        assert_eq!(once, twice);
        let t: toml::Table = once.parse().unwrap();
        assert_eq!(t["mcp_servers"]["gos"]["args"][2].as_str(), Some("/w s"));
        assert_eq!(t["mcp_servers"]["other"]["command"].as_str(), Some("x"));
        assert_eq!(toml_without_block(&once), text);
        let foreign = "[mcp_servers.gos]\ncommand = \"mine\"\n";
        assert!(toml_with_block(foreign, "/bin/gos", &args).is_err());
    }

    #[test]
    fn the_diff_shows_the_changed_lines() {
        let d = diff(Path::new("f"), "a\nb\nc\n", "a\nB\nc\n");
        assert_eq!(d, "--- f\n+++ f\n@@ line 2 @@\n-b\n+B\n");
    }
}
