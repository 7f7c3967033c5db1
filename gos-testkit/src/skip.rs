//! Visible skips: a test whose resource is missing says so on the terminal, and fails instead
//! where CI requires the resource.
//!
//! libtest has no run-time "skipped" outcome: `#[ignore]` is decided at compile time, and what
//! a passing test prints through `println!`/`eprintln!` is captured and thrown away. [`skip`]
//! writes straight to the process's stderr (which libtest does not capture), so the line
//! `SKIPPED: <test>: <reason>` shows in `cargo test` output between the test results, while a
//! test whose resource is present runs in a plain `cargo test`.

use std::io::Write;

/// A resource some tests need, with the variable that makes its absence a failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resource {
    /// The all-MiniLM-L6-v2 sentence encoder (`scripts/setup-model.sh`); `GOS_REQUIRE_MODEL`.
    Model,
    /// The Python MCP SDK in its venv (`scripts/setup-mcp-venv.sh`); `GOS_REQUIRE_MCP`.
    Mcp,
    /// chromium and chromedriver (`scripts/setup-chromium.sh`); `GOS_REQUIRE_BROWSER`.
    Browser,
    /// The real data in `../shared/data`; `GOS_REQUIRE_DATA`.
    SharedData,
    /// `python3` on `PATH`; `GOS_REQUIRE_PYTHON`.
    Python,
    /// graphviz's `dot` on `PATH` (`.ci/run` installs it); `GOS_REQUIRE_DOT`.
    Graphviz,
}

impl Resource {
    /// The environment variable that, set to `1`, turns a skip for this resource into a
    /// failure (`.ci/run` sets all but `GOS_REQUIRE_DATA`).
    pub fn require_var(self) -> &'static str {
        match self {
            Resource::Model => "GOS_REQUIRE_MODEL",
            Resource::Mcp => "GOS_REQUIRE_MCP",
            Resource::Browser => "GOS_REQUIRE_BROWSER",
            Resource::SharedData => "GOS_REQUIRE_DATA",
            Resource::Python => "GOS_REQUIRE_PYTHON",
            Resource::Graphviz => "GOS_REQUIRE_DOT",
        }
    }

    /// Whether this resource's absence must fail the test (its variable is `1`).
    pub fn required(self) -> bool {
        std::env::var(self.require_var()).as_deref() == Ok("1")
    }
}

/// Report that the current test skips because `resource` is missing (`reason` says what is
/// missing and how to get it): panics (the test fails) when the resource is required,
/// otherwise writes `SKIPPED: <test>: <reason>` to the uncaptured stderr and returns, and the
/// caller returns from the test.
///
/// The test's name is its thread's name (libtest names each test's thread after the test).
pub fn skip(resource: Resource, reason: &str) {
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("<unnamed test>");
    assert!(
        !resource.required(),
        "{test}: {reason} ({}=1 requires it)",
        resource.require_var()
    );
    let line = format!("SKIPPED: {test}: {reason}\n");
    // Straight to fd 2: `eprintln!` would be captured by libtest and dropped on success.
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_resource_has_its_own_require_variable() {
        let vars = [
            Resource::Model,
            Resource::Mcp,
            Resource::Browser,
            Resource::SharedData,
            Resource::Python,
            Resource::Graphviz,
        ]
        .map(Resource::require_var);
        assert_eq!(
            vars,
            [
                "GOS_REQUIRE_MODEL",
                "GOS_REQUIRE_MCP",
                "GOS_REQUIRE_BROWSER",
                "GOS_REQUIRE_DATA",
                "GOS_REQUIRE_PYTHON",
                "GOS_REQUIRE_DOT"
            ]
        );
    }
}
