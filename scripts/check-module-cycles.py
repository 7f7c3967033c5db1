#!/usr/bin/env python3
"""Report cycles between the modules of every crate of the Cargo workspace.

For each member of the workspace (and each of its targets: src/lib.rs, src/main.rs,
src/bin/*.rs), the script reads the module tree from `mod NAME;` declarations, then the
references each file makes to other modules of the same crate:

  * `use` and `pub use` declarations whose path starts with `crate::`, `super::`, `self::` or
    the name of one of the file's own child modules;
  * the same paths written inline in code (`crate::llm_args::LlmArgs`, `super::finite`).

`#[cfg(test)]` items, comments (doc comments included) and string literals are left out. A path
through the crate root (`crate::RetrieveArgs`) is followed through the root's `use` / `pub use`
to the module that defines the item; the root itself is not a node.

A reference from module S to module T counts at the level where the two part: with P their
longest common ancestor, it is an edge between the children of P that hold S and T. So the
top-level graph has one node per top-level module (a file inside `cv/` counts as `cv`), and each
directory module has a graph of its own children (`args::query -> args::serve`). A reference
between a module and one of its own ancestors or descendants (a parent re-exporting its child,
a child using `super::` items) is containment, not a dependency between peers, and is not an
edge.

Every elementary cycle of every graph is reported with the file and line of each reference that
makes its edges. `--allow CRATE:MOD1,MOD2` accepts the cycle made of exactly those modules of
package CRATE (nested ones written `args::serve`). Exit status: 0 without cycles, 1 with a cycle
that is not allowed or an `--allow` entry that matches no cycle any more (so a stale entry gets
removed), 2 on a usage error. Standard library only (Python 3.11+ for tomllib).
"""

from __future__ import annotations

import argparse
import re
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

IDENT = r"(?:r#)?[A-Za-z_][A-Za-z0-9_]*"
# Evidence lines printed per edge; the rest are counted.
MAX_EVIDENCE = 4
# Elementary cycles listed per strongly connected component.
MAX_CYCLES = 50


# ---------------------------------------------------------------------------------------------
# Source text: comments, strings and #[cfg(test)] items blanked, offsets and lines kept.


RAW_STRING = re.compile(r'b?r(#*)"')
CFG_TEST = re.compile(r"#\s*\[\s*cfg\s*\(\s*test\s*\)\s*\]")
NEXT_ATTR = re.compile(r"\s*#\s*\[")


def _blank(out: list[str], a: int, b: int) -> None:
    """Spaces over `out[a:b]`, newlines kept."""
    for k in range(a, min(b, len(out))):
        if out[k] != "\n":
            out[k] = " "


def strip_comments_and_strings(src: str) -> str:
    """`src` with every comment and string or char literal replaced by spaces (newlines
    kept), so that offsets and line numbers match the original."""
    out = list(src)
    n = len(src)
    i = 0

    while i < n:
        c = src[i]
        nxt = src[i + 1] if i + 1 < n else ""
        if c == "/" and nxt == "/":
            j = src.find("\n", i)
            j = n if j < 0 else j
            _blank(out, i, j)
            i = j
        elif c == "/" and nxt == "*":
            depth, j = 1, i + 2
            while j < n and depth:
                if src.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif src.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            _blank(out, i, j)
            i = j
        elif (m := RAW_STRING.match(src, i)) and not _ident_char_before(src, i):
            close = '"' + m.group(1)
            j = src.find(close, m.end())
            j = n if j < 0 else j + len(close)
            _blank(out, i, j)
            i = j
        elif c == '"' or (c == "b" and nxt == '"' and not _ident_char_before(src, i)):
            j = i + (2 if c == "b" else 1)
            while j < n and src[j] != '"':
                j += 2 if src[j] == "\\" else 1
            _blank(out, i, j + 1)
            i = j + 1
        elif c == "'":
            # A char literal ('x', '\n', '\u{1F600}'), or a lifetime / label ('a, 'static).
            if nxt == "\\":
                # The escaped character may itself be a quote: '\''.
                j = i + 3
                while j < n and src[j] != "'":
                    j += 1
                _blank(out, i, j + 1)
                i = j + 1
            elif i + 2 < n and src[i + 2] == "'":
                _blank(out, i, i + 3)
                i += 3
            else:
                i += 1
        else:
            i += 1
    return "".join(out)


def _ident_char_before(src: str, i: int) -> bool:
    return i > 0 and (src[i - 1].isalnum() or src[i - 1] == "_")


def _matching(text: str, i: int, open_c: str, close_c: str) -> int:
    """Offset just past the bracket closing the one at `i`."""
    depth = 0
    for j in range(i, len(text)):
        if text[j] == open_c:
            depth += 1
        elif text[j] == close_c:
            depth -= 1
            if depth == 0:
                return j + 1
    return len(text)


def blank_cfg_test(text: str) -> str:
    """`text` (already without comments and strings) with every `#[cfg(test)]` item blanked:
    the attribute, any attributes after it, and the item up to its `;` or its closing brace."""
    out = list(text)
    pos = 0
    while m := CFG_TEST.search(text, pos):
        j = m.end()
        while a := NEXT_ATTR.match(text, j):  # further attributes of the same item
            j = _matching(text, a.end() - 1, "[", "]")
        # The item: up to the first `;` or the end of the first `{...}` at depth 0.
        depth, end = 0, len(text)
        for k in range(j, len(text)):
            ch = text[k]
            if ch in "([":
                depth += 1
            elif ch in ")]":
                depth -= 1
            elif ch == ";" and depth == 0:
                end = k + 1
                break
            elif ch == "{" and depth == 0:
                end = _matching(text, k, "{", "}")
                break
        _blank(out, m.start(), end)
        pos = end
    return "".join(out)


def line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


# ---------------------------------------------------------------------------------------------
# The module tree.


@dataclass
class Module:
    """One module of a crate target: its path from the root (`()` for the root), its file and
    the file's cleaned text."""

    path: tuple[str, ...]
    file: Path
    source: str
    text: str
    children: dict[str, "Module"] = field(default_factory=dict)


MOD_DECL = re.compile(
    r"(?<![A-Za-z0-9_])(?:pub\s*(?:\([^)]*\))?\s*)?mod\s+(" + IDENT + r")\s*([;{])"
)
PATH_ATTR = re.compile(r'#\s*\[\s*path\s*=\s*"([^"]+)"\s*\]')


def load_module(path: tuple[str, ...], file: Path, warnings: list[str]) -> Module:
    source = file.read_text(encoding="utf-8", errors="replace")
    text = blank_cfg_test(strip_comments_and_strings(source))
    module = Module(path, file, source, text)
    # Directory holding the children: the file's own directory for lib.rs, main.rs, mod.rs and
    # the files of src/bin; else a directory named after the file.
    if file.name in ("lib.rs", "main.rs", "mod.rs") or not path:
        child_dir = file.parent
    else:
        child_dir = file.parent / file.stem
    for m in MOD_DECL.finditer(text):
        name = m.group(1).removeprefix("r#")
        if m.group(2) == "{":
            warnings.append(
                f"{file}:{line_of(text, m.start())}: inline module `{name}` is read as part "
                "of its parent"
            )
            continue
        # A #[path] attribute between the previous item and this declaration.
        start = max(text.rfind(ch, 0, m.start()) for ch in ";{}") + 1
        attr = PATH_ATTR.search(source, start, m.start())
        if attr:
            candidates = [file.parent / attr.group(1)]
        else:
            candidates = [child_dir / f"{name}.rs", child_dir / name / "mod.rs"]
        child_file = next((c for c in candidates if c.is_file()), None)
        if child_file is None:
            warnings.append(f"{file}:{line_of(text, m.start())}: no file for module `{name}`")
            continue
        module.children[name] = load_module(path + (name,), child_file, warnings)
    return module


def walk(module: Module):
    yield module
    for child in module.children.values():
        yield from walk(child)


# ---------------------------------------------------------------------------------------------
# References: use trees and inline paths.

USE_START = re.compile(r"(?<![A-Za-z0-9_])(?:pub\s*(?:\([^)]*\))?\s*)?use\s+(?=[A-Za-z_:{])")
TOKEN = re.compile(r"\s*(::|[{},*;]|" + IDENT + r")")


@dataclass
class Reference:
    """A path written in a module's file, at `offset` of its text."""

    segments: list[str]
    offset: int


def parse_use_tree(text: str, i: int) -> tuple[list[Reference], list[tuple[str, list[str]]], int]:
    """Parse the use tree starting at offset `i` (just after `use`). Returns its leaf paths,
    the names it binds (name, path), and the offset after the closing `;`."""
    tokens: list[tuple[str, int]] = []
    j = i
    while j < len(text):
        m = TOKEN.match(text, j)
        if not m:
            break
        tokens.append((m.group(1), m.start(1)))
        j = m.end()
        if m.group(1) == ";":
            break
    refs: list[Reference] = []
    binds: list[tuple[str, list[str]]] = []
    pos = 0

    def tree(prefix: list[str]) -> None:
        nonlocal pos
        segs = list(prefix)
        while pos < len(tokens):
            tok, off = tokens[pos]
            if tok == "{":
                pos += 1
                while pos < len(tokens) and tokens[pos][0] != "}":
                    tree(segs)
                    if pos < len(tokens) and tokens[pos][0] == ",":
                        pos += 1
                pos += 1
                return
            if tok == "*":
                pos += 1
                refs.append(Reference(segs, off))
                return
            if tok in (",", "}", ";"):
                return
            if tok == "::":
                pos += 1
                continue
            if tok == "as":
                pos += 1
                if pos < len(tokens):
                    alias = tokens[pos][0]
                    if binds:
                        # `x as _` binds no name.
                        name, path = binds.pop()
                        if alias != "_":
                            binds.append((alias, path))
                    pos += 1
                continue
            name = tok.removeprefix("r#")
            if name == "self" and prefix and segs == prefix:
                # `a::{self, b}`: the module `a` itself.
                refs.append(Reference(list(segs), off))
                binds.append((segs[-1], list(segs)))
            else:
                segs = segs + [name]
                # A leaf unless `::` follows.
                if pos + 1 < len(tokens) and tokens[pos + 1][0] == "::":
                    pos += 1
                    continue
                refs.append(Reference(segs, off))
                binds.append((name, segs))
            pos += 1

    tree([])
    return refs, binds, tokens[-1][1] + 1 if tokens else j


INLINE_HEAD = r"(?<![A-Za-z0-9_:$.])"
INLINE_TAIL = r"((?:\s*::\s*" + IDENT + r")+)"


def references(module: Module) -> tuple[list[Reference], dict[str, list[str]]]:
    """Every path of `module`'s file that may point into the crate, and the names its `use`
    declarations bind (for paths through the crate root)."""
    text = module.text
    refs: list[Reference] = []
    binds: dict[str, list[str]] = {}
    spans: list[tuple[int, int]] = []
    for m in USE_START.finditer(text):
        if text.startswith("::", m.end()):
            continue  # A global path: another crate.
        found, bound, end = parse_use_tree(text, m.end())
        refs.extend(found)
        for name, segs in bound:
            binds[name] = segs
        spans.append((m.start(), end))
    heads = ["crate", "super", "self"] + sorted(module.children)
    inline = re.compile(INLINE_HEAD + "(" + "|".join(map(re.escape, heads)) + ")" + INLINE_TAIL)
    for m in inline.finditer(text):
        if any(a <= m.start() < b for a, b in spans):
            continue
        tail = [s.strip().removeprefix("r#") for s in m.group(2).split("::") if s.strip()]
        refs.append(Reference([m.group(1)] + tail, m.start()))
    return refs, binds


def resolve(
    segments: list[str],
    module: Module,
    root: Module,
    root_binds: dict[str, list[str]],
    depth: int = 0,
) -> tuple[str, ...] | None:
    """The deepest module of the crate that `segments`, written in `module`, lands in; `None`
    for a path into another crate or into the root's own items."""
    if not segments or depth > 8:
        return None
    head, rest = segments[0], segments[1:]
    if head == "crate":
        base: tuple[str, ...] = ()
    elif head == "super":
        base = module.path[:-1]
        while rest and rest[0] == "super":
            base, rest = base[:-1], rest[1:]
    elif head == "self":
        base = module.path
    elif head in module.children:
        base, rest = module.path + (head,), rest
    else:
        return None
    node = root
    for part in base:
        node = node.children[part]
    used = 0
    while used < len(rest) and rest[used] in node.children:
        node = node.children[rest[used]]
        used += 1
    if node.path == () and used < len(rest):
        # An item of the crate root: follow the root's `use` to where it is defined.
        target = root_binds.get(rest[used])
        if target is None:
            return None
        return resolve(target + rest[used + 1 :], root, root, root_binds, depth + 1)
    return node.path or None


# ---------------------------------------------------------------------------------------------
# Graphs and cycles.


@dataclass
class Edge:
    evidence: list[tuple[Path, int, str]] = field(default_factory=list)


Graph = dict[str, dict[str, Edge]]


def crate_graphs(root: Module) -> dict[tuple[str, ...], Graph]:
    """One graph per module that has children (the root's is the top-level graph), keyed by
    that module's path. Nodes are named by their full path (`args::serve`)."""
    graphs: dict[tuple[str, ...], Graph] = {}
    _, root_binds = references(root)
    for module in walk(root):
        if not module.path:
            continue
        refs, _ = references(module)
        lines = module.source.splitlines()
        for ref in refs:
            target = resolve(ref.segments, module, root, root_binds)
            if target is None:
                continue
            s, t = module.path, target
            k = 0
            while k < min(len(s), len(t)) and s[k] == t[k]:
                k += 1
            if k == len(s) or k == len(t):
                continue  # The same module, or containment.
            parent = s[:k]
            a, b = "::".join(s[: k + 1]), "::".join(t[: k + 1])
            graph = graphs.setdefault(parent, {})
            graph.setdefault(a, {})
            edge = graph[a].setdefault(b, Edge())
            line = line_of(module.text, ref.offset)
            code = lines[line - 1].strip()
            if (module.file, line, code) not in edge.evidence:
                edge.evidence.append((module.file, line, code))
    return graphs


def sccs(graph: Graph) -> list[list[str]]:
    """Strongly connected components of more than one node (Tarjan), nodes sorted."""
    nodes = sorted(set(graph) | {b for out in graph.values() for b in out})
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = 0

    def visit(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, {})):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in nodes:
        if v not in index:
            visit(v)
    return sorted(out)


def elementary_cycles(graph: Graph, comp: list[str]) -> tuple[list[list[str]], bool]:
    """The elementary cycles inside one component, each starting at its smallest node, at most
    MAX_CYCLES of them (and whether some were left out)."""
    order = {v: i for i, v in enumerate(comp)}
    found: list[list[str]] = []
    for start in comp:
        path = [start]

        def dfs(v: str) -> bool:
            for w in sorted(graph.get(v, {})):
                if w == start:
                    found.append(list(path))
                    if len(found) >= MAX_CYCLES:
                        return False
                elif w in order and order[w] > order[start] and w not in path:
                    path.append(w)
                    if not dfs(w):
                        return False
                    path.pop()
            return True

        if not dfs(start):
            return found, True
    return found, False


# ---------------------------------------------------------------------------------------------
# The workspace.


def crate_targets(workspace: Path) -> list[tuple[str, Path]]:
    """(label, root file) of every library, main binary and src/bin binary of every member."""
    manifest = tomllib.loads((workspace / "Cargo.toml").read_text(encoding="utf-8"))
    members = manifest.get("workspace", {}).get("members", [])
    if not members and "package" in manifest:
        members = ["."]
    out = []
    for pattern in members:
        for member in sorted(workspace.glob(pattern)):
            cargo = member / "Cargo.toml"
            if not cargo.is_file():
                continue
            name = tomllib.loads(cargo.read_text(encoding="utf-8"))["package"]["name"]
            src = member / "src"
            if (src / "lib.rs").is_file():
                out.append((name, src / "lib.rs"))
            if (src / "main.rs").is_file():
                label = f"{name} (bin)" if (src / "lib.rs").is_file() else name
                out.append((label, src / "main.rs"))
            for b in sorted((src / "bin").glob("*.rs")) if (src / "bin").is_dir() else []:
                out.append((f"{name} (bin {b.stem})", b))
    return out


Allowed = dict[tuple[str, frozenset[str]], str]


def parse_allow(entries: list[str]) -> Allowed:
    """`--allow` entries by (package name, module set). Raises ValueError on a bad entry."""
    allowed = {}
    for e in entries:
        crate, sep, mods = e.partition(":")
        names = frozenset(m.strip() for m in mods.split(",") if m.strip())
        if not sep or not crate.strip() or len(names) < 2:
            raise ValueError(f"error: --allow {e!r}: expected CRATE:MOD1,MOD2[,...]")
        allowed[(crate.strip(), names)] = e
    return allowed


def report(label: str, graph: Graph, ws: Path, allowed: Allowed, used: set) -> tuple[int, int]:
    """Print every cycle of `graph` with its evidence; returns (failing, allowed) counts and
    adds the allow entries it matched to `used`."""
    failing = accepted = 0
    for comp in sccs(graph):
        cycles, truncated = elementary_cycles(graph, comp)
        for cycle in cycles:
            key = (label.split(" ")[0], frozenset(cycle))
            ok = key in allowed
            if ok:
                used.add(key)
                accepted += 1
            else:
                failing += 1
            tag = "allowed module cycle" if ok else "module cycle"
            print(f"{label}: {tag} {' -> '.join(cycle + [cycle[0]])}")
            for a, b in zip(cycle, cycle[1:] + cycle[:1]):
                ev = graph[a][b].evidence
                print(f"  {a} -> {b}")
                for file, line, code in ev[:MAX_EVIDENCE]:
                    print(f"    {file.relative_to(ws)}:{line}: {code}")
                if len(ev) > MAX_EVIDENCE:
                    print(f"    ... and {len(ev) - MAX_EVIDENCE} more")
        if truncated:
            print(f"{label}: ... more cycles among {', '.join(comp)}")
            failing += 1
    return failing, accepted


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    here = Path(__file__).resolve().parent.parent
    parser.add_argument("--workspace", type=Path, default=here, help="default: this repository")
    parser.add_argument(
        "--allow", action="append", default=[], metavar="CRATE:MOD1,MOD2",
        help="accept the cycle made of exactly these modules of package CRATE (repeatable)",
    )
    parser.add_argument("--edges", action="store_true", help="also print every edge")
    args = parser.parse_args(argv)
    try:
        allowed = parse_allow(args.allow)
    except ValueError as e:
        print(e, file=sys.stderr)
        return 2
    ws = args.workspace.resolve()
    targets = crate_targets(ws)
    if not targets:
        print(f"error: no crate found under {ws}", file=sys.stderr)
        return 2
    used: set[tuple[str, frozenset[str]]] = set()
    failing = allowed_count = 0
    for label, root_file in targets:
        warnings: list[str] = []
        root = load_module((), root_file, warnings)
        for w in warnings:
            print(f"warning: {w}", file=sys.stderr)
        graphs = crate_graphs(root)
        for parent in sorted(graphs):
            graph = graphs[parent]
            if args.edges:
                scope = "::".join(parent) or "top level"
                for a in sorted(graph):
                    print(f"{label} [{scope}]: {a} -> {', '.join(sorted(graph[a]))}")
            f, a = report(label, graph, ws, allowed, used)
            failing, allowed_count = failing + f, allowed_count + a
    stale = [entry for key, entry in allowed.items() if key not in used]
    for entry in stale:
        print(f"stale --allow {entry}: no such cycle any more; remove the entry")
    crates = len({label for label, _ in targets})
    if failing or stale:
        print(
            f"error: {failing} module cycle(s) not allowed and {len(stale)} stale --allow "
            f"entries, in {crates} crate targets"
        )
        return 1
    print(f"no module cycles in {crates} crate targets ({allowed_count} allowed)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
