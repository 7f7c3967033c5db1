#!/usr/bin/env python3
"""Drive the real Codex CLI against gos's MCP server and a scripted model (OpenAI's Responses
API on loopback), and report what reached the model, as JSON on stdout.

Steps: build a workspace of fixtures/library; an isolated CODEX_HOME (never ~/.codex);
`codex mcp add gos -- gos mcp -w WS` there, `codex mcp list --json` must list it; a model
provider pointing at scripted_api.py (`wire_api = "responses"`); then `codex exec TASK`. Codex
starts the MCP servers before its first model request, so gos's tools reaching the model show
it connected: in the first request's tool list (a `mcp__gos` namespace) or, where Codex defers
MCP tools (it does for the models it knows, as `--model gpt-5.5`), named in the instructions and
loaded by the script's tool_search call. The script then calls retrieve_skill_bundle and the next
request carries the tool output as the model sees it.

  run_codex.py [--gos PATH] [--query TEXT] [--vectors] [--standin-hook] [--out FILE]
               [--work DIR] [--keep]

Exit status as run_claude.py: 0 when every step ran, 1 when one failed (`error`).
"""

from __future__ import annotations

import sys

sys.dont_write_bytecode = True

import argparse  # noqa: E402
import json  # noqa: E402
import re  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness_common import (  # noqa: E402
    DEFAULT_QUERY, GOS_TOOLS, HERE, HarnessError, ScriptedApi, build_workspace, classify,
    clean_env, cli_bundle, finish, first_line, gos_binary, harness_binary, run, work_root,
)

TOOL = "mcp__gos__retrieve_skill_bundle"
API_KEY_VAR = "GOS_SCRIPTED_API_KEY"


def provider_toml(url: str, model: str) -> str:
    return f"""
model = "{model}"
model_provider = "scripted"
check_for_update_on_startup = false

[model_providers.scripted]
name = "scripted"
base_url = "{url}/v1"
env_key = "{API_KEY_VAR}"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0

# No traffic but loopback: without these Codex 0.171 syncs its curated plugins (github.com,
# chatgpt.com) and exports OpenTelemetry metrics (ab.chatgpt.com) on every run.
[analytics]
enabled = false

[features]
plugins = false
remote_plugin = false
plugin_sharing = false
apps = false
in_app_updates = false
"""


def item_texts(item: dict) -> list[str]:
    c = item.get("content")
    if isinstance(c, str):
        return [c]
    if isinstance(c, list):
        return [p.get("text", "") for p in c if isinstance(p, dict)]
    return []


def analyse(reqs: list[dict]) -> dict:
    main = [r for r in reqs if isinstance(r.get("body"), dict) and r["body"].get("tools")]
    rep: dict = {"requests": len(reqs), "model_requests": len(main),
                 "steps": [r.get("answer", {}).get("step") for r in main]}
    if not main:
        return rep
    first = main[0]["body"]

    def gos_namespace(tools):
        return next((t for t in tools or [] if t.get("type") == "namespace" and t.get("name") == "mcp__gos"), None)

    gos_ns = gos_namespace(first["tools"])
    flat = [t.get("name") for t in first["tools"] if str(t.get("name", "")).startswith("mcp__gos__")]
    texts = [t for it in first.get("input", []) for t in item_texts(it)]
    # Deferred: the namespace is only named in the instructions, and tool_search loads it.
    searched = [t for r in main for i in r["body"].get("input", []) if i.get("type") == "tool_search_output"
                for t in i.get("tools") or []]
    loaded_ns = gos_ns or gos_namespace(searched)
    rep["first_request"] = {
        "model": first.get("model"),
        "tools": [f"{t.get('type')}:{t.get('name')}" for t in first["tools"]],
        "gos_namespace_in_tools": bool(gos_ns),
        "gos_namespace_deferred": any("Deferred tool namespaces" in t and "- mcp__gos:" in t for t in texts),
        "bundle_injected": any("# Skill bundle" in t for t in texts),
    }
    rep["tool_search_called"] = "tool-search" in rep["steps"]
    rep["gos_tools"] = sorted([f.get("name") for f in (loaded_ns or {}).get("tools", [])] +
                              [n.removeprefix("mcp__gos__") for n in flat])
    rep["gos_namespace_description"] = (loaded_ns or {}).get("description", "")[:200]
    inj = next((t for t in texts if "# Skill bundle" in t), None)
    if inj is not None:
        i = inj.find("# Skill bundle")
        rep["first_request"]["injected"] = {"chars": len(inj) - i, "first_line": first_line(inj[i:]),
                                            "label": inj[:i][-120:]}
    for r in main:
        items = r["body"].get("input", [])
        calls = {i.get("call_id"): i for i in items if i.get("type") == "function_call"}
        outs = [i for i in items if i.get("type") == "function_call_output"
                and calls.get(i.get("call_id"), {}).get("name") in ("retrieve_skill_bundle", TOOL)]
        if outs:
            o = outs[-1].get("output")
            text = o if isinstance(o, str) else "\n".join(p.get("text", "") for p in o or [] if isinstance(p, dict))
            body = text.split("Output:\n", 1)[1] if text.startswith("Wall time:") and "Output:\n" in text else text
            m = re.search(r"…(\d+) tokens truncated…", text)
            rep["tool_called"] = True
            rep["tool_result"] = {
                "chars": len(text),
                "first_line": first_line(text),
                "payload_chars": len(body),
                "payload_first_line": first_line(body),
                "kind": classify(body),
                "output_type": type(o).__name__,
                "truncated_marker": m.group(0) if m else None,
            }
            return rep
    rep["tool_called"] = False
    return rep


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Codex CLI + gos MCP + scripted model")
    ap.add_argument("--gos")
    ap.add_argument("--query", default=DEFAULT_QUERY)
    ap.add_argument("--vectors", action="store_true")
    ap.add_argument("--model", default="gpt-5.5",
                    help="the model name Codex is told to use; a name Codex knows gets that model's "
                         "metadata (tool output truncation among it), others a fallback")
    ap.add_argument("--standin-hook", action="store_true",
                    help="a UserPromptSubmit hook (standin_hook.py) in the isolated CODEX_HOME/hooks.json")
    ap.add_argument("--out")
    ap.add_argument("--work")
    ap.add_argument("--keep", action="store_true", help="keep the work folder after a run that succeeded")
    ap.add_argument("--discard", action="store_true", help="remove the work folder even after a failure")
    a = ap.parse_args(argv)

    report: dict = {"harness": "codex", "ok": False, "query": a.query}
    root = None
    try:
        gos = gos_binary(a.gos)
        codex = harness_binary("codex")
        root = work_root(a.work)
        report["work"] = str(root)
        home, project = root / "home", root / "project"
        project.mkdir(parents=True, exist_ok=True)
        ws = build_workspace(gos, root, a.vectors)
        ref = cli_bundle(gos, ws, a.query)
        report["reference"] = {
            "rendered_context_chars": len(ref.get("rendered_context", "")),
            "json_document_chars": len(json.dumps(ref, ensure_ascii=False, separators=(",", ":"))),
        }
        with ScriptedApi(root, "responses", TOOL, a.query) as api:
            env = clean_env(home, {API_KEY_VAR: "scripted-harness-test"})
            codex_home = Path(env["CODEX_HOME"])
            codex_home.mkdir(parents=True, exist_ok=True)
            report["codex_version"] = run([codex, "--version"], env=env, cwd=project, timeout=60,
                                          what="codex --version").stdout.strip()
            run([codex, "mcp", "add", "gos", "--", gos, "mcp", "-w", ws], env=env, cwd=project,
                timeout=60, what="codex mcp add")
            config = codex_home / "config.toml"
            config.write_text(provider_toml(api.url, a.model) + "\n" + config.read_text())
            listed = json.loads(run([codex, "mcp", "list", "--json"], env=env, cwd=project, timeout=60,
                                    what="codex mcp list --json").stdout)
            entry = next((s for s in listed if s.get("name") == "gos"), None)
            report["mcp_list"] = entry
            if not entry:
                raise HarnessError(f"codex mcp list does not list gos: {listed}")
            extra = []
            if a.standin_hook:
                cmd = f"{sys.executable} {HERE / 'standin_hook.py'} {gos} {ws} --format codex"
                (codex_home / "hooks.json").write_text(json.dumps({"hooks": {"UserPromptSubmit": [
                    {"hooks": [{"type": "command", "command": cmd, "timeout": 10}]}]}}, indent=2))
                report["hook_command"] = cmd
                extra = ["--dangerously-bypass-hook-trust"]
            p = run([codex, "exec", "--strict-config", "--skip-git-repo-check", "--json", "--sandbox", "read-only", *extra, a.query],
                    env=env, cwd=project, timeout=240, what="codex exec", check=False)
            report["exec_seconds"] = p.seconds
            events = []
            for line in p.stdout.splitlines():
                try:
                    events.append(json.loads(line))
                except ValueError:
                    pass
            mcp_items = [e.get("item") for e in events if e.get("type") == "item.completed"
                         and (e.get("item") or {}).get("type") == "mcp_tool_call"]
            report["exec"] = {"exit": p.returncode, "events": [e.get("type") for e in events][:30],
                              "mcp_tool_calls": [{k: i.get(k) for k in ("server", "tool", "status")} for i in mcp_items],
                              "final": next((e["item"].get("text") for e in reversed(events)
                                             if e.get("type") == "item.completed"
                                             and (e.get("item") or {}).get("type") == "agent_message"), None)}
            report.update(analyse(api.requests()))
            report["connected"] = report.get("gos_tools") == GOS_TOOLS
        if p.returncode != 0:
            raise HarnessError(f"codex exec: exit {p.returncode}: {p.stderr[-1500:]}")
        if not report["connected"]:
            raise HarnessError("the model was not offered gos's five tools (in the first request's tool "
                               "list or through tool_search)")
        report["ok"] = True
        code = 0
    except HarnessError as e:
        report["error"] = str(e)
        code = 1
    finish(report, a.out, root, a.keep or bool(a.work), a.discard) if root else print(json.dumps(report, indent=2))
    return code


if __name__ == "__main__":
    sys.exit(main())
