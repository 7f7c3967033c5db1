"""Shared parts of the harness drivers (run_claude.py, run_codex.py): where gos and the
harnesses are, a fixture workspace, an isolated home, the scripted model API, and commands run
with a time limit. Python standard library only."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
DEFAULT_QUERY = "reproject the districts GeoJSON to web mercator and draw a choropleth map of turnout"
GOS_TOOLS = ["get_skill", "retrieve_skill_bundle", "search_skills", "skill_neighbors", "workspace_status"]


class HarnessError(Exception):
    """A step of the run failed; the message says which and why."""


def target_dir() -> Path:
    t = Path(os.environ.get("CARGO_TARGET_DIR") or REPO / "target")
    return t if t.is_absolute() else REPO / t


def gos_binary(explicit: str | None) -> Path:
    """--gos, else $GOS_BIN, else target/release/gos, else target/debug/gos (what `cargo test`
    builds)."""
    if explicit or os.environ.get("GOS_BIN"):
        candidates = [Path(explicit or os.environ["GOS_BIN"])]
    else:
        candidates = [target_dir() / "release" / "gos", target_dir() / "debug" / "gos"]
    for p in candidates:
        if p.is_file() and os.access(p, os.X_OK):
            return p.resolve()
    raise HarnessError(f"no gos binary at {' or '.join(map(str, candidates))}: "
                       "run `cargo build --release -p gos-cli` or set GOS_BIN")


def harness_dir() -> Path:
    return Path(os.environ.get("GOS_HARNESS_DIR") or target_dir() / "harnesses")


def harness_binary(name: str) -> Path:
    p = harness_dir() / "node_modules" / ".bin" / name
    if not p.exists():
        raise HarnessError(f"{name} is not installed at {p}: run scripts/setup-harnesses.sh")
    return p


def work_root(explicit: str | None) -> Path:
    """The folder for this run's workspace, homes and records (never inside the source tree
    unless asked: the default is a fresh folder under target/harness-runs/)."""
    if explicit:
        p = Path(explicit).resolve()
        p.mkdir(parents=True, exist_ok=True)
        return p
    base = target_dir() / "harness-runs"
    base.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix="harness-", dir=base))


def clean_env(home: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    """An environment that carries nothing of the user's: PATH, locale and TMPDIR, a HOME of
    our own, and the harnesses' switches for update checks and telemetry turned off."""
    env = {k: os.environ[k] for k in ("PATH", "LANG", "LC_ALL", "TMPDIR", "TERM") if k in os.environ}
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_CACHE_HOME=str(home / ".cache"),
        XDG_DATA_HOME=str(home / ".local" / "share"),
        XDG_STATE_HOME=str(home / ".local" / "state"),
        NO_COLOR="1",
        # Claude Code
        DISABLE_AUTOUPDATER="1",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        DISABLE_TELEMETRY="1",
        DISABLE_ERROR_REPORTING="1",
        DISABLE_BUG_COMMAND="1",
        # A refused or dead model API must fail the run in seconds: Claude Code's default
        # retries keep `claude -p` waiting for minutes on a refused connection.
        CLAUDE_CODE_MAX_RETRIES="1",
        API_TIMEOUT_MS="60000",
        # Codex
        CODEX_HOME=str(home / ".codex"),
    )
    home.mkdir(parents=True, exist_ok=True)
    if extra:
        env.update(extra)
    return env


def run(cmd: list, *, env: dict, cwd: Path, timeout: float, what: str, stdin: str | None = None,
        check: bool = True) -> subprocess.CompletedProcess:
    """Run a command with a time limit; its whole process group is killed on timeout."""
    start = time.monotonic()
    try:
        p = subprocess.Popen([str(c) for c in cmd], env=env, cwd=str(cwd), text=True,
                             stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    except OSError as e:
        raise HarnessError(f"{what}: cannot start {cmd[0]}: {e}") from e
    try:
        out, err = p.communicate(stdin, timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_group(p)
        out, err = p.communicate()
        raise HarnessError(f"{what}: no answer within {timeout:.0f} s; stderr: {err[-2000:]}") from None
    cp = subprocess.CompletedProcess(p.args, p.returncode, out, err)
    cp.seconds = round(time.monotonic() - start, 2)  # type: ignore[attr-defined]
    if check and p.returncode != 0:
        raise HarnessError(f"{what}: exit {p.returncode}; stderr: {err[-2000:]} stdout: {out[-2000:]}")
    return cp


def kill_group(p: subprocess.Popen) -> None:
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def build_workspace(gos: Path, root: Path, vectors: bool) -> Path:
    ws = root / "ws"
    cmd = [gos, "build", REPO / "fixtures" / "library", "-w", ws]
    if vectors:
        model = REPO / "models" / "all-MiniLM-L6-v2"
        if not model.is_dir():
            raise HarnessError(f"--vectors: no model at {model} (scripts/setup-model.sh)")
        cmd += ["--model-dir", model]
    run(cmd, env={**os.environ, "NO_COLOR": "1"}, cwd=root, timeout=300, what="gos build")
    return ws


def cli_bundle(gos: Path, ws: Path, query: str) -> dict:
    """`gos retrieve --json`: the document the MCP tool's structuredContent carries."""
    p = run([gos, "retrieve", "-w", ws, "--json", query], env={**os.environ, "NO_COLOR": "1"},
            cwd=ws.parent, timeout=120, what="gos retrieve --json")
    return json.loads(p.stdout)


class ScriptedApi:
    """scripted_api.py in a child process, on a free loopback port."""

    def __init__(self, root: Path, dialect: str, tool: str, query: str, name: str = "api"):
        self.record = root / f"{name}-requests.jsonl"
        self.port_file = root / f"{name}.port"
        self.log = open(root / f"{name}.log", "w")
        self.proc = subprocess.Popen(
            [sys.executable, str(HERE / "scripted_api.py"), "--record", str(self.record),
             "--port-file", str(self.port_file), "--dialect", dialect, "--tool", tool,
             "--query", query, "--max-seconds", "900"],
            stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 15
        while not self.port_file.exists():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise HarnessError(f"the scripted API did not start; see {self.log.name}")
            time.sleep(0.05)
        self.port = int(self.port_file.read_text())
        self.url = f"http://127.0.0.1:{self.port}"

    def requests(self) -> list[dict]:
        if not self.record.exists():
            return []
        return [json.loads(line) for line in self.record.read_text().splitlines() if line.strip()]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                kill_group(self.proc)
        self.log.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def first_line(text: str) -> str:
    return text.split("\n", 1)[0][:200]


def classify(text: str) -> str:
    """What a tool result is: the bundle JSON document, the rendered markdown, other JSON, or
    other text."""
    try:
        doc = json.loads(text)
    except ValueError:
        doc = None
    if isinstance(doc, dict):
        return "json-document" if "rendered_context" in doc else "json-other"
    if text.startswith("# Skill bundle"):
        return "rendered-markdown"
    return "text-other"


def finish(report: dict, out: str | None, root: Path, keep: bool, discard: bool = False) -> None:
    """Print the report (and write it to `out`); remove the work folder after a run that
    succeeded unless `keep`, and after any run when `discard` (a failed run's folder stays for
    a look at its records and logs otherwise)."""
    text = json.dumps(report, indent=2)
    if out:
        Path(out).write_text(text + "\n")
    print(text)
    if discard or (not keep and report.get("ok")):
        shutil.rmtree(root, ignore_errors=True)
