#!/usr/bin/env python3
"""Tests of scripts/check-module-cycles.py on small synthetic workspaces written to a temporary
directory. Run: python3 -m unittest discover -s scripts -p 'test_*.py' (as .ci/run does)."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import sys
import tempfile
import textwrap
import unittest
from pathlib import Path

_SCRIPT = Path(__file__).resolve().parent / "check-module-cycles.py"
_spec = importlib.util.spec_from_file_location("check_module_cycles", _SCRIPT)
cmc = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = cmc  # dataclasses look their module up there
_spec.loader.exec_module(cmc)


class Workspace:
    """A temporary Cargo workspace; `crate(name, {path: text})` adds a member."""

    def __init__(self) -> None:
        self._dir = tempfile.TemporaryDirectory()
        self.root = Path(self._dir.name)
        self.members: list[str] = []

    def crate(self, name: str, files: dict[str, str]) -> None:
        self.members.append(name)
        base = self.root / name
        for rel, text in files.items():
            p = base / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
        (base / "Cargo.toml").write_text(f'[package]\nname = "{name}"\nversion = "0.1.0"\n')
        members = ", ".join(f'"{m}"' for m in self.members)
        (self.root / "Cargo.toml").write_text(f"[workspace]\nmembers = [{members}]\n")

    def check(self, *args: str) -> tuple[int, str]:
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            code = cmc.main(["--workspace", str(self.root), *args])
        return code, out.getvalue()

    def close(self) -> None:
        self._dir.cleanup()


class CheckModuleCycles(unittest.TestCase):
    def setUp(self) -> None:
        self.ws = Workspace()
        self.addCleanup(self.ws.close)

    def test_a_dag_passes(self) -> None:
        self.ws.crate(
            "k",
            {
                "src/lib.rs": "pub mod a;\npub mod b;\npub use a::A;\n",
                "src/a.rs": "use crate::b::B;\npub struct A(B);\n",
                "src/b.rs": "pub struct B;\n",
            },
        )
        code, out = self.ws.check()
        self.assertEqual(code, 0, out)
        self.assertIn("no module cycles", out)

    def test_two_modules_using_each_other_fail_with_files_and_lines(self) -> None:
        self.ws.crate(
            "k",
            {
                "src/lib.rs": "mod a;\nmod b;\n",
                "src/a.rs": "use crate::b::B;\npub struct A;\n",
                "src/b.rs": "pub struct B;\n\nfn f() -> crate::a::A {\n    crate::a::A\n}\n",
            },
        )
        code, out = self.ws.check()
        self.assertEqual(code, 1, out)
        self.assertIn("k: module cycle a -> b -> a", out)
        self.assertIn("src/a.rs:1: use crate::b::B;", out)
        self.assertIn("src/b.rs:3: fn f() -> crate::a::A {", out)
        self.assertIn("src/b.rs:4: crate::a::A", out)

    def test_a_longer_cycle_is_listed_in_order(self) -> None:
        self.ws.crate(
            "k",
            {
                "src/lib.rs": "mod a;\nmod b;\nmod c;\n",
                "src/a.rs": "use crate::b::B;\npub struct A;\n",
                "src/b.rs": "use crate::c::{C, D as E};\npub struct B;\n",
                "src/c.rs": "pub struct C;\npub struct D;\nfn f(_: super::a::A) {}\n",
            },
        )
        code, out = self.ws.check()
        self.assertEqual(code, 1, out)
        self.assertIn("module cycle a -> b -> c -> a", out)
        self.assertIn("src/c.rs:3: fn f(_: super::a::A) {}", out)

    def test_use_trees_with_braces_self_renames_and_globs_are_read(self) -> None:
        self.ws.crate(
            "k",
            {
                "src/lib.rs": "mod a;\nmod b;\n",
                "src/a.rs": "pub const Q: char = '\\'';\nuse crate::{\n    b::{self, B as C},\n};\n",
                "src/b.rs": "pub struct B;\nuse super::a::*;\n",
            },
        )
        code, out = self.ws.check()
        self.assertEqual(code, 1, out)
        self.assertIn("module cycle a -> b -> a", out)
        self.assertIn("src/a.rs:3: b::{self, B as C},", out)
        self.assertIn("src/b.rs:2: use super::a::*;", out)

    def test_pub_use_and_paths_through_the_crate_root_are_edges(self) -> None:
        # b names `crate::A`, which the root re-exports from a; a re-exports b's item.
        self.ws.crate(
            "k",
            {
                "src/lib.rs": "mod a;\nmod b;\npub use a::A;\n",
                "src/a.rs": "pub use crate::b::B;\npub struct A;\n",
                "src/b.rs": "pub struct B;\npub fn f(_: &crate::A) {}\n",
            },
        )
        code, out = self.ws.check()
        self.assertEqual(code, 1, out)
        self.assertIn("module cycle a -> b -> a", out)
        self.assertIn("src/b.rs:2: pub fn f(_: &crate::A) {}", out)

    def test_tests_comments_and_strings_are_not_edges(self) -> None:
        self.ws.crate(
            "k",
            {
                "src/lib.rs": "mod a;\nmod b;\n",
                "src/a.rs": "use crate::b::B;\npub struct A;\n",
                "src/b.rs": r'''
                    //! See [`crate::a::A`].
                    pub struct B;
                    /// Not [`crate::a::A`] either. /* crate::a::A */
                    pub const S: &str = "crate::a::A";
                    pub const R: &str = r#"a "quoted" crate::a::A"#;
                    pub const Q: char = '"';
                    pub fn f<'x>(s: &'x str) -> &'x str { s }
                    #[cfg(test)]
                    mod tests {
                        use crate::a::A;
                    }
                    #[cfg(test)]
                    #[allow(unused)]
                    fn helper() -> crate::a::A { crate::a::A }
                    #[cfg(test)]
                    use crate::a::A as _;
                ''',
            },
        )
        code, out = self.ws.check()
        self.assertEqual(code, 0, out)

    def test_cfg_test_module_files_are_not_read(self) -> None:
        self.ws.crate(
            "k",
            {
                "src/lib.rs": "mod a;\nmod b;\n",
                "src/a.rs": "use crate::b::B;\npub struct A;\n",
                "src/b.rs": '#[cfg(test)]\n#[path = "b_tests.rs"]\nmod tests;\npub struct B;\n',
                "src/b_tests.rs": "use crate::a::A;\n",
            },
        )
        code, out = self.ws.check()
        self.assertEqual(code, 0, out)

    def test_nested_modules_of_a_directory_have_their_own_graph(self) -> None:
        self.ws.crate(
            "k",
            {
                "src/lib.rs": "pub mod p;\n",
                # The parent re-exports a child, and the children use the parent's helper:
                # containment, not a cycle. x and y using each other is one.
                "src/p/mod.rs": "mod x;\nmod y;\npub use x::X;\nfn helper() {}\n",
                "src/p/x.rs": "use super::helper;\npub struct X(super::y::Y);\n",
                "src/p/y.rs": "pub struct Y;\nfn f() -> Option<super::x::X> { None }\n",
            },
        )
        code, out = self.ws.check()
        self.assertEqual(code, 1, out)
        self.assertIn("module cycle p::x -> p::y -> p::x", out)
        self.assertEqual(out.count("k: module cycle"), 1, out)

    def test_a_file_inside_a_directory_module_counts_for_it_at_the_top_level(self) -> None:
        self.ws.crate(
            "k",
            {
                "src/lib.rs": "mod cv;\nmod run;\n",
                "src/cv/mod.rs": "mod sweep;\npub use sweep::Param;\n",
                "src/cv/sweep.rs": "pub struct Param;\npub fn f() { crate::run::go() }\n",
                "src/run.rs": "use crate::cv::Param;\npub fn go() {}\n",
            },
        )
        code, out = self.ws.check()
        self.assertEqual(code, 1, out)
        self.assertIn("module cycle cv -> run -> cv", out)
        self.assertIn("src/cv/sweep.rs:2: pub fn f() { crate::run::go() }", out)

    def test_an_allowed_cycle_passes_and_a_stale_entry_fails(self) -> None:
        self.ws.crate(
            "k",
            {
                "src/lib.rs": "mod a;\nmod b;\n",
                "src/a.rs": "use crate::b::B;\npub struct A;\n",
                "src/b.rs": "use crate::a::A;\npub struct B;\n",
            },
        )
        code, out = self.ws.check("--allow", "k:b,a")
        self.assertEqual(code, 0, out)
        self.assertIn("k: allowed module cycle a -> b -> a", out)
        code, out = self.ws.check("--allow", "k:a,b", "--allow", "k:a,c")
        self.assertEqual(code, 1, out)
        self.assertIn("stale --allow k:a,c", out)

    def test_each_crate_of_the_workspace_is_checked_by_name(self) -> None:
        self.ws.crate("clean", {"src/lib.rs": "mod a;\n", "src/a.rs": "pub struct A;\n"})
        self.ws.crate(
            "tangled",
            {
                "src/main.rs": "mod a;\nmod b;\nfn main() {}\n",
                "src/a.rs": "pub fn f() { crate::b::g() }\n",
                "src/b.rs": "pub fn g() { crate::a::f() }\n",
            },
        )
        code, out = self.ws.check()
        self.assertEqual(code, 1, out)
        self.assertIn("tangled: module cycle a -> b -> a", out)
        self.assertNotIn("clean:", out)

    def test_a_malformed_allow_entry_is_a_usage_error(self) -> None:
        self.ws.crate("k", {"src/lib.rs": "\n"})
        code, _ = self.ws.check("--allow", "k-no-modules")
        self.assertEqual(code, 2)


if __name__ == "__main__":
    unittest.main()
