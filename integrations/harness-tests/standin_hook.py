#!/usr/bin/env python3
"""A stand-in for `gos hook claude` (issue 23, not written yet), so the harness tests can check
their own detection of injected context today: a UserPromptSubmit hook that reads the hook JSON
on stdin, runs `gos retrieve -w WS PROMPT`, and answers with the rendered context as
`hookSpecificOutput.additionalContext`. Never blocks the prompt: on any failure it prints
nothing and exits 0.

  standin_hook.py GOS_BINARY WORKSPACE [--format claude|codex|plain]

claude and codex: the JSON answer (both read hookSpecificOutput.additionalContext); plain: the
context as plain stdout, which Claude Code also adds for UserPromptSubmit.
"""

import json
import subprocess
import sys

sys.dont_write_bytecode = True


def main() -> int:
    if len(sys.argv) < 3:
        return 0
    gos, ws = sys.argv[1], sys.argv[2]
    fmt = sys.argv[4] if len(sys.argv) > 4 and sys.argv[3] == "--format" else "claude"
    try:
        event = json.load(sys.stdin)
        prompt = event.get("prompt") or ""
        if not prompt.strip():
            return 0
        p = subprocess.run([gos, "retrieve", "-w", ws, prompt], capture_output=True, text=True, timeout=8)
        context = p.stdout if p.returncode == 0 else ""
    except Exception:  # a hook must never break the prompt
        return 0
    if not context.strip() or "Retrieval status: NO_SKILL_HIT" in context[:1000]:
        return 0
    if fmt == "plain":
        sys.stdout.write(context)
    else:
        json.dump({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit",
                                          "additionalContext": context}}, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
