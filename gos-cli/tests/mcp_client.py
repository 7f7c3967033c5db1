"""Drive `gos mcp` with the official Python MCP SDK and print what it saw as one JSON object.

Usage: python mcp_client.py GOS_BINARY WORKSPACE QUERIES_JSON SKILL_ID UNKNOWN_ID

The Rust test gos-cli/tests/mcp_client.rs runs it from the venv of scripts/setup-mcp-venv.sh
and checks the values; this script only records them (and fails on a protocol error).
"""

import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def dump(model):
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


async def main():
    gos, workspace, queries_json, skill_id, unknown_id = sys.argv[1:6]
    queries = json.loads(queries_json)
    params = StdioServerParameters(command=gos, args=["mcp", "-w", workspace])
    out = {}
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            out["initialize"] = dump(init)
            tools = await session.list_tools()
            out["tools"] = [dump(t) for t in tools.tools]
            resources = await session.list_resources()
            out["resources"] = [dump(r) for r in resources.resources]
            first = next(r for r in resources.resources if str(r.uri).endswith("/SKILL.md"))
            read_result = await session.read_resource(first.uri)
            out["resource_read"] = {"uri": str(first.uri), "result": dump(read_result)}
            out["bundles"] = []
            for q in queries:
                r = await session.call_tool("retrieve_skill_bundle", {"query": q})
                out["bundles"].append(dump(r))
            out["bundles_json"] = []
            for q in queries:
                r = await session.call_tool("retrieve_skill_bundle", {"query": q, "format": "json"})
                out["bundles_json"].append(dump(r))
            calls = {
                "search_skills": {"query": queries[0], "limit": 5},
                "get_skill": {"id": skill_id},
                "skill_neighbors": {"id": skill_id},
                "workspace_status": {},
                "get_skill_unknown": ("get_skill", {"id": unknown_id}),
                "neighbors_unknown": ("skill_neighbors", {"id": unknown_id}),
                "empty_query": ("retrieve_skill_bundle", {"query": "   "}),
                "max_skills_zero": ("retrieve_skill_bundle", {"query": queries[0], "max_skills": 0}),
                "max_skills_huge": ("retrieve_skill_bundle", {"query": queries[0], "max_skills": 10**9}),
                "unknown_format": ("retrieve_skill_bundle", {"query": queries[0], "format": "yaml"}),
            }
            out["calls"] = {}
            for key, spec in calls.items():
                name, args = spec if isinstance(spec, tuple) else (key, spec)
                r = await session.call_tool(name, args)
                out["calls"][key] = dump(r)
            # The server still answers after the errors.
            r = await session.call_tool("workspace_status", {})
            out["after_errors"] = dump(r)
    print(json.dumps(out))


asyncio.run(main())
