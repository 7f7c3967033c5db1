//! `gos retrieve` with near-duplicate groups and the adaptive bundle size, through the binary:
//! the `alternates` of the JSON document, the text bundle's `Alternates:` line, and the
//! `--bundle-gap` / `--bundle-floor` cuts.

use crate::util::gos;
use serde_json::Value;
use std::path::Path;

const BODY: &str = "# PDF tables\n\nThis skill pulls tables out of PDF files and writes them \
as CSV. Open the document with pdfplumber, walk every page, and call extract_tables on each \
one; merge tables that continue across a page break by comparing their header rows. Scanned \
pages carry no text layer: run OCR first with tesseract and keep the confidence of every cell \
so that doubtful values can be checked by a person later. Write one CSV file per table, named \
after the page and the position of the table on it, and a short JSON index that lists each \
file with its page, its column names and its row count.\n";

fn skill(root: &Path, id: &str, name: &str, description: &str, body: &str) {
    let dir = root.join(id);
    std::fs::create_dir_all(&dir).unwrap();
    let text = format!("---\nname: {name}\ndescription: {description}\n---\n{body}");
    std::fs::write(dir.join("SKILL.md"), text).unwrap();
}

fn run(args: &[&str]) -> std::process::Output {
    let out = gos().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

#[test]
fn alternates_and_adaptive_size_reach_the_json_and_the_text() {
    let tmp = tempfile::tempdir().unwrap();
    let lib = tmp.path().join("lib");
    let pdf = "Extract tables from PDF documents into CSV files.";
    skill(&lib, "a/pdf-tables", "pdf-tables", pdf, BODY);
    skill(
        &lib,
        "b/pdf-tables",
        "pdf-tables",
        pdf,
        &BODY.replace("person", "reviewer"),
    );
    skill(
        &lib,
        "c/pdf-tables",
        "pdf-tables",
        pdf,
        &BODY.replace("tesseract", "ocrmypdf"),
    );
    let csv = "# CSV cleaning\n\nTrim the cells of CSV files, fix their header rows and drop \
               empty lines before loading them.\n";
    skill(
        &lib,
        "a/csv-cleaner",
        "csv-cleaner",
        "Clean CSV files.",
        csv,
    );
    for (id, topic) in [
        ("a/bread", "sourdough bread"),
        ("a/chess", "chess openings"),
    ] {
        let body = format!("# {topic}\n\nNotes on {topic} for beginners, with a checklist.\n");
        skill(&lib, id, id, &format!("Advice on {topic}."), &body);
    }
    let ws = tmp.path().join("ws");
    run(&[
        "build",
        lib.to_str().unwrap(),
        "-w",
        ws.to_str().unwrap(),
        "-q",
    ]);
    assert!(ws.join("duplicates.json").is_file());
    let w = ws.to_str().unwrap();
    let query = "extract the tables of a PDF report into CSV files";
    let json = |extra: &[&str]| -> Value {
        let mut args = vec!["retrieve", "-w", w, "--json"];
        args.extend_from_slice(extra);
        args.push(query);
        serde_json::from_slice(&run(&args).stdout).unwrap()
    };
    let ids = |v: &Value| -> Vec<String> {
        v["skills"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["id"].as_str().unwrap().to_string())
            .collect()
    };

    // The default keeps one copy (one slot per alternative group).
    let default = json(&[]);
    let kept = ids(&default)
        .iter()
        .filter(|i| i.ends_with("pdf-tables"))
        .count();
    assert_eq!(kept, 1, "{default}");

    // Collapse and cut off: every copy competes for a slot, none has alternates.
    let plain = json(&[
        "--set",
        "collapse_alternatives=false",
        "--bundle-gap",
        "0",
        "--bundle-floor",
        "0",
    ]);
    let copies = ids(&plain)
        .iter()
        .filter(|i| i.ends_with("pdf-tables"))
        .count();
    assert_eq!(copies, 3, "{plain}");
    for s in plain["skills"].as_array().unwrap() {
        assert_eq!(s["alternates"], Value::Array(vec![]), "{s}");
    }

    // Collapsed: one copy, the other two as its alternates (id and source).
    let collapsed = json(&[
        "--set",
        "collapse_alternatives=false",
        "--collapse-duplicates",
    ]);
    let kept: Vec<&Value> = collapsed["skills"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["id"].as_str().unwrap().ends_with("pdf-tables"))
        .collect();
    assert_eq!(kept.len(), 1, "{collapsed}");
    let alternates = kept[0]["alternates"].as_array().unwrap();
    assert_eq!(alternates.len(), 2);
    for a in alternates {
        let id = a["id"].as_str().unwrap();
        assert_ne!(id, kept[0]["id"].as_str().unwrap());
        assert_eq!(a["source"].as_str().unwrap(), format!("{id}/SKILL.md"));
    }
    let text = run(&["retrieve", "-w", w, "--collapse-duplicates", query]).stdout;
    let text = String::from_utf8(text).unwrap();
    let line = text
        .lines()
        .find(|l| l.starts_with("Alternates (copies of this skill, left out): "))
        .expect("an Alternates line");
    for a in alternates {
        assert!(line.contains(a["source"].as_str().unwrap()), "{line}");
    }

    // A gap of 0.99 keeps the three equal copies and drops the weaker CSV skill.
    let full = ids(&plain).len();
    assert!(
        ids(&plain).contains(&"a/csv-cleaner".to_string()),
        "{plain}"
    );
    let cut = ids(&json(&[
        "--set",
        "collapse_alternatives=false",
        "--bundle-floor",
        "0",
        "--bundle-gap",
        "0.99",
    ]));
    assert!(cut.len() < full, "{cut:?} vs {full}");
    assert!(cut.iter().all(|i| i.ends_with("pdf-tables")), "{cut:?}");
    let floor = ids(&json(&[
        "--set",
        "collapse_alternatives=false",
        "--bundle-floor",
        "1",
    ]));
    assert!(floor.len() <= cut.len() && !floor.is_empty());
    let bad = gos()
        .args(["retrieve", "-w", w, "--bundle-floor", "1.5", query])
        .output()
        .unwrap();
    assert!(!bad.status.success());
}
