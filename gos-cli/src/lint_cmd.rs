//! `gos lint`: findings grouped by file, or one JSON object; exit status 0 clean, 1 findings
//! that count (errors, and warnings with `--strict`), 2 when lint could not run.

use crate::args::LintArgs;
use crate::config::Config;
use anyhow::Result;
use gos_build::lint::{LintReport, Severity, lint};
use std::process::ExitCode;

/// Exit status when lint could not run (bad root, bad glob, bad config).
const CANNOT_RUN: u8 = 2;

pub fn run(args: LintArgs) -> Result<ExitCode> {
    match check(&args) {
        Ok(code) => Ok(code),
        Err(e) => {
            eprintln!("error: {e:#}");
            Ok(ExitCode::from(CANNOT_RUN))
        }
    }
}

fn check(args: &LintArgs) -> Result<ExitCode> {
    let config = Config::load(args.library.config.as_deref(), None)?;
    let (spec, agents) = crate::library_args::spec(&args.library, &config)?;
    for a in &agents {
        eprintln!(
            "agent root {}: {}",
            a.label.as_deref().unwrap_or(""),
            a.path.display()
        );
    }
    let report = lint(&spec)?;
    if args.json {
        let value = serde_json::json!({
            "packages": report.packages,
            "errors": report.count(Severity::Error),
            "warnings": report.count(Severity::Warning),
            "by_rule": report.by_rule(),
            "diagnostics": report.diagnostics,
        });
        println!("{value}");
    } else {
        print_human(&report);
    }
    let failing = report.count(Severity::Error)
        + if args.strict {
            report.count(Severity::Warning)
        } else {
            0
        };
    Ok(if failing > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// Findings grouped by file (`file` then `  LINE: severity[rule] message`), then a summary.
fn print_human(report: &LintReport) {
    let mut current: Option<&str> = None;
    for d in &report.diagnostics {
        if current != Some(d.file.as_str()) {
            if current.is_some() {
                println!();
            }
            println!("{}", d.file);
            current = Some(d.file.as_str());
        }
        let line = d.line.map(|l| l.to_string()).unwrap_or_else(|| "-".into());
        println!(
            "  {line:>4}: {}[{}] {}",
            d.severity.as_str(),
            d.rule,
            d.message
        );
    }
    if current.is_some() {
        println!();
    }
    let rules: Vec<String> = report
        .by_rule()
        .iter()
        .map(|(r, n)| format!("{r} {n}"))
        .collect();
    let count =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    println!(
        "{}, {} with findings: {}, {}{}",
        count(report.packages, "package", "packages"),
        report.files_with_findings(),
        count(report.count(Severity::Error), "error", "errors"),
        count(report.count(Severity::Warning), "warning", "warnings"),
        if rules.is_empty() {
            String::new()
        } else {
            format!(" [{}]", rules.join(", "))
        }
    );
}
