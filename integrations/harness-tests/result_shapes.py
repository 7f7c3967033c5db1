#!/usr/bin/env python3
"""Which part of an MCP tool result does a harness hand to the model? An experiment, not a
test of gos: a throwaway MCP server (the official Python SDK, `mcp` on PyPI) offers one tool per
result shape, and for each shape Claude Code (`claude -p`) and Codex (`codex exec`), each against
scripted_api.py, find the tool through their tool search and call it; the report says what the
model's next request carried.

Shapes (each text and each structured document holds its own marker, so the report can tell
which one arrived):
  text           content: one text block; no structuredContent
  text-struct    content: text; structuredContent; no outputSchema (gos's retrieve_skill_bundle today)
  text-schema    content: text; structuredContent; outputSchema declared on the tool
  struct-only    content: empty; structuredContent; no outputSchema
  two-texts      content: two text blocks; no structuredContent
  error-struct   isError with content: text; structuredContent

  result_shapes.py [--python VENV_PYTHON] [--harness claude|codex ...] [--shape NAME ...] [--work DIR]
VENV_PYTHON must import `mcp` (scripts/setup-mcp-venv.sh with GOS_MCP_VENV=/tmp/...);
default: $GOS_MCP_VENV/bin/python, else .venv/bin/python. The server side runs as
`result_shapes.py --serve` under that python.
"""

from __future__ import annotations

import sys

sys.dont_write_bytecode = True

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
from pathlib import Path  # noqa: E402

TEXT = "TEXT-MARKER {shape}: # Skill bundle (the rendered text)"
STRUCT = {"marker": "STRUCT-MARKER", "rendered_context": "# Skill bundle (inside the JSON)", "score": 0.5}
SCHEMA = {"type": "object", "properties": {"marker": {"type": "string"}, "rendered_context": {"type": "string"},
                                           "score": {"type": "number"}}, "required": ["marker"]}
SHAPES = ["text", "text-struct", "text-schema", "struct-only", "two-texts", "error-struct"]


def tool_name(shape: str) -> str:
    return "shape_" + shape.replace("-", "_")


def serve() -> None:
    import anyio
    import mcp_types as types
    from mcp.server.lowlevel import Server
    from mcp.server.stdio import stdio_server

    schema_in = {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}

    async def list_tools(ctx, params):
        tools = []
        for s in SHAPES:
            kw = {"outputSchema": SCHEMA} if s == "text-schema" else {}
            # Read-only, as gos's tools are: Codex runs those without asking for approval.
            tools.append(types.Tool(name=tool_name(s), description=f"Result shape {s}.", inputSchema=schema_in,
                                    annotations=types.ToolAnnotations(readOnlyHint=True), **kw))
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx, params):
        shape = next(s for s in SHAPES if tool_name(s) == params.name)
        text = types.TextContent(type="text", text=TEXT.format(shape=shape))
        if shape == "text":
            return types.CallToolResult(content=[text])
        if shape in ("text-struct", "text-schema"):
            return types.CallToolResult(content=[text], structuredContent=STRUCT)
        if shape == "struct-only":
            return types.CallToolResult(content=[], structuredContent=STRUCT)
        if shape == "two-texts":
            second = types.TextContent(type="text", text="SECOND-TEXT-MARKER")
            return types.CallToolResult(content=[text, second])
        return types.CallToolResult(content=[text], structuredContent=STRUCT, isError=True)

    server = Server("shapes", version="0.0.1", instructions="Tools that return one result shape each.",
                    on_list_tools=list_tools, on_call_tool=call_tool)

    async def main():
        async with stdio_server() as (r, w):
            await server.run(r, w, server.create_initialization_options())

    anyio.run(main)


def markers(text: str) -> dict:
    return {"chars": len(text), "text": text[:300], "text_marker": "TEXT-MARKER" in text,
            "second_text": "SECOND-TEXT-MARKER" in text, "struct_marker": "STRUCT-MARKER" in text}


def claude_shape(d: Path, shape: str, py: str) -> dict:
    from harness_common import ScriptedApi, clean_env, harness_binary, run
    from run_claude import blocks, result_text

    tool = f"mcp__shapes__{tool_name(shape)}"
    with ScriptedApi(d, "anthropic", tool, "anything") as api:
        env = clean_env(d / "home", {"ANTHROPIC_BASE_URL": api.url, "ANTHROPIC_API_KEY": "sk-ant-scripted"})
        claude = harness_binary("claude")
        run([claude, "mcp", "add", "shapes", "--", py, Path(__file__).resolve(), "--serve"],
            env=env, cwd=d, timeout=60, what="claude mcp add")
        p = run([claude, "-p", "try the tool", "--output-format", "json", "--max-turns", "6",
                 "--allowedTools", tool], env=env, cwd=d, timeout=180, what="claude -p", check=False)
        for r in api.requests():
            body = r.get("body") if isinstance(r.get("body"), dict) else {}
            msgs = body.get("messages") or []
            ids = {b.get("id") for m in msgs if m.get("role") == "assistant" for b in blocks(m)
                   if b.get("type") == "tool_use" and b.get("name") == tool}
            for b in blocks(msgs[-1] if msgs else {}):
                if b.get("type") == "tool_result" and b.get("tool_use_id") in ids:
                    text, parts = result_text(b)
                    raw = b.get("content")
                    return {"parts": parts, **markers(text), "is_error": bool(b.get("is_error")),
                            "raw": raw if isinstance(raw, list) else None}
    return {"error": "no tool result reached the model", "exit": p.returncode, "stderr": p.stderr[-500:]}


def codex_shape(d: Path, shape: str, py: str, model: str = "gpt-5.5") -> dict:
    from harness_common import ScriptedApi, clean_env, harness_binary, run
    from run_codex import API_KEY_VAR, provider_toml

    tool = f"mcp__shapes__{tool_name(shape)}"
    with ScriptedApi(d, "responses", tool, "anything") as api:
        env = clean_env(d / "home", {API_KEY_VAR: "scripted"})
        Path(env["CODEX_HOME"]).mkdir(parents=True, exist_ok=True)
        codex = harness_binary("codex")
        run([codex, "mcp", "add", "shapes", "--", py, Path(__file__).resolve(), "--serve"],
            env=env, cwd=d, timeout=60, what="codex mcp add")
        config = Path(env["CODEX_HOME"]) / "config.toml"
        config.write_text(provider_toml(api.url, model) + "\n" + config.read_text())
        # The SDK server takes seconds to import; `codex exec` starts its first turn without a
        # server that is not ready within about a second unless the server is `required`.
        p = run([codex, "exec", "-c", "mcp_servers.shapes.required=true", "--skip-git-repo-check",
                 "try the tool"], env=env, cwd=d, timeout=180,
                what="codex exec", check=False)
        for r in api.requests():
            items = (r.get("body") or {}).get("input") or [] if isinstance(r.get("body"), dict) else []
            calls = {i.get("call_id") for i in items if i.get("type") == "function_call"
                     and i.get("name") == tool_name(shape)}
            for i in items:
                if i.get("type") == "function_call_output" and i.get("call_id") in calls:
                    o = i.get("output")
                    text = o if isinstance(o, str) else json.dumps(o)
                    return {"output_type": type(o).__name__, **markers(text),
                            "raw": o if isinstance(o, list) else None}
    return {"error": "no tool result reached the model", "exit": p.returncode, "stderr": p.stderr[-500:]}


def experiment(argv) -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from harness_common import HarnessError, work_root

    ap = argparse.ArgumentParser()
    ap.add_argument("--python")
    ap.add_argument("--harness", choices=["claude", "codex"], action="append")
    ap.add_argument("--shape", action="append", choices=SHAPES)
    ap.add_argument("--work")
    a = ap.parse_args(argv)
    venv = os.environ.get("GOS_MCP_VENV")
    py = a.python or (f"{venv}/bin/python" if venv else str(Path(__file__).resolve().parents[2] / ".venv/bin/python"))
    root = work_root(a.work)
    report = {"work": str(root)}
    for harness in a.harness or ["claude", "codex"]:
        report[harness] = {}
        for shape in a.shape or SHAPES:
            d = root / harness / shape
            d.mkdir(parents=True, exist_ok=True)
            try:
                report[harness][shape] = (claude_shape if harness == "claude" else codex_shape)(d, shape, py)
            except HarnessError as e:
                report[harness][shape] = {"error": str(e)}
    print(json.dumps(report, indent=2))
    if not a.work:
        import shutil
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        serve()
    else:
        sys.exit(experiment(sys.argv[1:]))
