//! `gos serve`: the HTTP service (JSON API, web page, MCP at /mcp) over one open workspace,
//! reloaded when it is rebuilt (gos_server::http, gos_server::reload).

use crate::args::ServeArgs;
use crate::mcp_cmd::{open_state, runtime};
use anyhow::{Context, Result};
use gos_server::http::HttpConfig;
use std::time::Duration;

/// Resolves on Ctrl-C or SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = term => {}
    }
}

/// Run `gos serve`.
pub fn run(args: ServeArgs) -> Result<()> {
    let (state, limits) = open_state(&args.served)?;
    let mut mcp_allowed_hosts = HttpConfig::default().mcp_allowed_hosts;
    mcp_allowed_hosts.extend(args.allow_host.iter().cloned());
    let config = HttpConfig {
        limits,
        max_body_bytes: args.max_body_bytes,
        request_timeout: Duration::from_secs(args.timeout_secs as u64),
        mcp_allowed_hosts,
    };
    let rt = runtime()?;
    rt.block_on(async {
        let _reloader = crate::mcp_cmd::reloader(&args.served, &state)?;
        let listener = tokio::net::TcpListener::bind(args.addr)
            .await
            .with_context(|| format!("binding {}", args.addr))?;
        let addr = listener.local_addr().context("reading the bound address")?;
        if !addr.ip().is_loopback() {
            tracing::warn!("listening on {addr}, which is not a loopback address");
        }
        // The one line scripts wait for: the bound address, on stderr.
        eprintln!(
            "gos serve: listening on http://{addr} ({} skills)",
            state.current().workspace().len()
        );
        let router = gos_server::http::router(state, config);
        gos_server::http::serve(listener, router, shutdown_signal()).await?;
        anyhow::Ok(())
    })
}
