//! `gos export`: the skill graph of a workspace, whole or the neighbourhood of some skills, as
//! Graphviz DOT, GraphML or JSON.

use crate::args::{ExportArgs, ExportFormat};
use anyhow::{Context, Result, bail};
use gos_core::{SkillEdge, SkillGraph};
use std::collections::BTreeSet;
use std::fmt::Write as _;

pub fn run(args: ExportArgs) -> Result<()> {
    let ws = crate::workspace_arg::open(&args.workspace)?;
    let graph = ws.graph();
    let keep = select(graph, &args.ids, args.depth)?;
    let nodes: Vec<(&str, &str)> = keep
        .iter()
        .map(|&i| (graph.id_of(i), ws.manifest().nodes[i].name.as_str()))
        .collect();
    let mut edges: Vec<&SkillEdge> = graph
        .indexed_edges()
        .filter(|(s, t, _)| keep.contains(s) && keep.contains(t))
        .map(|(_, _, e)| e)
        .collect();
    edges.sort_by(|a, b| {
        (&a.source, &a.target, a.edge_type, a.provenance).cmp(&(
            &b.source,
            &b.target,
            b.edge_type,
            b.provenance,
        ))
    });
    let text = match args.format {
        ExportFormat::Dot => dot(&nodes, &edges),
        ExportFormat::Graphml => graphml(&nodes, &edges),
        ExportFormat::Json => {
            let v = serde_json::json!({
                "nodes": nodes.iter().map(|(id, name)| serde_json::json!({"id": id, "name": name})).collect::<Vec<_>>(),
                "edges": edges,
            });
            format!("{}\n", serde_json::to_string_pretty(&v)?)
        }
    };
    match &args.output {
        Some(p) => std::fs::write(p, text).with_context(|| format!("writing {}", p.display()))?,
        None => print!("{text}"),
    }
    Ok(())
}

/// Node indices kept: all when `ids` is empty, else those within `depth` hops of `ids`
/// (edges followed in both directions).
fn select(graph: &SkillGraph, ids: &[String], depth: usize) -> Result<BTreeSet<usize>> {
    if ids.is_empty() {
        return Ok((0..graph.node_count()).collect());
    }
    let mut keep = BTreeSet::new();
    for id in ids {
        match graph.index_of(id) {
            Some(i) => keep.insert(i),
            None => bail!("no skill `{id}` in the workspace"),
        };
    }
    let mut frontier: Vec<usize> = keep.iter().copied().collect();
    for _ in 0..depth {
        let mut next = Vec::new();
        for &i in &frontier {
            let around = graph
                .incoming(i)
                .map(|(j, _)| j)
                .chain(graph.outgoing(i).map(|(j, _)| j));
            for j in around {
                if keep.insert(j) {
                    next.push(j);
                }
            }
        }
        frontier = next;
    }
    Ok(keep)
}

/// A DOT string literal.
fn dot_str(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Graphviz DOT: boxes labelled with names; edges labelled `type (provenance)`, declared edges
/// bold, symmetric types dashed; the weight in the `gos_weight` attribute.
fn dot(nodes: &[(&str, &str)], edges: &[&SkillEdge]) -> String {
    let mut s = String::from("digraph gos {\n  node [shape=box];\n");
    for (id, name) in nodes {
        let _ = writeln!(s, "  {} [label={}];", dot_str(id), dot_str(name));
    }
    for e in edges {
        let style = match (e.provenance.as_str(), e.edge_type.as_str()) {
            ("declared", _) => "bold",
            (_, "semantic" | "alternative") => "dashed",
            _ => "solid",
        };
        let _ = writeln!(
            s,
            "  {} -> {} [label={}, style={style}, gos_weight={}, tooltip={}];",
            dot_str(&e.source),
            dot_str(&e.target),
            dot_str(&format!(
                "{} ({})",
                e.edge_type.as_str(),
                e.provenance.as_str()
            )),
            dot_str(&e.weight.to_string()),
            dot_str(&e.evidence),
        );
    }
    s.push_str("}\n");
    s
}

/// XML text with the five entities escaped and characters XML 1.0 forbids dropped.
fn xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {}
            c => out.push(c),
        }
    }
    out
}

/// GraphML: node `name`; edge `type`, `provenance`, `weight`, `evidence`.
fn graphml(nodes: &[(&str, &str)], edges: &[&SkillEdge]) -> String {
    let mut s = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n\
         \x20 <key id=\"name\" for=\"node\" attr.name=\"name\" attr.type=\"string\"/>\n\
         \x20 <key id=\"type\" for=\"edge\" attr.name=\"type\" attr.type=\"string\"/>\n\
         \x20 <key id=\"provenance\" for=\"edge\" attr.name=\"provenance\" attr.type=\"string\"/>\n\
         \x20 <key id=\"weight\" for=\"edge\" attr.name=\"weight\" attr.type=\"double\"/>\n\
         \x20 <key id=\"evidence\" for=\"edge\" attr.name=\"evidence\" attr.type=\"string\"/>\n\
         \x20 <graph id=\"gos\" edgedefault=\"directed\">\n",
    );
    for (id, name) in nodes {
        let _ = writeln!(
            s,
            "    <node id=\"{}\"><data key=\"name\">{}</data></node>",
            xml(id),
            xml(name)
        );
    }
    for (k, e) in edges.iter().enumerate() {
        let _ = writeln!(
            s,
            "    <edge id=\"e{k}\" source=\"{}\" target=\"{}\"><data key=\"type\">{}</data><data key=\"provenance\">{}</data><data key=\"weight\">{}</data><data key=\"evidence\">{}</data></edge>",
            xml(&e.source),
            xml(&e.target),
            e.edge_type.as_str(),
            e.provenance.as_str(),
            e.weight,
            xml(&e.evidence)
        );
    }
    s.push_str("  </graph>\n</graphml>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_are_right() {
        assert_eq!(dot_str("a\"b\\c"), "\"a\\\"b\\\\c\"");
        assert_eq!(xml("<a & 'b'>\u{1}"), "&lt;a &amp; &apos;b&apos;&gt;");
    }
}
