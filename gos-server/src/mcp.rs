//! The MCP server: five read-only tools and one resource per skill, over the shared state.
//!
//! Tools (each with a JSON input schema from its request type and `readOnlyHint: true`; all
//! but `retrieve_skill_bundle` answer with structured content and an output schema):
//!
//! | tool | answer |
//! | --- | --- |
//! | `retrieve_skill_bundle` | text content only: the rendered context ([`BundleFormat::Text`]); with `format: "json"`, the bundle document of `gos retrieve --json` as structured content |
//! | `search_skills` | [`SearchResult`]: the ranked list without bodies |
//! | `get_skill` | [`crate::skills::SkillDocument`]: SKILL.md (size-capped) and file list |
//! | `skill_neighbors` | [`crate::skills::Neighborhood`]: prerequisites, dependents, related |
//! | `workspace_status` | [`crate::skills::WorkspaceStatus`] |
//!
//! A bad request (empty query, budget out of range, unknown id) is a tool result with
//! `isError: true` whose text says what was wrong (and, for an unknown id, the close matches),
//! never a protocol error.
//!
//! Resources and the Skills extension (SEP-2640, declared with `directoryRead`): every file of
//! a published skill is a resource `skill://<id>/<file>`; `skills/list`, `skills/get` and
//! `resources/directory/read` answer from [`crate::skills_ext`].

use crate::error::RequestError;
use crate::request::{self, Limits, RetrieveRequest, SearchRequest, SearchResult};
use crate::skills::{self, Neighborhood, SkillDocument, WorkspaceStatus};
use crate::skills_ext;
use crate::staged::{Control, Step};
use crate::state::{Loaded, ServerState};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CacheScope, CallToolResult, ContentBlock, GetSkillRequestParams, GetSkillResult,
    Implementation, ListResourcesResult, ListSkillsResult, PaginatedRequestParams,
    ProgressNotificationParam, ReadResourceDirectoryRequestParams, ReadResourceDirectoryResult,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, ServerCapabilities,
    ServerConfig,
};
use rmcp::schemars::{self, JsonSchema};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, Json, RoleServer, ServerHandler, tool, tool_handler, tool_router};
use serde::Deserialize;
use std::sync::Arc;

/// How `retrieve_skill_bundle` answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BundleFormat {
    /// The rendered context as the only text content, with no structured content: what an
    /// agent harness hands its model. Claude Code 2.1.332 and Codex 0.171.0 both replace the
    /// text with any `structuredContent` a result carries
    /// (integrations/harness-tests/BASELINE.md), so this answer carries none.
    Text,
    /// The bundle document of `gos retrieve --json` as structured content, and the same
    /// document serialized as text, for programs.
    Json,
}

impl std::str::FromStr for BundleFormat {
    type Err = RequestError;

    fn from_str(s: &str) -> Result<Self, RequestError> {
        match s {
            "text" => Ok(BundleFormat::Text),
            "json" => Ok(BundleFormat::Json),
            other => Err(RequestError::new(
                "unknown_format",
                format!("format `{other}` is unknown; use text (the default) or json"),
            )),
        }
    }
}

/// Input of `retrieve_skill_bundle`: the fields of [`RetrieveRequest`] (what `POST
/// /v1/retrieve` takes) and the answer's format.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BundleRequest {
    /// The task description.
    pub query: String,
    /// Most skills in the bundle (`gos retrieve --top-n`, default 8).
    #[serde(default)]
    pub max_skills: Option<u64>,
    /// Most characters of one skill block (`--max-chars-per-skill`, default 2,400).
    #[serde(default)]
    pub max_chars_per_skill: Option<u64>,
    /// Most characters of the whole rendered context (`--max-context-chars`, default
    /// 12,000).
    #[serde(default)]
    pub max_context_chars: Option<u64>,
    /// Graph operation: `reverse` (default), `forward`, `one-hop` or `no-graph`.
    #[serde(default)]
    pub mode: Option<String>,
    /// `text` (default): the rendered markdown bundle, to read. `json`: the machine document
    /// of `gos retrieve --json` (scores, seeds, timings, the context escaped inside
    /// `rendered_context`), for programs.
    #[serde(default)]
    pub format: Option<String>,
}

impl BundleRequest {
    /// The retrieval request and the answer format.
    ///
    /// # Errors
    /// `unknown_format` for a format other than `text` or `json`.
    pub fn split(self) -> Result<(RetrieveRequest, BundleFormat), RequestError> {
        let format = match self.format.as_deref() {
            None => BundleFormat::Text,
            Some(f) => f.parse()?,
        };
        let req = RetrieveRequest {
            query: self.query,
            max_skills: self.max_skills,
            max_chars_per_skill: self.max_chars_per_skill,
            max_context_chars: self.max_context_chars,
            mode: self.mode,
        };
        Ok((req, format))
    }
}

/// The tool result of a bundle in `format`: text only, or the document as structured
/// content plus its serialization as text.
pub fn bundle_result(bundle: serde_json::Value, format: BundleFormat) -> CallToolResult {
    match format {
        BundleFormat::Text => {
            let text = bundle["rendered_context"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            CallToolResult::success(vec![ContentBlock::text(text)])
        }
        BundleFormat::Json => {
            let text = bundle.to_string();
            let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
            result.structured_content = Some(bundle);
            result
        }
    }
}

/// Input of `get_skill` and `skill_neighbors`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
pub struct SkillIdRequest {
    /// Skill id: the package path relative to the library root, as bundles and searches
    /// list it.
    pub id: String,
}

/// The URI of a skill's SKILL.md resource.
pub fn resource_uri(id: &str) -> String {
    format!("skill://{id}/SKILL.md")
}

/// The skill id of a resource URI, when it has the `skill://<id>/SKILL.md` shape.
pub fn resource_id(uri: &str) -> Option<&str> {
    uri.strip_prefix("skill://")?.strip_suffix("/SKILL.md")
}

/// Run `f` on the current state off the async threads (retrieval is CPU work).
async fn on_state<T: Send + 'static>(
    state: &Arc<ServerState>,
    f: impl FnOnce(&Loaded) -> T + Send + 'static,
) -> Result<T, RequestError> {
    let loaded = state.current();
    tokio::task::spawn_blocking(move || f(&loaded))
        .await
        .map_err(|e| RequestError::new("internal", format!("the request's task failed: {e}")))
}

/// Run a staged retrieval ([`crate::staged`]) for the MCP request of `context`: a
/// `notifications/progress` at each stage when the request's `_meta` carries a
/// `progressToken` (progress = stages finished, `total` = the retrieval's stages, `message`
/// = the stage), and `notifications/cancelled` for the request cancels it: this call returns
/// at once (rmcp sends no answer to a cancelled request) and the retrieval skips the stages
/// it has not started.
///
/// # Errors
/// `f`'s errors; `cancelled` when the client cancelled; `internal` when the task failed.
async fn staged_call<T: Send + 'static>(
    state: &Arc<ServerState>,
    context: &RequestContext<RoleServer>,
    f: impl FnOnce(&Loaded, &Control) -> Result<T, RequestError> + Send + 'static,
) -> Result<T, RequestError> {
    let token = context.meta.get_progress_token();
    let (control, mut steps) = Control::with_progress();
    // The request future dropped (the session closed) stops the retrieval too.
    let _cancel = control.cancel_on_drop();
    let loaded = state.current();
    let worker = control.clone();
    let mut task = tokio::task::spawn_blocking(move || {
        let out = f(&loaded, &worker);
        if let Err(e) = &out
            && e.code == "cancelled"
        {
            tracing::info!("retrieval stopped: {}", e.message);
        }
        out
    });
    let notify = |step: Step| {
        let token = token.clone();
        let peer = context.peer.clone();
        async move {
            let Some(token) = token else { return };
            let mut p = ProgressNotificationParam::new(token, f64::from(step.done));
            p.total = Some(f64::from(step.total));
            p.message = Some(step.stage.message().to_string());
            if let Err(e) = peer.notify_progress(p).await {
                tracing::debug!("progress notification not sent: {e}");
            }
        }
    };
    loop {
        tokio::select! {
            biased;
            () = context.ct.cancelled() => {
                control.cancel();
                tracing::info!(id = %context.id, "request cancelled by the client");
                return Err(RequestError::new("cancelled", "the client cancelled the request"));
            }
            Some(step) = steps.recv() => notify(step).await,
            joined = &mut task => {
                while let Ok(step) = steps.try_recv() {
                    notify(step).await;
                }
                return joined.map_err(|e| {
                    RequestError::new("internal", format!("the request's task failed: {e}"))
                })?;
            }
        }
    }
}

fn tool_error(e: &RequestError) -> String {
    format!("{}: {}", e.code, e.message)
}

/// The MCP service over a [`ServerState`]. Cheap to clone: every session of the streamable
/// HTTP transport gets its own clone of the same state.
#[derive(Clone)]
pub struct GosMcp {
    state: Arc<ServerState>,
    limits: Limits,
    tool_router: ToolRouter<GosMcp>,
}

#[tool_router]
impl GosMcp {
    /// A service over `state` that enforces `limits`.
    pub fn new(state: Arc<ServerState>, limits: Limits) -> Self {
        GosMcp {
            state,
            limits,
            tool_router: Self::tool_router(),
        }
    }

    /// Retrieve the skill bundle for a task: the rendered context as text (the default), or
    /// the machine document with `format: "json"`.
    #[tool(
        description = "Retrieve the skills a task needs, prerequisites included, ready to read: \
                       a markdown bundle that starts with `# Skill bundle` and gives each skill's \
                       Source path, the reason it was chosen, and its SKILL.md excerpt (or says \
                       NO_SKILL_HIT). Pass format \"json\" for the machine document of `gos \
                       retrieve --json` (scores, seeds, timings) instead.",
        annotations(
            title = "Retrieve skill bundle",
            read_only_hint = true,
            open_world_hint = false
        )
    )]
    pub async fn retrieve_skill_bundle(
        &self,
        params: Parameters<BundleRequest>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let limits = self.limits;
        let (req, format) = match params.0.split() {
            Ok(split) => split,
            Err(e) => {
                return Ok(CallToolResult::error(vec![ContentBlock::text(tool_error(
                    &e,
                ))]));
            }
        };
        let out = staged_call(&self.state, &context, move |l, control| {
            request::retrieve(l, &req, &limits, control)
        })
        .await;
        Ok(match out {
            Ok(bundle) => bundle_result(bundle, format),
            Err(e) => CallToolResult::error(vec![ContentBlock::text(tool_error(&e))]),
        })
    }

    /// The ranked list of skills for a task, without bodies.
    #[tool(
        description = "Rank the library's skills for a task and list the best (id, name, \
                       description, score) without their bodies, for agents that choose \
                       themselves; then call get_skill.",
        annotations(
            title = "Search skills",
            read_only_hint = true,
            open_world_hint = false
        )
    )]
    pub async fn search_skills(
        &self,
        params: Parameters<SearchRequest>,
        context: RequestContext<RoleServer>,
    ) -> Result<Json<SearchResult>, String> {
        let limits = self.limits;
        let req = params.0;
        staged_call(&self.state, &context, move |l, control| {
            request::search(l, &req, &limits, control)
        })
        .await
        .map(Json)
        .map_err(|e| tool_error(&e))
    }

    /// One skill's SKILL.md and file list.
    #[tool(
        description = "One skill's SKILL.md text (size-capped) and the files of its package. \
                       An unknown id is an error that names close matches.",
        annotations(title = "Get skill", read_only_hint = true, open_world_hint = false)
    )]
    pub async fn get_skill(
        &self,
        params: Parameters<SkillIdRequest>,
    ) -> Result<Json<SkillDocument>, String> {
        let limits = self.limits;
        let id = params.0.id;
        on_state(&self.state, move |l| skills::get_skill(l, &id, &limits))
            .await
            .and_then(|r| r)
            .map(Json)
            .map_err(|e| tool_error(&e))
    }

    /// A skill's prerequisites and dependents in the skill graph.
    #[tool(
        description = "A skill's neighbourhood in the skill graph: prerequisites (what it \
                       needs first) and dependents (what needs it), plus related skills, each \
                       with edge type, provenance (io, mention, llm), weight and evidence.",
        annotations(
            title = "Skill neighbours",
            read_only_hint = true,
            open_world_hint = false
        )
    )]
    pub async fn skill_neighbors(
        &self,
        params: Parameters<SkillIdRequest>,
    ) -> Result<Json<Neighborhood>, String> {
        let id = params.0.id;
        on_state(&self.state, move |l| skills::neighbors(l, &id))
            .await
            .and_then(|r| r)
            .map(Json)
            .map_err(|e| tool_error(&e))
    }

    /// Counts, build time, models and format version of the served workspace.
    #[tool(
        description = "The served workspace: skill and edge counts, build time, vector and \
                       query-encoder models, format version, reload generation.",
        annotations(
            title = "Workspace status",
            read_only_hint = true,
            open_world_hint = false
        )
    )]
    pub async fn workspace_status(&self) -> Json<WorkspaceStatus> {
        Json(skills::status(&self.state))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for GosMcp {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .enable_skills_with_directory_read()
                .build(),
        )
        .with_server_info(Implementation::new("gos", env!("CARGO_PKG_VERSION")))
        .with_instructions(
            "gos retrieves the agent skills a task needs, prerequisites included. Call \
             retrieve_skill_bundle with the task description and read the skills it returns \
             (each has a Source path and a reason) before solving the task.",
        )
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let cursor = request.and_then(|r| r.cursor);
        on_ext(&self.state, move |l| {
            skills_ext::list_resources(l, cursor.as_deref())
        })
        .await
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri;
        let contents = on_ext(&self.state, move |l| skills_ext::read_file(l, &uri)).await?;
        Ok(ReadResourceResult::new(vec![contents]).into())
    }

    async fn list_skills(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, ErrorData> {
        // rmcp moves the request's `_meta` into the context; read both to be safe.
        let (meta, cursor) = request.map_or((None, None), |r| (r.meta, r.cursor));
        let meta = meta.map_or(context.meta.0, |m| m.0);
        let listing = skills_ext::ListingRequest::from_meta(Some(&meta))?;
        let start = match cursor.as_deref() {
            None => 0,
            Some(c) => c.parse().map_err(|_| {
                ErrorData::invalid_params(format!("cursor `{c}` is not one gos handed out"), None)
            })?,
        };
        on_ext(&self.state, move |l| {
            skills_ext::list_skills(l, &listing, start)
        })
        .await
    }

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, ErrorData> {
        let uri = request.uri;
        let skill = on_ext(&self.state, move |l| skills_ext::get_skill(l, &uri)).await?;
        Ok(GetSkillResult::new(skill)
            .with_ttl_ms(skills_ext::TTL_MS)
            .with_cache_scope(CacheScope::Public))
    }

    async fn read_resource_directory(
        &self,
        request: ReadResourceDirectoryRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceDirectoryResult, ErrorData> {
        let (uri, cursor) = (request.uri, request.cursor);
        on_ext(&self.state, move |l| {
            skills_ext::read_directory(l, &uri, cursor.as_deref())
        })
        .await
    }
}

/// Run a skills-extension answer on the current state off the async threads (it reads and
/// hashes files).
async fn on_ext<T: Send + 'static>(
    state: &Arc<ServerState>,
    f: impl FnOnce(&Loaded) -> Result<T, ErrorData> + Send + 'static,
) -> Result<T, ErrorData> {
    on_state(state, f)
        .await
        .map_err(|e| ErrorData::internal_error(e.message, None))?
}

/// Serve MCP on stdin/stdout until the client closes it. Logs must go to stderr.
///
/// # Errors
/// The transport's I/O errors.
pub async fn serve_stdio(
    state: Arc<ServerState>,
    limits: Limits,
) -> Result<(), crate::ServerError> {
    use rmcp::ServiceExt;
    let io_err = |what: &str, e: std::io::Error| crate::ServerError::Io {
        what: what.to_string(),
        source: e,
    };
    let service = GosMcp::new(state, limits)
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| {
            io_err(
                "starting MCP on stdio",
                std::io::Error::other(e.to_string()),
            )
        })?;
    service
        .waiting()
        .await
        .map_err(|e| io_err("serving MCP on stdio", std::io::Error::other(e.to_string())))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resource_uris_round_trip_ids_with_slashes() {
        let uri = resource_uri("geo/shapefile-reader");
        assert_eq!(uri, "skill://geo/shapefile-reader/SKILL.md");
        assert_eq!(resource_id(&uri), Some("geo/shapefile-reader"));
        assert_eq!(resource_id("file:///etc/passwd"), None);
        assert_eq!(resource_id("skill://geo/x/README.md"), None);
    }

    #[test]
    fn the_text_format_carries_the_context_and_no_structured_content() {
        let bundle =
            serde_json::json!({"status": "SKILL_HIT", "rendered_context": "# Skill bundle\nx"});
        let text = bundle_result(bundle.clone(), BundleFormat::Text);
        assert_eq!(text.structured_content, None);
        assert_eq!(text.content.len(), 1);
        assert_eq!(text.content[0].as_text().unwrap().text, "# Skill bundle\nx");
        let json = bundle_result(bundle.clone(), BundleFormat::Json);
        assert_eq!(json.structured_content, Some(bundle.clone()));
        let parsed: serde_json::Value =
            serde_json::from_str(&json.content[0].as_text().unwrap().text).unwrap();
        assert_eq!(parsed, bundle);
    }

    #[test]
    fn the_format_argument_is_text_json_or_an_error() {
        let req = |format: Option<&str>| BundleRequest {
            query: "q".into(),
            max_skills: Some(3),
            max_chars_per_skill: None,
            max_context_chars: None,
            mode: None,
            format: format.map(str::to_string),
        };
        let (r, f) = req(None).split().unwrap();
        assert_eq!((r.max_skills, f), (Some(3), BundleFormat::Text));
        assert_eq!(req(Some("json")).split().unwrap().1, BundleFormat::Json);
        assert_eq!(
            req(Some("yaml")).split().unwrap_err().code,
            "unknown_format"
        );
    }
}
