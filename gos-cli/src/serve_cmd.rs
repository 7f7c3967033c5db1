//! `gos serve`: the HTTP service (JSON API, web page, MCP at /mcp) over one open workspace,
//! reloaded when it is rebuilt (gos_server::http, gos_server::reload).

use crate::args::ServeArgs;
use crate::mcp_cmd::{open_state, runtime};
use anyhow::{Context, Result, bail};
use gos_server::guard::BearerToken;
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

/// The bearer token from `--token-file`, else from `GOS_TOKEN`; `None` when neither is set.
/// The token itself is never printed.
fn token(args: &ServeArgs) -> Result<Option<BearerToken>> {
    if let Some(path) = &args.token_file {
        return BearerToken::from_file(path)
            .map(Some)
            .map_err(|e| anyhow::anyhow!("--token-file {e}"));
    }
    match std::env::var("GOS_TOKEN") {
        Ok(text) if !text.is_empty() => BearerToken::new(&text)
            .map(Some)
            .map_err(|e| anyhow::anyhow!("GOS_TOKEN: {e}")),
        _ => Ok(None),
    }
}

/// Run `gos serve`.
pub fn run(args: ServeArgs) -> Result<()> {
    let token = token(&args)?;
    if !args.addr.ip().is_loopback() && token.is_none() {
        bail!(
            "refusing to listen on {}, which is not a loopback address, without a bearer token: \
             give --token-file PATH or set GOS_TOKEN (at least {} bytes, e.g. `openssl rand -hex \
             32`), or listen on 127.0.0.1",
            args.addr,
            gos_server::guard::MIN_TOKEN_BYTES
        );
    }
    let (state, limits) = open_state(&args.served)?;
    let mut allowed_hosts = HttpConfig::default().allowed_hosts;
    if !args.addr.ip().is_unspecified() {
        allowed_hosts.push(args.addr.ip().to_string());
    }
    allowed_hosts.extend(args.allow_host.iter().cloned());
    let token_note = if token.is_some() {
        "; every request needs the bearer token"
    } else {
        ""
    };
    let config = HttpConfig {
        limits,
        max_body_bytes: args.max_body_bytes,
        request_timeout: Duration::from_secs(args.timeout_secs as u64),
        allowed_hosts,
        token,
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
            "gos serve: listening on http://{addr} ({} skills{token_note})",
            state.current().workspace().len()
        );
        let router = gos_server::http::router(state, config);
        gos_server::http::serve(listener, router, shutdown_signal()).await?;
        anyhow::Ok(())
    })
}
