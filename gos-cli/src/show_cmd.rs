//! `gos show ID`: one skill of a workspace with the provenance of each field, the skills that
//! look like copies of it, and its edges in and out with their evidence.

use crate::args::ShowArgs;
use anyhow::{Result, bail};
use gos_core::skill::Provenance;
use gos_core::{Field, SkillEdge, SkillNode, Workspace};
use serde::Serialize;

/// Another skill that looks like a copy: same SKILL.md bytes, or the same name.
#[derive(Debug, Serialize)]
struct NearDuplicate<'a> {
    id: &'a str,
    how: &'static str,
}

pub fn run(args: ShowArgs) -> Result<()> {
    let ws = crate::workspace_arg::open(&args.workspace)?;
    let nodes = &ws.manifest().nodes;
    let Some(i) = ws.index_of(&args.id) else {
        let like = suggestions(&ws, &args.id);
        if like.is_empty() {
            bail!(
                "no skill `{}` in {}, and no id close to it",
                args.id,
                args.workspace.display()
            );
        }
        bail!("no skill `{}`; did you mean: {}?", args.id, like.join(", "));
    };
    let node = &nodes[i];
    let dups: Vec<NearDuplicate<'_>> = nodes
        .iter()
        .filter(|n| n.id != node.id)
        .filter_map(|n| {
            if n.content_hash == node.content_hash {
                Some(NearDuplicate {
                    id: &n.id,
                    how: "same SKILL.md",
                })
            } else if n.name.eq_ignore_ascii_case(&node.name) {
                Some(NearDuplicate {
                    id: &n.id,
                    how: "same name",
                })
            } else {
                None
            }
        })
        .collect();
    let graph = ws.graph();
    let incoming: Vec<&SkillEdge> = graph.incoming(i).map(|(_, e)| e).collect();
    let outgoing: Vec<&SkillEdge> = graph.outgoing(i).map(|(_, e)| e).collect();
    if args.json {
        let v = serde_json::json!({
            "node": node,
            "near_duplicates": dups,
            "edges_in": incoming,
            "edges_out": outgoing,
        });
        println!("{v}");
        return Ok(());
    }
    print_node(node);
    println!("near-duplicates");
    if dups.is_empty() {
        println!("  none");
    }
    for d in &dups {
        println!("  {} ({})", d.id, d.how);
    }
    for (title, edges) in [("edges in", &incoming), ("edges out", &outgoing)] {
        println!("{title} ({})", edges.len());
        for e in edges.iter() {
            println!(
                "  {} -> {}  {} {} {:.2}  {}",
                e.source,
                e.target,
                e.edge_type.as_str(),
                e.provenance.as_str(),
                e.weight,
                e.evidence
            );
        }
    }
    Ok(())
}

/// Ids to suggest for an unknown `id`: the skills it names without their root label
/// (`x/ID`) or by their frontmatter name, then the close matches of the MCP `get_skill` tool
/// ([`gos_server::skills::close_matches`]: containment or Jaro-Winkler similarity); at most
/// 10, without repeats.
fn suggestions(ws: &Workspace, id: &str) -> Vec<String> {
    let suffix = format!("/{id}");
    let mut like: Vec<String> = ws
        .manifest()
        .nodes
        .iter()
        .filter(|n| n.id.ends_with(&suffix) || n.name.eq_ignore_ascii_case(id))
        .map(|n| n.id.clone())
        .take(10)
        .collect();
    for m in gos_server::skills::close_matches(ws, id) {
        if !like.contains(&m) {
            like.push(m);
        }
    }
    like.truncate(10);
    like
}

fn provenance(p: &Provenance) -> String {
    match p {
        Provenance::Parsed => "parsed".into(),
        Provenance::Inferred { model, .. } => format!("inferred by {model}"),
    }
}

fn text(label: &str, f: &Field<String>) {
    println!("{label:<13} [{}] {}", provenance(&f.provenance), f.value);
}

fn list(label: &str, f: &Field<Vec<String>>) {
    println!(
        "{label:<13} [{}] {}",
        provenance(&f.provenance),
        f.value.join(", ")
    );
}

fn print_node(n: &SkillNode) {
    println!("{:<13} {}", "id", n.id);
    println!("{:<13} {}", "name", n.name);
    println!("{:<13} {}", "source", n.source_path);
    text("description", &n.description);
    text("capability", &n.capability);
    list("inputs", &n.inputs);
    list("outputs", &n.outputs);
    list("domain tags", &n.domain_tags);
    list("tooling", &n.tooling);
    list("examples", &n.example_tasks);
    list("entrypoints", &n.entrypoints);
}
