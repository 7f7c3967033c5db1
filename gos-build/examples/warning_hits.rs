//! How many packages of a library each content-warning rule flags, with a sample of hits to
//! read for false positives (the figures of docs/security.md).
//!
//! ```text
//! cargo run --release -p gos-build --example warning_hits -- LIBRARY [SAMPLES_PER_RULE]
//! ```
//!
//! Packages are parsed exactly as `gos build` parses them; the sample is every k-th hit of a
//! rule (k = hits / SAMPLES_PER_RULE, default 10), so it spreads over the library's
//! collections and is the same on every run.

use gos_build::package::{discover, parse_package};
use gos_build::warnings::{rule_ids, scan};
use std::collections::BTreeMap;
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let root = PathBuf::from(args.next().ok_or("usage: warning_hits LIBRARY [SAMPLES]")?);
    let samples: usize = args.next().map_or(Ok(10), |s| s.parse())?;
    let found = discover(&root)?;
    let mut parsed = 0;
    let mut flagged = 0;
    let mut hits: BTreeMap<&str, Vec<(String, usize, String)>> =
        rule_ids().map(|r| (r, Vec::new())).collect();
    for dir in &found.packages {
        let Ok(pkg) = parse_package(&root, dir) else {
            continue;
        };
        parsed += 1;
        let warnings = scan(&pkg.raw);
        flagged += usize::from(!warnings.is_empty());
        for w in warnings {
            if let Some(list) = hits.get_mut(w.rule.as_str()) {
                list.push((pkg.id.clone(), w.line, w.excerpt));
            }
        }
    }
    println!("{parsed} packages parsed, {flagged} flagged by at least one rule");
    for (rule, list) in &hits {
        println!(
            "\n## {rule}: {} packages ({:.2}%)",
            list.len(),
            100.0 * list.len() as f64 / parsed.max(1) as f64
        );
        let step = (list.len() / samples.max(1)).max(1);
        for (id, line, excerpt) in list.iter().step_by(step).take(samples) {
            println!("- {id}:{line}: {excerpt}");
        }
    }
    Ok(())
}
