//! A prerequisite that the skills' text states comes back past the bundle cut, and says why
//! (session 19, a new user's five-skill library): `print-time-estimator` requires
//! `gcode-parser`, by a frontmatter `requires:` or by a sentence of its body. The query matches
//! the parser weakly (a seed at rank 3), so the gap rule cut it and the edge was never read.

use gos_core::retrieve::KeepPrerequisites;
use gos_core::{RetrieveOptions, Retriever, Workspace};
use gos_testkit::workspace::build_lexical;
use std::path::Path;
use std::sync::Arc;

const PARSER: &str = "---
name: gcode-parser
description: Parse G-code files (.gcode) from 3D printers into a list of moves with X/Y/Z coordinates, extrusion and feed rates. Use when a task gives you a .gcode file to read.
---
# G-code parser

Run `python scripts/parse_gcode.py FILE.gcode --json moves.json`.
The output moves.json holds one object per G0/G1 move: x, y, z, e, f.
Comments after `;` are dropped; relative mode (G91) is resolved to absolute positions.
";

const OTHERS: [(&str, &str); 3] = [
    (
        "git-bisect-helper",
        "---
name: git-bisect-helper
description: Find the commit that introduced a bug with git bisect run and a test script.
---
# Git bisect

`git bisect start BAD GOOD && git bisect run ./test.sh`, then `git bisect reset`.
",
    ),
    (
        "pasta-recipes",
        "---
name: pasta-recipes
description: Cook Italian pasta dishes; boiling times, salting the water, sauces such as carbonara and arrabbiata.
---
# Pasta

Boil 1 litre of salted water per 100 g of pasta. Cook spaghetti 9-11 minutes.
",
    ),
    (
        "stl-slicer-setup",
        "---
name: stl-slicer-setup
description: Install and configure PrusaSlicer on the command line to turn STL meshes into printer-ready files for a Prusa printer.
---
# Slicer setup

`apt-get install prusa-slicer`, then `prusa-slicer --export-gcode model.stl --load profile.ini`.
Pick layer height 0.2 mm and infill 15% unless told otherwise.
",
    ),
];

/// The estimator's `SKILL.md` with `requires` as its frontmatter line (or none) and `first` as
/// the first line of its body.
fn estimator(requires: &str, first: &str) -> String {
    format!(
        "---
name: print-time-estimator
{requires}description: Estimate how long a 3D print will take and how much filament it uses, from the parsed moves of a print job.
---
# Print time estimator

{first}
Then run `python scripts/estimate.py moves.json`, which sums move length / feed rate
and adds acceleration overhead, and reports minutes and grams of filament.
"
    )
}

/// The five skills built into `dir/ws` (lexical).
fn workspace(dir: &Path, estimator: &str) -> Arc<Workspace> {
    let lib = dir.join("lib");
    let skills = OTHERS.iter().copied().chain([
        ("gcode-parser", PARSER),
        ("print-time-estimator", estimator),
    ]);
    for (folder, text) in skills {
        std::fs::create_dir_all(lib.join(folder)).unwrap();
        std::fs::write(lib.join(folder).join("SKILL.md"), text).unwrap();
    }
    let ws = dir.join("ws");
    build_lexical(&lib, &ws);
    Arc::new(Workspace::open(&ws).unwrap())
}

const QUERY: &str = "estimate the print time of my 3D print job";

/// `(id, reason)` of each bundle skill.
fn bundle(r: &Retriever, keep: KeepPrerequisites) -> Vec<(String, String)> {
    let opts = RetrieveOptions {
        keep_prerequisites: keep,
        ..RetrieveOptions::default()
    };
    let got = r.retrieve(QUERY, &opts).unwrap();
    got.bundle
        .skills
        .into_iter()
        .map(|s| (s.id, s.reason))
        .collect()
}

fn ids(b: &[(String, String)]) -> Vec<&str> {
    b.iter().map(|(id, _)| id.as_str()).collect()
}

#[test]
fn a_declared_prerequisite_the_query_matches_weakly_stays_and_says_why() {
    let tmp = tempfile::tempdir().unwrap();
    let text = estimator(
        "requires: [gcode-parser]\n",
        "First parse the file with the gcode-parser skill to get moves.json.",
    );
    let r = Retriever::new(workspace(tmp.path(), &text));
    assert_eq!(
        RetrieveOptions::default().keep_prerequisites,
        KeepPrerequisites::Stated
    );
    let off = bundle(&r, KeepPrerequisites::Off);
    assert_eq!(ids(&off), ["print-time-estimator"]);
    let stated = bundle(&r, KeepPrerequisites::Stated);
    assert_eq!(ids(&stated), ["print-time-estimator", "gcode-parser"]);
    assert_eq!(
        stated[1].1,
        "seed match (rank 3: BM25 2.1); prerequisite of print-time-estimator via dependency \
         edge (declared: requires: gcode-parser)"
    );
    assert_eq!(bundle(&r, KeepPrerequisites::All), stated);
}

#[test]
fn a_prerequisite_a_sentence_states_stays_too() {
    let tmp = tempfile::tempdir().unwrap();
    let text = estimator("", "First use the `gcode-parser` skill to get moves.json.");
    let r = Retriever::new(workspace(tmp.path(), &text));
    assert_eq!(
        ids(&bundle(&r, KeepPrerequisites::Off)),
        ["print-time-estimator"]
    );
    let stated = bundle(&r, KeepPrerequisites::Stated);
    assert_eq!(ids(&stated), ["print-time-estimator", "gcode-parser"]);
    assert_eq!(
        stated[1].1,
        "seed match (rank 3: BM25 2.1); prerequisite of print-time-estimator via workflow edge \
         (sequence: First use the gcode-parser skill to get moves.json.)"
    );
}
