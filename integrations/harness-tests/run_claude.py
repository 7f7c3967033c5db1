#!/usr/bin/env python3
"""Drive the real Claude Code CLI against gos's MCP server and a scripted model, and report
what reached the model, as JSON on stdout.

Steps: build a workspace of fixtures/library with the gos binary under test; make an isolated
home (never the user's config); `claude mcp add gos -- gos mcp -w WS` there; `claude mcp list`
must show it connected; then `claude -p TASK` against scripted_api.py on loopback
(ANTHROPIC_BASE_URL), whose script asks ToolSearch for mcp__gos__retrieve_skill_bundle, calls it
with the task, and answers. The record of every request the model received gives the report:
whether gos's tools were announced, whether ToolSearch loaded the tool, and the tool result as it
reached the model (characters, first line, JSON document or rendered markdown).

  run_claude.py [--gos PATH] [--query TEXT] [--vectors] [--hook-command CMD] [--out FILE]
                [--work DIR] [--keep]

gos: --gos, else $GOS_BIN, else target/release/gos. Claude Code: $GOS_HARNESS_DIR (default
target/harnesses/, installed by scripts/setup-harnesses.sh). Exit status 0 when every step ran
(the figures are in the report, whatever they are), 1 when a step failed (the report's `error`
says which), 2 for bad arguments. The work folder is removed after a run that succeeded unless
--keep or --work is given.
"""

from __future__ import annotations

import sys

sys.dont_write_bytecode = True

import argparse
import json
import re  # noqa: E402
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness_common import (  # noqa: E402
    DEFAULT_QUERY, HERE, HarnessError, ScriptedApi, build_workspace, classify, clean_env,
    cli_bundle, finish, first_line, gos_binary, harness_binary, run, work_root,
)

TOOL = "mcp__gos__retrieve_skill_bundle"


def blocks(message: dict) -> list[dict]:
    c = message.get("content")
    if isinstance(c, str):
        return [{"type": "text", "text": c}]
    return c if isinstance(c, list) else []


def texts_of(body: dict) -> list[tuple[str, str]]:
    """(where, text) for every text in a request: system blocks, then each message's text blocks."""
    out = []
    system = body.get("system")
    if isinstance(system, str):
        out.append(("system", system))
    elif isinstance(system, list):
        out += [(f"system[{i}]", b.get("text", "")) for i, b in enumerate(system) if isinstance(b, dict)]
    for i, m in enumerate(body.get("messages") or []):
        for j, b in enumerate(blocks(m)):
            if b.get("type") == "text":
                out.append((f"messages[{i}]({m.get('role')}).content[{j}]", b.get("text", "")))
    return out


def result_text(block: dict) -> tuple[str, list[str]]:
    """The text of a tool_result block and the types of its parts."""
    c = block.get("content")
    if isinstance(c, str):
        return c, ["string"]
    if isinstance(c, list):
        return ("\n".join(p.get("text", "") for p in c if p.get("type") == "text"),
                [p.get("type", "?") for p in c])
    return "", ["none"]


def analyse(reqs: list[dict]) -> dict:
    main = [r for r in reqs if isinstance(r.get("body"), dict) and r["body"].get("tools")]
    side = [r for r in reqs if r not in main]
    rep: dict = {
        "requests": len(reqs),
        "model_requests": len(main),
        "other_requests": [f"{r['method']} {r['path']}" for r in side][:20],
        "steps": [r.get("answer", {}).get("step") for r in main],
    }
    if not main:
        return rep
    first = main[0]["body"]
    all_text = texts_of(first)
    announced = sorted({m for _, t in all_text for m in re.findall(r"mcp__gos__([a-z_]+)", t)})
    rep["first_request"] = {
        "model": first.get("model"),
        "system_chars": sum(len(t) for w, t in all_text if w.startswith("system")),
        "tools": [t.get("name") for t in first.get("tools", [])],
        "gos_tools_loaded": sorted(t["name"] for t in first.get("tools", []) if t.get("name", "").startswith("mcp__gos__")),
        "gos_tools_deferred": announced,
        "gos_instructions": any("gos retrieves the agent skills" in t for _, t in all_text),
        "user_text_chars": sum(len(t) for w, t in all_text if "(user)" in w),
    }
    bundle_at = [(w, t) for w, t in all_text if "# Skill bundle" in t or "Retrieval status:" in t]
    rep["first_request"]["bundle_injected"] = bool(bundle_at)
    if bundle_at:
        w, t = bundle_at[0]
        i = max(t.find("# Skill bundle"), 0)
        end = t.find("\n\nToday's date is", i)
        injected = t[i:end if end >= 0 else len(t)]
        rep["first_request"]["injected"] = {"where": w, "chars": len(injected),
                                            "first_line": first_line(injected),
                                            "label": t[:i].rsplit("\n", 1)[-1][-120:]}
    # ToolSearch: asked for, and the next request has the tool loaded.
    search = [i for i, r in enumerate(main) if r.get("answer", {}).get("step") == "tool-search"]
    rep["tool_search_called"] = bool(search)
    if search and search[0] + 1 < len(main):
        nxt = main[search[0] + 1]["body"]
        names = [t.get("name") for t in nxt.get("tools", [])]
        refs = [p.get("tool_name") for m in nxt.get("messages", []) for b in blocks(m)
                if b.get("type") == "tool_result" and isinstance(b.get("content"), list)
                for p in b["content"] if p.get("type") == "tool_reference"]
        rep["tool_search_loaded"] = TOOL in names
        rep["tool_search_result_refs"] = refs
    # The tool result that reached the model.
    calls = {b.get("id"): b for r in main for m in r["body"].get("messages", []) if m.get("role") == "assistant"
             for b in blocks(m) if b.get("type") == "tool_use" and b.get("name") == TOOL}
    for r in main:
        last = (r["body"].get("messages") or [{}])[-1]
        for b in blocks(last):
            if b.get("type") == "tool_result" and b.get("tool_use_id") in calls:
                text, parts = result_text(b)
                rep["tool_called"] = True
                rep["tool_result"] = {
                    "chars": len(text),
                    "first_line": first_line(text),
                    "kind": classify(text),
                    "parts": parts,
                    "is_error": bool(b.get("is_error")),
                }
                return rep
    rep["tool_called"] = bool(calls)
    return rep


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Claude Code + gos MCP + scripted model")
    ap.add_argument("--gos")
    ap.add_argument("--query", default=DEFAULT_QUERY)
    ap.add_argument("--vectors", action="store_true", help="build the workspace with models/all-MiniLM-L6-v2")
    ap.add_argument("--hook-command", help="register this UserPromptSubmit hook in the isolated user settings")
    ap.add_argument("--standin-hook", action="store_true",
                    help="register standin_hook.py (gos retrieve as additionalContext) as that hook")
    ap.add_argument("--gos-install", action="store_true",
                    help="run `gos install claude --user` in the isolated home instead of `claude mcp add`")
    ap.add_argument("--out")
    ap.add_argument("--work")
    ap.add_argument("--keep", action="store_true", help="keep the work folder after a run that succeeded")
    ap.add_argument("--discard", action="store_true", help="remove the work folder even after a failure")
    a = ap.parse_args(argv)

    report: dict = {"harness": "claude-code", "ok": False, "query": a.query}
    root = None
    try:
        gos = gos_binary(a.gos)
        claude = harness_binary("claude")
        root = work_root(a.work)
        report["work"] = str(root)
        home, project = root / "home", root / "project"
        project.mkdir(parents=True, exist_ok=True)
        ws = build_workspace(gos, root, a.vectors)
        ref = cli_bundle(gos, ws, a.query)
        report["reference"] = {
            "status": ref.get("status"),
            "skills": len(ref.get("skills", [])),
            "rendered_context_chars": len(ref.get("rendered_context", "")),
            "json_document_chars": len(json.dumps(ref, ensure_ascii=False, separators=(",", ":"))),
        }
        with ScriptedApi(root, "anthropic", TOOL, a.query) as api:
            env = clean_env(home, {"ANTHROPIC_BASE_URL": api.url, "ANTHROPIC_API_KEY": "sk-ant-scripted-harness-test"})
            report["claude_version"] = run([claude, "--version"], env=env, cwd=project, timeout=60,
                                           what="claude --version").stdout.strip()
            if a.gos_install:
                p = run([gos, "install", "claude", "--user", "-w", str(ws)], env=env, cwd=project, timeout=60,
                        what="gos install claude --user", check=False)
                report["gos_install"] = {"exit": p.returncode, "stderr": p.stderr[-500:]}
                if p.returncode != 0:
                    raise HarnessError(f"gos install claude --user: exit {p.returncode}: {p.stderr[-500:]}")
            else:
                run([claude, "mcp", "add", "gos", "--", gos, "mcp", "-w", ws], env=env, cwd=project,
                    timeout=60, what="claude mcp add")
            hook = a.hook_command
            if a.standin_hook:
                hook = f"{sys.executable} {HERE / 'standin_hook.py'} {gos} {ws}"
            if hook:
                report["hook_command"] = hook
                settings = home / ".claude" / "settings.json"
                settings.parent.mkdir(parents=True, exist_ok=True)
                settings.write_text(json.dumps({"hooks": {"UserPromptSubmit": [
                    {"hooks": [{"type": "command", "command": hook, "timeout": 10}]}]}}, indent=2))
            listed = run([claude, "mcp", "list"], env=env, cwd=project, timeout=90, what="claude mcp list")
            line = next((ln for ln in listed.stdout.splitlines() if ln.startswith("gos:")), "")
            report["mcp_list"] = {"line": line, "seconds": listed.seconds}
            report["connected"] = "Connected" in line and "Failed" not in line
            if not report["connected"]:
                raise HarnessError(f"claude mcp list does not show gos connected: {listed.stdout[-1000:]}")
            p = run([claude, "-p", a.query, "--output-format", "json", "--max-turns", "6",
                     "--allowedTools", TOOL, "--debug-file", root / "claude-debug.log"],
                    env=env, cwd=project, timeout=240, what="claude -p", check=False)
            report["print_seconds"] = p.seconds
            try:
                out = json.loads(p.stdout)
                report["result"] = {k: out.get(k) for k in ("subtype", "is_error", "num_turns", "result")}
            except ValueError:
                report["result"] = {"exit": p.returncode, "stdout": p.stdout[-1000:], "stderr": p.stderr[-1000:]}
            report.update(analyse(api.requests()))
        if p.returncode != 0:
            raise HarnessError(f"claude -p: exit {p.returncode}: {p.stderr[-1000:]}")
        report["ok"] = True
        return_code = 0
    except HarnessError as e:
        report["error"] = str(e)
        return_code = 1
    finish(report, a.out, root, a.keep or bool(a.work), a.discard) if root else print(json.dumps(report, indent=2))
    return return_code


if __name__ == "__main__":
    sys.exit(main())
