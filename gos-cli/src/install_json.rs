//! In-place edits of a harness's JSON config for `gos install` and `gos uninstall`.
//!
//! The file is parsed into a concrete syntax tree (jsonc-parser's CST), which keeps every byte
//! the author wrote: key order, indentation, blank lines, and the comments and trailing commas
//! that JSONC configs (Gemini CLI, VS Code style) allow. Only gos's own entries are touched:
//! `mcpServers.gos`, and the hook entries whose command is `gos hook HARNESS ...`
//! ([`crate::install_cmd::is_gos_hook`]). A container gos leaves empty (`mcpServers`, an event
//! list, `hooks`) is removed only when gos's entry was the last thing in it.

use anyhow::{Result, anyhow};
use jsonc_parser::ParseOptions;
use jsonc_parser::cst::{CstInputValue, CstNode, CstObject, CstRootNode};
use serde_json::Value;
use std::path::Path;

/// A JSON config open for editing.
pub struct JsonConfig {
    root: CstRootNode,
}

/// `v` as a CST input value.
fn input(v: &Value) -> CstInputValue {
    match v {
        Value::Null => CstInputValue::Null,
        Value::Bool(b) => CstInputValue::Bool(*b),
        Value::Number(n) => CstInputValue::Number(n.to_string()),
        Value::String(s) => CstInputValue::String(s.clone()),
        Value::Array(a) => CstInputValue::Array(a.iter().map(input).collect()),
        Value::Object(o) => {
            CstInputValue::Object(o.iter().map(|(k, v)| (k.clone(), input(v))).collect())
        }
    }
}

/// The decoded string value of `node`, when it is a string literal.
fn string_of(node: Option<CstNode>) -> Option<String> {
    node?.as_string_lit()?.decoded_value().ok()
}

impl JsonConfig {
    /// Parse `text` (JSON, or JSONC with comments and trailing commas); a missing or blank file
    /// is an empty object.
    ///
    /// # Errors
    /// When the text does not parse or its top level is not an object, naming `path`.
    pub fn parse(path: &Path, text: Option<&str>) -> Result<Self> {
        let text = match text {
            Some(t) if !t.trim().is_empty() => t,
            _ => "{}\n",
        };
        let root = CstRootNode::parse(text, &ParseOptions::default()).map_err(|e| {
            anyhow!(
                "{} is not valid JSON ({e}); fix it (or move it away) and run gos again",
                path.display()
            )
        })?;
        if root.value().is_some() && root.object_value().is_none() {
            return Err(anyhow!(
                "{} is not a JSON object; fix it (or move it away) and run gos again",
                path.display()
            ));
        }
        Ok(JsonConfig { root })
    }

    fn top(&self) -> CstObject {
        self.root.object_value_or_set()
    }

    /// The edited text (exactly the original where nothing changed).
    pub fn text(&self) -> String {
        self.root.to_string()
    }

    /// Set `mcpServers.NAME` to `entry`, in place when it exists, else last.
    ///
    /// # Errors
    /// When `mcpServers` is not an object.
    pub fn set_server(&self, name: &str, entry: &Value) -> Result<()> {
        let servers = self
            .top()
            .object_value_or_create("mcpServers")
            .ok_or_else(|| anyhow!("`mcpServers` is not an object"))?;
        match servers.get(name) {
            Some(prop) => prop.set_value(input(entry)),
            None => {
                servers.append(name, input(entry));
            }
        }
        Ok(())
    }

    /// Remove `mcpServers.NAME`, and `mcpServers` when that leaves it empty.
    pub fn remove_server(&self, name: &str) {
        let top = self.top();
        let Some(servers) = top.object_value("mcpServers") else {
            return;
        };
        if let Some(prop) = servers.get(name) {
            prop.remove();
            if servers.properties().is_empty()
                && let Some(p) = top.get("mcpServers")
            {
                p.remove();
            }
        }
    }

    /// Remove from `hooks.EVENT` every hook whose command `is_ours`; a group, the event list
    /// and `hooks` go too when that leaves them empty.
    pub fn remove_hooks(&self, event: &str, is_ours: impl Fn(&str) -> bool) {
        let top = self.top();
        let Some(hooks) = top.object_value("hooks") else {
            return;
        };
        let Some(groups) = hooks.array_value(event) else {
            return;
        };
        let mut removed = false;
        for group in groups.elements() {
            let Some(list) = group.as_object().and_then(|g| g.array_value("hooks")) else {
                continue;
            };
            let mut left = 0;
            for hook in list.elements() {
                let command = hook
                    .as_object()
                    .and_then(|h| string_of(h.get("command")?.value()));
                if command.as_deref().is_some_and(&is_ours) {
                    hook.remove();
                    removed = true;
                } else {
                    left += 1;
                }
            }
            if left == 0 && removed {
                group.remove();
            }
        }
        if removed && groups.elements().is_empty() {
            if let Some(p) = hooks.get(event) {
                p.remove();
            }
            if hooks.properties().is_empty()
                && let Some(p) = top.get("hooks")
            {
                p.remove();
            }
        }
    }

    /// Append the group `group` to `hooks.EVENT` (created when missing).
    ///
    /// # Errors
    /// When `hooks` is not an object or `hooks.EVENT` not a list.
    pub fn append_hook_group(&self, event: &str, group: &Value) -> Result<()> {
        let hooks = self
            .top()
            .object_value_or_create("hooks")
            .ok_or_else(|| anyhow!("`hooks` is not an object"))?;
        let groups = hooks
            .array_value_or_create(event)
            .ok_or_else(|| anyhow!("`hooks.{event}` is not a list"))?;
        groups.append(input(group));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const THEIRS: &str = r#"{
    // my settings
    "theme": "dark",
    "mcpServers": {
        "zeta": { "command": "z" },
        "alpha": { "command": "a" },
    },
    "hooks": {
        "UserPromptSubmit": [
            { "hooks": [ { "type": "command", "command": "echo hi" } ] }
        ]
    },
    "autoUpdates": false
}
"#;

    impl JsonConfig {
        fn value(&self) -> Value {
            self.root.to_serde_value().unwrap()
        }
    }

    fn ours(c: &str) -> bool {
        c.contains(" hook claude")
    }

    #[test]
    fn an_install_and_uninstall_leave_every_other_byte_in_place() {
        let cfg = JsonConfig::parse(Path::new("f"), Some(THEIRS)).unwrap();
        cfg.set_server("gos", &json!({"command": "/bin/gos", "args": ["mcp"]}))
            .unwrap();
        cfg.append_hook_group(
            "UserPromptSubmit",
            &json!({"hooks": [{"type": "command", "command": "/bin/gos hook claude -w /ws"}]}),
        )
        .unwrap();
        let installed = cfg.text();
        let v = JsonConfig::parse(Path::new("f"), Some(&installed))
            .unwrap()
            .value();
        assert_eq!(v["mcpServers"]["gos"]["command"], "/bin/gos");
        assert_eq!(
            v["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"],
            "echo hi"
        );
        // The other entries keep their order: zeta before alpha, theme first.
        let zeta = installed.find("\"zeta\"").unwrap();
        assert!(zeta < installed.find("\"alpha\"").unwrap());
        assert!(installed.starts_with("{\n    // my settings\n    \"theme\": \"dark\","));

        let cfg = JsonConfig::parse(Path::new("f"), Some(&installed)).unwrap();
        cfg.remove_server("gos");
        cfg.remove_hooks("UserPromptSubmit", ours);
        assert_eq!(cfg.text(), THEIRS);
    }

    #[test]
    fn containers_gos_created_go_away_with_its_entries() {
        let cfg = JsonConfig::parse(Path::new("f"), None).unwrap();
        cfg.set_server("gos", &json!({"command": "/bin/gos"}))
            .unwrap();
        cfg.append_hook_group(
            "UserPromptSubmit",
            &json!({"hooks": [{"type": "command", "command": "/bin/gos hook claude"}]}),
        )
        .unwrap();
        let cfg = JsonConfig::parse(Path::new("f"), Some(&cfg.text())).unwrap();
        cfg.remove_server("gos");
        cfg.remove_hooks("UserPromptSubmit", ours);
        let v = JsonConfig::parse(Path::new("f"), Some(&cfg.text()))
            .unwrap()
            .value();
        assert_eq!(v, json!({}));
    }

    #[test]
    fn a_top_level_that_is_not_an_object_is_refused() {
        let e = JsonConfig::parse(Path::new("cfg.json"), Some("[1, 2]"))
            .err()
            .unwrap();
        assert!(
            e.to_string().starts_with("cfg.json is not a JSON object"),
            "{e}"
        );
        let e = JsonConfig::parse(Path::new("cfg.json"), Some("{\"a\": "))
            .err()
            .unwrap();
        assert!(
            e.to_string().starts_with("cfg.json is not valid JSON"),
            "{e}"
        );
    }
}
