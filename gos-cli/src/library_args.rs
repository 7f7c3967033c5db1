//! The library flags of `gos build` and `gos lint` ([`crate::args::LibraryArgs`]) and the
//! config file, mapped onto a [`LibrarySpec`].

use crate::args::LibraryArgs;
use crate::config::Config;
use anyhow::{Result, anyhow, bail};
use gos_build::LibrarySpec;
use gos_build::roots::{Root, agent_roots};

/// The library the flags and the config name. Roots in order: positional roots, `--root`
/// roots, the config's roots (only when no root was given on the command line), then the
/// standard agent folders (`--agent-roots` or `agent_roots = true`). Globs from the command
/// line and the config add up.
///
/// # Errors
/// No root at all, a bad `--root` label, or `--agent-roots` without a home directory.
pub fn spec(args: &LibraryArgs, config: &Config) -> Result<(LibrarySpec, Vec<Root>)> {
    let mut roots: Vec<Root> = args.roots.iter().map(Root::unlabelled).collect();
    for r in &args.labelled {
        if !r.contains('=') {
            bail!("--root takes LABEL=PATH, got `{r}`");
        }
        roots.push(Root::parse_spec(r).map_err(|e| anyhow!("--root {r}: {e}"))?);
    }
    if roots.is_empty() {
        for r in &config.roots {
            let mut root = Root::parse_spec(r).map_err(|e| anyhow!("config root {r}: {e}"))?;
            root.path = config.resolve(&root.path);
            if !r.contains('=') {
                root.label = None;
            }
            roots.push(root);
        }
    }
    let mut agents = Vec::new();
    if args.agent_roots || config.agent_roots {
        let home = std::env::var_os("HOME")
            .ok_or_else(|| anyhow!("--agent-roots needs HOME to be set"))?;
        agents = agent_roots(std::path::Path::new(&home), &std::env::current_dir()?);
        if agents.is_empty() && roots.is_empty() {
            bail!("--agent-roots: none of the standard skill folders exists (docs/libraries.md)");
        }
        roots.extend(agents.iter().cloned());
    }
    if roots.is_empty() {
        bail!(
            "no library root: give ROOT, --root LABEL=PATH, --agent-roots, or `roots` in gos.toml"
        );
    }
    let mut include = args.include.clone();
    include.extend(config.include.iter().cloned());
    let mut exclude = args.exclude.clone();
    exclude.extend(config.exclude.iter().cloned());
    Ok((LibrarySpec::new(roots, include, exclude), agents))
}
