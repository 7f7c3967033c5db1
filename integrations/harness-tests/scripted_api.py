#!/usr/bin/env python3
"""A scripted model behind Anthropic's Messages API, on loopback, for driving real agent
harnesses (Claude Code in `claude -p`) in tests without a network model.

It answers `POST /v1/messages` (streaming SSE when the request asks for it, one JSON message
otherwise) and `POST /v1/messages/count_tokens`, and records every request it receives, body
included, as one JSON line in the record file, so a test can read what reached the model: the
system prompt, the tool list, the tool results.

The script (scenario `find-and-retrieve`) is decided from the conversation itself, not from a
request counter, so the harness's side requests (titles, quota probes) do not shift it:

1. A conversation whose last user turn carries no tool result: if the tool list already holds
   the wanted tool (`--tool`), call it; otherwise, when it holds `ToolSearch`, ask ToolSearch
   for the tool (`select:<tool>`).
2. The last user turn answers a ToolSearch call: call the wanted tool with `--query`.
3. The last user turn answers the wanted tool: a final text answer that says how many characters
   the tool result had.

A request without tools, or with a tool list that has neither the tool nor ToolSearch, gets a
short text answer. Requests to other paths get a 404 in the API's error shape, so a client never
waits on a route this server does not know.

Usage: scripted_api.py --record FILE [--port 0] [--port-file FILE] [--tool NAME] [--query TEXT]
The chosen address is printed on stdout as `listening on http://127.0.0.1:PORT` (and written to
--port-file). It stops on SIGTERM or after --max-seconds.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# Headers worth keeping in the record (the API key is never recorded).
KEPT_HEADERS = ("anthropic-version", "anthropic-beta", "user-agent", "x-app", "content-type")


def content_blocks(message: dict) -> list:
    """The content of a message as a list of blocks (a bare string is one text block)."""
    c = message.get("content")
    if isinstance(c, str):
        return [{"type": "text", "text": c}]
    return c if isinstance(c, list) else []


def tool_names(body: dict) -> list[str]:
    return [t.get("name", "") for t in body.get("tools") or [] if isinstance(t, dict)]


def tool_result_text(block: dict) -> str:
    """The text of a tool_result block: a string, or the text parts of its content list."""
    c = block.get("content")
    if isinstance(c, str):
        return c
    if isinstance(c, list):
        return "\n".join(p.get("text", "") for p in c if isinstance(p, dict) and p.get("type") == "text")
    return ""


def tool_uses_by_id(messages: list) -> dict[str, dict]:
    out = {}
    for m in messages:
        if m.get("role") == "assistant":
            for b in content_blocks(m):
                if b.get("type") == "tool_use":
                    out[b.get("id")] = b
    return out


def last_tool_results(messages: list) -> list[dict]:
    """The tool_result blocks of the last user message (empty when it has none)."""
    for m in reversed(messages):
        if m.get("role") == "user":
            return [b for b in content_blocks(m) if b.get("type") == "tool_result"]
    return []


class Script:
    """The scenario: which answer a request gets. Pure: a function of the request body."""

    def __init__(self, tool: str, query: str, search_query: str | None = None):
        self.tool = tool
        self.query = query
        self.search_query = search_query or f"select:{tool}"

    def answer(self, body: dict) -> tuple[str, list[dict], str]:
        """(step name, content blocks, stop_reason) for this request."""
        tools = tool_names(body)
        messages = body.get("messages") or []
        results = last_tool_results(messages)
        if not tools:
            return "side-request", [text_block("OK")], "end_turn"
        if results:
            uses = tool_uses_by_id(messages)
            answered = [uses.get(r.get("tool_use_id"), {}).get("name") for r in results]
            if self.tool in answered:
                r = results[answered.index(self.tool)]
                n = len(tool_result_text(r))
                return (
                    "final-answer",
                    [text_block(f"The skill bundle arrived ({n} characters). Done.")],
                    "end_turn",
                )
            if "ToolSearch" in answered and self.tool in tools + self.loaded_tools(messages):
                return "call-tool", [self.tool_use(self.tool, {"query": self.query})], "tool_use"
            if "ToolSearch" in answered:
                return (
                    "tool-not-found",
                    [text_block(f"ToolSearch did not load {self.tool}.")],
                    "end_turn",
                )
            return "other-result", [text_block("Done.")], "end_turn"
        if self.tool in tools:
            return "call-tool", [self.tool_use(self.tool, {"query": self.query})], "tool_use"
        if "ToolSearch" in tools:
            return (
                "tool-search",
                [self.tool_use("ToolSearch", {"query": self.search_query, "max_results": 5})],
                "tool_use",
            )
        return "no-tool", [text_block(f"No {self.tool} and no ToolSearch here.")], "end_turn"

    @staticmethod
    def loaded_tools(messages: list) -> list[str]:
        """Tools named by `tool_reference` blocks in tool results (how ToolSearch loads a
        deferred tool)."""
        names = []
        for m in messages:
            if m.get("role") != "user":
                continue
            for b in content_blocks(m):
                if b.get("type") == "tool_result" and isinstance(b.get("content"), list):
                    for p in b["content"]:
                        if isinstance(p, dict) and p.get("type") == "tool_reference":
                            names.append(p.get("tool_name", ""))
        return names

    _ids = itertools.count(1)

    def tool_use(self, name: str, inp: dict) -> dict:
        return {"type": "tool_use", "id": f"toolu_scripted_{next(self._ids):04d}", "name": name, "input": inp}


class ResponsesScript:
    """The same scenario over OpenAI's Responses API (Codex): Codex lists an MCP server's tools
    as one `namespace` tool (`mcp__<server>`) holding function tools, so `--tool
    mcp__gos__retrieve_skill_bundle` is looked up as function `retrieve_skill_bundle` in
    namespace `mcp__gos` (or as a flat function of that full name). When Codex defers MCP tools
    (it does for the models it knows), the tool list has a client-side `tool_search` tool
    instead: the script calls it (a `tool_search_call` item), and Codex's next request carries a
    `tool_search_output` with the loaded namespace."""

    def __init__(self, tool: str, query: str, call_style: str = "namespace"):
        self.tool = tool
        self.query = query
        self.call_style = call_style
        ns, _, fn = tool.rpartition("__")
        self.namespace, self.function = ns, fn

    def offered(self, body: dict) -> bool:
        """The tool is in the request's tool list, or a tool_search_output of the conversation
        loaded it."""
        loaded = [t for i in body.get("input") or [] if isinstance(i, dict) and i.get("type") == "tool_search_output"
                  for t in i.get("tools") or [] if isinstance(t, dict)]
        for t in (body.get("tools") or []) + loaded:
            if t.get("type") == "namespace" and t.get("name") == self.namespace:
                if any(f.get("name") == self.function for f in t.get("tools") or []):
                    return True
            if t.get("type") == "function" and t.get("name") == self.tool:
                return True
        return False

    def answer(self, body: dict) -> tuple[str, list[dict]]:
        items = [i for i in body.get("input") or [] if isinstance(i, dict)]
        if not body.get("tools"):
            return "side-request", [message_item("OK")]
        calls = {i.get("call_id"): i for i in items if i.get("type") == "function_call"}
        outputs = [i for i in items if i.get("type") == "function_call_output"]
        if outputs and outputs[-1] is items[-1]:
            out = outputs[-1]
            call = calls.get(out.get("call_id"), {})
            if call.get("name") in (self.function, self.tool):
                n = len(responses_output_text(out))
                return "final-answer", [message_item(f"The skill bundle arrived ({n} characters). Done.")]
            return "other-result", [message_item("Done.")]
        searched = [i for i in items if i.get("type") == "tool_search_output"]
        if self.offered(body) or (searched and searched[-1] is items[-1]):
            if not self.offered(body):
                return "tool-not-found", [message_item(f"tool_search did not load {self.tool}.")]
            item = {"type": "function_call", "id": f"fc_scripted_{next(Script._ids):04d}",
                    "call_id": f"call_scripted_{next(Script._ids):04d}",
                    "arguments": json.dumps({"query": self.query})}
            if self.call_style == "namespace":
                item.update(name=self.function, namespace=self.namespace)
            else:
                item.update(name=self.tool)
            return "call-tool", [item]
        if any(t.get("type") == "tool_search" for t in body.get("tools") or []):
            return "tool-search", [{"type": "tool_search_call", "call_id": f"call_scripted_{next(Script._ids):04d}",
                                    "execution": "client", "status": "completed",
                                    "arguments": {"query": f"{self.namespace} {self.function.replace('_', ' ')}",
                                                  "limit": 8}}]
        return "no-tool", [message_item(f"No {self.tool} here.")]


def responses_output_text(item: dict) -> str:
    """The text of a function_call_output: a string, or the text parts of its list."""
    o = item.get("output")
    if isinstance(o, str):
        return o
    if isinstance(o, list):
        return "\n".join(p.get("text", "") for p in o if isinstance(p, dict))
    return ""


def message_item(text: str) -> dict:
    return {"type": "message", "role": "assistant", "id": f"msg_scripted_{next(Script._ids):04d}",
            "status": "completed", "content": [{"type": "output_text", "text": text, "annotations": []}]}


def responses_events(resp_id: str, model: str, items: list[dict], usage: dict) -> list[bytes]:
    """The SSE events of one response: created, each output item added and done (text deltas
    for messages), completed with usage."""
    out = [sse("response.created", {"type": "response.created",
                                    "response": {"id": resp_id, "object": "response", "model": model,
                                                 "status": "in_progress", "output": []}})]
    for i, it in enumerate(items):
        out.append(sse("response.output_item.added", {"type": "response.output_item.added",
                                                      "output_index": i, "item": it}))
        if it["type"] == "message":
            out.append(sse("response.output_text.delta", {"type": "response.output_text.delta",
                                                          "item_id": it["id"], "output_index": i,
                                                          "content_index": 0,
                                                          "delta": it["content"][0]["text"]}))
        out.append(sse("response.output_item.done", {"type": "response.output_item.done",
                                                     "output_index": i, "item": it}))
    total = usage["input_tokens"] + usage["output_tokens"]
    out.append(sse("response.completed", {"type": "response.completed", "response": {
        "id": resp_id, "object": "response", "model": model, "status": "completed", "output": items,
        "usage": {"input_tokens": usage["input_tokens"], "input_tokens_details": {"cached_tokens": 0},
                  "output_tokens": usage["output_tokens"], "output_tokens_details": {"reasoning_tokens": 0},
                  "total_tokens": total}}}))
    return out


def text_block(text: str) -> dict:
    return {"type": "text", "text": text}


def sse(event: str, data: dict) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


def stream_events(msg_id: str, model: str, blocks: list[dict], stop: str, usage: dict) -> list[bytes]:
    """The SSE events of one message: message_start, one start/delta/stop per block,
    message_delta with the stop reason, message_stop."""
    start = {
        "id": msg_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": usage["input_tokens"], "output_tokens": 1},
    }
    out = [sse("message_start", {"type": "message_start", "message": start})]
    for i, b in enumerate(blocks):
        if b["type"] == "text":
            out.append(sse("content_block_start", {"type": "content_block_start", "index": i,
                                                   "content_block": {"type": "text", "text": ""}}))
            out.append(sse("content_block_delta", {"type": "content_block_delta", "index": i,
                                                   "delta": {"type": "text_delta", "text": b["text"]}}))
        else:
            head = {"type": "tool_use", "id": b["id"], "name": b["name"], "input": {}}
            out.append(sse("content_block_start", {"type": "content_block_start", "index": i, "content_block": head}))
            out.append(sse("content_block_delta", {"type": "content_block_delta", "index": i,
                                                   "delta": {"type": "input_json_delta",
                                                             "partial_json": json.dumps(b["input"])}}))
        out.append(sse("content_block_stop", {"type": "content_block_stop", "index": i}))
    out.append(sse("message_delta", {"type": "message_delta",
                                     "delta": {"stop_reason": stop, "stop_sequence": None},
                                     "usage": {"output_tokens": usage["output_tokens"]}}))
    out.append(sse("message_stop", {"type": "message_stop"}))
    return out


def rough_tokens(body: dict) -> int:
    return max(1, len(json.dumps(body)) // 4)


class Recorder:
    def __init__(self, path: str):
        self.path = path
        self.lock = threading.Lock()
        self.seq = 0
        open(path, "w").close()

    def write(self, entry: dict) -> None:
        with self.lock:
            self.seq += 1
            entry = {"seq": self.seq, "time": round(time.time(), 3), **entry}
            with open(self.path, "a") as f:
                f.write(json.dumps(entry) + "\n")


def make_handler(script: Script, recorder: Recorder, responses: "ResponsesScript | None" = None):
    msg_ids = itertools.count(1)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt, *args):  # quiet: the record file is the log
            pass

        def _read_body(self):
            n = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(n) if n else b""
            try:
                return json.loads(raw) if raw else None, raw
            except ValueError:
                return None, raw

        def _send_json(self, status: int, doc: dict) -> None:
            data = json.dumps(doc).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.send_header("request-id", f"req_scripted_{recorder.seq}")
            self.end_headers()
            self.wfile.write(data)

        def _record(self, body, raw, answer=None):
            entry = {
                "method": self.command,
                "path": self.path,
                "headers": {k: self.headers[k] for k in KEPT_HEADERS if self.headers.get(k)},
                "body": body if body is not None else raw.decode("utf-8", "replace")[:10000],
            }
            if answer is not None:
                entry["answer"] = answer
            recorder.write(entry)

        def do_GET(self):
            self._record(None, b"")
            self._send_json(404, {"type": "error", "error": {"type": "not_found_error",
                                                             "message": f"scripted API: no route {self.path}"}})

        do_DELETE = do_GET
        do_PUT = do_GET

        def do_HEAD(self):
            self._record(None, b"")
            self.send_response(404)
            self.send_header("content-length", "0")
            self.end_headers()

        def do_POST(self):
            body, raw = self._read_body()
            path = self.path.split("?")[0]
            if path.endswith("/v1/messages/count_tokens") and isinstance(body, dict):
                self._record(body, raw, {"step": "count_tokens"})
                self._send_json(200, {"input_tokens": rough_tokens(body)})
                return
            if path.endswith("/responses") and responses is not None and isinstance(body, dict):
                self._responses(body, raw)
                return
            if not path.endswith("/v1/messages") or not isinstance(body, dict):
                self._record(body, raw)
                self._send_json(404, {"type": "error", "error": {"type": "not_found_error",
                                                                 "message": f"scripted API: no route {self.path}"}})
                return
            step, blocks, stop = script.answer(body)
            self._record(body, raw, {"step": step, "content": blocks, "stop_reason": stop})
            msg_id = f"msg_scripted_{next(msg_ids):04d}"
            model = body.get("model", "scripted")
            usage = {"input_tokens": rough_tokens(body), "output_tokens": 10}
            if body.get("stream"):
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("cache-control", "no-cache")
                self.send_header("connection", "close")
                self.send_header("request-id", f"req_scripted_{recorder.seq}")
                self.end_headers()
                for ev in stream_events(msg_id, model, blocks, stop, usage):
                    self.wfile.write(ev)
                self.wfile.flush()
                self.close_connection = True
            else:
                self._send_json(200, {"id": msg_id, "type": "message", "role": "assistant", "model": model,
                                      "content": blocks, "stop_reason": stop, "stop_sequence": None,
                                      "usage": usage})

        def _responses(self, body: dict, raw: bytes) -> None:
            step, items = responses.answer(body)
            self._record(body, raw, {"step": step, "output": items})
            resp_id = f"resp_scripted_{next(msg_ids):04d}"
            usage = {"input_tokens": rough_tokens(body), "output_tokens": 10}
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.send_header("connection", "close")
            self.end_headers()
            for ev in responses_events(resp_id, body.get("model", "scripted"), items, usage):
                self.wfile.write(ev)
            self.wfile.flush()
            self.close_connection = True

    return Handler


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--record", required=True, help="file for the JSON lines of every request")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--port-file", help="write the chosen port here once listening")
    p.add_argument("--tool", default="mcp__gos__retrieve_skill_bundle")
    p.add_argument("--query", default="reproject the districts GeoJSON to web mercator and draw a choropleth map of turnout")
    p.add_argument("--search-query", help="ToolSearch query (default select:<tool>)")
    p.add_argument("--dialect", choices=["anthropic", "responses"], default="anthropic",
                   help="anthropic: the Messages API (Claude Code); responses: also OpenAI's "
                        "Responses API at POST .../responses (Codex)")
    p.add_argument("--call-style", choices=["namespace", "flat"], default="namespace",
                   help="responses: how a function_call names an MCP tool")
    p.add_argument("--max-seconds", type=float, default=600, help="stop by itself after this long")
    a = p.parse_args(argv)
    script = Script(a.tool, a.query, a.search_query)
    responses = ResponsesScript(a.tool, a.query, a.call_style) if a.dialect == "responses" else None
    server = ThreadingHTTPServer(("127.0.0.1", a.port), make_handler(script, Recorder(a.record), responses))
    server.daemon_threads = True
    port = server.server_address[1]
    if a.port_file:
        with open(a.port_file + ".tmp", "w") as f:
            f.write(str(port))
        os.replace(a.port_file + ".tmp", a.port_file)
    print(f"listening on http://127.0.0.1:{port}", flush=True)

    def stop(*_):
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    timer = threading.Timer(a.max_seconds, stop)
    timer.daemon = True
    timer.start()
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
