//! `gos stats`.

use crate::StatsArgs;
use anyhow::Result;
use gos_core::EdgeType;
use serde_json::json;
use std::collections::BTreeMap;

pub fn run(args: StatsArgs) -> Result<()> {
    let ws = crate::workspace_arg::open(&args.workspace)?;
    let g = ws.graph();
    let mut by_type: BTreeMap<&str, usize> =
        EdgeType::ALL.iter().map(|t| (t.as_str(), 0)).collect();
    let mut by_prov: BTreeMap<&str, usize> = BTreeMap::new();
    for e in g.edges() {
        *by_type.entry(e.edge_type.as_str()).or_insert(0) += 1;
        *by_prov.entry(e.provenance.as_str()).or_insert(0) += 1;
    }
    let degrees: Vec<usize> = (0..g.node_count()).map(|i| g.degree(i)).collect();
    let max = degrees.iter().copied().max().unwrap_or(0);
    let mean = if degrees.is_empty() {
        0.0
    } else {
        degrees.iter().sum::<usize>() as f64 / degrees.len() as f64
    };
    let mut hist: BTreeMap<String, usize> = BTreeMap::new();
    for d in &degrees {
        let bucket = match d {
            0 => "0",
            1 => "1",
            2..=3 => "2-3",
            4..=7 => "4-7",
            _ => "8+",
        };
        *hist.entry(bucket.to_string()).or_insert(0) += 1;
    }
    // Per type: degree (in + out, counting only that type's edges) and nodes without one.
    let per_type: BTreeMap<&str, serde_json::Value> = EdgeType::ALL
        .iter()
        .map(|&t| {
            let d: Vec<usize> = (0..g.node_count())
                .map(|i| g.degree_of_type(i, t))
                .collect();
            let mean = if d.is_empty() {
                0.0
            } else {
                d.iter().sum::<usize>() as f64 / d.len() as f64
            };
            let with = d.iter().filter(|&&x| x > 0).count();
            (
                t.as_str(),
                json!({
                    "edges": by_type[t.as_str()],
                    "isolated": d.len() - with,
                    "degree": { "mean": mean, "max": d.iter().copied().max().unwrap_or(0) },
                }),
            )
        })
        .collect();
    let stats = json!({
        "workspace": args.workspace.display().to_string(),
        "library_root": ws.info().library_root,
        "nodes": g.node_count(),
        "edges": g.edge_count(),
        "edges_by_type": by_type,
        "edges_by_provenance": by_prov,
        "isolated": g.isolated_count(),
        "degree": { "mean": mean, "max": max, "histogram": hist },
        "by_type": per_type,
    });
    if args.json {
        println!("{stats}");
        return Ok(());
    }
    println!("workspace   {}", args.workspace.display());
    println!("library     {}", ws.info().library_root);
    println!("nodes       {}", g.node_count());
    println!("edges       {}", g.edge_count());
    for (t, c) in &by_type {
        println!("{}", count_row(t, *c));
    }
    for (p, c) in &by_prov {
        println!("{}", count_row(&format!("via {p}"), *c));
    }
    println!("isolated    {} (no edge of any type)", g.isolated_count());
    println!("degree      mean {mean:.2}, max {max} (edges at a skill, in and out)");
    for (b, c) in &hist {
        println!("  deg {b:<6}{c}");
    }
    println!("per type    edges  isolated  mean deg  max deg");
    for (t, v) in &per_type {
        println!(
            "  {t:<11} {:>5}  {:>8}  {:>8.2}  {:>7}",
            v["edges"].as_u64().unwrap_or(0),
            v["isolated"].as_u64().unwrap_or(0),
            v["degree"]["mean"].as_f64().unwrap_or(0.0),
            v["degree"]["max"].as_u64().unwrap_or(0)
        );
    }
    println!(
        "(per type: isolated = skills with no edge of that type; a degree counts each edge at both ends)"
    );
    Ok(())
}

/// One indented `label count` line, the counts in a column; a label as wide as the column
/// (`via declared`) still gets a space before its count.
fn count_row(label: &str, count: usize) -> String {
    format!("  {label:<11} {count}")
}

#[cfg(test)]
mod tests {
    use super::count_row;

    #[test]
    fn counts_line_up_and_never_touch_their_label() {
        assert_eq!(count_row("alternative", 0), "  alternative 0");
        assert_eq!(count_row("via io", 1259), "  via io      1259");
        assert_eq!(count_row("via declared", 19), "  via declared 19");
    }
}
