//! Near-duplicate groups end to end: the build writes `duplicates.json` for lightly edited
//! copies of one skill, the workspace loads it, and a bundle holds one copy with the others
//! as alternates (JSON fields and the rendered `Alternates:` line).

use gos_build::build::NoProgress;
use gos_build::relate::RelateOptions;
use gos_build::{BuildOptions, build_workspace};
use gos_core::workspace::duplicates::{DUPLICATES_FILE, DuplicateGroups};
use gos_core::{RetrieveOptions, Retriever, Workspace};
use std::path::Path;
use std::sync::Arc;

const PDF_BODY: &str = "# PDF tables\n\nThis skill pulls tables out of PDF files and writes \
them as CSV. Open the document with pdfplumber, walk every page, and call extract_tables on \
each one; merge tables that continue across a page break by comparing their header rows. \
Numbers keep their thousands separators until the last step, where they are parsed with the \
locale of the document. Scanned pages carry no text layer: run OCR first with tesseract and \
keep the confidence of every cell so that doubtful values can be checked by a person later. \
Write one CSV file per table, named after the page and the position of the table on it, and \
a short JSON index that lists each file with its page, its column names and its row count. \
When a table has merged cells, repeat the value in every cell it covers so that the CSV \
stays rectangular and loads cleanly into pandas or a spreadsheet without manual repair.\n";

fn write_skill(root: &Path, id: &str, name: &str, body: &str) {
    let dir = root.join(id);
    std::fs::create_dir_all(&dir).unwrap();
    let text = format!(
        "---\nname: {name}\ndescription: Extract tables from PDF documents into CSV files.\n---\n{body}"
    );
    std::fs::write(dir.join("SKILL.md"), text).unwrap();
}

/// A library with three copies of one PDF skill (two lightly edited), a distinct skill, and
/// two identical bodies too short to judge.
fn library(root: &Path) {
    write_skill(root, "alpha/pdf-tables", "pdf-tables", PDF_BODY);
    let edited = PDF_BODY
        .replace("pdfplumber", "camelot")
        .replace("person", "reviewer");
    write_skill(root, "beta/pdf-tables", "pdf-tables", &edited);
    let edited = PDF_BODY.replace("tesseract", "ocrmypdf");
    write_skill(
        root,
        "gamma/pdf-table-extractor",
        "pdf-table-extractor",
        &edited,
    );
    write_skill(
        root,
        "alpha/chart-maker",
        "chart-maker",
        "# Charts\n\nDraw a bar chart of a CSV column with matplotlib, label both axes, save \
         it as PNG at 150 dpi and describe the trend it shows in one sentence below it. Use \
         a colour-blind safe palette and start the value axis at zero unless told otherwise.\n",
    );
    write_skill(root, "alpha/tiny", "tiny", "# Tiny\n\nSay hello.\n");
    write_skill(root, "beta/tiny", "tiny", "# Tiny\n\nSay hello.\n");
}

fn build(library: &Path, workspace: &Path) {
    let opts = BuildOptions {
        force: false,
        library: library.to_path_buf(),
        workspace: workspace.to_path_buf(),
        relate: RelateOptions::default(),
        embed: None,
    };
    build_workspace(&opts, &NoProgress).expect("build succeeds");
}

const QUERY: &str = "Extract every table from the quarterly PDF report into CSV files";

#[test]
fn copies_are_grouped_and_a_bundle_holds_one_of_them() {
    let tmp = tempfile::tempdir().unwrap();
    let lib = tmp.path().join("lib");
    library(&lib);
    let ws_dir = tmp.path().join("ws");
    build(&lib, &ws_dir);
    let text = std::fs::read_to_string(ws_dir.join(DUPLICATES_FILE)).unwrap();
    let stored: DuplicateGroups = serde_json::from_str(&text).unwrap();
    assert_eq!(
        stored.groups,
        vec![vec![
            "alpha/pdf-tables".to_string(),
            "beta/pdf-tables".into(),
            "gamma/pdf-table-extractor".into()
        ]]
    );
    assert_eq!(stored.threshold, 0.7);
    // Byte-identical on a rebuild.
    let again = tmp.path().join("ws2");
    build(&lib, &again);
    assert_eq!(
        std::fs::read_to_string(again.join(DUPLICATES_FILE)).unwrap(),
        text
    );

    let ws = Arc::new(Workspace::open(&ws_dir).unwrap());
    assert_eq!(ws.duplicates().len(), 1);
    let retriever = Retriever::new(ws.clone());
    let on = RetrieveOptions {
        collapse_duplicates: true,
        ..RetrieveOptions::default()
    };
    let r = retriever.retrieve(QUERY, &on).unwrap();
    let ids: Vec<&str> = r.bundle.skills.iter().map(|s| s.id.as_str()).collect();
    let pdf: Vec<&&str> = ids.iter().filter(|id| id.contains("pdf")).collect();
    assert_eq!(pdf.len(), 1, "one copy per bundle: {ids:?}");
    let kept = r
        .bundle
        .skills
        .iter()
        .find(|s| s.id.contains("pdf"))
        .unwrap();
    let mut alt: Vec<&str> = kept.alternates.iter().map(|a| a.id.as_str()).collect();
    alt.sort_unstable();
    let mut expected = vec![
        "alpha/pdf-tables",
        "beta/pdf-tables",
        "gamma/pdf-table-extractor",
    ];
    expected.retain(|e| *e != kept.id);
    assert_eq!(alt, expected);
    for a in &kept.alternates {
        assert_eq!(a.source, format!("{}/SKILL.md", a.id));
        assert!(r.bundle.rendered_context.contains(&a.source));
    }
    assert!(
        r.bundle
            .rendered_context
            .contains("Alternates (copies of this skill, left out): ")
    );
    assert!(r.ranked.iter().all(|c| !alt.contains(&c.id.as_str())));
    // The default collapses them too (one slot per alternative group, which merges the
    // near-duplicate groups).
    let r = retriever
        .retrieve(QUERY, &RetrieveOptions::default())
        .unwrap();
    let ids: Vec<&str> = r.bundle.skills.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(
        ids.iter().filter(|id| id.contains("pdf")).count(),
        1,
        "{ids:?}"
    );
    // Off: every copy competes for a slot.
    let off = RetrieveOptions {
        collapse_alternatives: false,
        bundle_cut: gos_core::retrieve::BundleCut::OFF,
        ..RetrieveOptions::default()
    };
    let r = retriever.retrieve(QUERY, &off).unwrap();
    let pdf = r
        .bundle
        .skills
        .iter()
        .filter(|s| s.id.contains("pdf"))
        .count();
    assert_eq!(pdf, 3);
    assert!(r.bundle.skills.iter().all(|s| s.alternates.is_empty()));
    assert!(!r.bundle.rendered_context.contains("Alternates"));
}

#[test]
fn workspaces_without_groups_open_and_bad_groups_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let lib = tmp.path().join("lib");
    write_skill(&lib, "alpha/pdf-tables", "pdf-tables", PDF_BODY);
    let ws_dir = tmp.path().join("ws");
    build(&lib, &ws_dir);
    assert!(!ws_dir.join(DUPLICATES_FILE).exists(), "no groups, no file");
    assert!(Workspace::open(&ws_dir).unwrap().duplicates().is_empty());
    let bad = r#"{"method":"x","threshold":0.7,"groups":[["alpha/pdf-tables","zz/gone"]]}"#;
    std::fs::write(ws_dir.join(DUPLICATES_FILE), bad).unwrap();
    let err = Workspace::open(&ws_dir).err().expect("refused").to_string();
    assert!(err.contains("unknown skill `zz/gone`"), "{err}");
}
