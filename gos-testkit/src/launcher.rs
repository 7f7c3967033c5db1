//! The `gos` binary under test.

use std::ffi::OsStr;
use std::process::Command;

/// A [`Command`] for the `gos` binary at `exe` with every `GOS_*` variable of the test's
/// environment removed (workspace, model, reranker, LLM settings, log level), so a developer's
/// shell cannot change what a test sees; a test sets what it needs with [`Command::env`] or a
/// flag.
pub fn gos_command(exe: impl AsRef<OsStr>) -> Command {
    let mut c = Command::new(exe);
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("GOS_") {
            c.env_remove(name);
        }
    }
    c
}

/// The `gos` binary of the crate under test (`env!("CARGO_BIN_EXE_gos")`, so only gos-cli's
/// integration tests can expand it) through [`gos_command`].
#[macro_export]
macro_rules! gos {
    () => {
        $crate::launcher::gos_command(env!("CARGO_BIN_EXE_gos"))
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_inherits_no_gos_variable() {
        // Reads the environment only: the command's own removals are listed by get_envs.
        let c = gos_command("gos");
        for (name, value) in c.get_envs() {
            assert!(value.is_none(), "{name:?} is set, not removed");
        }
        let inherited = std::env::vars_os()
            .filter(|(n, _)| n.to_string_lossy().starts_with("GOS_"))
            .count();
        assert_eq!(c.get_envs().count(), inherited);
    }
}
