//! The MCP server: five read-only tools and one resource per skill, over the shared state.
//!
//! Tools (each with a JSON input schema from its request type, `readOnlyHint: true`, and
//! structured content):
//!
//! | tool | answer |
//! | --- | --- |
//! | `retrieve_skill_bundle` | the bundle document of `gos retrieve --json`; text content: the rendered context |
//! | `search_skills` | [`SearchResult`]: the ranked list without bodies |
//! | `get_skill` | [`crate::skills::SkillDocument`]: SKILL.md (size-capped) and file list |
//! | `skill_neighbors` | [`crate::skills::Neighborhood`]: prerequisites, dependents, related |
//! | `workspace_status` | [`crate::skills::WorkspaceStatus`] |
//!
//! A bad request (empty query, budget out of range, unknown id) is a tool result with
//! `isError: true` whose text says what was wrong (and, for an unknown id, the close matches),
//! never a protocol error. Resources: `skill://<id>/SKILL.md`, listed and readable.

use crate::error::RequestError;
use crate::request::{self, Limits, RetrieveRequest, SearchRequest, SearchResult};
use crate::skills::{self, Neighborhood, SkillDocument, WorkspaceStatus};
use crate::state::{Loaded, ServerState};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, ContentBlock, Implementation, ListResourcesResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ResourceContents, ServerCapabilities, ServerConfig,
};
use rmcp::schemars::{self, JsonSchema};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, Json, RoleServer, ServerHandler, tool, tool_handler, tool_router};
use serde::Deserialize;
use std::sync::Arc;

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

    /// Retrieve the skill bundle for a task.
    #[tool(
        description = "Retrieve the skills a task needs, prerequisites included: the bundle of \
                       `gos retrieve --json` (status SKILL_HIT or NO_SKILL_HIT, skills with id, \
                       name, source, score, reason, chars; rendered_context) as structured \
                       content, and the rendered context, ready to read, as text.",
        annotations(
            title = "Retrieve skill bundle",
            read_only_hint = true,
            open_world_hint = false
        )
    )]
    pub async fn retrieve_skill_bundle(
        &self,
        params: Parameters<RetrieveRequest>,
    ) -> Result<CallToolResult, ErrorData> {
        let limits = self.limits;
        let req = params.0;
        let out = on_state(&self.state, move |l| request::retrieve(l, &req, &limits))
            .await
            .and_then(|r| r);
        Ok(match out {
            Ok(bundle) => {
                let text = bundle["rendered_context"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string();
                let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
                result.structured_content = Some(bundle);
                result
            }
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
    ) -> Result<Json<SearchResult>, String> {
        let limits = self.limits;
        let req = params.0;
        on_state(&self.state, move |l| request::search(l, &req, &limits))
            .await
            .and_then(|r| r)
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
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let loaded = self.state.current();
        let resources = loaded
            .workspace()
            .manifest()
            .nodes
            .iter()
            .map(|n| {
                Resource::new(resource_uri(&n.id), n.id.clone())
                    .with_title(n.name.clone())
                    .with_description(n.description.value.clone())
                    .with_mime_type("text/markdown")
            })
            .collect();
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri;
        let Some(id) = resource_id(&uri).map(str::to_string) else {
            return Err(ErrorData::resource_not_found(
                format!("`{uri}` is not a gos resource; they read skill://<id>/SKILL.md"),
                None,
            ));
        };
        let limits = self.limits;
        let text = on_state(&self.state, move |l| skills::skill_md(l, &id, &limits))
            .await
            .and_then(|r| r)
            .map_err(|e| ErrorData::resource_not_found(e.message, None))?;
        Ok(ReadResourceResult::new(vec![ResourceContents::text(text, uri)]).into())
    }
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
}
