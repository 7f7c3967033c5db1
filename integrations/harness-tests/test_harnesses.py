"""Real agent harnesses against gos's MCP server (issue 23, item 4): Claude Code in `claude -p`
and the Codex CLI in `codex exec`, each against a scripted model on loopback.

Run: python3 -m unittest discover -s integrations/harness-tests -p 'test_*.py'
Needs the harnesses (scripts/setup-harnesses.sh; run here when missing) and a gos binary
($GOS_BIN, else target/release/gos, else target/debug/gos). Without npm or its registry the
tests skip with the reason, unless GOS_REQUIRE_HARNESSES=1 (CI), which turns that into a failure.

The tests: the harness connects, finds gos's tool, calls it, the model reads the bundle as
text, the hook mechanism carries context into the first request, and `gos install claude`
registers gos and its hook so that the first request already carries the bundle.
"""

from __future__ import annotations

import sys

sys.dont_write_bytecode = True

import json  # noqa: E402
import os  # noqa: E402
import subprocess  # noqa: E402
import unittest  # noqa: E402
from pathlib import Path  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import harness_common  # noqa: E402

REQUIRED = os.environ.get("GOS_REQUIRE_HARNESSES") == "1"
_setup: str | None = None  # None: not tried; "": ready; otherwise the reason it is not


def harnesses_ready() -> None:
    """Install the harnesses once per run; skip (or fail, in CI) when that is impossible."""
    global _setup
    if _setup is None:
        script = harness_common.REPO / "scripts" / "setup-harnesses.sh"
        try:
            p = subprocess.run([str(script)], capture_output=True, text=True, timeout=1200)
            _setup = "" if p.returncode == 0 else f"scripts/setup-harnesses.sh failed: {p.stderr[-1500:]}"
        except (OSError, subprocess.TimeoutExpired) as e:
            _setup = f"scripts/setup-harnesses.sh: {e}"
        if not _setup:
            try:
                harness_common.gos_binary(None)
            except harness_common.HarnessError as e:
                _setup = str(e)
    if _setup:
        if REQUIRED:
            raise AssertionError(_setup)
        raise unittest.SkipTest(_setup)


def drive(script: str, *args: str) -> dict:
    """Run a driver; its JSON report. A driver that failed fails the test with its error."""
    p = subprocess.run([sys.executable, str(HERE / script), *args], capture_output=True, text=True,
                       timeout=600)
    try:
        report = json.loads(p.stdout)
    except ValueError:
        raise AssertionError(f"{script} printed no report (exit {p.returncode}): {p.stderr[-2000:]}") from None
    return report


def require_ok(report: dict) -> None:
    if not report.get("ok"):
        raise AssertionError(f"{report.get('harness')} run failed: {report.get('error')}")


class ClaudeCode(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        harnesses_ready()
        cls.plain = drive("run_claude.py")
        cls.hooked = drive("run_claude.py", "--standin-hook")

    def test_mcp_list_shows_gos_connected(self):
        require_ok(self.plain)
        self.assertTrue(self.plain["connected"], self.plain["mcp_list"])

    def test_the_five_tools_are_deferred_and_toolsearch_loads_retrieve(self):
        require_ok(self.plain)
        first = self.plain["first_request"]
        self.assertEqual(first["gos_tools_deferred"], harness_common.GOS_TOOLS)
        self.assertTrue(first["gos_instructions"], "gos's server instructions are in the prompt")
        self.assertTrue(self.plain["tool_search_called"])
        self.assertTrue(self.plain["tool_search_loaded"], self.plain.get("tool_search_result_refs"))

    def test_the_tool_result_reaches_the_next_request(self):
        require_ok(self.plain)
        self.assertTrue(self.plain["tool_called"])
        r = self.plain["tool_result"]
        self.assertFalse(r["is_error"], r)
        self.assertGreater(r["chars"], 1000, r)
        self.assertEqual(self.plain["steps"], ["tool-search", "call-tool", "final-answer"])

    def test_hook_context_reaches_the_first_request(self):
        # The mechanism `gos hook claude` will use, exercised with standin_hook.py.
        require_ok(self.hooked)
        first = self.hooked["first_request"]
        self.assertTrue(first["bundle_injected"], first)
        self.assertEqual(first["injected"]["first_line"], "# Skill bundle")
        self.assertEqual(first["injected"]["chars"], self.hooked["reference"]["rendered_context_chars"])

    def test_the_model_reads_the_bundle_as_text(self):
        require_ok(self.plain)
        r = self.plain["tool_result"]
        self.assertEqual(r["kind"], "rendered-markdown", r)
        self.assertEqual(r["first_line"], "# Skill bundle")
        self.assertEqual(r["chars"], self.plain["reference"]["rendered_context_chars"])

    def test_gos_install_claude_puts_the_bundle_in_the_first_request(self):
        report = drive("run_claude.py", "--gos-install", "--discard")
        require_ok(report)
        self.assertTrue(report["connected"])
        self.assertTrue(report["first_request"]["bundle_injected"], report["first_request"])


class Codex(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        harnesses_ready()
        cls.plain = drive("run_codex.py")
        cls.hooked = drive("run_codex.py", "--standin-hook")

    def test_connects_and_offers_the_five_tools(self):
        require_ok(self.plain)
        self.assertTrue(self.plain["connected"])
        self.assertEqual(self.plain["gos_tools"], harness_common.GOS_TOOLS)
        self.assertIn("gos retrieves the agent skills", self.plain["gos_namespace_description"])

    def test_calls_retrieve_and_the_output_reaches_the_model(self):
        require_ok(self.plain)
        self.assertEqual(self.plain["exec"]["mcp_tool_calls"],
                         [{"server": "gos", "tool": "retrieve_skill_bundle", "status": "completed"}])
        self.assertGreater(self.plain["tool_result"]["payload_chars"], 1000)

    def test_hook_context_reaches_the_first_request(self):
        require_ok(self.hooked)
        first = self.hooked["first_request"]
        self.assertTrue(first["bundle_injected"], first)
        self.assertEqual(first["injected"]["chars"], self.hooked["reference"]["rendered_context_chars"])

    def test_the_model_reads_the_bundle_as_text(self):
        require_ok(self.plain)
        r = self.plain["tool_result"]
        self.assertEqual(r["kind"], "rendered-markdown", r)
        self.assertEqual(r["payload_first_line"], "# Skill bundle")


if __name__ == "__main__":
    unittest.main()
