//! `gos mcp`: the MCP server on stdin/stdout over one open workspace (gos_server::mcp).

use crate::args::{McpArgs, ServedWorkspaceArgs};
use anyhow::{Context, Result};
use gos_server::{Limits, ServeConfig, ServerState};
use std::sync::Arc;

/// The served state and limits the flags ask for, opened (blocking).
pub fn open_state(served: &ServedWorkspaceArgs) -> Result<(Arc<ServerState>, Limits)> {
    let config = ServeConfig {
        workspace: served.workspace.clone(),
        model_dir: served.model_dir.clone(),
        lexical_only: served.lexical,
        precision: served.query_precision,
    };
    let state = ServerState::open(config)
        .map_err(|e| match crate::workspace_arg::explain_server_error(&e) {
            Some(message) => anyhow::anyhow!(message),
            None => e.into(),
        })
        .context("starting the server")?;
    let limits = Limits {
        max_query_chars: served.max_query_chars,
        max_skills: served.max_skills,
        ..Limits::default()
    };
    Ok((Arc::new(state), limits))
}

/// A multi-threaded tokio runtime for the servers.
pub fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")
}

/// The reloader of a served workspace (file watch and SIGHUP), unless `--no-watch`; it runs
/// until the returned handle is dropped. Call inside the runtime.
pub fn reloader(
    served: &ServedWorkspaceArgs,
    state: &Arc<ServerState>,
) -> Result<Option<gos_server::reload::Reloader>> {
    if served.no_watch {
        return Ok(None);
    }
    let r = gos_server::reload::spawn(state.clone(), gos_server::reload::DEFAULT_DEBOUNCE)?;
    Ok(Some(r))
}

/// Run `gos mcp`.
pub fn run(args: McpArgs) -> Result<()> {
    let (state, limits) = open_state(&args.served)?;
    let rt = runtime()?;
    rt.block_on(async {
        let _reloader = reloader(&args.served, &state)?;
        tracing::info!(
            workspace = %args.served.workspace.display(),
            "serving MCP on stdio"
        );
        gos_server::mcp::serve_stdio(state, limits).await?;
        anyhow::Ok(())
    })
}
